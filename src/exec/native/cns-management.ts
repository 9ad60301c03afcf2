// CnsManagement (0x0000…0011): contract names and versions, with Venachain's rules, return codes,
// answers and events (core/vm/sc_cns*.go). Owner = the creator of the registered contract; the
// permission subject is the transaction's origin. A name belongs to the origin that registered it
// first; each new version must be higher than every version of the name so far, and becomes the
// one calls by name without a version reach (cns-invoke.ts), until cnsRedirect picks another.
// A failure throws (status 0, nothing kept, the message is the revert reason); a mutator that
// succeeds emits "[CNS] Notify" [0, message] and returns 0. The list queries answer Venachain's
// result JSON, `{"code":1,…}` for an empty list or a bad argument, as it does.
import { toChecksumAddress } from '@ethereumjs/util';
import { implement, NativeCallError, type NativeCall, type NativeContract } from './engine.ts';
import { CNS_CALL_GAS, CNS_MANAGEMENT_ABI } from '../../codec/system-contracts-abi.ts';
import { CNS_MANAGEMENT, type CnsRecord } from './system-state.ts';
import { isVenachainName } from './formats.ts';
import { successResult } from './node-json.ts';

const SUCCESS = 0n;
const TOPIC = '[CNS] Notify';

// Venachain's error texts (callers match on them); what follows the text says which argument and why
const NAME_INVALID = '[CNS] name format is invalid';
const VERSION_INVALID = '[CNS] version format is invalid';
const NOT_OWNER = '[CNS] not owner of registered contract';
const NOT_FROM_INIT = '[CNS] cnsRegisterFromInit can only be called from init()';
const FROM_INIT = "[CNS] cnsRegister can't be called from init()";
const LOW_VERSION = '[CNS] Version must be larger than previous version';
const NAME_AND_VERSION_REGISTERED = '[CNS] name and version is already registered and activated in CNS';
const NAME_REGISTERED = '[CNS] Name is already registered';
const NOT_REGISTERED = "[CNS] Name or version didn't register before";
const INVALID_RANGE = '[CNS] invalid range';
const NO_DATA = '[CNS] the matching list is empty';

/** the version of a name never registered (Venachain's getCurrentVer default) */
const NO_VERSION = '0.0.0.0';
const VERSION_PATTERN = /^([0-9]{1,3}\.){3}[0-9]{1,3}$/;

function nameProblem(name: string): string | undefined {
  return isVenachainName(name) ? undefined : `${NAME_INVALID}: name ${JSON.stringify(name.slice(0, 140))} must be 1 to 128 letters, digits, _ or Han characters`;
}

function versionProblem(version: string): string | undefined {
  return VERSION_PATTERN.test(version) ? undefined : `${VERSION_INVALID}: version ${JSON.stringify(version.slice(0, 40))} must be four numbers of 1 to 3 digits, x.x.x.x`;
}

function check(...problems: (string | undefined)[]): void {
  const problem = problems.find((p) => p !== undefined);
  if (problem !== undefined) throw new NativeCallError(problem);
}

/** 1 when a > b, -1 when a < b, 0 when equal: part by part as numbers (G10; Venachain compares the parts as text, so 1.0.0.10 < 1.0.0.9 there). */
export function compareVersions(a: string, b: string): number {
  const x = a.split('.').map(Number);
  const y = b.split('.').map(Number);
  for (let i = 0; i < 4; i++) if (x[i] !== y[i]) return x[i]! > y[i]! ? 1 : -1;
  return 0;
}

function highest(versions: readonly string[]): string {
  return versions.reduce((top, v) => (compareVersions(v, top) === 1 ? v : top), NO_VERSION);
}

function success(call: NativeCall, message: string): bigint {
  call.emit(TOPIC, SUCCESS, message);
  return SUCCESS;
}

/** Fails unless the transaction's origin created `contract` (Venachain's isOwner). */
function requireOwner(call: NativeCall, contract: string): void {
  if (call.creatorOf(contract) !== call.origin) throw new NativeCallError(`${NOT_OWNER}: ${call.origin} did not create ${contract}`);
}

async function register(call: NativeCall, name: string, version: string, address: string): Promise<bigint> {
  check(nameProblem(name), versionProblem(version));
  const cns = call.state.cns;
  if ((await cns.get(name, version)) !== undefined) throw new NativeCallError(`${NAME_AND_VERSION_REGISTERED}: ${name} ${version}`);
  const versions = await cns.versions(name);
  // the name belongs to the origin of its first registration
  if (versions.length > 0 && (await cns.get(name, versions[0]!))!.origin !== call.origin) throw new NativeCallError(`${NAME_REGISTERED}: ${name} belongs to another account`);
  const top = highest(versions);
  if (compareVersions(version, top) !== 1) throw new NativeCallError(`${LOW_VERSION}: ${version} is not above ${top}`);
  await cns.put({ name, version, address, origin: call.origin, create_time: Number(call.blockNumber) });
  await cns.setCurrent(name, version);
  return success(call, '[CNS] cns register succeed');
}

/** A list query's answer: Venachain's result JSON, an error result when nothing matched. */
function listAnswer(records: readonly CnsRecord[]): string {
  return records.length === 0 ? errorResult(NO_DATA) : successResult(JSON.stringify(records));
}

function errorResult(message: string): string {
  return JSON.stringify({ code: 1, msg: message, data: [] });
}

