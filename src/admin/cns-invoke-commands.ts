// `chain-node admin cns call|send <name[:version]> <function> [<arg>…]`: a contract called by its
// CNS name through CnsInvokeAddress (vcl contract execute with a name). With --abi (a wasm
// contract's ABI JSON) the arguments are read and the answer decoded by it; without, each argument
// goes as text, as a Solidity contract takes them by name ("int64(7)", "string(abc)"), and the
// answer is printed as the hex it is.
import { readFileSync } from 'node:fs';
import { callByName, CNS_INVOKE_ADDRESS, type SystemCall } from '../client/system-contracts.ts';
import { wasmContract, type WasmCall } from '../client/wasm-contracts.ts';
import { encodeArg, encodeCall } from '../codec/venachain-call.ts';
import { decodeWasmReturn, findWasmFunction, wasmReturnType, type WasmAbi, type WasmValue } from '../codec/wasm-abi.ts';
import { fromQuantity } from '../client/quantity.ts';
import { bytesToHex, hexToBytes } from '../util/hex.ts';
import { fileErrorMessage, isFileError } from '../util/file-errors.ts';
import { json, UsageError, write, type Command, type Context } from './command.ts';

/** Gas when the node cannot estimate the call (it fails: the receipt then says why). */
const FALLBACK_GAS = 1_000_000n;

/** An argument typed by the ABI, from the command line's text. */
function wasmValue(type: string, text: string, i: number): WasmValue {
  if (type === 'string' || type === 'char*' || type === 'const char*') return text;
  if (type === 'bool') {
    if (text !== 'true' && text !== 'false') throw new UsageError(`argument ${i + 1} (bool): true or false, not ${JSON.stringify(text)}`);
    return text === 'true';
  }
  if (type.startsWith('float') && type !== 'float128') {
    const n = Number(text);
    if (text.trim() === '' || Number.isNaN(n)) throw new UsageError(`argument ${i + 1} (${type}): not a number: ${JSON.stringify(text)}`);
    return n;
  }
  if (!/^-?\d+$/.test(text)) throw new UsageError(`argument ${i + 1} (${type}): not an integer: ${JSON.stringify(text)}`);
  return BigInt(text);
}

function readAbi(path: string): WasmAbi {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if (isFileError(e)) throw new UsageError(`cannot read the ABI ${fileErrorMessage(e)}`);
    throw e;
  }
  return wasmContract(text).abi;
}

interface ByName {
  to: string;
  data: string;
  /** the answer as the ABI reads it, or the hex itself */
  decode(answer: string): unknown;
}

function byName(ctx: Context, name: string, fn: string, args: string[]): ByName {
  if (ctx.values.abi === undefined) {
    const call = callByName(name, { data: bytesToHex(encodeCall(fn, args.map((a) => encodeArg('string', a)))) });
    return { ...call, decode: (answer) => answer };
  }
  const abi = readAbi(ctx.values.abi);
  const entry = findWasmFunction(abi, fn);
  if (entry === undefined) throw new UsageError(`the ABI has no function ${JSON.stringify(fn)}`);
  if (entry.inputs.length !== args.length) throw new UsageError(`${fn} takes ${entry.inputs.length} argument(s), got ${args.length}`);
  // the ABI is known only at run time: the contract's untyped form
  const contract = wasmContract(abi as readonly { name: string; type: string }[] as never) as unknown as { call(method: string, ...args: WasmValue[]): WasmCall };
  const call = contract.call(fn, ...args.map((a, i) => wasmValue(entry.inputs[i]!.type, a, i)));
  const returns = wasmReturnType(entry);
  return { ...callByName(name, call), decode: (answer) => decodeWasmReturn(returns, call.txType, hexToBytes(answer)) };
}

export const cnsInvokeCommands: Record<string, Command> = {
  call: {
    args: [2, Number.POSITIVE_INFINITY],
    options: ['abi'],
    async run(ctx, [name, fn, ...args]) {
      const c = byName(ctx, name!, fn!, args);
      const from = ctx.values.from;
      const value = c.decode(await ctx.client.eth.call({ from, to: CNS_INVOKE_ADDRESS, data: c.data }, 'latest'));
      ctx.out(ctx.values.json ? json({ name, function: fn, result: value ?? null }) : String(value ?? ''));
      return 0;
    },
  },
  send: {
    args: [2, Number.POSITIVE_INFINITY],
    options: ['abi'],
    async run(ctx, [name, fn, ...args]) {
      const c = byName(ctx, name!, fn!, args);
      const sender = await ctx.sender();
      const gas = await ctx.client.eth.estimateGas({ from: sender.address, to: CNS_INVOKE_ADDRESS, data: c.data }).then(fromQuantity, () => FALLBACK_GAS);
      const call = { contract: 'CnsManagement', method: fn!, to: CNS_INVOKE_ADDRESS, data: c.data, gas } as SystemCall;
      return write(ctx, call, `${name} ${fn} sent by name`);
    },
  },
};
