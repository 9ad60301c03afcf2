// The one door between the network (src/p2p) and the chain core: what the network may ask of the
// chain and hear from it. The core knows nothing of libp2p; the network knows nothing of the
// core's modules. src/core/core-chain-door.ts implements it over ChainCore; the network only holds
// this interface. Blocks cross it encoded (src/chain/block-codec.ts), transactions as their
// signed serialization: the network moves bytes, the chain decides what they mean.

export interface ChainHead {
  number: bigint;
  hash: Uint8Array;
}

/** Why a block was not imported. `peerFault`: the block is wrong (bad seal, root, encoding…) — its sender is penalised; otherwise (e.g. unknown parent) it may simply be early. */
export interface BlockRefusal {
  /** index in the batch of the block refused; those before it were imported */
  index: number;
  reason: string;
  peerFault: boolean;
}

export interface ImportOutcome {
  /** blocks imported (a block already in the chain counts as imported) */
  imported: number;
  /** transactions in the blocks this call added to the chain (the sync's tx/s) */
  transactions: number;
  refused?: BlockRefusal;
}

/** What became of a transaction a peer sent. `invalid`: a fault of its sender (bad encoding or signature, wrong chain) — penalise; `ignored`: fine but not taken (known, nonce too low, pool full…) — do not relay. */
export type TxOutcome = { kind: 'added' } | { kind: 'ignored'; reason: string } | { kind: 'invalid'; reason: string };

/** A NodeManagement record as the network needs it (admission, dialling consensus nodes). */
export interface NetworkNodeRecord {
  name: string;
  /** 128 hex digits, no 0x: the node key's public point without its 0x04 prefix */
  publicKey: string;
  /** 1 consensus, 2 observer, 3 light */
  type: number;
  /** 1 normal, 2 deleted */
  status: number;
  externalIP: string;
  p2pPort: number;
}

/**
 * eth_syncing's object: geth's and Venachain's startingBlock, currentBlock, highestBlock, then where
 * the sync is (N15). This node's sync is a full sync: every block downloaded and executed.
 */
export interface SyncProgress {
  startingBlock: bigint;
  currentBlock: bigint;
  highestBlock: bigint;
  /** `headers`: a state sync stores headers, bodies and receipts to its pivot; `state`: it fetches the pivot's state; `full`: blocks are executed (N16) */
  phase: 'headers' | 'state' | 'full';
  /** state entries (accounts, slots, codes) a state sync stored */
  pulledStates?: number;
  /** the highest block downloaded with every block before it (imported or waiting for its import) */
  downloadedBlock: bigint;
  /** blocks and transactions imported since this sync started */
  importedBlocks: number;
  importedTransactions: number;
  /** imported blocks a second since this sync started */
  blocksPerSecond: number;
  /** the time left at that rate; undefined until a block is imported */
  secondsLeft: number | undefined;
}

/** Consecutive trie leaves (32-byte keys, in order) and the nodes proving the range's edges (N16). */
export interface RangeAnswer {
  keys: Uint8Array[];
  values: Uint8Array[];
  proof: Uint8Array[];
}

/** A piece of the pivot's state a state sync still needs, leased to one request until it is put or released. */
export type StateTask =
  | { kind: 'accounts'; id: string; root: Uint8Array; origin: Uint8Array; limit: Uint8Array }
  | { kind: 'storage'; id: string; root: Uint8Array; account: Uint8Array; origin: Uint8Array }
  | { kind: 'codes'; id: string; hashes: Uint8Array[] };

/** What became of a peer's answer: `ok` (stored; `more` tasks may have come of it) or why it was refused — the peer's fault. */
export type SnapVerdict = { ok: true; stored: number } | { ok: false; reason: string };

/** Where a state sync stands (kept in the datadir: a restart continues it). */
export interface SnapStatus {
  pivot: bigint;
  /** the highest block whose header, body and receipts are stored */
  stored: bigint;
  /** state entries stored so far */
  pulled: number;
}

/** The joiner's side of a state sync (N16): everything it is handed is verified before it is stored. */
export interface SnapDoor {
  status(): SnapStatus | undefined;
  /** Starts a state sync to block `pivot` (from the head). */
  begin(pivot: bigint): Promise<void>;
  /** Lowers the pivot (no peer serves up to it): never below the blocks stored, and only before the state is asked for. */
  movePivot(pivot: bigint): Promise<void>;
  /** Encoded blocks after the last stored one, each with its receipts (snapReceipts' form), from one peer: stored up to the first that does not verify. */
  storeBlocks(blocks: readonly Uint8Array[], receipts: readonly Uint8Array[]): Promise<{ stored: number; refused?: string }>;
  /** The next piece of state to ask for (leased), undefined when none is free now. */
  nextTask(): StateTask | undefined;
  /** Gives a leased task back unanswered. */
  release(task: StateTask): void;
  putRange(task: StateTask & { kind: 'accounts' | 'storage' }, answer: RangeAnswer): Promise<SnapVerdict>;
  putCodes(task: StateTask & { kind: 'codes' }, codes: readonly Uint8Array[]): Promise<SnapVerdict>;
  /** Whether every piece of the pivot's state is stored. */
  stateComplete(): boolean;
  /** Makes the pivot the head (its state stored and its root checked); the full sync continues from it. */
  finish(): Promise<void>;
}

