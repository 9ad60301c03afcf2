// EvidenceManagement (0x0000…0099): values saved under a key with who saved them and when, with
// Venachain's names, answers and rules (core/vm/sc_evidence*.go). Anyone may save; the subject is
// the transaction's origin. saveEvidence never overwrites a key, setJsonData does. A failure throws
// (status 0, nothing kept, the message is the revert reason); a save emits "Notify" [0, message].
import { implement, NativeCallError, type NativeCall, type NativeContract } from './engine.ts';
import { EVIDENCE_MANAGEMENT_ABI, SYSTEM_CALL_GAS } from '../../codec/system-contracts-abi.ts';
import { EVIDENCE_MANAGEMENT, type EvidenceRecord } from './system-state.ts';
import { successResult } from './node-json.ts';

const SUCCESS = 0n;
const ALREADY_SET = 'This id Already exsit';
const NOT_FOUND = 'Evidence Not Found';

async function save(call: NativeCall, key: string, value: string, overwrite: boolean, message: string): Promise<bigint> {
  if (!overwrite && (await call.state.evidence.get(key)) !== undefined) throw new NativeCallError(`${ALREADY_SET}: ${JSON.stringify(key.slice(0, 100))} (setJsonData overwrites)`);
  await call.state.evidence.put(key, { Owner: call.origin, EvidenceValue: value, Timestamp: Number(call.blockNumber) });
  call.emit('Notify', SUCCESS, message);
  return SUCCESS;
}

async function found(call: NativeCall, key: string): Promise<EvidenceRecord> {
  const record = await call.state.evidence.get(key);
  if (record === undefined) throw new NativeCallError(`${NOT_FOUND}: ${JSON.stringify(key.slice(0, 100))}`);
  return record;
}

export const evidenceManagement: NativeContract = {
  name: 'EvidenceManagement',
  address: EVIDENCE_MANAGEMENT,
  gas: SYSTEM_CALL_GAS,
  methods: implement(EVIDENCE_MANAGEMENT_ABI, {
    saveEvidence: (call, key, value) => save(call, key, value, false, 'save evidence success'),
    getEvidence: async (call, key) => successResult(JSON.stringify(await found(call, key))),
    setJsonData: (call, key, value) => save(call, key, value, true, 'set jsondata success.'),
    getJsonData: async (call, key) => (await found(call, key)).EvidenceValue,
  }),
};
