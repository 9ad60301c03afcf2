// eth_call and eth_estimateGas answer most messages with the view interpreter
// (src/exec/view-interpreter.ts) instead of @ethereumjs. The reference is @ethereumjs itself: two
// nodes with the same genesis, one with the interpreter and one without, answer the same calls,
// and every answer — return data, revert data and message, estimated gas (which holds the
// interpreter's gas to the exact figure) — must be identical. The calls are random straight-line
// programs over every opcode the interpreter runs, calling each other (from a fixed seed, or
// $VIEW_FUZZ_SEED), and Solidity contracts: loops, mappings, strings, signed arithmetic,
// checked-arithmetic panics, require / custom-error reverts, transient storage, storage writes,
// other accounts' balance, code size and code hash, the block fields, a delegating proxy, calls
// between contracts with try/catch and a multicall, and a reverted call whose changes are undone.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Interface, Wallet, Transaction } from 'ethers';
import { startTestNode, testGenesis, testKey, testAddress, mined, NODE_KEY, type TestNode } from './helpers/node.ts';
import { compile } from './helpers/solc.ts';
import { prng } from './helpers/prng.ts';

const SEED = Number(process.env.VIEW_FUZZ_SEED ?? 0x5eed);
const PROGRAMS = Number(process.env.VIEW_FUZZ_PROGRAMS ?? 240);

const rand = prng(SEED);
const int = (n: number) => Math.floor(rand() * n);
const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
const hexBytes = (n: number) => Array.from({ length: n }, () => int(256).toString(16).padStart(2, '0')).join('');

const M = (1n << 256n) - 1n;
const INTERESTING = [0n, 1n, 2n, 3n, 7n, 8n, 31n, 32n, 33n, 255n, 256n, 257n, 1n << 255n, (1n << 255n) - 1n, M, M - 1n, M - 6n, 1n << 128n, 1n << 64n];
function randomWord(): bigint {
  switch (int(4)) {
    case 0: return pick(INTERESTING);
    case 1: return BigInt(int(300));
    case 2: return BigInt('0x' + hexBytes(1 + int(32)));
    default: return M - BigInt(int(300)); // small negative numbers
  }
}
function push(v: bigint): string {
  if (v === 0n && int(2) === 0) return '5f';
  const hex = v.toString(16);
  const n = int(5) === 0 ? 32 : Math.max(1, Math.ceil(hex.length / 2));
  return (0x5f + n).toString(16) + hex.padStart(n * 2, '0');
}

const ALU2 = [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x0a, 0x0b, 0x10, 0x11, 0x12, 0x13, 0x14, 0x16, 0x17, 0x18, 0x1a, 0x1b, 0x1c, 0x1d];
const ALU3 = [0x08, 0x09];
const ALU1 = [0x15, 0x19];
// No TIMESTAMP (0x42): each node seals its blocks at its own second, so the two heads' timestamps
// may differ; blockFields (the Solidity test) checks it against each node's own head.
const ENV = [0x30, 0x32, 0x33, 0x34, 0x36, 0x38, 0x3a, 0x3d, 0x41, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x58, 0x59, 0x5a, 0x5f];
const SLOTS = [0n, 1n, 2n, 3n, 0xabcdefn];
const small = (n: number) => BigInt(int(n));
const op = (code: number) => code.toString(16).padStart(2, '0');

