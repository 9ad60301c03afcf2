// The digest admission recovers senders from is cut out of the raw transaction (signing-digest.ts);
// it must equal @ethereumjs's rebuilt one for every transaction type, every RLP length form (short
// and long data, long list headers) and chain ids of one and of several bytes.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Wallet, Transaction, getBytes, toBeHex } from 'ethers';
import { createTxFromRLP } from '@ethereumjs/tx';
import { makeTxCommon } from '../src/tx/common.ts';
import { signingDigest } from '../src/tx/signing-digest.ts';
import { decodeSignedTx } from '../src/tx/pooled-tx.ts';
import { bytesToHex } from '../src/util/hex.ts';
import { testKey } from './helpers/node.ts';

const wallet = new Wallet(testKey(0));
const TO = '0x' + '42'.repeat(20);

test('equal to @ethereumjs for legacy (with and without EIP-155), EIP-2930 and EIP-1559, short to long', async () => {
  let checked = 0;
  for (const chainId of [300n, 1n, 127n, 128n, 2n ** 40n + 3n]) {
    const common = makeTxCommon(chainId);
    for (const dataLength of [0, 1, 40, 56, 300, 70_000]) {
      const data = '0x' + 'ab'.repeat(dataLength);
      const base = { to: dataLength === 300 ? null : TO, value: 7n, gasLimit: 3_000_000n, nonce: dataLength, data };
      const kinds = [
        { ...base, type: 0, gasPrice: 1n, chainId },
        { ...base, type: 1, gasPrice: 10n ** 12n, chainId, accessList: [{ address: TO, storageKeys: [toBeHex(1, 32), toBeHex(2, 32)] }] },
        { ...base, type: 2, maxFeePerGas: 2n, maxPriorityFeePerGas: 1n, chainId },
      ];
      if (chainId === 300n) kinds.push({ ...base, type: 0, gasPrice: 1n, chainId: 0n }); // signed before EIP-155: v 27/28
      for (const fields of kinds) {
        const raw = getBytes(await wallet.signTransaction(Transaction.from(fields as never)));
        const tx = createTxFromRLP(raw, { common });
        const want = bytesToHex(tx.getMessageToVerifySignature());
        assert.is(bytesToHex(decodeSignedTx(raw, common).digest), want, `type ${fields.type}, chain ${fields.chainId}, ${dataLength} data bytes`);
        checked++;
      }
    }
  }
  assert.is(checked, 96);
});

test('the six fields alone without a chain id; the chain id and two empty fields with one', () => {
  // rlp([1, 2, 3, "", 4, ""]) and the same with 300, "", "" appended
  const raw = Uint8Array.of(0xc6 + 3, 1, 2, 3, 0x80, 4, 0x80, 0x1b, 0x01, 0x01);
  const six = signingDigest(raw);
  const nine = signingDigest(raw, 300n);
  assert.not.equal(six, nine);
  assert.equal(six, signingDigest(Uint8Array.of(0xc9, 1, 2, 3, 0x80, 4, 0x80, 0x1c, 0x02, 0x02)), 'the signature does not enter the digest');
});

test.run();
