// Applies a set of writes to a stored Merkle-Patricia trie in one pass and gives its new root.
//
// @ethereumjs/mpt's put walks from the root for every key and stores every node on the way,
// re-encoded and re-hashed: a block that writes 12 accounts hashed and stored the root 12 times
// (each intermediate root a node no block's state reaches, kept forever by an archive node) and
// spent ~0.8 ms in the trie (N3's profile). Here the writes change a tree of decoded
// nodes loaded on demand, and one pass at the end encodes each changed node once, stores the ones of
// 32 bytes or more (and the root) under their hash and embeds the others in their parent, exactly as
// mpt does: same roots and same stored nodes for the final state (test/trie-batch.test.ts checks
// both against mpt on random tries). Synchronous: nodes are read through `NodeStore.get`.
import { RLP } from '@ethereumjs/rlp';
import { KECCAK256_RLP } from '@ethereumjs/util';
import { equalBytes } from '../util/hex.ts';
import { keccak256 } from '../crypto/keccak.ts';
import { childRef, EMPTY_ITEM, fromHexPrefix, hashItem, hexPrefix, list, nibbles, pair, stringItem } from './trie-nodes.ts';

export interface NodeStore {
  /** the encoded node stored under `hash`; throws when it is missing */
  get(hash: Uint8Array): Uint8Array;
  put(hash: Uint8Array, encoded: Uint8Array): void;
}

/** One write: `value` undefined or empty deletes the key (mpt's rule). */
export interface TrieWrite {
  key: Uint8Array;
  value: Uint8Array | undefined;
}

interface Leaf {
  kind: 'leaf';
  path: number[];
  value: Uint8Array;
}
interface Extension {
  kind: 'ext';
  path: number[];
  child: Child;
}
interface Branch {
  kind: 'branch';
  kids: (Child | undefined)[];
  value: Uint8Array | undefined;
}
type TrieNode = Leaf | Extension | Branch;
/** a node in memory, or the 32-byte hash of a stored one not loaded yet */
type Child = TrieNode | Uint8Array;

type Decoded = Uint8Array | Decoded[];

/** Applies `writes` to the trie whose root is `root` and returns the new root; new nodes go to `store`. */
export function applyTrieWrites(store: NodeStore, root: Uint8Array, writes: readonly TrieWrite[]): Uint8Array {
  const load = (child: Child): TrieNode => (child instanceof Uint8Array ? decodeNode(RLP.decode(store.get(child)) as Decoded[]) : child);
  let top: TrieNode | undefined = equalBytes(root, KECCAK256_RLP) ? undefined : load(root);
  for (const { key, value } of writes) {
    const path = nibbles(key);
    top = value !== undefined && value.length > 0 ? insert(top, path, 0, value, load) : remove(top, path, 0, load);
  }
  if (top === undefined) return KECCAK256_RLP;
  // the root is stored under its hash whatever its size
  const encoded = encodeNode(top, store);
  const hash = keccak256(encoded);
  store.put(hash, encoded);
  return hash;
}

function insert(child: Child | undefined, key: number[], at: number, value: Uint8Array, load: (c: Child) => TrieNode): TrieNode {
  if (child === undefined) return { kind: 'leaf', path: key.slice(at), value };
  const node = load(child);
  if (node.kind === 'branch') {
    if (at === key.length) node.value = value;
    else node.kids[key[at]!] = insert(node.kids[key[at]!], key, at + 1, value, load);
    return node;
  }
  const common = commonPrefix(node.path, key, at);
  if (node.kind === 'leaf' && common === node.path.length && at + common === key.length) {
    node.value = value;
    return node;
  }
  if (node.kind === 'ext' && common === node.path.length) {
    node.child = insert(node.child, key, at + common, value, load);
    return node;
  }
  // the paths part after `common` nibbles: a branch there holds both
  const branch: Branch = { kind: 'branch', kids: new Array(16).fill(undefined), value: undefined };
  const rest = node.path.slice(common + 1);
  if (node.kind === 'leaf') {
    if (common === node.path.length) branch.value = node.value;
    else branch.kids[node.path[common]!] = { kind: 'leaf', path: rest, value: node.value };
  } else {
    branch.kids[node.path[common]!] = rest.length > 0 ? { kind: 'ext', path: rest, child: node.child } : node.child;
  }
  const split = at + common;
  if (split === key.length) branch.value = value;
  else branch.kids[key[split]!] = { kind: 'leaf', path: key.slice(split + 1), value };
  return common > 0 ? { kind: 'ext', path: node.path.slice(0, common), child: branch } : branch;
}

