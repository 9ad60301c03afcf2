// The chain behind the RPC handlers, wired together: store, genesis, chain, state readers,
// executor, call runner, pool, sealer, keystore and events. Knows nothing about JSON-RPC.
import { isAbsolute, join } from 'node:path';
import { availableParallelism } from 'node:os';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import type { Common } from '@ethereumjs/common';
import { openStore, StoreError, type Store } from '../store/lmdb-store.ts';
import { headProblem } from '../chain/db-check.ts';
import { OverlayTrieDB } from '../state/trie-db.ts';
import { StateReader, type StateView } from '../state/reader.ts';
import { Chain, type HeadInfo } from '../chain/chain.ts';
import type { BlockRules } from '../consensus/block-rules.ts';
import { ChainParamsReader, type ChainParams } from './chain-params.ts';
import { parseGenesis, readGenesisFile, type ChainConfig } from '../chain/genesis.ts';
import { buildGenesisBlock } from '../chain/genesis-block.ts';
import { makeCommon, makeTxCommon } from '../tx/common.ts';
import { BlockExecutor, type ChainExecConfig, type ExecutedBlock } from '../exec/executor.ts';
import { OverBudgetDrops } from '../txpool/over-budget.ts';
import { FreeWork } from '../txpool/free-work.ts';
import { CallRunner } from '../exec/call.ts';
import { blockHashSource } from '../exec/block-hashes.ts';
import { TxPool } from '../txpool/pool.ts';
import { DEFAULT_REJOURNAL_MS, DEFAULT_TX_JOURNAL, type TxPoolConfig } from '../txpool/config.ts';
import { readJournal, TxJournal, type JournalRecord } from '../txpool/journal.ts';
import { TxAdmission, TxMalformed, TxRejected, type AdmissionRules } from '../txpool/admission.ts';
import type { ImportOutcome, SyncProgress, TxOutcome } from './chain-door.ts';
import { BlockImport } from './block-import.ts';
import { SnapServer } from './snap-serve.ts';
import { SnapJoin } from './snap-join.ts';
import type { PooledTx } from '../tx/pooled-tx.ts';
import { recoveryHere, startRecoveryThreads, type SignatureRecovery } from '../tx/signature-recovery.ts';
import { Sealer } from '../consensus/sealer.ts';
import { ConsensusChannel } from './consensus-channel.ts';
import { CoreIrisChain } from './iris-chain.ts';
import { IrisEngine } from '../consensus/iris/engine.ts';
import type { IrisTestModes } from '../consensus/iris/test-modes.ts';
import { FileConsensusLog } from './consensus-log-file.ts';
import { validatorsAfter } from '../consensus/validator-set.ts';
import { ChainEvents } from '../chain/events.ts';
import { Keystore } from '../accounts/keystore.ts';
import { AccountManager } from '../accounts/manager.ts';
import { LedgerHub, nodeHidTransports, type LedgerTransports } from '../accounts/ledger.ts';
import { loadOrCreateNodeKey, type NodeKey } from '../crypto/node-key.ts';
import { devGenesis, storedDevGenesis } from './dev-genesis.ts';
import { bytesToHex, equalBytes, hexToBytes } from '../util/hex.ts';
import type { NodeLogger } from '../util/logger.ts';

