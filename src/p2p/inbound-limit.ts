// Inbound connections per remote address (N12, --p2p.inboundrate). Every connection that reaches
// this node costs its address a token before the noise handshake starts — the handshake is the
// expensive part (key agreement and a secp256k1 signature check), so a refusal here is a closed
// socket and nothing more. A connection whose peer is then refused (no NodeManagement record,
// banned) costs its address a second's worth more, so an address that keeps sending strangers gets
// about one handshake a second. Loopback is an address like any other: behind a local proxy every
// peer arrives from 127.0.0.1, and exempting it would exempt everyone. Addresses in the exempt list
// (--p2p.inboundrate.exempt) are not counted.
import { BlockList, isIP } from 'node:net';
import { parseCidr } from '../util/cidr.ts';

/** libp2p's own default (5 a second per address); a burst of twice that passes at once. */
export const DEFAULT_INBOUND_RATE = 5;
const BURST_SECONDS = 2;
/** Buckets kept before the full ones are forgotten (a full bucket is the same as none). */
const SWEEP_AT = 4096;

interface Bucket {
  tokens: number;
  at: number;
}

export class InboundLimit {
  private readonly buckets = new Map<string, Bucket>();
  private readonly exempt = new BlockList();

  /** `perSecond` 0: no limit. `exempt`: CIDRs (`127.0.0.0/8`, `10.0.0.0/8`, `::1/128`). */
  constructor(
    private readonly perSecond: number,
    exempt: readonly string[] = [],
  ) {
    for (const cidr of exempt) {
      const { address, prefix, family } = parseCidr(cidr);
      this.exempt.addSubnet(address, prefix, family);
    }
  }

  /** Whether a new connection from `ip` may start its handshake; takes a token when it may. */
  admit(ip: string | undefined): boolean {
    if (ip === undefined || this.perSecond === 0 || this.isExempt(ip)) return true;
    const b = this.bucket(ip);
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }

  /** The connection from `ip` was refused after its handshake: its address pays a second's worth more. */
  refused(ip: string | undefined): void {
    if (ip === undefined || this.perSecond === 0 || this.isExempt(ip)) return;
    this.bucket(ip).tokens -= this.perSecond;
  }

  private isExempt(ip: string): boolean {
    const family = isIP(ip) === 6 ? 'ipv6' : 'ipv4';
    return this.exempt.check(ip, family);
  }

  private bucket(ip: string): Bucket {
    const now = Date.now();
    const capacity = this.perSecond * BURST_SECONDS;
    let b = this.buckets.get(ip);
    if (b === undefined) {
      if (this.buckets.size >= SWEEP_AT) this.sweep(now, capacity);
      b = { tokens: capacity, at: now };
      this.buckets.set(ip, b);
    }
    b.tokens = Math.min(capacity, b.tokens + ((now - b.at) / 1000) * this.perSecond);
    b.at = now;
    return b;
  }

  private sweep(now: number, capacity: number): void {
    for (const [ip, b] of this.buckets) if (b.tokens + ((now - b.at) / 1000) * this.perSecond >= capacity) this.buckets.delete(ip);
  }
}

