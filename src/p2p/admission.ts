// Who may connect (Venachain's rule): an inbound peer only when its key is a NodeManagement record
// with status 1, or a bootnode / static peer of this node; and who this node keeps dialling:
// the bootnodes and static peers, and the consensus records' externalIP:p2pPort. Outbound dials
// always pass. Banned peers (peer-faults.ts) are refused before this is asked.
import type { Multiaddr } from '@multiformats/multiaddr';
import { multiaddr } from '@multiformats/multiaddr';
import type { NetworkNodeRecord } from '../core/chain-door.ts';
import { peerIdOfNodeId, tcpAddr } from './peer-address.ts';

const STATUS_NORMAL = 1;
const TYPE_CONSENSUS = 1;

export interface DialTarget {
  addr: Multiaddr;
  /** a bootnode or static peer (admin_addPeer); else a consensus record */
  static: boolean;
}

export class Admission {
  /** bootnodes, the genesis' first validator and admin_addPeer's peers, by peer id */
  private readonly statics = new Map<string, Multiaddr>();
  /** peer ids of the records with status 1 */
  private registered = new Set<string>();
  /** peer ids of the consensus records with status 1 */
  private consensus = new Set<string>();
  /** where to dial those of them that name an address */
  private consensusAddrs = new Map<string, Multiaddr>();

  constructor(private readonly selfId: string) {}

  addStatic(peerId: string, addr: Multiaddr): void {
    if (peerId !== this.selfId) this.statics.set(peerId, addr);
  }

  removeStatic(peerId: string): boolean {
    return this.statics.delete(peerId);
  }

  isStatic(peerId: string): boolean {
    return this.statics.has(peerId);
  }

  isConsensus(peerId: string): boolean {
    return this.consensus.has(peerId);
  }

  /** an inbound peer that passes Venachain's rule */
  admits(peerId: string): boolean {
    return this.statics.has(peerId) || this.registered.has(peerId);
  }

  /** NodeManagement's records at the head; a record whose key is not a curve point is skipped */
  setRecords(records: readonly NetworkNodeRecord[]): void {
    const registered = new Set<string>();
    const consensus = new Set<string>();
    const consensusAddrs = new Map<string, Multiaddr>();
    for (const r of records) {
      if (r.status !== STATUS_NORMAL) continue;
      let id: string;
      try {
        id = peerIdOfNodeId(r.publicKey.toLowerCase()).toString();
      } catch {
        continue;
      }
      registered.add(id);
      if (r.type !== TYPE_CONSENSUS) continue;
      consensus.add(id);
      if (id !== this.selfId && r.p2pPort > 0 && r.externalIP !== '') {
        try {
          consensusAddrs.set(id, multiaddr(`${tcpAddr(r.externalIP, r.p2pPort)}/p2p/${id}`));
        } catch {
          // an externalIP that is no IP address: nothing to dial
        }
      }
    }
    this.registered = registered;
    this.consensus = consensus;
    this.consensusAddrs = consensusAddrs;
  }

  /** every peer this node keeps connected, by peer id */
  targets(): Map<string, DialTarget> {
    const out = new Map<string, DialTarget>();
    for (const [id, addr] of this.consensusAddrs) out.set(id, { addr, static: false });
    for (const [id, addr] of this.statics) out.set(id, { addr, static: true });
    return out;
  }
}