export interface CoreOptions {
  datadir: string;
  genesisFile?: string;
  /** block period for a new dev chain (seconds, fractions of one for tests; 0 = seal on demand) */
  devPeriod: number;
  sealEmpty: boolean;
  minGasPrice: bigint;
  lightKdf: boolean;
  p2pPort: number;
  /** the HTTP port, recorded in the dev chain's node record (NodeManagement rpcPort) */
  rpcPort?: number;
  /** pool limits (--txpool.*); geth's defaults for what is left out */
  txpool?: Partial<TxPoolConfig>;
  log: NodeLogger;
  /** the USB side of Ledger support (default: node-hid); tests replay recorded APDU exchanges */
  ledgerTransports?: LedgerTransports;
  /** plain value transfers skip @ethereumjs's runTx (default: on chains with a block period, P8) */
  directTransfers?: boolean;
  /** eth_call / estimateGas run view-like messages on the view interpreter (default: on, A17) */
  fastViews?: boolean;
  /** the transaction journal, in the datadir unless absolute; '' turns it off (default transactions.rlp) */
  txJournal?: string;
  /** how often the journal is rewritten from the pool (default 1 h) */
  txRejournalMs?: number;
  /** no local treatment of the transactions this node signs, and no journal (--txpool.nolocals) */
  txNoLocals?: boolean;
  /** unlock the dev account at start (default: true; node.ts: not behind a listener others can reach) */
  unlockDevAccount?: boolean;
  /** threads that recover transaction senders (A20; default: one on a chain with a block period and a machine with 3+ cores, else none) */
  recoveryThreads?: number;
  /** most execution time one transaction may take in a block this node proposes (--miner.txtimeout; 0: none; default DEFAULT_TX_BUDGET_MS) */
  txBudgetMs?: number;
  /** most execution time a block this node proposes may take, ms (--miner.buildtime; 0: none; default a third of the genesis' istanbul.timeout, S13) */
  buildMs?: number;
  /** false: neither the sealer nor the iris engine, whatever the node key (`chain-node import`: the import is the chain's one writer) */
  seal?: boolean;
  /** for tests only: CHAIN_NODE_IRIS_TEST's crash cues and lies (I12) */
  irisTest?: IrisTestModes;
}

/**
 * The proposer's time budget per transaction: with 1.5e9 gas a transaction (TxGasLimit on
 * genesis-file chains) at ~2e7 gas/s an endless loop ran 75 s. 5 s (geth's --rpc.evmtimeout) holds a
 * dev chain's 30M-gas limit (~1.5 s idle, 2.4 s measured on a loaded machine) with room to spare.
 */
const DEFAULT_TX_BUDGET_MS = 5000;

/**
 * The proposer's build time by default, as a share of the round timeout (S13): the proposer builds,
 * then every validator executes the same block, then two rounds of votes, all inside the round.
 */
const BUILD_SHARE_OF_ROUND = 1 / 3;

export class ChainCore {
  readonly events = new ChainEvents();
  private sealer: Sealer | undefined;
  /** the validator set of the block after the head (refreshNextValidators) */
  private nextValidators: Uint8Array[] = [];
  /** settles once the set of the block after the newest head is read: what isValidatorNext() answers lags a new head until then */
  nextValidatorsRead: Promise<void> = Promise.resolve();
  /** transactions a proposer of this node dropped for its time budget, refused when they come back */
  private readonly overBudget: OverBudgetDrops;
  /** unpaid work's bounds and the senders cooling down (S14) */
  readonly freeWork: FreeWork;
  /** the one path into the pool, for clients' and peers' transactions */
  private readonly admission: TxAdmission;
  /** every transaction answered with a hash, on disk until mined (item 9); off while it is replayed */
  private journal: TxJournal | undefined;
  /** ParameterManagement's values in force after a block (the head's: read once per head) */
  private readonly params: ChainParamsReader;
  /** blocks from peers (set once the core is open) */
  private importer!: BlockImport;
  /** the multi-validator consensus */
  iris: IrisEngine | undefined;
  /** DATADIR/consensus.log: what the iris engine signed (I9) */
  private consensusLog: FileConsensusLog | undefined;
  /** recovers the senders and seals of imported blocks */
  private importRecovery!: SignatureRecovery;
  /** what eth_syncing answers: the sync's progress while it runs, undefined when in step */
  syncProgress: SyncProgress | undefined;
  /** what state-syncing peers are served (N16) */
  snapServer!: SnapServer;
  /** this node's own state sync (N16) */
  snapJoin!: SnapJoin;
  /** the consensus engine's messages to and from the network (the door's consensus channel) */
  readonly consensus = new ConsensusChannel();