export interface ChainDoor {
  /** checked in the handshake with the genesis hash: peers on another network are refused */
  readonly networkId: bigint;
  readonly genesisHash: Uint8Array;
  head(): ChainHead;
  /** The hash of this chain's block `number`, undefined above the head (a block at a final height that is not this one is no block of this chain). */
  hashAt(number: bigint): Uint8Array | undefined;
  /** Encoded blocks from `from` on, at most `count` of them and about `maxBytes` together (at least one if it exists): what a peer's range request gets. */
  blocks(from: bigint, count: number, maxBytes: number): Uint8Array[];
  /** Serving a state sync (N16): leaves of the account trie at `root` from `origin`, with their edge proofs; empty when this node lacks the root. */
  accountRange(root: Uint8Array, origin: Uint8Array, limit: Uint8Array, maxItems: number, maxBytes: number): RangeAnswer;
  /** The same in the storage trie of the account whose hashed address is `account` in the state `root`. */
  storageRange(root: Uint8Array, account: Uint8Array, origin: Uint8Array, limit: Uint8Array, maxItems: number, maxBytes: number): RangeAnswer;
  /** The codes held among `hashes` (by their hash), about `maxBytes` at most. */
  codes(hashes: readonly Uint8Array[], maxBytes: number): Uint8Array[];
  /** Per block from `from` on: RLP of its receipts as its receipts trie holds them. */
  snapReceipts(from: bigint, count: number, maxBytes: number): Uint8Array[];
  /** The joiner's side of a state sync. */
  readonly snap: SnapDoor;
  /** Verifies, executes and commits encoded blocks in order (each on its parent); stops at the first refused. */
  importBlocks(encoded: readonly Uint8Array[]): Promise<ImportOutcome>;
  /** The number and hash of an encoded block (to judge gossip before importing it); throws, naming why, when it does not decode. */
  blockId(encoded: Uint8Array): ChainHead;
  /** A transaction a peer sent: admitted to the pool as a remote transaction (never journaled by this node). */
  receiveTransaction(raw: Uint8Array): Promise<TxOutcome>;
  /** The pool's executable transactions, local and remote, sender by sender in nonce order: at most `maxCount` and `maxBytes` together (a prefix of that order). What a new peer is pushed. */
  pendingTransactions(maxCount: number, maxBytes: number): Uint8Array[];
  /** After every new head, whoever made it (this node, gossip, a sync), once isValidator() answers for the block after it. */
  onHead(listener: (head: ChainHead) => void): void;
  /** Each block this node seals, encoded, as it becomes the head: to announce it (imported blocks travel on by the gossip that brought them). */
  onNewBlock(listener: (block: { number: bigint; hash: Uint8Array; encoded: Uint8Array }) => void): void;
  /** Each transaction admitted through this node's RPC: to send to peers (those received from peers are relayed by the gossip itself). */
  onLocalTransaction(listener: (raw: Uint8Array) => void): void;
  /** NodeManagement's records at the head. */
  nodeRecords(): Promise<NetworkNodeRecord[]>;
  /** Called after a block that changed NodeManagement's records becomes the head. */
  onNodeRecordsChanged(listener: () => void): void;
  /** What eth_syncing answers: a progress while a sync runs, undefined when in step. */
  setSyncing(progress: SyncProgress | undefined): void;
  /** Whether this node is a validator of the block after its head (it then takes part in the consensus channel). */
  isValidator(): boolean;
  /** The addresses of the validators of the block after the head (who the consensus channel is among); as isValidator(), read anew before onHead tells a head. */
  validators(): readonly Uint8Array[];
  /** A consensus message (src/consensus/iris) a peer sent: 'invalid' (malformed, or not signed by a validator) penalises the sender; 'ignored' is not relayed. */
  consensusMessage(message: Uint8Array): Promise<ConsensusVerdict>;
  /** Each consensus message this node's engine sends: to deliver to the other validators. */
  onConsensusMessage(listener: (message: Uint8Array) => void): void;
}

/** 'ahead': accepted, for a later block than this node's next (it is behind the sender) */
export type ConsensusVerdict = 'accepted' | 'ahead' | 'ignored' | 'invalid';