/** A random straight-line program ending in RETURN (mostly), REVERT or STOP. */
function randomProgram(): string {
  let code = '';
  let depth = 0;
  const fill = (n: number) => {
    while (depth < n) {
      code += push(randomWord());
      depth++;
    }
  };
  const steps = 10 + int(60);
  for (let i = 0; i < steps; i++) {
    const kind = int(20);
    if (kind < 7) {
      fill(2);
      code += op(pick(ALU2));
      depth--;
    } else if (kind < 8) {
      fill(3);
      code += op(pick(ALU3));
      depth -= 2;
    } else if (kind < 9) {
      fill(1);
      code += op(pick(ALU1));
    } else if (kind < 10) {
      code += op(pick(ENV));
      depth++;
    } else if (kind < 11) {
      code += push(int(3) === 0 ? randomWord() : small(120)) + '35'; // CALLDATALOAD
      depth++;
    } else if (kind < 12) {
      if (int(2) === 0) {
        code += push(int(4) === 0 ? randomWord() : pick(SLOTS)) + '54'; // SLOAD (cold, then warm)
      } else {
        // BALANCE / EXTCODESIZE / EXTCODEHASH of this contract, the caller, another program, an empty
        // account, a funded one without code, one that does not exist, a precompile or dirty high bits
        const who = [() => '30', () => '33', () => push(BigInt(address(int(8)))), () => push(BigInt(EMPTY_ACCOUNT)), () => push(BigInt(testAddress(0))), () => push(0xdeadn), () => push(4n), () => push((M ^ ((1n << 160n) - 1n)) | BigInt(address(1)))][int(8)]!();
        code += who + pick(['31', '3b', '3f']);
      }
      depth++;
    } else if (kind < 13) {
      fill(1);
      code += push(small(1500)) + pick(['52', '53']); // MSTORE / MSTORE8
      depth--;
    } else if (kind < 14) {
      code += push(small(1500)) + '51'; // MLOAD
      depth++;
    } else if (kind < 15) {
      code += push(small(200)) + push(small(1500)) + '20'; // KECCAK256(offset, len)
      depth++;
    } else if (kind < 16) {
      // CALLDATACOPY / CODECOPY / MCOPY (dst, src, len), sources partly past their end
      code += push(small(100)) + push(int(5) === 0 ? randomWord() : small(200)) + push(small(1500)) + pick(['37', '39', '5e']);
    } else if (kind < 17) {
      if (int(2) === 0) {
        fill(1);
        code += push(pick(SLOTS)) + '5d' + push(pick(SLOTS)) + '5c'; // TSTORE, TLOAD
      } else {
        // SSTORE of zero, one, a slot's own value (a no-op) or the top of the stack; then SLOAD
        const slot = pick(SLOTS);
        const value = [() => push(0n), () => push(1n), () => push(slot) + '54', () => (fill(1), depth--, '')][int(4)]!();
        code += value + push(slot) + '55' + push(pick(SLOTS)) + '54';
        depth++;
      }
    } else if (kind < 18 && int(3) === 0) {
      // CALL (without value) / STATICCALL / DELEGATECALL into another program, this one (recursion),
      // an account without code or a precompile, with gas from too little to plenty; then the
      // return data: its size, and all of it copied to memory
      const op = pick(['f1', 'fa', 'f4']);
      const t = int(7);
      // … or the ecrecover, SHA-256 and identity precompiles
      const target = [() => push(BigInt(address(int(PROGRAMS)))), () => '30', () => push(BigInt(testAddress(0))), () => push(0xdeadn), () => push(4n), () => push(2n), () => push(1n)][t]!();
      // recursion gets little gas: with plenty, @ethereumjs (the reference) takes seconds per estimate
      const gas = t === 1 ? push(BigInt(int(30_000))) : [() => push(BigInt(int(3000))), () => push(BigInt(int(200_000))), () => '5a'][int(3)]!();
      code += push(small(64)) + push(small(1500)) + push(small(100)) + push(small(1500)) + (op === 'f1' ? push(0n) : '') + target + gas + op;
      code += '3d' + '3d' + '6000' + push(small(1500)) + '3e'; // RETURNDATASIZE, RETURNDATACOPY(dst, 0, size)
      depth += 2;
    } else if (kind < 18) {
      const topics = int(5);
      fill(topics);
      code += push(small(100)) + push(small(1500)) + (0xa0 + topics).toString(16);
      depth -= topics;
    } else if (kind < 19 && depth > 0) {
      const n = 1 + int(Math.min(depth, 16));
      code += (0x7f + n).toString(16);
      depth++;
    } else if (depth > 1) {
      const n = 1 + int(Math.min(depth - 1, 16));
      code += (0x8f + n).toString(16);
    } else if (depth > 0) {
      code += '50'; // POP
      depth--;
    }
  }
  // the top of the stack into memory at 0x600…, then the first 0x700 bytes of memory back
  for (let i = 0; i < Math.min(depth, 8); i++) code += push(BigInt(0x600 + 32 * i)) + '52';
  const end = int(10);
  if (end === 0) return code + '00';
  if (end === 1) return code + '61070060' + '00' + 'fd'; // REVERT(0, 0x700)
  if (end === 2) return code + '7f01'; // a PUSH32 cut short by the end of the code, then the implicit STOP
  return code + '610700' + '6000' + 'f3'; // RETURN(0, 0x700)
}