async function matching(call: NativeCall, keep: (r: CnsRecord) => boolean): Promise<string> {
  return listAnswer((await call.state.cns.all()).filter(keep));
}

/** The address `name` at `version` ('latest': the current one) is registered to, or undefined. */
export async function resolveName(call: Pick<NativeCall, 'state'>, name: string, version: string): Promise<string | undefined> {
  if (version.toLowerCase() === 'latest') version = (await call.state.cns.current(name)) ?? NO_VERSION;
  if (nameProblem(name) !== undefined || versionProblem(version) !== undefined) return undefined;
  return (await call.state.cns.get(name, version))?.address;
}

const byAddress = (call: NativeCall, address: string) => matching(call, (r) => r.address === address);

/** importOldCnsManagerData's argument: Venachain's result JSON whose data.contract lists records. */
function importedRecords(text: string): CnsRecord[] {
  const where = 'CnsManagement.importOldCnsManagerData: argument 1';
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new NativeCallError(`${where}: not JSON: ${(e as Error).message}`);
  }
  const list = (json as { data?: { contract?: unknown } } | null)?.data?.contract;
  if (!Array.isArray(list)) throw new NativeCallError(`${where}: [CNS] importOldCnsManagerData: data assert error: data.contract must be a list of {name, version, address, origin, create_time}`);
  return list.map((item: unknown, i) => {
    const r = (item ?? {}) as Record<string, unknown>;
    const at = `${where}: data.contract[${i}]`;
    const text = (key: string) => {
      if (typeof r[key] !== 'string') throw new NativeCallError(`${at}.${key} must be a string`);
      return r[key] as string;
    };
    const address = (key: string) => {
      const a = text(key);
      if (!/^0x[0-9a-fA-F]{40}$/.test(a)) throw new NativeCallError(`${at}.${key} must be 0x and 40 hex digits`);
      return a.toLowerCase();
    };
    const name = text('name');
    const version = text('version');
    const problem = nameProblem(name) ?? versionProblem(version);
    if (problem !== undefined) throw new NativeCallError(`${at}: ${problem}`);
    const time = r.create_time ?? 0;
    if (typeof time !== 'number' || !Number.isSafeInteger(time) || time < 0) throw new NativeCallError(`${at}.create_time must be a block number`);
    return { name, version, address: address('address'), origin: address('origin'), create_time: time };
  });
}

export const cnsManagement: NativeContract = {
  name: 'CnsManagement',
  address: CNS_MANAGEMENT,
  gas: CNS_CALL_GAS,
  methods: implement(CNS_MANAGEMENT_ABI, {
    async cnsRegisterFromInit(call, name, version) {
      if (!call.fromInit) throw new NativeCallError(NOT_FROM_INIT);
      // the contract being created registers itself
      return register(call, name, version, call.caller);
    },
    async cnsRegister(call, name, version, address) {
      if (call.fromInit) throw new NativeCallError(FROM_INIT);
      requireOwner(call, address);
      return register(call, name, version, address);
    },
    async cnsRedirect(call, name, version) {
      check(nameProblem(name), versionProblem(version));
      const record = await call.state.cns.get(name, version);
      if (record === undefined) throw new NativeCallError(`${NOT_REGISTERED}: ${name} ${version}`);
      requireOwner(call, record.address);
      await call.state.cns.setCurrent(name, version);
      return success(call, '[CNS] cns redirect succeed');
    },
    async getContractAddress(call, name, version) {
      // Venachain answers "" for a name or version not registered (or not well-formed), no error
      const address = await resolveName(call, name, version);
      return address === undefined ? '' : toChecksumAddress(address);
    },
    async ifRegisteredByAddress(call, address) {
      return (await call.state.cns.all()).some((r) => r.address === address) ? 1n : 0n;
    },
    async ifRegisteredByName(call, name) {
      check(nameProblem(name));
      return (await call.state.cns.versions(name)).length > 0 ? 1n : 0n;
    },
    async getRegisteredContracts(call, head, size) {
      if (head < 0n || size < 0n) return errorResult(`${INVALID_RANGE}: head and size must not be negative`);
      const total = BigInt(await call.state.cns.total());
      // size 0: from head to the end
      const tail = size === 0n || head + size > total ? total : head + size;
      return listAnswer(head >= tail ? [] : await call.state.cns.range(Number(head), Number(tail)));
    },
    async getRegisteredContractsByName(call, name) {
      const problem = nameProblem(name);
      if (problem !== undefined) return errorResult(problem);
      return matching(call, (r) => r.name === name);
    },
    getRegisteredContractsByAddress: byAddress,
    getContractInfoByAddress: byAddress,
    async getRegisteredContractsByOrigin(call, origin) {
      return matching(call, (r) => r.origin === origin);
    },
    async importOldCnsManagerData(call, text) {
      // Venachain lets anyone import (a "todo" there), which would let anyone take any name: here a chain admin's (G11)
      if (!(await call.state.roles.has(call.origin, 'CHAIN_ADMIN'))) throw new NativeCallError(`No Permission: ${call.origin} may not import CNS data (CHAIN_ADMIN needed)`);
      for (const record of importedRecords(text)) {
        await call.state.cns.put(record);
        const current = (await call.state.cns.current(record.name)) ?? NO_VERSION;
        if (compareVersions(record.version, current) === 1) await call.state.cns.setCurrent(record.name, record.version);
      }
      return success(call, '[CNS] cns data migration succeed');
    },
  }),
};
