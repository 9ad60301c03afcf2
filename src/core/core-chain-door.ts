// The chain side of the network's door (src/core/chain-door.ts): what peers may ask of this node's
// chain and what it tells them, over ChainCore. Transactions and blocks cross it as bytes.
import type { ChainDoor, ChainHead, ConsensusVerdict, ImportOutcome, NetworkNodeRecord, RangeAnswer, SnapDoor, SyncProgress, TxOutcome } from './chain-door.ts';
import type { ChainCore } from './core.ts';
import { decodeBlock, encodeBlock } from '../chain/block-codec.ts';
import { NODE_MANAGEMENT, systemStateAt, systemStorageRoot } from '../exec/native/system-state.ts';
import { bytesToHex, equalBytes } from '../util/hex.ts';
import { keccak256 } from '../crypto/keccak.ts';


export class CoreChainDoor implements ChainDoor {
  readonly networkId: bigint;
  readonly genesisHash: Uint8Array;
  constructor(private readonly core: ChainCore) {
    this.networkId = core.config.chainId;
    this.genesisHash = core.chain.genesis.hash;
  }

  head(): ChainHead {
    const { header, hash } = this.core.chain.head;
    return { number: header.number, hash };
  }

  hashAt(number: bigint): Uint8Array | undefined {
    return this.core.chain.hashByNumber(number);
  }

  blocks(from: bigint, count: number, maxBytes: number): Uint8Array[] {
    const { chain } = this.core;
    const out: Uint8Array[] = [];
    let bytes = 0;
    for (let n = from; out.length < count && n <= chain.headNumber && (out.length === 0 || bytes < maxBytes); n++) {
      const block = chain.block(chain.hashByNumber(n)!)!;
      const encoded = encodeBlock(block.header, block.txs);
      bytes += encoded.length;
      out.push(encoded);
    }
    return out;
  }

  accountRange(root: Uint8Array, origin: Uint8Array, limit: Uint8Array, maxItems: number, maxBytes: number): RangeAnswer {
    return this.core.snapServer.accountRange(root, origin, limit, maxItems, maxBytes);
  }

  storageRange(root: Uint8Array, account: Uint8Array, origin: Uint8Array, limit: Uint8Array, maxItems: number, maxBytes: number): RangeAnswer {
    return this.core.snapServer.storageRange(root, account, origin, limit, maxItems, maxBytes);
  }

  codes(hashes: readonly Uint8Array[], maxBytes: number): Uint8Array[] {
    return this.core.snapServer.codes(hashes, maxBytes);
  }

  snapReceipts(from: bigint, count: number, maxBytes: number): Uint8Array[] {
    return this.core.snapServer.receipts(from, count, maxBytes);
  }

  get snap(): SnapDoor {
    return this.core.snapJoin;
  }

  blockId(encoded: Uint8Array): ChainHead {
    const { header, hash } = decodeBlock(encoded);
    return { number: header.number, hash };
  }

  importBlocks(encoded: readonly Uint8Array[]): Promise<ImportOutcome> {
    return this.core.importBlocks(encoded);
  }

  async receiveTransaction(raw: Uint8Array): Promise<TxOutcome> {
    // a new peer's push (tx-sync.ts) repeats much of what the pool holds: one hash instead of a decoding and a signature recovery
    if (this.core.pool.has(bytesToHex(keccak256(raw)))) return { kind: 'ignored', reason: 'already known' };
    return this.core.receiveRemoteTransaction(raw);
  }

  pendingTransactions(maxCount: number, maxBytes: number): Uint8Array[] {
    const out: Uint8Array[] = [];
    let bytes = 0;
    for (const { raw } of this.core.pool.executable()) {
      if (out.length === maxCount || bytes + raw.length > maxBytes) break;
      out.push(raw);
      bytes += raw.length;
    }
    return out;
  }

  onHead(listener: (head: ChainHead) => void): void {
    // once the core has read the next block's set: a block that promoted this node is told with isValidator() true
    this.core.events.onBlock(({ block }) => {
      const tell = () => listener({ number: block.header.number, hash: block.hash });
      void this.core.nextValidatorsRead.then(tell, tell);
    });
  }

  onNewBlock(listener: (block: { number: bigint; hash: Uint8Array; encoded: Uint8Array }) => void): void {
    // only blocks this node sealed: an imported one came by gossip, which relays it itself (publishing
    // the same bytes again is a duplicate gossipsub drops), or by a sync of blocks peers already have
    const me = this.core.nodeKey.address;
    this.core.events.onBlock(({ block }) => equalBytes(block.header.miner, me) && listener({ number: block.header.number, hash: block.hash, encoded: encodeBlock(block.header, block.txs) }));
  }

  onLocalTransaction(listener: (raw: Uint8Array) => void): void {
    this.core.events.onSubmittedTx((ptx) => listener(ptx.raw));
  }

  async nodeRecords(): Promise<NetworkNodeRecord[]> {
    const records = await systemStateAt(this.core.state.at(this.core.chain.head.header.stateRoot)).nodes.all();
    return records.map(({ name, publicKey, type, status, externalIP, p2pPort }) => ({ name, publicKey, type, status, externalIP, p2pPort }));
  }

  onNodeRecordsChanged(listener: () => void): void {
    // NodeManagement's storage root moves exactly when a block changed its records
    let root: string | undefined;
    const rootAtHead = async () => {
      return systemStorageRoot(this.core.state.at(this.core.chain.head.header.stateRoot), NODE_MANAGEMENT);
    };
    void rootAtHead().then((r) => (root ??= r));
    this.core.events.onBlock(() => {
      void rootAtHead().then((r) => {
        if (r === root) return;
        root = r;
        listener();
      });
    });
  }

  setSyncing(progress: SyncProgress | undefined): void {
    this.core.syncProgress = progress;
  }

  isValidator(): boolean {
    return this.core.isValidatorNext();
  }

  validators(): readonly Uint8Array[] {
    return this.core.validatorsNext();
  }

  consensusMessage(message: Uint8Array): Promise<ConsensusVerdict> {
    return this.core.consensus.receive(message);
  }

  onConsensusMessage(listener: (message: Uint8Array) => void): void {
    this.core.consensus.onOutgoing(listener);
  }
}
