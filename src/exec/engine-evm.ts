// The EVM with one seam: every message's code passes through runInterpreter, which hands code
// claimed by another engine (the wasm VM, `interpreter: all`, a later change) to that engine and
// everything else to the EVM. Messages to the native system contracts (src/exec/native), which
// have no code, are given a marker code in _loadCode that their engine claims; a contract-creation
// transaction first passes the chain's deploy permission (native/deploy-permission.ts, in
// _executeCreate: the one place every creation passes, code or not). The same seam records which
// account created each contract (AccountBaseInfo.Creator), including contracts created by
// contracts. Its execution watch lets I/O run during long messages and bounds them in time
// (src/exec/execution-watch.ts); its expensive precompile calls run on a thread of its own
// (src/exec/heavy-precompiles.ts).
import { EVM, NobleBN254, type EVMOpts } from '@ethereumjs/evm';
import type { EVMResult, Message } from '@ethereumjs/evm';
import type { Address } from '@ethereumjs/util';
import { ExecutionWatch } from './execution-watch.ts';
import { BLAKE2F_ADDRESS, blake2f } from './blake2f.ts';
import { heavyPrecompiles, PrecompileThread } from './heavy-precompiles.ts';
import { NATIVE_CODE, type NativeContracts } from './native/engine.ts';
import { isSystemContract } from './native/system-state.ts';
import { bytesToHex } from '../util/hex.ts';

type RunInterpreter = EVM['runInterpreter'];
type InterpreterResult = Awaited<ReturnType<RunInterpreter>>;

/** A second execution engine selected by inspecting the code it is asked to run. */
export interface CodeEngine {
  readonly name: string;
  claims(code: Uint8Array): boolean;
  run(evm: EngineEVM, message: Message, opts: Parameters<RunInterpreter>[1]): Promise<InterpreterResult>;
}

export class EngineEVM extends EVM {
  /** Contracts created (address → creator) since the last takeCreations(). */
  private created: [Address, Address][] = [];
  /** this EVM's own (block execution and eth_call interleave: they never share one) */
  readonly executionWatch = new ExecutionWatch();
  /** where this EVM's expensive precompile calls run (src/exec/heavy-precompiles.ts) */
  readonly precompileThread = new PrecompileThread();

  private readonly engines: readonly CodeEngine[];

  constructor(
    opts: EVMOpts,
    /** the system contracts, reached by address */
    private readonly native?: NativeContracts,
    engines: readonly CodeEngine[] = [],
  ) {
    super({
      ...opts,
      bn254: opts.bn254 ?? new NobleBN254(),
      customPrecompiles: [{ address: BLAKE2F_ADDRESS, function: blake2f }, ...heavyPrecompiles(opts.common!), ...(opts.customPrecompiles ?? [])],
    });
    this.engines = native === undefined ? engines : [native, ...engines];
  }

  protected override async _loadCode(message: Message): Promise<void> {
    // every call frame passes here: the one-byte test rules out almost every address before any hex
    if (message.code === undefined && isSystemContract(message.codeAddress.bytes) && this.native?.handles(bytesToHex(message.codeAddress.bytes))) {
      message.code = NATIVE_CODE;
      message.isCompiled = false;
      return;
    }
    return super._loadCode(message);
  }

  protected override async _executeCreate(message: Message): Promise<EVMResult> {
    // a contract-creation transaction (depth 0) may be refused by the chain's deploy permission
    if (message.depth === 0) {
      const refused = await this.native?.refuseDeploy(this, message.caller);
      if (refused !== undefined) return { execResult: refused };
    }
    // EIP-3860 bounds EVM initcode; code another engine runs is bounded by that engine (src/tx/init-code.ts)
    (this as { allowUnlimitedInitCodeSize: boolean }).allowUnlimitedInitCodeSize = this.claimedElsewhere(message.data);
    try {
      return await super._executeCreate(message);
    } finally {
      (this as { allowUnlimitedContractSize: boolean }).allowUnlimitedContractSize = false;
    }
  }

  /**
   * The running creation's code is not held to EIP-170's limit: the engine that ran it checked
   * its own (wasm: Venachain's 512 KiB). Lasts until that creation ends.
   */
  liftCodeSizeLimit(): void {
    (this as { allowUnlimitedContractSize: boolean }).allowUnlimitedContractSize = true;
  }

  /** The creator of `address` when a message of the running transaction created it (not yet taken by takeCreations). */
  pendingCreator(address: Address): Uint8Array | undefined {
    return this.created.find(([a]) => a.equals(address))?.[1].bytes;
  }

  override async runInterpreter(message: Message, opts: Parameters<RunInterpreter>[1] = {}): Promise<InterpreterResult> {
    const code = message.code instanceof Uint8Array ? message.code : undefined;
    let result: InterpreterResult | undefined;
    if (code !== undefined) {
      for (const engine of this.engines) {
        if (engine.claims(code)) {
          result = await engine.run(this, message, opts);
          break;
        }
      }
    }
    result ??= await super.runInterpreter(message, opts);
    if (message.isCreate === true && result.exceptionError === undefined && message.to !== undefined) {
      this.created.push([message.to, message.caller]);
    }
    return result;
  }

  /** Whether another engine runs this code instead of the EVM. */
  claimedElsewhere(code: Uint8Array): boolean {
    return this.engines.some((engine) => engine.claims(code));
  }

  close(): Promise<void> {
    return this.precompileThread.close();
  }

  takeCreations(): [Address, Address][] {
    const c = this.created;
    this.created = [];
    return c;
  }
}