  private constructor(
    readonly datadir: string,
    readonly store: Store,
    readonly chain: Chain,
    readonly config: ChainConfig,
    /** the Common transactions are decoded and signed with (shared; see makeTxCommon) */
    readonly common: Common,
    readonly trieDb: OverlayTrieDB,
    readonly state: StateReader,
    readonly executor: BlockExecutor,
    readonly calls: CallRunner,
    readonly pool: TxPool,
    readonly keystore: Keystore,
    /** every account the node signs for: the keystore's and those of opened Ledger devices */
    readonly accounts: AccountManager,
    readonly nodeKey: NodeKey,
    readonly devAccount: string | undefined,
    readonly minGasPrice: bigint,
    private readonly log: NodeLogger,
    /** recovers the senders of submitted transactions: on the event loop or on recovery threads (A20) */
    private readonly recovery: SignatureRecovery,
    /** --txpool.nolocals: what this node signs is pooled as remote */
    private readonly noLocals: boolean,
  ) {
    this.params = new ChainParamsReader(state, config.txGasLimit, config.blockGasBound);
    this.overBudget = new OverBudgetDrops();
    this.freeWork = new FreeWork(config.blockGasBound, (hash) => pool.has(hash));
    const admissionChain = {
      rules: () => this.admissionRules(),
      headState: () => this.state.at(this.chain.head.header.stateRoot),
      isMined: (hash: Uint8Array) => this.chain.txLocation(hash) !== undefined,
    };
    this.admission = new TxAdmission(common, admissionChain, pool, this.overBudget, this.freeWork, recovery);
    this.events.onBlock(({ block, receipts }) => {
      if (block.txHashes) this.freeWork.blockOutcomes(block.txHashes.map(bytesToHex), receipts);
    });
  }

  /** The time budgets of a block this node proposes: per transaction and for the whole block. */
  private buildBudget(o: CoreOptions): { txMs: number; buildMs: number } {
    const off = (ms: number) => (ms === 0 ? Infinity : ms);
    return { txMs: off(o.txBudgetMs ?? DEFAULT_TX_BUDGET_MS), buildMs: off(o.buildMs ?? Math.round(this.config.istanbul.timeout * BUILD_SHARE_OF_ROUND)) };
  }

  /**
   * Transactions a block this node built left out as invalid: dropped from the pool (also when
   * no block comes of it), and those over a time budget remembered, their senders cooling down.
   */
  private async droppedWork(invalid: ExecutedBlock['invalid']): Promise<void> {
    if (invalid.length === 0) return;
    for (const i of invalid) {
      this.log.child('consensus').warn(`dropped ${i.ptx.hashHex}: ${i.reason}`, { tx: i.ptx.hashHex });
      if (!i.overBudget) continue;
      this.overBudget.remember(i.ptx.hashHex, i.reason);
      if (!this.pool.isLocal(i.ptx.senderHex)) this.freeWork.coolDown(i.ptx.senderHex, `its transaction ${i.ptx.hashHex} was dropped: ${i.reason}`);
    }
    // no account changed: the pool only drops them
    await this.pool.onBlock([], invalid.map((i) => i.ptx), new Map());
  }

