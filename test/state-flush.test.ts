// The node's state manager moves a block's cached writes into the tries in batches
// (CachedMerkleStateManager.flush → src/state/trie-batch.ts, N8). Here the same random
// blocks of writes — accounts created, changed, deleted and created again, contract code, storage
// slots set, changed and zeroed, storage cleared — go to two managers of that class, each over its
// own OverlayTrieDB on its own LMDB: one flushing in batches, one through @ethereumjs's own flush
// (an mpt put per write). Every block gives both the same state root and storage roots, and after
// its commit a new manager at that root reads the same accounts and slots from either database.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MerkleStateManager } from '@ethereumjs/statemanager';
import { Account, Address } from '@ethereumjs/util';
import { openStore, type Store } from '../src/store/lmdb-store.ts';
import { OverlayTrieDB } from '../src/state/trie-db.ts';
import { CachedMerkleStateManager, newStateManager } from '../src/state/state-manager.ts';
import { makeCommon } from '../src/tx/common.ts';
import { keccak256 } from '../src/crypto/keccak.ts';
import { prng } from './helpers/prng.ts';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/** the same manager, flushing as @ethereumjs does */
class MptFlushStateManager extends CachedMerkleStateManager {
  override flush(): Promise<void> {
    return MerkleStateManager.prototype.flush.call(this);
  }
}

interface Side {
  store: Store;
  db: OverlayTrieDB;
  state: CachedMerkleStateManager;
}

for (const seed of [21, 22, 23]) {
  test(`seed ${seed}: 60 random blocks of account, code and storage writes, batched and not: the same roots, the same state read back`, async () => {
    const common = makeCommon(1337n);
    const dirs: string[] = [];
    const side = (kind: typeof CachedMerkleStateManager): Side => {
      const dir = mkdtempSync(join(tmpdir(), 'chain-node-flush-'));
      dirs.push(dir);
      const store = openStore(dir);
      const db = new OverlayTrieDB(store.trie);
      return { store, db, state: newStateManager(db, common, undefined, kind) };
    };
    const batched = side(CachedMerkleStateManager);
    const reference = side(MptFlushStateManager);
    try {
      const rand = prng(seed);
      const pick = (n: number) => Math.floor(rand() * n);
      const addresses = Array.from({ length: 40 }, (_, i) => new Address(keccak256(Uint8Array.of(i)).subarray(12)));
      const slot = (i: number) => keccak256(Uint8Array.of(99, i));
      let flushes = 0;
      const counted = batched.state.flush.bind(batched.state);
      batched.state.flush = async () => {
        if (!batched.state['_trie'].hasCheckpoints()) flushes++;
        return counted();
      };
      for (let block = 0; block < 60; block++) {
        for (const { state } of [batched, reference]) await state.checkpoint();
        const ops = 1 + pick(25);
        for (let i = 0; i < ops; i++) {
          const address = addresses[pick(addresses.length)]!;
          const kind = pick(10);
          const value = Uint8Array.of(pick(3), pick(256)); // a leading zero now and then, and zero itself
          const balance = BigInt(1 + pick(1000));
          const key = slot(pick(6));
          for (const { state } of [batched, reference]) {
            const account = await state.getAccount(address);
            if (account === undefined) await state.putAccount(address, new Account(BigInt(block), balance));
            else if (kind < 4) await state.modifyAccountFields(address, { nonce: BigInt(block), balance });
            else if (kind < 7) await state.putStorage(address, key, value.every((b) => b === 0) ? new Uint8Array(0) : value);
            else if (kind === 7) await state.putCode(address, Uint8Array.of(0x60, block, 0x60, i));
            else if (kind === 8) await state.clearStorage(address);
            else await state.deleteAccount(address);
          }
        }
        for (const { state } of [batched, reference]) await state.commit();
        const root = await batched.state.getStateRoot();
        assert.is(hex(root), hex(await reference.state.getStateRoot()), `block ${block}: state root`);
        for (const address of addresses) {
          const a = await batched.state.getAccount(address);
          const b = await reference.state.getAccount(address);
          assert.is(a && hex(a.storageRoot), b && hex(b.storageRoot), `block ${block}: storage root of ${address}`);
        }
        // the block commits on each side; every tenth, a new manager at its root reads each database
        for (const { store, db } of [batched, reference]) {
          const g = db.seal();
          await store.env.transaction(() => db.write(g));
          db.committed(g);
        }
        if (block % 10 !== 9) continue;
        const readBatched = newStateManager(batched.db, common, root);
        const readReference = newStateManager(reference.db, common, root);
        for (const address of addresses) {
          const a = await readBatched.getAccount(address);
          const b = await readReference.getAccount(address);
          assert.is(a && `${a.nonce} ${a.balance} ${hex(a.codeHash)}`, b && `${b.nonce} ${b.balance} ${hex(b.codeHash)}`);
          if (b) for (let s = 0; s < 6; s++) assert.is(hex(await readBatched.getStorage(address, slot(s))), hex(await readReference.getStorage(address, slot(s))));
        }
      }
      assert.ok(flushes >= 60, `the batched side flushed ${flushes} times without a checkpoint open`);
    } finally {
      for (const { store } of [batched, reference]) await store.env.close();
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    }
  });
}

test.run();
