// geth's prestateTracer (eth/tracers/native/prestate.go): every account the transaction touched —
// sender, recipient, coinbase, the targets of calls and of BALANCE/EXTCODE*/SELFDESTRUCT, created
// contracts — with its balance, nonce, code and the storage slots read or written, as they were
// before the transaction. `diffMode`: `pre` keeps only what changed, `post` what it changed to
// (an account the transaction created has no `pre`; a cleared slot no `post`).
import type { InterpreterStep } from '@ethereumjs/evm';
import type { StateManagerInterface } from '@ethereumjs/common';
import { Address } from '@ethereumjs/util';
import { bytesToHex, hexToBytes, padLeft, quantity } from '../util/hex.ts';
import { MAX_TRACE_BYTES, type EvmTracer } from '../exec/tracer.ts';

export interface PrestateTracerOptions {
  diffMode?: boolean;
  disableCode?: boolean;
  disableStorage?: boolean;
}

/** geth's account fields: balance always (outside diffMode's post), the others when not empty/zero. */
export interface PrestateAccount {
  balance?: string;
  code?: string;
  nonce?: number;
  storage?: Record<string, string>;
}

interface AccountState {
  balance: bigint;
  nonce: bigint;
  code: Uint8Array;
  storage: Map<string, string>;
}

/** Opcodes whose stack top names an account they read. */
const TOP_ADDRESS = new Set(['BALANCE', 'EXTCODESIZE', 'EXTCODEHASH', 'EXTCODECOPY', 'SELFDESTRUCT']);
/** Opcodes whose second stack item names the account they call. */
const CALLS = new Set(['CALL', 'CALLCODE', 'DELEGATECALL', 'STATICCALL']);

const ZERO_WORD = `0x${'0'.repeat(64)}`;
const word = (n: bigint) => `0x${n.toString(16).padStart(64, '0')}`;
const addressOf = (n: bigint) => `0x${(n & ((1n << 160n) - 1n)).toString(16).padStart(40, '0')}`;

export class PrestateTracer implements EvmTracer {
  readonly readsState = true;
  tooLarge?: string;
  private bytes = 0;
  private readonly pre = new Map<string, AccountState>();
  private readonly created = new Set<string>();
  private post: Map<string, AccountState> | undefined;

  constructor(private readonly options: PrestateTracerOptions = {}) {}

  async start(state: StateManagerInterface, accounts: Uint8Array[]): Promise<void> {
    for (const a of accounts) await this.lookup(state, bytesToHex(a));
  }

  async step(e: InterpreterStep): Promise<void> {
    const op = e.opcode.name;
    const stack = e.stack;
    const top = stack[stack.length - 1];
    if (top === undefined) return;
    if (op === 'SLOAD' || op === 'SSTORE') {
      if (!this.options.disableStorage) await this.lookupSlot(e.stateManager, e.address.toString(), word(top));
    } else if (TOP_ADDRESS.has(op)) await this.lookup(e.stateManager, addressOf(top));
    else if (CALLS.has(op) && stack.length > 1) await this.lookup(e.stateManager, addressOf(stack[stack.length - 2]!));
  }

  async end(state: StateManagerInterface, created: Uint8Array[]): Promise<void> {
    // a created contract did not exist before (whenever a step first met it): geth reports it empty, and diffMode leaves it out of `pre`
    for (const a of created) {
      const address = bytesToHex(a);
      this.created.add(address);
      this.pre.set(address, { balance: 0n, nonce: 0n, code: new Uint8Array(0), storage: this.pre.get(address)?.storage ?? new Map() });
    }
    if (!this.options.diffMode) return;
    this.post = new Map();
    for (const [address, before] of this.pre) {
      const after = await read(state, address);
      const storage = new Map<string, string>();
      for (const slot of before.storage.keys()) storage.set(slot, bytesToWord(await state.getStorage(new Address(hexToBytes(address)), hexToBytes(slot))));
      this.post.set(address, { ...after, storage });
    }
  }

  result(): unknown {
    if (!this.post) return Object.fromEntries([...this.pre].map(([address, a]) => [address, this.shown(a)]));
    const pre: Record<string, PrestateAccount> = {};
    const post: Record<string, PrestateAccount> = {};
    for (const [address, before] of this.pre) {
      const after = this.post.get(address)!;
      const changed: PrestateAccount = {};
      if (after.balance !== before.balance) changed.balance = quantity(after.balance);
      if (after.nonce !== before.nonce) changed.nonce = Number(after.nonce);
      if (!this.options.disableCode && bytesToHex(after.code) !== bytesToHex(before.code) && after.code.length > 0) changed.code = bytesToHex(after.code);
      const slotsBefore = new Map<string, string>();
      for (const [slot, value] of before.storage) {
        const now = after.storage.get(slot)!;
        if (now === value) continue;
        slotsBefore.set(slot, value);
        if (now !== ZERO_WORD) (changed.storage ??= {})[slot] = now;
      }
      const modified = Object.keys(changed).length > 0 || slotsBefore.size > 0;
      if (!modified) continue;
      post[address] = changed;
      if (!this.created.has(address)) pre[address] = this.shown({ ...before, storage: slotsBefore });
    }
    return { post, pre };
  }

  private shown(a: AccountState): PrestateAccount {
    const out: PrestateAccount = { balance: quantity(a.balance) };
    if (!this.options.disableCode && a.code.length > 0) out.code = bytesToHex(a.code);
    if (a.nonce > 0n) out.nonce = Number(a.nonce);
    if (a.storage.size > 0) out.storage = Object.fromEntries(a.storage);
    return out;
  }

  /** The account as it was when the transaction first touched it (before any change of its own). */
  private async lookup(state: StateManagerInterface, address: string): Promise<AccountState> {
    let a = this.pre.get(address);
    if (!a) {
      this.pre.set(address, (a = await read(state, address)));
      // shown twice at most (diffMode's pre and post)
      this.grow(2 * (120 + (this.options.disableCode ? 0 : a.code.length * 2)));
    }
    return a;
  }

  private async lookupSlot(state: StateManagerInterface, address: string, slot: string): Promise<void> {
    const a = await this.lookup(state, address);
    if (a.storage.has(slot)) return;
    a.storage.set(slot, bytesToWord(await state.getStorage(new Address(hexToBytes(address)), hexToBytes(slot))));
    this.grow(2 * 140);
  }

  private grow(bytes: number): void {
    this.bytes += bytes;
    if (this.bytes > MAX_TRACE_BYTES && this.tooLarge === undefined) this.tooLarge = `trace exceeds ${MAX_TRACE_BYTES} bytes of accounts: use disableCode, disableStorage or a narrower trace`;
  }
}

const bytesToWord = (b: Uint8Array) => bytesToHex(padLeft(b, 32));

async function read(state: StateManagerInterface, address: string): Promise<AccountState> {
  const at = new Address(hexToBytes(address));
  const account = await state.getAccount(at);
  return { balance: account?.balance ?? 0n, nonce: account?.nonce ?? 0n, code: account ? await state.getCode(at) : new Uint8Array(0), storage: new Map() };
}