/** Programs at the edges of the interpreter's subset: some run here (a write, out of gas), the rest go to @ethereumjs and must come back the same through the fallback. */
const LEFT_TO_ETHEREUMJS = [
  '602a60015500', // SSTORE (runs here)
  '60016000555a6000526001600155' + '60206000f3', // SSTORE, GAS: the gas left after a cold write
  '3031' + '60005260206000f3', // BALANCE(ADDRESS)
  '600160004060005260206000f3', // BLOCKHASH
  '6000600060006000600060045af1' + '60005260206000f3', // CALL the identity precompile
  '600456fe5b00', // JUMP over INVALID to a JUMPDEST (runs here) …
  '600356fe5b00', // … and to a non-JUMPDEST: invalid JUMP, an exceptional halt
  '600456615b0000', // to a 0x5b inside PUSH2's data: not a JUMPDEST either
  'fe', // INVALID
  '01', // stack underflow
  '600160006000' + '3e', // RETURNDATACOPY of a byte there is not: out of bounds
  '5b600056', // an endless loop: out of gas (answered here since out of gas is exact; the rest bail)
];

const address = (i: number) => '0xc0de' + i.toString(16).padStart(36, '0');
/** in genesis with nothing at all: EXTCODEHASH answers 0 for it (EIP-161 empty) */
const EMPTY_ACCOUNT = '0x' + 'e0'.repeat(20);
const calldata = () => '0x' + hexBytes(int(100));

const programs = Array.from({ length: PROGRAMS }, randomProgram).concat(LEFT_TO_ETHEREUMJS);
const genesis = testGenesis(NODE_KEY, 4) as { alloc: Record<string, object> };
genesis.alloc[EMPTY_ACCOUNT] = { balance: '0' };
programs.forEach((code, i) => {
  genesis.alloc[address(i)] = {
    balance: String(int(3) === 0 ? 0 : int(1e9)),
    code: '0x' + code,
    storage: Object.fromEntries(SLOTS.slice(0, 1 + int(SLOTS.length)).map((s) => ['0x' + s.toString(16).padStart(64, '0'), '0x' + randomWord().toString(16).padStart(64, '0')])),
  };
});

// 10,000 loop iterations (260,000 gas) and a storage read, in both orders: a read needed after that
// much work goes to @ethereumjs instead of re-running the work (RERUN_GAS in src/exec/view-calls.ts)
const HEAVY_THEN_READ = '0x' + '6127105b600190038060035750' + '600754' + '600052' + '60206000f3';
const READ_THEN_HEAVY = '0x' + '600754600052' + '6127105b600190038060095750' + '60206000f3';
const HEAVY = ['0xc0de00000000000000000000000000000000ff01', '0xc0de00000000000000000000000000000000ff02'];
const SLOT7 = { ['0x' + '7'.padStart(64, '0')]: '0x' + '2a'.padStart(64, '0') };
genesis.alloc[HEAVY[0]!] = { balance: '0', code: HEAVY_THEN_READ, storage: SLOT7 };
genesis.alloc[HEAVY[1]!] = { balance: '0', code: READ_THEN_HEAVY, storage: SLOT7 };

