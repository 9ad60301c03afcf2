// Single-validator istanbul sealing. With `period` > 0 a block every `period` seconds (empty ones
// only with --seal.empty); with `period` 0 a block as soon as executable transactions wait, all of
// them in one block. Blocks carry the istanbul extra with the proposer seal and this validator's
// committed seal, exactly as the multi-node BFT will produce them.
import type { Chain } from '../chain/chain.ts';
import { headerHash, headerSigHash, type Header } from '../chain/header.ts';
import type { BlockRecord } from '../chain/types.ts';
import type { BlockExecutor } from '../exec/executor.ts';
import type { TxPool } from '../txpool/pool.ts';
import type { NodeKey } from '../node-key.ts';
import type { ChainEvents } from '../events.ts';
import { signHash } from '../crypto/secp256k1.ts';
import { keccak256 } from '../crypto/keccak.ts';
import { concatBytes } from '../util/hex.ts';
import { COMMIT_MSG_CODE, decodeExtra, encodeExtra } from './istanbul-extra.ts';

export interface SealerOptions {
  chain: Chain;
  executor: BlockExecutor;
  pool: TxPool;
  key: NodeKey;
  events: ChainEvents;
  period: number;
  sealEmpty: boolean;
  /** called after each committed block, before events fan out (state readers move their head) */
  onCommitted: (block: BlockRecord) => void;
  log: (msg: string) => void;
}

/** 65-byte [r ‖ s ‖ recid] as istanbul seals are laid out. */
function seal65(hash: Uint8Array, key: Uint8Array): Uint8Array {
  const { rs, recid } = signHash(hash, key);
  return concatBytes(rs, new Uint8Array([recid]));
}

export class Sealer {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private wanted = false;
  private stopped = false;

  constructor(private readonly o: SealerOptions) {}

  start(): void {
    if (this.o.period === 0) {
      this.o.pool.onPending(() => this.trigger());
      if (this.o.pool.pendingCount > 0) this.trigger();
    } else {
      this.schedule();
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    const parentTs = Number(this.o.chain.head.header.timestamp) * 1000;
    const delay = Math.max(0, parentTs + this.o.period * 1000 - Date.now());
    this.timer = setTimeout(() => this.trigger(), delay);
  }

  /** Seal soon; coalesces triggers that arrive while a block is being built. */
  trigger(): void {
    if (this.stopped) return;
    this.wanted = true;
    if (this.running) return;
    this.running = (async () => {
      while (this.wanted && !this.stopped) {
        this.wanted = false;
        let progressed = false;
        try {
          progressed = await this.sealOnce();
        } catch (e) {
          this.o.log(`sealing failed: ${(e as Error).stack ?? e}`);
        }
        if (progressed && this.o.period === 0 && this.o.pool.pendingCount > 0) this.wanted = true;
      }
      this.running = undefined;
      if (this.o.period > 0) this.schedule();
    })();
  }

  /** Builds, seals and commits one block; false when there was nothing to do. */
  private async sealOnce(): Promise<boolean> {
    const { chain, executor, pool, key } = this.o;
    if (pool.pendingCount === 0 && !(this.o.period > 0 && this.o.sealEmpty)) return false;
    const parent = chain.head;
    const now = BigInt(Math.floor(Date.now() / 1000));
    const timestamp = now > parent.header.timestamp ? now : parent.header.timestamp + (this.o.period > 0 ? 1n : 0n);
    const parentExtra = decodeExtra(parent.header.extraData);
    const validators = parentExtra.validators;
    const unsealedExtra = encodeExtra({ vanity: parentExtra.vanity, validators, seal: new Uint8Array(0), committedSeals: [] });
    const built = await executor.execute(
      { parent: parent.header, parentHash: parent.hash, timestamp, coinbase: key.address, gasLimit: parent.header.gasLimit, extraData: unsealedExtra },
      // a snapshot: transactions admitted while this block executes wait for the next one
      [...pool.executable()],
    );
    if (built.included.length === 0 && !(this.o.period > 0 && this.o.sealEmpty)) {
      await executor.rollback(parent.header.stateRoot);
      await pool.onBlock([], built.invalid.map((i) => i.ptx));
      for (const i of built.invalid) this.o.log(`dropped ${i.ptx.hashHex}: ${i.reason}`);
      return built.invalid.length > 0;
    }
    const header: Header = { ...built.header };
    const proposerSeal = seal65(headerSigHash(header), key.privateKey);
    header.extraData = encodeExtra({ vanity: parentExtra.vanity, validators, seal: proposerSeal, committedSeals: [] });
    const hash = headerHash(header);
    const committed = seal65(keccak256(concatBytes(hash, new Uint8Array([COMMIT_MSG_CODE]))), key.privateKey);
    header.extraData = encodeExtra({ vanity: parentExtra.vanity, validators, seal: proposerSeal, committedSeals: [committed] });
    const block: BlockRecord = { hash, header, txs: built.included.map((t) => t.raw), senders: built.included.map((t) => t.sender) };
    try {
      chain.commitBlock(block, built.receipts, executor.trieDb, built.creators);
    } catch (e) {
      await executor.rollback(parent.header.stateRoot);
      throw e;
    }
    this.o.onCommitted(block);
    await pool.onBlock(built.included, built.invalid.map((i) => i.ptx));
    for (const i of built.invalid) this.o.log(`dropped ${i.ptx.hashHex}: ${i.reason}`);
    this.o.events.emitBlock({ block, receipts: built.receipts });
    return true;
  }
}
