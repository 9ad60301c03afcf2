// Genesis in Venachain's format (D4). Numbers may be JSON numbers, decimal strings or
// 0x-hex strings (geth's parser accepts both string forms; Venachain ships decimal strings).
import { readFileSync } from 'node:fs';
import { hexToBytes } from '../util/hex.ts';
import { keccak256 } from '../crypto/keccak.ts';

export interface GenesisAlloc {
  balance: bigint;
  nonce: bigint;
  code?: Uint8Array;
  storage: [Uint8Array, Uint8Array][];
}

export interface ChainConfig {
  chainId: bigint;
  interpreter: string;
  /**
   * Most gas one transaction may carry (Venachain's TxGasLimit): the pool refuses more, block
   * execution treats more as invalid. Genesis `config.txGasLimit`, default Venachain's 1.5e9:
   * what applies while ParameterManagement's TxGasLimit was never set (src/core/chain-params.ts).
   */
  txGasLimit: bigint;
  istanbul: { timeout: number; period: number; policy: number; firstValidatorNode: string };
}

export interface Genesis {
  config: ChainConfig;
  timestamp: bigint;
  extraData: Uint8Array;
  gasLimit: bigint;
  alloc: Map<string, GenesisAlloc>; // key: lowercase 0x address
  /** Validators named by the genesis (from firstValidatorNode). */
  validators: Uint8Array[];
}

/** Default block gas limit: 2^48, room for ~187k transactions that each reserve the spec's default 1.5e9. */
export const DEFAULT_GAS_LIMIT = 2n ** 48n;
/** Venachain's TxGasLimit default (ParameterManagement); at ~2e7 gas/s an endless loop at it runs 75 s, hence --miner.txtimeout. */
const DEFAULT_TX_GAS_LIMIT = 1_500_000_000n;
export const DEFAULTS = { chainId: 300n, interpreter: 'all', period: 1, timeout: 10000, policy: 0 };

export class GenesisError extends Error {}

const MIN_TX_GAS = 21_000n;

function num(v: unknown, field: string, dflt?: bigint): bigint {
  if (v === undefined || v === null || v === '') {
    if (dflt === undefined) throw new GenesisError(`genesis: ${field} is missing`);
    return dflt;
  }
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  if (typeof v === 'string' && /^(0x[0-9a-fA-F]+|[0-9]+)$/.test(v)) return BigInt(v);
  throw new GenesisError(`genesis: ${field} must be a non-negative integer (number, decimal or 0x-hex string), got ${JSON.stringify(v)}`);
}

function hex(v: unknown, field: string): Uint8Array {
  if (typeof v !== 'string' || !/^(0x)?([0-9a-fA-F]{2})*$/.test(v)) throw new GenesisError(`genesis: ${field} must be hex data`);
  return hexToBytes(v);
}

/** Address named by an enode URL's public key (`enode://<128 hex>@host:port`). */
export function enodeAddress(enode: string): Uint8Array {
  const m = /^enode:\/\/([0-9a-fA-F]{128})@/.exec(enode);
  if (!m) throw new GenesisError(`genesis: firstValidatorNode is not an enode URL: ${enode}`);
  return keccak256(hexToBytes(m[1]!)).subarray(12);
}

export function parseGenesis(json: unknown): Genesis {
  if (typeof json !== 'object' || json === null) throw new GenesisError('genesis: not a JSON object');
  const g = json as Record<string, any>;
  const c = (g.config ?? {}) as Record<string, any>;
  const ist = (c.istanbul ?? {}) as Record<string, any>;
  const config: ChainConfig = {
    chainId: num(c.chainId, 'config.chainId', DEFAULTS.chainId),
    interpreter: typeof c.interpreter === 'string' ? c.interpreter : DEFAULTS.interpreter,
    txGasLimit: num(c.txGasLimit, 'config.txGasLimit', DEFAULT_TX_GAS_LIMIT),
    istanbul: {
      timeout: Number(num(ist.timeout, 'config.istanbul.timeout', BigInt(DEFAULTS.timeout))),
      period: Number(num(ist.period, 'config.istanbul.period', BigInt(DEFAULTS.period))),
      policy: Number(num(ist.policy, 'config.istanbul.policy', BigInt(DEFAULTS.policy))),
      firstValidatorNode: typeof ist.firstValidatorNode === 'string' ? ist.firstValidatorNode : '',
    },
  };
  if (config.txGasLimit < MIN_TX_GAS) throw new GenesisError(`genesis: config.txGasLimit must be at least ${MIN_TX_GAS} (a plain transfer's gas), got ${config.txGasLimit}`);
  const alloc = new Map<string, GenesisAlloc>();
  for (const [addr, acc] of Object.entries((g.alloc ?? {}) as Record<string, any>)) {
    const a = (addr.startsWith('0x') ? addr : '0x' + addr).toLowerCase();
    if (!/^0x[0-9a-f]{40}$/.test(a)) throw new GenesisError(`genesis: alloc key ${addr} is not an address`);
    const storage: [Uint8Array, Uint8Array][] = [];
    for (const [k, v] of Object.entries((acc?.storage ?? {}) as Record<string, string>)) {
      storage.push([hex(k, `alloc.${addr}.storage key`), hex(v, `alloc.${addr}.storage value`)]);
    }
    alloc.set(a, {
      balance: num(acc?.balance, `alloc.${addr}.balance`, 0n),
      nonce: num(acc?.nonce, `alloc.${addr}.nonce`, 0n),
      code: acc?.code ? hex(acc.code, `alloc.${addr}.code`) : undefined,
      storage,
    });
  }
  return {
    config,
    timestamp: num(g.timestamp, 'timestamp', 0n),
    extraData: g.extraData ? hex(g.extraData, 'extraData') : new Uint8Array(0),
    gasLimit: num(g.gasLimit, 'gasLimit', DEFAULT_GAS_LIMIT),
    alloc,
    validators: config.istanbul.firstValidatorNode ? [enodeAddress(config.istanbul.firstValidatorNode)] : [],
  };
}

export function readGenesisFile(path: string): { genesis: Genesis; raw: unknown } {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new GenesisError(`genesis: cannot read ${path}: ${(e as Error).message}`);
  }
  return { genesis: parseGenesis(raw), raw };
}
