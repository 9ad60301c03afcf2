// Ledger hardware wallets through a real node, with the USB device replaced by recorded APDU
// exchanges (@ledgerhq/hw-transport-mocker) — the only mock here, as the device is a true outside
// boundary. The device's answers are computed from known keys with @noble/curves in the
// real formats, so the test checks our APDU encoding byte for byte, our parsing of the answers,
// and that what the "device" signed is a valid transaction, mined from the right sender.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createRequire } from 'node:module';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transaction, Wallet, getAddress } from 'ethers';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { startTestNode, testKey, type TestNode } from './helpers/node.ts';
import { mined as minedOn } from './helpers/accounts.ts';
import type { LedgerTransport, LedgerTransports } from '../src/accounts/ledger.ts';

interface RecordStore {
  ensureQueueEmpty(): void;
}
interface Replayer extends LedgerTransport {
  /** holds the next exchange until unblockExchange(): a user who has not pressed a button yet */
  enableExchangeBlocker(): void;
  unblockExchange(): void;
}
const mocker = createRequire(import.meta.url)('@ledgerhq/hw-transport-mocker') as {
  RecordStore: { fromString(s: string): RecordStore };
  openTransportReplayer(store: RecordStore): Promise<Replayer>;
};

const DEVICE = '/dev/hidraw-test0';
const URL = `ledger://${DEVICE}`;
const OTHER = '0x' + '42'.repeat(20);
// the device's keys at m/44'/60'/0'/0/0, /1 and /2; key 0 is funded in the test genesis (so "used")
const KEYS = [testKey(1), '0x' + 'a1'.repeat(32), '0x' + 'b2'.repeat(32)];
const ADDR = KEYS.map((k) => new Wallet(k).address.toLowerCase());

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const OK = '9000';

/** GET ETH PUBLIC ADDRESS for account i, written out: CLA INS P1 P2 Lc, 5 path levels (4 bytes each). */
function addressApdu(i: number): string {
  return 'e0020000' + '15' + '05' + '8000002c' + '8000003c' + '80000000' + '00000000' + i.toString(16).padStart(8, '0');
}

/** What the app answers: 65 ‖ uncompressed public key ‖ 40 ‖ EIP-55 address in ASCII ‖ 9000. */
function addressAnswer(i: number): string {
  const pub = secp256k1.getPublicKey(Buffer.from(KEYS[i]!.slice(2), 'hex'), false);
  return '41' + hex(pub) + '28' + hex(Buffer.from(getAddress(ADDR[i]!).slice(2), 'latin1')) + OK;
}

/** The unsigned EIP-155 RLP, as ethers builds it: [nonce, gasPrice, gas, to, value, data, 300, 0, 0]. */
function unsignedRlp(tx: { nonce: number; gasLimit: bigint; to: string; value: bigint; data?: string }): Uint8Array {
  return Buffer.from(Transaction.from({ type: 0, chainId: 300, gasPrice: 0n, data: '0x', ...tx }).unsignedSerialized.slice(2), 'hex');
}

/** What the app answers to the last SIGN chunk: v = (300·2 + 35 + parity) mod 256 ‖ r ‖ s ‖ 9000. */
function signatureAnswer(rlp: Uint8Array, key: string): string {
  const sig = secp256k1.sign(keccak_256(rlp), Buffer.from(key.slice(2), 'hex'), { prehash: false, format: 'recovered' } as never) as Uint8Array;
  return ((635 + sig[0]!) & 0xff).toString(16).padStart(2, '0') + hex(sig.subarray(1)) + OK;
}

const PATH0 = '05' + '8000002c' + '8000003c' + '80000000' + '00000000' + '00000000';

// transaction 1: a small transfer, nonce 0 (one SIGN chunk)
const TX1 = { nonce: 0, gasLimit: 21000n, to: OTHER, value: 0x1234n };
const RLP1 = unsignedRlp(TX1);
// transaction 2: 243 bytes of data make the RLP 281 bytes: the first chunk takes 129 of them
// (150 minus the 21 path bytes); a 150-byte second chunk would end inside the trailing
// [chainId, 0, 0] (its last 5 bytes), so the second chunk takes the 152 remaining bytes
const TX2 = { nonce: 1, gasLimit: 100000n, to: OTHER, value: 0n, data: '0x' + 'ab'.repeat(243) };
const RLP2 = unsignedRlp(TX2);
// transaction 3: refused on the device
const RLP3 = unsignedRlp({ nonce: 2, gasLimit: 21000n, to: OTHER, value: 1n });