const VIEWS = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;
contract Views {
  uint256 public x = 42;
  mapping(address => uint256) public bal;
  uint256[] public arr;
  string public name = "chain-node view interpreter";
  error Custom(uint256 code, string why);
  constructor() { bal[msg.sender] = 7; for (uint256 i; i < 20; i++) arr.push(i * i); }
  function sum() external view returns (uint256 s) { for (uint256 i; i < arr.length; i++) s += arr[i]; }
  function signed(int256 a, int256 b) external pure returns (int256, int256, int256, int256) { return (a / b, a % b, a >> 3, a * 3); }
  function add(uint256 a, uint256 b) external pure returns (uint256) { return a + b; }
  function div(uint256 a, uint256 b) external pure returns (uint256) { return a / b; }
  function req(uint256 a) external pure returns (uint256) { require(a < 10, "a must be below 10"); return a; }
  function custom(uint256 a) external pure { revert Custom(a, "custom"); }
  function hash(bytes calldata data) external pure returns (bytes32, bytes memory) { return (keccak256(data), abi.encodePacked(data, data)); }
  function blockFields() external view returns (uint256, uint256, uint256, address, uint256) { return (block.number, block.timestamp, block.chainid, block.coinbase, block.gaslimit); }
  function more() external view returns (uint256, uint256, address, address, uint256, uint256) { return (block.basefee, block.prevrandao, msg.sender, tx.origin, address(this).balance, tx.gasprice); }
  function gas() external view returns (uint256) { return gasleft(); }
  function transient(uint256 v) external returns (uint256 r) { assembly { tstore(1, v) r := tload(1) } }
  function concat(string calldata s) external view returns (string memory) { return string.concat(name, s); }
  function copy(bytes memory b) external pure returns (bytes memory) { return abi.encode(b, b); }
  function balOf(address a) external view returns (uint256) { return bal[a]; }
  function loop(uint256 n) external pure returns (uint256 acc) { for (uint256 i; i < n; i++) { unchecked { acc = acc * 31 + i; } } }
  function write(uint256 v) external returns (uint256) { x = v; return x; }
  function writes(address a, uint256 v) external returns (uint256) { bal[a] += v; delete bal[msg.sender]; x = x; arr.push(v); return bal[a] + arr.length; }
  function codeLen() external view returns (uint256) { return address(this).code.length; }
  function accountOf(address a) external view returns (uint256, uint256, bytes32) { return (a.balance, a.code.length, a.codehash); }
  function isContract(address a) external view returns (bool) { return a.code.length > 0; }
}
contract Impl {
  uint256 public x;
  function get() external view returns (uint256) { return x + 1; }
  function setX(uint256 v) external returns (uint256) { x = v; return x; }
}
/** a delegating proxy, as upgradeable contracts are built: its storage, Impl's code */
contract Proxy {
  uint256 public stored = 5;
  address immutable impl;
  constructor(address i) { impl = i; }
  fallback() external {
    address i = impl;
    assembly {
      calldatacopy(0, 0, calldatasize())
      let ok := delegatecall(gas(), i, 0, calldatasize(), 0, 0)
      returndatacopy(0, 0, returndatasize())
      switch ok case 0 { revert(0, returndatasize()) } default { return(0, returndatasize()) }
    }
  }
}
/** calls into other contracts: high-level calls (with solc's code-size check), try/catch, a multicall */
contract Reader {
  function sumOf(Views v) external view returns (uint256) { return v.sum() + v.x(); }
  function tryReq(Views v, uint256 a) external view returns (bool, bytes memory) {
    try v.req(a) returns (uint256 r) { return (true, abi.encode(r)); } catch (bytes memory e) { return (false, e); }
  }
  function multi(address[] calldata targets, bytes[] calldata data) external view returns (bytes[] memory out) {
    out = new bytes[](targets.length);
    for (uint256 i; i < targets.length; i++) { (bool ok, bytes memory r) = targets[i].staticcall(data[i]); out[i] = ok ? r : bytes("failed"); }
  }
  function writeThrough(Impl p, uint256 v) external returns (uint256) { return p.setX(v); }
}
/** ecrecover, the precompile signature checks (EIP-712, permits) call */
contract Sig {
  function recover(bytes32 h, uint8 v, bytes32 r, bytes32 s) external pure returns (address) { return ecrecover(h, v, r, s); }
}
/** a call that writes, sets transient storage and warms a slot, then reverts: all of it undone */
contract Undo {
  uint256 public x = 1;
  function writeAndRevert() external { x = 2; assembly { tstore(0, 7) } revert("no"); }
  function check() external returns (uint256 v, uint256 t, uint256 readGas) {
    try this.writeAndRevert() {} catch {}
    assembly { t := tload(0) }
    uint256 g = gasleft();
    v = x; // cold again: the reverted call's warm slot is forgotten (EIP-2929)
    readGas = g - gasleft();
  }
}`;

let fast: TestNode;
let reference: TestNode;
let viewsAddress = '';
const contracts = compile(VIEWS);
const compiled = contracts.Views!;
const abi = new Interface(compiled.abi);
const implAbi = new Interface(contracts.Impl!.abi);
const readerAbi = new Interface(contracts.Reader!.abi);
/** Impl, Proxy and Reader, deployed after Views (same addresses on both nodes) */
const deployed = { impl: '', proxy: '', reader: '', undo: '', sig: '' };

test.before(async () => {
  fast = await startTestNode({ genesis, config: { fastViews: true } });
  reference = await startTestNode({ genesis, config: { fastViews: false } });
  /** Deploys `data` from test key 0 at `nonce` on both nodes (so at the same address); the address. */
  const deploy = async (nonce: number, data: string) => {
    const signed = await new Wallet(testKey(0)).signTransaction(Transaction.from({ chainId: 300, type: 0, nonce, gasPrice: 0n, gasLimit: 5_000_000n, data }));
    let at = '';
    for (const node of [fast, reference]) {
      const receipt = await mined(node, await node.rpc('eth_sendRawTransaction', [signed]));
      assert.is(receipt.status, '0x1', `contract ${nonce} deployed`);
      at = receipt.contractAddress;
    }
    return at;
  };
  viewsAddress = await deploy(0, compiled.bytecode);
  deployed.impl = await deploy(1, contracts.Impl!.bytecode);
  deployed.proxy = await deploy(2, contracts.Proxy!.bytecode + deployed.impl.slice(2).padStart(64, '0'));
  deployed.reader = await deploy(3, contracts.Reader!.bytecode);
  deployed.undo = await deploy(4, contracts.Undo!.bytecode);
  deployed.sig = await deploy(5, contracts.Sig!.bytecode);
});
test.after(async () => {
  await fast?.stop();
  await reference?.stop();
});

/** The same request on both nodes: the same result or the same error, whole. */
async function same(method: string, params: unknown[], what: string, differ?: (result: string) => string) {
  const [a, b] = await Promise.all([fast.raw(method, params), reference.raw(method, params)]);
  const norm = (r: typeof a) => ({ result: differ && typeof r.result === 'string' ? differ(r.result) : r.result, error: r.error });
  assert.equal(norm(a), norm(b), `${method}: ${what}`);
  return a;
}

test('random programs: every eth_call and eth_estimateGas answer is the same as @ethereumjs gives', async () => {
  const from = testAddress(1);
  for (let i = 0; i < programs.length; i++) {
    const what = `program ${i} (seed ${SEED}): 0x${programs[i]}`;
    // a gas cap keeps the endless loop's out-of-gas run short on @ethereumjs
    const call = { from, to: address(i), data: calldata(), gas: '0xf4240' };
    await same('eth_call', [call, 'latest'], what);
    const est = await same('eth_estimateGas', [call, 'latest'], what);
    if (est.result) {
      // at the estimate and just below it (out of gas, which the interpreter leaves to @ethereumjs)
      await same('eth_call', [{ ...call, gas: est.result }, 'latest'], `${what} at gas ${est.result}`);
      await same('eth_call', [{ ...call, gas: '0x' + (BigInt(est.result) - 1n).toString(16) }, 'latest'], `${what} at gas ${est.result} - 1`);
    }
  }
  const answered = fast.core.calls.views!.answered;
  assert.is(reference.core.calls.views, undefined);
  assert.ok(answered > PROGRAMS * 4, `the interpreter answered ${answered} of the calls (not only the fallback ran)`);
});

test('a Solidity contract: views, reverts, panics, writes and account reads', async () => {
  const from = testAddress(2);
  const M1 = (1n << 255n) - 1n;
  const calls: [string, unknown[]][] = [
    ['x', []], ['sum', []], ['arr', [19]], ['arr', [20]], ['name', []],
    ['signed', [-7, 2]], ['signed', [7, -2]], ['signed', [-(1n << 255n), -1]], ['signed', [1, 0]],
    ['add', [1, 2]], ['add', [M1 * 2n + 1n, 1]], ['div', [10, 3]], ['div', [1, 0]],
    ['req', [3]], ['req', [12]], ['custom', [5]],
    ['hash', ['0x']], ['hash', ['0x' + 'ab'.repeat(77)]],
    ['blockFields', []], ['more', []], ['gas', []], ['transient', [99]],
    ['concat', ['!']], ['copy', ['0x' + '5a'.repeat(70)]], ['balOf', [testAddress(0)]], ['balOf', [from]],
    ['loop', [50]], ['write', [7]], ['write', [42]], ['write', [0]], ['writes', [testAddress(0), 5]], ['writes', [from, 0]], ['codeLen', []],
    ['accountOf', [testAddress(0)]], ['accountOf', ['0x' + 'e0'.repeat(20)]], ['accountOf', ['0x' + '77'.repeat(20)]], ['isContract', [from]],
  ];
  const views = fast.core.calls.views!;
  for (const [fn, args] of calls) {
    const call = { from, to: viewsAddress, data: abi.encodeFunctionData(fn, args) };
    const before = views.answered;
    // each node sealed the deployment at its own second: blockFields' timestamp word is each node's own
    const r = await same('eth_call', [call, 'latest'], `${fn}(${args.join(', ')})`, fn === 'blockFields' ? (x) => x.slice(0, 66) + x.slice(130) : undefined);
    assert.is(views.answered - before, 1, `${fn}: answered by the interpreter`);
    await same('eth_estimateGas', [call, 'latest'], `${fn}(${args.join(', ')})`);
    if (fn === 'req' && args[0] === 12) assert.match(r.error!.message, /a must be below 10/);
    if (fn === 'sum') assert.is(BigInt(r.result), 2470n, 'sum of i² for i < 20');
    if (fn === 'blockFields') {
      const head = await fast.rpc('eth_getBlockByNumber', ['latest', false]);
      assert.is(BigInt('0x' + r.result.slice(66, 130)), BigInt(head.timestamp), "block.timestamp is the head's");
    }
  }
  const big = { from, to: viewsAddress, data: abi.encodeFunctionData('loop', [100_000]), gas: '0x30000' };
  const before = views.answered;
  const r = await same('eth_call', [big, 'latest'], 'loop(100000) with too little gas');
  assert.match(r.error!.message, /out of gas/);
  assert.is(views.answered - before, 1, 'out of gas is answered by the interpreter');
});

test('calls into other contracts: a delegating proxy, high-level calls, try/catch, a multicall', async () => {
  const views = fast.core.calls.views!;
  const from = testAddress(3);
  const calls: [string, string, string][] = [
    ['proxy.get() (DELEGATECALL: the proxy\'s storage, Impl\'s code)', deployed.proxy, implAbi.encodeFunctionData('get')],
    ['proxy.setX(9) (a write through DELEGATECALL)', deployed.proxy, implAbi.encodeFunctionData('setX', [9])],
    ['proxy with an unknown selector (Impl reverts, the proxy passes it on)', deployed.proxy, '0xdeadbeef'],
    ['reader.sumOf(views) (two high-level STATICCALLs)', deployed.reader, readerAbi.encodeFunctionData('sumOf', [viewsAddress])],
    ['reader.tryReq(views, 3)', deployed.reader, readerAbi.encodeFunctionData('tryReq', [viewsAddress, 3])],
    ['reader.tryReq(views, 12) (the callee reverts, caught)', deployed.reader, readerAbi.encodeFunctionData('tryReq', [viewsAddress, 12])],
    ['reader.multi(…)', deployed.reader, readerAbi.encodeFunctionData('multi', [[viewsAddress, viewsAddress, deployed.proxy, deployed.impl, testAddress(0)], [abi.encodeFunctionData('x'), abi.encodeFunctionData('sum'), implAbi.encodeFunctionData('get'), implAbi.encodeFunctionData('setX', [1]), '0x']])],
    ['reader.writeThrough(impl, 4) (a CALL that writes the callee\'s storage)', deployed.reader, readerAbi.encodeFunctionData('writeThrough', [deployed.impl, 4])],
    ['undo.check() (a reverted call\'s write, transient write and warm slot are undone)', deployed.undo, new Interface(contracts.Undo!.abi).encodeFunctionData('check')],
  ];
  for (const [what, to, data] of calls) {
    const before = views.answered;
    const r = await same('eth_call', [{ from, to, data }, 'latest'], what);
    assert.is(views.answered - before, 1, `${what}: answered by the interpreter`);
    await same('eth_estimateGas', [{ from, to, data }, 'latest'], what);
    if (what.startsWith('proxy.get')) assert.is(BigInt(r.result), 6n, 'the proxy\'s stored 5, plus one');
    if (what.startsWith('reader.sumOf')) assert.is(BigInt(r.result), 2470n + 42n);
    if (what.startsWith('undo.check')) {
      const [v, t, readGas] = new Interface(contracts.Undo!.abi).decodeFunctionResult('check', r.result) as unknown as bigint[];
      assert.equal([v, t], [1n, 0n], 'the write and the transient write are undone');
      assert.ok(readGas! > 2100n, `the slot is cold again (${readGas} gas)`);
    }
  }
});

test('ecrecover: a signature recovers its signer; bad v, r or s recover nothing, on both engines alike', async () => {
  const views = fast.core.calls.views!;
  const sigAbi = new Interface(contracts.Sig!.abi);
  const signer = new Wallet(testKey(2));
  const hash = '0x' + 'ab'.repeat(32);
  const sig = signer.signingKey.sign(hash);
  const N = 'fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141';
  const cases: [string, unknown[], string | null][] = [
    ['a valid signature', [hash, sig.v, sig.r, sig.s], signer.address],
    ['v = 29', [hash, 29, sig.r, sig.s], null],
    ['s = 0', [hash, sig.v, sig.r, '0x' + '00'.repeat(32)], null],
    ['r = n (out of range)', [hash, sig.v, '0x' + N, sig.s], null],
  ];
  for (const [what, args, expected] of cases) {
    const call = { to: deployed.sig, data: sigAbi.encodeFunctionData('recover', args) };
    const before = views.answered;
    const r = await same('eth_call', [call, 'latest'], `ecrecover: ${what}`);
    assert.is(views.answered - before, 1, `${what}: answered by the interpreter`);
    await same('eth_estimateGas', [call, 'latest'], `ecrecover: ${what}`);
    const got = sigAbi.decodeFunctionResult('recover', r.result)[0] as string;
    assert.is(got, expected ?? '0x0000000000000000000000000000000000000000', what);
  }
});

test('a storage read needed only after heavy work goes to @ethereumjs instead of repeating the work', async () => {
  const views = fast.core.calls.views!;
  for (const [to, byInterpreter] of [[HEAVY[0]!, 0], [HEAVY[1]!, 1]] as const) {
    const before = views.answered;
    const r = await same('eth_call', [{ to, data: '0x' }, 'latest'], to);
    assert.is(BigInt(r.result), 42n, 'slot 7 read after (or before) the loop');
    assert.is(views.answered - before, byInterpreter, `${to}: which engine answered`);
  }
});

test.run();