  static async open(o: CoreOptions): Promise<ChainCore> {
    mkdirSync(o.datadir, { recursive: true });
    const nodeKey = loadOrCreateNodeKey(o.datadir);
    const keystore = new Keystore(join(o.datadir, 'keystore'), o.lightKdf);
    const store = openStore(o.datadir);
    // a head whose header or state root is gone would serve balance 0 for every account: refuse
    const damage = headProblem(store);
    if (damage) {
      await store.close();
      throw new StoreError(`database ${join(o.datadir, 'chaindata')} is damaged: ${damage} (chain-node db check --datadir ${o.datadir} lists all damage)`);
    }
    const chain = new Chain(store);
    const trieDb = new OverlayTrieDB(store.trie);
    let devAccount: string | undefined;
    if (!chain.initialized) {
      let raw: unknown;
      if (o.genesisFile) {
        raw = readGenesisFile(o.genesisFile).raw;
      } else {
        // light scrypt, as geth --dev: the password is empty, a high cost would only slow every start
        devAccount = await keystore.newAccount('', true);
        raw = await devGenesis(nodeKey, devAccount, o.devPeriod, o.p2pPort, o.rpcPort ?? 0);
      }
      const genesis = parseGenesis(raw);
      const block = await buildGenesisBlock(genesis, makeCommon(genesis.config.chainId), trieDb);
      // queued writes commit in order, with or before the genesis block's transaction (one sync, not three)
      const written = [store.meta.put('genesisJson', JSON.stringify(raw)), devAccount && store.meta.put('devAccount', devAccount)];
      await chain.commitBlock(block, [], trieDb, trieDb.seal(), []);
      await Promise.all(written);
      writeFileSync(join(o.datadir, 'genesis.json'), JSON.stringify(raw, null, 2) + '\n');
      o.log.info(`initialized chain ${genesis.config.chainId} in ${o.datadir}, genesis ${bytesToHex(block.hash)}`);
    } else if (o.genesisFile && existsSync(o.genesisFile)) {
      o.log.warn(`datadir already holds a chain; --genesis ${o.genesisFile} is ignored`);
    }
    devAccount ??= store.meta.get('devAccount') as string | undefined;
    // the dev account's key derives on the thread pool while the rest opens (awaited below; the
    // catch only keeps a failure from counting as unhandled, and ending the process, meanwhile)
    const devUnlocked = devAccount && o.unlockDevAccount !== false ? keystore.unlock(devAccount, '', Infinity) : undefined;
    devUnlocked?.catch(() => {});
    const storedGenesis = JSON.parse(store.meta.get('genesisJson') as string);
    // only a dev chain stores a dev account
    const genesis = parseGenesis(devAccount ? storedDevGenesis(storedGenesis) : storedGenesis);
    const common = makeCommon(genesis.config.chainId);
    const hashes = blockHashSource((n) => chain.hashByNumber(n));
    const state = new StateReader(trieDb, common);
    state.setHead(chain.head.header.stateRoot);
    // plain transfers skip runTx only on chains sealed by the clock (P8): with period 0 a block holds
    // what arrived while the previous one was being built, and faster blocks only make them smaller
    const execConfig: ChainExecConfig = {
      txGasLimit: genesis.config.txGasLimit,
      interpreter: genesis.config.interpreter,
      wasm: { log: o.log.child('wasm'), creatorOf: (a) => chain.creatorOf(a) },
    };
    const executor = await BlockExecutor.create(common, trieDb, chain.head.header.stateRoot, hashes, execConfig, o.directTransfers ?? genesis.config.istanbul.period > 0);
    const calls = await CallRunner.create(common, trieDb, hashes, state, execConfig, o.fastViews);
    const pool = new TxPool(
      {
        // always the current head: the pool re-bases on it after every block
        async account(sender) {
          const a = await state.at(chain.head.header.stateRoot).getAccount(hexToBytes(sender));
          return { nonce: a?.nonce ?? 0n, balance: a?.balance ?? 0n };
        },
      },
      o.txpool,
    );
    const poolLog = o.log.child('txpool');
    pool.onDropped((ptx, reason) => poolLog.debug(`txpool: dropped ${ptx.hashHex}: ${reason}`, { tx: ptx.hashHex }));
    const txCommon = makeTxCommon(genesis.config.chainId);
    // A20: recovery beside the event loop frees a third of its time per transaction, which pays where
    // a core is free for it (3+; on 2 the load generator took it: admission within noise) and blocks
    // come by the clock — sealing on demand, blocks only got smaller and more numerous (measured)
    const recoveryThreads = o.recoveryThreads ?? (genesis.config.istanbul.period > 0 && availableParallelism() >= 3 ? 1 : 0);
    const recovery = recoveryThreads > 0 ? startRecoveryThreads(recoveryThreads, poolLog) : recoveryHere;
    const isUsed = async (address: string) => {
      const account = await state.at(chain.head.header.stateRoot).getAccount(hexToBytes(address));
      return account !== undefined && (account.nonce > 0n || account.balance > 0n);
    };
    const accountsLog = o.log.child('accounts');
    const ledger = new LedgerHub(o.ledgerTransports ?? nodeHidTransports(), isUsed, (m) => accountsLog.info(m));
    const accounts = new AccountManager(keystore, ledger, txCommon);
    const core = new ChainCore(o.datadir, store, chain, genesis.config, txCommon, trieDb, state, executor, calls, pool, keystore, accounts, nodeKey, devAccount, o.minGasPrice, o.log, recovery, o.txNoLocals ?? false);
    pool.onPending((ptx) => core.events.emitPendingTx(ptx));
    // geth keeps no journal without local treatment either
    const journal = o.txNoLocals ? '' : (o.txJournal ?? DEFAULT_TX_JOURNAL);
    if (journal) await core.openJournal(isAbsolute(journal) ? journal : join(o.datadir, journal), o.txRejournalMs ?? DEFAULT_REJOURNAL_MS);
    await devUnlocked;
    await core.refreshNextValidators();
    core.events.onBlock(() => void (core.nextValidatorsRead = core.refreshNextValidators()));
    if (o.seal !== false) core.startSealing(o);
    // Blocks from peers come in hundreds while a node syncs, and their senders and seals are its
    // largest cost after execution: recovered (and their transactions decoded, N9) beside the event
    // loop wherever there is a second core (the admission measurements of A20 do not apply: no load
    // generator shares the machine), on every core but the event loop's up to four: on 2 cores the
    // one thread is busy ~75 % of a sync (profiled). The threads start with the first block imported.
    const importThreads = Math.min(4, availableParallelism() - 1);
    core.importRecovery = recoveryThreads >= importThreads || importThreads < 1 ? recovery : startRecoveryThreads(importThreads, poolLog);
    core.importer = new BlockImport({
      chain,
      executor,
      state,
      pool,
      events: core.events,
      common: txCommon,
      recovery: core.importRecovery,
      // the importer runs each block on its parent's state: the rules read that live state
      rules: (parent) => core.blockRules(parent, false, executor.viewAt(parent.header.stateRoot)),
      // without a sealer (chain-node import) the import writes the chain whatever the node key
      sealing: () => o.seal !== false && core.sealsAlone(),
      directTransfers: o.directTransfers ?? true,
      verifyMs: genesis.config.istanbul.timeout,
      log: o.log.child('import'),
    });
    core.snapServer = new SnapServer(trieDb, chain);
    core.snapJoin = new SnapJoin({ store, chain, common: txCommon, recovery: core.importRecovery, writer: (write) => core.importer.asWriter(write), adopted: () => core.adoptedHead() });
    if (o.seal !== false) core.startIris(o);
    return core;
  }