const apdu = (p1: string, data: Uint8Array | string) => {
  const d = typeof data === 'string' ? data : hex(data);
  return 'e004' + p1 + '00' + (d.length / 2).toString(16).padStart(2, '0') + d;
};

// first open: the Ethereum app is not started (CLA not supported)
const NOT_STARTED = ['=> e006000000', '<= 6e00'].join('\n');
const SESSION = [
  '=> e006000000',
  '<= 00010a03' + OK, // app flags, version 1.10.3
  `=> ${addressApdu(0)}`,
  `<= ${addressAnswer(0)}`,
  `=> ${addressApdu(1)}`,
  `<= ${addressAnswer(1)}`,
  `=> ${apdu('00', PATH0 + hex(RLP1))}`,
  `<= ${signatureAnswer(RLP1, KEYS[0]!)}`,
  `=> ${apdu('00', PATH0 + hex(RLP2.subarray(0, 129)))}`,
  `<= ${OK}`,
  `=> ${apdu('80', RLP2.subarray(129))}`,
  `<= ${signatureAnswer(RLP2, KEYS[0]!)}`,
  `=> ${apdu('00', PATH0 + hex(RLP3))}`,
  '<= 6985', // the user pressed "reject"
  `=> ${addressApdu(2)}`,
  `<= ${addressAnswer(2)}`,
].join('\n');

const stores = [mocker.RecordStore.fromString(NOT_STARTED), mocker.RecordStore.fromString(SESSION)];
const opened: string[] = [];
let device: Replayer | undefined;
const transports: LedgerTransports = {
  list: async () => [DEVICE],
  open: async (path) => {
    opened.push(path);
    const store = stores[opened.length - 1];
    if (!store) throw new Error('the test recorded no more device sessions');
    return (device = await mocker.openTransportReplayer(store));
  },
};

let node: TestNode;
const mined = (hash: string) => minedOn(node, hash);
type WalletJson = { url: string; status: string; failure?: string; accounts: { address: string; url: string }[] };
const ledgerWallet = async () => ((await node.rpc('personal_listWallets')) as WalletJson[]).find((w) => w.url === URL)!;

test.before(async () => {
  node = await startTestNode({ config: { ledgerTransports: transports } });
});
test.after(() => node.stop());

test('the recorded transaction 2 really needs the EIP-155 tail rule', () => {
  assert.is(RLP2.length, 281);
});

test('a connected device is listed closed, without accounts; an open that fails says why and can be retried', async () => {
  assert.equal(await ledgerWallet(), { url: URL, status: 'Closed', accounts: [] });
  const r = await node.raw('personal_openWallet', [URL, '']);
  assert.is(r.error?.code, -32000);
  assert.match(r.error!.message, /Ethereum app is not open on the device \(status 0x6e00\)/);
  const w = await ledgerWallet();
  assert.is(w.status, 'Closed');
  assert.match(w.failure!, /not open/);
});

test("personal_openWallet opens it: version from the device, accounts at m/44'/60'/0'/0/i (used ones + the first unused)", async () => {
  assert.is(await node.rpc('personal_openWallet', [URL, 'a Ledger has no password']), null);
  assert.equal(opened, [DEVICE, DEVICE]);
  assert.equal(await ledgerWallet(), {
    url: URL,
    status: 'Ethereum app v1.10.3 online',
    accounts: [
      { address: ADDR[0], url: `${URL}/m/44'/60'/0'/0/0` },
      { address: ADDR[1], url: `${URL}/m/44'/60'/0'/0/1` },
    ],
  });
  for (const m of ['eth_accounts', 'personal_listAccounts']) assert.equal(await node.rpc(m), [ADDR[0], ADDR[1]]);
});