function remove(child: Child | undefined, key: number[], at: number, load: (c: Child) => TrieNode): TrieNode | undefined {
  if (child === undefined) return undefined;
  const node = load(child);
  if (node.kind === 'leaf') return node.path.length === key.length - at && commonPrefix(node.path, key, at) === node.path.length ? undefined : node;
  if (node.kind === 'ext') {
    if (commonPrefix(node.path, key, at) < node.path.length) return node;
    const next = remove(node.child, key, at + node.path.length, load);
    return next === undefined ? undefined : prefixed(node.path, next);
  }
  if (at === key.length) node.value = undefined;
  else {
    const nib = key[at]!;
    if (node.kids[nib] === undefined) return node;
    node.kids[nib] = remove(node.kids[nib], key, at + 1, load);
  }
  // a branch keeps two entries or more; with fewer it becomes what it still holds
  let only = -1;
  let count = node.value === undefined ? 0 : 1;
  for (let i = 0; i < 16; i++) {
    if (node.kids[i] === undefined) continue;
    count++;
    only = i;
  }
  if (count >= 2) return node;
  if (count === 0) return undefined;
  if (only < 0) return { kind: 'leaf', path: [], value: node.value! };
  return prefixed([only], load(node.kids[only]!));
}

/** `node` under the nibbles `path`: merged into a leaf or extension, a branch under a new extension */
function prefixed(path: number[], node: TrieNode): TrieNode {
  if (node.kind === 'branch') return { kind: 'ext', path, child: node };
  node.path = path.concat(node.path);
  return node;
}

function commonPrefix(path: number[], key: number[], at: number): number {
  let i = 0;
  while (i < path.length && at + i < key.length && path[i] === key[at + i]) i++;
  return i;
}

function decodeNode(items: Decoded[]): TrieNode {
  if (items.length === 17) {
    const kids: (Child | undefined)[] = new Array(16);
    for (let i = 0; i < 16; i++) kids[i] = decodeChild(items[i]!);
    const value = items[16] as Uint8Array;
    return { kind: 'branch', kids, value: value.length > 0 ? value : undefined };
  }
  if (items.length !== 2 || !(items[0] instanceof Uint8Array)) throw new Error('trie node is neither a branch nor a two-item node');
  const { path, leaf } = fromHexPrefix(items[0]);
  if (leaf) return { kind: 'leaf', path, value: items[1] as Uint8Array };
  const child = decodeChild(items[1]!);
  if (child === undefined) throw new Error('trie extension node without a child');
  return { kind: 'ext', path, child };
}

/** a child item: empty (none), a 32-byte hash, or a node under 32 bytes embedded as a list */
function decodeChild(item: Decoded): Child | undefined {
  if (Array.isArray(item)) return decodeNode(item);
  return item.length === 0 ? undefined : item;
}

/** The node's encoding; its children of 32 bytes or more are stored under their hash on the way. */
function encodeNode(node: TrieNode, store: NodeStore): Uint8Array {
  if (node.kind === 'leaf') return pair(hexPrefix(node.path, 0, node.path.length, true), node.value);
  if (node.kind === 'ext') return list([stringItem(hexPrefix(node.path, 0, node.path.length, false)), childItem(node.child, store)]);
  const items: Uint8Array[] = new Array(17);
  for (let i = 0; i < 16; i++) {
    const kid = node.kids[i];
    items[i] = kid === undefined ? EMPTY_ITEM : childItem(kid, store);
  }
  items[16] = node.value === undefined ? EMPTY_ITEM : stringItem(node.value);
  return list(items);
}

function childItem(child: Child, store: NodeStore): Uint8Array {
  if (child instanceof Uint8Array) return hashItem(child);
  const encoded = encodeNode(child, store);
  const item = childRef(encoded);
  if (item !== encoded) store.put(item.subarray(1), encoded);
  return item;
}