  /** A state sync made its pivot the head: the readers, the executor and the next set follow it. */
  private async adoptedHead(): Promise<void> {
    const root = this.chain.head.header.stateRoot;
    this.state.setHead(root);
    await this.executor.rollback(root);
    await this.refreshNextValidators();
    // what peers pushed was judged at the old head: every sender re-based on the pivot's state
    await this.pool.onBlock([], []);
  }

  /** The iris engine (every node runs one; it takes part only at heights whose set holds this node and others). */
  private startIris(o: CoreOptions): void {
    const ist = this.config.istanbul;
    const chain = new CoreIrisChain({
      chain: this.chain,
      executor: this.executor,
      pool: this.pool,
      events: this.events,
      writer: this.importer,
      key: this.nodeKey,
      rules: (parent) => this.blockRules(parent, o.sealEmpty),
      period: ist.period,
      budget: this.buildBudget(o),
      onDropped: (invalid) => this.droppedWork(invalid),
    });
    const log = this.log.child('consensus');
    if (o.irisTest) log.warn(`iris: CHAIN_NODE_IRIS_TEST is set: for tests only — this node crashes on cue or lies on purpose (${[...o.irisTest.lies, o.irisTest.crashAfter && `crash after ${o.irisTest.crashAfter}`, o.irisTest.signAgainstLog && 'sign-against-log'].filter(Boolean).join(', ')})`);
    this.consensusLog = new FileConsensusLog(this.datadir, log);
    this.iris = new IrisEngine({ chain, transport: this.consensus, key: this.nodeKey, policy: ist.policy, timeoutMs: ist.timeout, periodSeconds: Math.ceil(ist.period), log, consensusLog: this.consensusLog, test: o.irisTest });
    this.iris.start();
  }