test('eth_sendTransaction from a device account: signed on the device, mined from that account', async () => {
  const hash = await node.rpc('eth_sendTransaction', [{ from: ADDR[0], to: OTHER, value: '0x1234', gas: '0x5208' }]);
  const receipt = await mined(hash);
  assert.is(receipt.from, ADDR[0]);
  assert.is(receipt.status, '0x1');
  assert.is(await node.rpc('eth_getBalance', [OTHER, 'latest']), '0x1234');
});

test('eth_signTransaction with data spanning two chunks: the raw transaction is valid and mined', async () => {
  const { raw, tx } = await node.rpc('eth_signTransaction', [{ from: ADDR[0], to: OTHER, gas: '0x186a0', data: TX2.data }]);
  assert.is(tx.nonce, '0x1');
  assert.is(Transaction.from(raw).from!.toLowerCase(), ADDR[0]);
  assert.is(await node.rpc('eth_sendRawTransaction', [raw]), tx.hash);
  assert.is((await mined(tx.hash)).from, ADDR[0]);
});

test('while the device waits for the user other requests answer; a rejection is an error and sends nothing', async () => {
  device!.enableExchangeBlocker();
  const sending = node.raw('eth_sendTransaction', [{ from: ADDR[0], to: OTHER, value: '0x1', gas: '0x5208' }]);
  await new Promise((res) => setTimeout(res, 50)); // the SIGN command is now at the device
  try {
    const late = new Promise((_, reject) => setTimeout(() => reject(new Error('eth_accounts waited for the device')), 2000).unref());
    assert.equal(await Promise.race([node.rpc('eth_accounts'), late]), [ADDR[0], ADDR[1]]);
    assert.is((await ledgerWallet()).status, 'Ethereum app v1.10.3 online');
  } finally {
    device!.unblockExchange(); // the user presses "reject"
  }
  const r = await sending;
  assert.is(r.error?.code, -32000);
  assert.match(r.error!.message, /denied by the user on the device \(status 0x6985\)/);
  assert.is(await node.rpc('eth_getTransactionCount', [ADDR[0], 'pending']), '0x2');
});

test('device accounts sign no messages (a Ledger uses Ethereum\'s prefix) and need no unlock', async () => {
  for (const [m, params] of [
    ['eth_sign', [ADDR[0], '0x01']],
    ['personal_sign', ['0x01', ADDR[0], '']],
  ] as const) {
    const r = await node.raw(m, [...params]);
    assert.is(r.error?.code, -32000);
    assert.match(r.error!.message, /Ledger.*Ethereum Signed Message/);
  }
  const r = await node.raw('personal_unlockAccount', [ADDR[0], '', 0]);
  assert.match(r.error!.message, /hardware wallet: it needs no unlock/);
});

test('once the last listed account is used, the next one is derived', async () => {
  const fund = await new Wallet(testKey(0)).signTransaction({ type: 0, chainId: 300, nonce: 0, gasPrice: 0, gasLimit: 21000, to: ADDR[1], value: 1 });
  await mined(await node.rpc('eth_sendRawTransaction', [fund]));
  assert.equal((await ledgerWallet()).accounts.map((a) => a.address), ADDR);
  stores[1]!.ensureQueueEmpty(); // every recorded exchange happened, in order
});

test('without a loadable USB library the node runs and lists no hardware wallets (logged once)', async () => {
  const notElf = join(tmpdir(), `not-a-library-${process.pid}.node`);
  writeFileSync(notElf, 'not a shared object');
  const lines: string[] = [];
  const n = await startTestNode({
    config: {
      verbosity: 3,
      ledgerTransports: {
        // the loader's own error, as node-hid throws it when libusb-1.0 is missing
        list: async () => {
          process.dlopen({ exports: {} }, notElf);
          return [];
        },
        open: async () => {
          throw new Error('no device to open');
        },
      },
    },
    logWrite: (l) => lines.push(l),
  });
  try {
    for (let i = 0; i < 3; i++) assert.equal(await n.rpc('personal_listWallets'), []);
    assert.equal(await n.rpc('eth_accounts'), []);
    assert.is(await n.rpc('eth_blockNumber'), '0x0');
    assert.is(lines.filter((l) => l.includes('hardware wallets disabled')).length, 1, lines.join(''));
  } finally {
    await n.stop();
  }
});

test.run();