  /** eth_mining: this node is a validator of the next block (alone, its sealer writes the chain; with others, it votes in iris). */
  get sealing(): boolean {
    return this.isValidatorNext();
  }

  /** The single-validator sealer writes the chain: the next block's set is this node alone (it then imports nothing). */
  sealsAlone(): boolean {
    const next = this.nextValidators;
    return next.length === 1 && equalBytes(next[0]!, this.nodeKey.address);
  }

  /** The validator set of the block after the head (addresses). */
  validatorsNext(): readonly Uint8Array[] {
    return this.nextValidators;
  }

  /** Whether this node's key is in the validator set of the block after the head. */
  isValidatorNext(): boolean {
    return this.nextValidators.some((v) => equalBytes(v, this.nodeKey.address));
  }

  /** Reads the set of the block after the head again (after every new head: a block may have changed NodeManagement's records). */
  private async refreshNextValidators(): Promise<void> {
    const head = this.chain.head;
    const validators = (await this.blockRules(head, false)).validators;
    if (equalBytes(this.chain.head.hash, head.hash)) this.nextValidators = validators;
  }

  /**
   * The sealer runs on every node and seals only while the next block's set is this node alone (a
   * node may become that later); a larger set containing this node is the iris engine's.
   */
  private startSealing(o: CoreOptions): void {
    if (!this.isValidatorNext()) this.log.info('this node is not a validator of the chain: it serves the chain without sealing');
    this.sealer = new Sealer({
      chain: this.chain,
      executor: this.executor,
      pool: this.pool,
      key: this.nodeKey,
      events: this.events,
      period: this.config.istanbul.period,
      rules: (parent) => this.blockRules(parent, o.sealEmpty),
      budget: this.buildBudget(o),
      onDropped: (invalid) => this.droppedWork(invalid),
      onCommitted: (block, written) => this.state.setHead(block.header.stateRoot, written),
      log: this.log.child('consensus'),
    });
    this.sealer.start();
  }

  /**
   * The rules of the block on `parent`. Validators: NodeManagement's records after the parent
   * (validator-set.ts). Gas limits and empty blocks: the parameters after the parent
   * (chain-params.ts); empty blocks also by --seal.empty. `view`: the state after `parent`, when
   * the caller has one.
   */
  async blockRules(parent: HeadInfo, sealEmpty: boolean, view?: StateView): Promise<BlockRules> {
    // one view of the parent's state for both reads (an imported block's parent is not the head)
    view ??= this.state.at(parent.header.stateRoot);
    const params = await this.params.after(parent, view);
    return {
      validators: await validatorsAfter(view, parent.header),
      txGasLimit: params.txGasLimit,
      gasLimit: params.blockGasLimit ?? parent.header.gasLimit,
      gasBound: this.config.blockGasBound,
      produceEmpty: sealEmpty || params.produceEmpty,
    };
  }

  /** Where the senders of the transactions of imported and verified blocks came from (metrics). */
  get importSenders(): { readonly pool: number; readonly recovered: number } {
    return this.importer.senders;
  }

  /** Blocks from peers, verified, executed and committed in order (ChainDoor.importBlocks). */
  importBlocks(encoded: readonly Uint8Array[]): Promise<ImportOutcome> {
    return this.importer.importBlocks(encoded);
  }

  /** The parameters the next block is built under: what admission, gas estimates and default gas follow. */
  headParams(): Promise<ChainParams> {
    return this.params.after(this.chain.head);
  }

  /** What a transaction is admitted under: the head's parameters (the remembered read: admission is a hot path). */
  async admissionRules(): Promise<AdmissionRules> {
    const head = this.chain.head;
    const params = await this.params.after(head);
    return { chainId: this.config.chainId, minGasPrice: this.minGasPrice, blockGasLimit: params.blockGasLimit ?? head.header.gasLimit, txGasLimit: params.txGasLimit, txGasLimitSet: params.txGasLimitSet };
  }

  /**
   * Validates a signed transaction and adds it to the pool; returns it (hash etc.). `local`: this
   * node signed it (eth_sendTransaction, personal_*, resend) — geth's "locals", whose senders the
   * pool never evicts; eth_sendRawTransaction submits remote transactions.
   */
  async submitRawTransaction(raw: Uint8Array, local = false): Promise<PooledTx> {
    local &&= !this.noLocals;
    const ptx = await this.admission.admit(raw, { local });
    // the answer waits for the journal's write (of the admissions of its event-loop turn together);
    // a transaction the node signed also for the sync: its sender has no signed copy to send again
    await this.journal?.append({ raw: ptx.raw, local: this.pool.isLocal(ptx.senderHex) }, local);
    this.events.emitSubmittedTx(ptx);
    return ptx;
  }

  /**
   * A transaction a peer sent: the admission of submitRawTransaction, as a remote transaction that
   * this node's journal never keeps (its sender's node answered it and journals it). `invalid`: the
   * peer sent something no node would take (TxMalformed); `ignored`: valid but not taken here.
   */
  async receiveRemoteTransaction(raw: Uint8Array): Promise<TxOutcome> {
    try {
      await this.admission.admit(raw, { local: false, fromPeer: true });
    } catch (e) {
      if (!(e instanceof TxRejected)) throw e;
      return { kind: e instanceof TxMalformed ? 'invalid' : 'ignored', reason: e.message };
    }
    return { kind: 'added' };
  }

  /**
   * Replays the journal into the pool through admission, which refuses what was mined, replaced or
   * made stale meanwhile (counted, left out), then keeps it from here on, rewritten from the pool.
   */
  private async openJournal(path: string, rewriteEveryMs: number): Promise<void> {
    const { records, unreadableBytes } = readJournal(path);
    const log = this.log.child('txpool');
    let dropped = 0;
    for (const { raw, local } of records) {
      try {
        await this.submitRawTransaction(raw, local);
      } catch (e) {
        dropped++;
        log.debug(`txpool journal: not replayed: ${(e as Error).message}`);
      }
    }
    this.journal = await TxJournal.open({ path, rewriteEveryMs, contents: () => this.journalContents(), chainDurable: () => this.store.flushed(), log });
    if (records.length > 0 || unreadableBytes > 0) {
      const cut = unreadableBytes > 0 ? `; ${unreadableBytes} bytes at its end are no record (an append cut short by a crash, never answered) and were dropped` : '';
      log.info(`txpool journal ${path}: ${records.length - dropped} of ${records.length} transactions replayed, ${dropped} refused (mined, replaced or stale)${cut}`);
    }
  }

  /** What the journal holds: every pooled transaction that came through this node's RPC (peers' are theirs to keep). */
  private *journalContents(): Generator<JournalRecord> {
    const { pending, queued } = this.pool.listing();
    for (const bySender of [pending, queued]) {
      for (const [sender, txs] of bySender) {
        const local = this.pool.isLocal(sender);
        for (const ptx of txs) if (!ptx.fromPeer) yield { raw: ptx.raw, local };
      }
    }
  }

  async close(): Promise<void> {
    await this.sealer?.stop();
    await this.iris?.stop();
    this.consensusLog?.close();
    await this.importer.idle();
    await this.journal?.close();
    await Promise.all([this.executor.close(), this.calls.close()]);
    await this.recovery.close();
    if (this.importRecovery !== this.recovery) await this.importRecovery.close();
    this.pool.close();
    await this.accounts.close();
    await this.store.close();
  }
}
