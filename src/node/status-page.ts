// The status page: GET /status, served with the docs page (--http.docs, the same host rules). One
// self-contained HTML file — inline script and styles, a CSP that allows nothing but this node's own
// WebSocket — that reads everything over that WebSocket with the public JSON-RPC methods: newHeads
// for the head and recent blocks, eth_getBlockByNumber for their transactions, txpool_status,
// admin_peers, iris_getValidators and eth_syncing for the rest. A namespace the listener does not
// serve (--http.api) shows as "not served"; nothing else is needed from the node.
import type { StaticRoute } from '../rpc/http-rules.ts';

const STATUS_PATH = '/status';

/** Blocks kept for the tiles' averages and the list (and transactions listed). */
const RECENT = 20;

// String.raw: the script's own escapes reach the page as written (non-ASCII as \u escapes: the bundle is ASCII, and a raw template cannot be escaped)
const SCRIPT = String.raw`
'use strict';
const RECENT = ${RECENT};
const $ = (id) => document.getElementById(id);
const hexNum = (h) => parseInt(h, 16);
const short = (h) => h.slice(0, 10) + '\u2026' + h.slice(-6);
const el = (tag, text, cls) => { const e = document.createElement(tag); e.textContent = text; if (cls) e.className = cls; return e; };
let ws;
let nextId = 1;
const waiting = new Map();
/** newest first: { number, hash, time, txs: [{hash, from, to, value}], gasUsed } */
let blocks = [];

function call(method, params) {
  return new Promise((resolve, reject) => {
    const id = nextId++;
    waiting.set(id, { resolve, reject });
    ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params: params || [] }));
  });
}

/** The result, or a text saying why there is none (a namespace not served, an error). */
async function tryCall(method, params) {
  try {
    return { ok: await call(method, params) };
  } catch (e) {
    return { why: e.code === -32601 ? 'not served' : 'error: ' + e.message };
  }
}

function ether(hex) {
  const wei = BigInt(hex);
  const whole = wei / 10n ** 18n;
  const frac = (wei % 10n ** 18n).toString().padStart(18, '0').slice(0, 6).replace(/0+$/, '');
  return whole.toString() + (frac ? '.' + frac : '');
}

function ago(seconds) {
  const s = Math.max(0, Math.round(Date.now() / 1000 - seconds));
  return s < 120 ? s + ' s ago' : s < 7200 ? Math.round(s / 60) + ' min ago' : Math.round(s / 3600) + ' h ago';
}

/** eth_syncing's object as the sync tile's note: where it is, its rate and the time left (N15). */
function syncLine(s) {
  return '#' + hexNum(s.currentBlock) + ' of #' + hexNum(s.highestBlock) +
    (hexNum(s.downloadedBlock) > hexNum(s.currentBlock) ? ', downloaded to #' + hexNum(s.downloadedBlock) : '') +
    (s.phase === 'state' ? ' \u00b7 ' + hexNum(s.pulledStates) + ' state entries' : ' \u00b7 ' + hexNum(s.blocksPerSecond) + ' blocks/s') + (s.secondsLeft === undefined ? '' : ' \u00b7 ETA ' + hexNum(s.secondsLeft) + ' s');
}

function tile(id, value, note) {
  $(id).querySelector('.value').textContent = value;
  $(id).querySelector('.note').textContent = note || '';
}

function addBlock(b) {
  if (blocks.some((x) => x.hash === b.hash)) return;
  blocks.push({ number: hexNum(b.number), hash: b.hash, time: hexNum(b.timestamp), gasUsed: hexNum(b.gasUsed), txs: b.transactions.map((t) => ({ hash: t.hash, from: t.from, to: t.to, value: t.value })) });
  blocks.sort((a, c) => c.number - a.number);
  blocks = blocks.slice(0, RECENT);
}

function renderBlocks() {
  const head = blocks[0];
  if (!head) return;
  tile('t-head', '#' + head.number.toLocaleString('en-US'), ago(head.time));
  const oldest = blocks[blocks.length - 1];
  const span = head.time - oldest.time;
  const gaps = blocks.length - 1;
  const txCount = blocks.slice(0, -1).reduce((n, b) => n + b.txs.length, 0);
  tile('t-blocktime', gaps > 0 ? (span / gaps).toFixed(1) + ' s' : '\u2014', gaps > 0 ? 'average of the last ' + gaps + ' blocks' : 'one block so far');
  tile('t-tps', span > 0 ? (txCount / span).toFixed(txCount / span < 10 ? 2 : 0) : '\u2014', span > 0 ? txCount + ' tx in ' + span + ' s' : '');
  const rows = $('blocks');
  rows.replaceChildren(...blocks.map((b) => {
    const tr = document.createElement('tr');
    tr.append(el('td', '#' + b.number), el('td', short(b.hash), 'mono'), el('td', String(b.txs.length)), el('td', b.gasUsed.toLocaleString('en-US')), el('td', ago(b.time), 'muted'));
    return tr;
  }));
  const txs = blocks.flatMap((b) => b.txs.map((t) => ({ ...t, number: b.number }))).slice(0, RECENT);
  $('txs').replaceChildren(...(txs.length ? txs.map((t) => {
    const tr = document.createElement('tr');
    tr.append(el('td', short(t.hash), 'mono'), el('td', '#' + t.number), el('td', short(t.from), 'mono'), el('td', t.to ? short(t.to) : 'contract creation', 'mono'), el('td', ether(t.value)));
    tr.dataset.hash = t.hash;
    return tr;
  }) : [(() => { const tr = document.createElement('tr'); const td = el('td', 'no transactions in the last ' + blocks.length + ' blocks', 'muted'); td.colSpan = 5; tr.append(td); return tr; })()]));
}

async function refresh() {
  const [pool, peers, validators, syncing] = await Promise.all([tryCall('txpool_status'), tryCall('admin_peers'), tryCall('iris_getValidators'), tryCall('eth_syncing')]);
  if (pool.ok) tile('t-pool', hexNum(pool.ok.pending) + ' pending', hexNum(pool.ok.queued) + ' queued');
  else tile('t-pool', '\u2014', pool.why);
  if (peers.ok) {
    tile('t-peers', String(peers.ok.length), peers.ok.length ? '' : 'no peer connected');
    $('peers').replaceChildren(...peers.ok.map((p) => el('li', p.name + ' \u00b7 ' + (p.network && p.network.remoteAddress) + ' \u00b7 ' + p.id.slice(0, 12) + '\u2026')));
  } else tile('t-peers', '\u2014', peers.why);
  if (validators.ok) {
    tile('t-validators', String(validators.ok.length), 'of the head block');
    $('validators').replaceChildren(...validators.ok.map((v) => el('li', v, 'mono')));
  } else tile('t-validators', '\u2014', validators.why);
  if (syncing.ok === false) tile('t-sync', 'in step', 'not syncing');
  else if (syncing.ok) tile('t-sync', 'syncing (' + syncing.ok.phase + ')', syncLine(syncing.ok));
  else tile('t-sync', '\u2014', syncing.why);
}

async function onOpen() {
  $('live').textContent = 'live';
  $('live').className = 'live on';
  const [chainId, version, head] = await Promise.all([call('eth_chainId'), call('web3_clientVersion'), call('eth_blockNumber')]);
  $('chain').textContent = 'chain ' + hexNum(chainId) + ' \u00b7 ' + version + ' \u00b7 ' + location.host;
  const top = hexNum(head);
  const wanted = [];
  for (let n = top; n >= 0 && n > top - RECENT; n--) wanted.push(call('eth_getBlockByNumber', ['0x' + n.toString(16), true]));
  for (const b of await Promise.all(wanted)) if (b) addBlock(b);
  renderBlocks();
  await call('eth_subscribe', ['newHeads']);
  await refresh();
}

function connect() {
  ws = new WebSocket((location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/');
  ws.onopen = () => onOpen().catch((e) => { $('live').textContent = 'error: ' + e.message; });
  ws.onmessage = async (m) => {
    const msg = JSON.parse(m.data);
    if (msg.id !== undefined) {
      const w = waiting.get(msg.id);
      waiting.delete(msg.id);
      if (w) msg.error ? w.reject(Object.assign(new Error(msg.error.message), { code: msg.error.code })) : w.resolve(msg.result);
      return;
    }
    if (msg.method === 'eth_subscription' && msg.params.result.hash) {
      const b = await call('eth_getBlockByNumber', [msg.params.result.number, true]);
      if (b) addBlock(b);
      renderBlocks();
      refresh();
    }
  };
  ws.onclose = () => {
    for (const w of waiting.values()) w.reject(new Error('connection closed'));
    waiting.clear();
    $('live').textContent = 'reconnecting\u2026';
    $('live').className = 'live off';
    setTimeout(connect, 2000);
  };
}

connect();
// ages move on between blocks; peers and the pool change without one
setInterval(renderBlocks, 1000);
setInterval(() => { if (ws.readyState === 1) refresh(); }, 5000);
`;

const TILES: [id: string, label: string][] = [
  ['t-head', 'head'],
  ['t-blocktime', 'block time'],
  ['t-tps', 'tx/s'],
  ['t-pool', 'pool'],
  ['t-peers', 'peers'],
  ['t-validators', 'validators'],
  ['t-sync', 'sync'],
];

const STATUS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'">
<title>chain-node status</title>
<style>
body { margin: 0; font: 14px/1.4 -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif; color: #212529; background: #f8f9fa; }
header { display: flex; align-items: baseline; gap: 16px; padding: 14px 24px; background: #fff; border-bottom: 1px solid #dee2e6; }
h1 { font-size: 18px; margin: 0; }
h2 { font-size: 14px; margin: 24px 0 8px; color: #495057; }
main { padding: 8px 24px 24px; max-width: 1200px; }
#chain { color: #868e96; }
.live { margin-left: auto; font-weight: 600; }
.live.on { color: #2f9e44; } .live.off { color: #e8590c; }
.tiles { display: grid; grid-template-columns: repeat(auto-fill, minmax(150px, 1fr)); gap: 12px; margin-top: 16px; }
.tile { background: #fff; border: 1px solid #dee2e6; border-radius: 6px; padding: 10px 14px; }
.tile .label { color: #868e96; font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
.tile .value { font-size: 24px; font-weight: 600; margin: 2px 0; }
.tile .note { color: #868e96; font-size: 12px; min-height: 1.4em; }
.cols { display: grid; grid-template-columns: 1fr 1fr; gap: 24px; }
table { width: 100%; border-collapse: collapse; background: #fff; border: 1px solid #dee2e6; }
th, td { text-align: left; padding: 4px 10px; border-bottom: 1px solid #f1f3f5; white-space: nowrap; }
th { font-size: 12px; color: #868e96; font-weight: 600; }
ul { margin: 0; padding: 8px 10px 8px 28px; background: #fff; border: 1px solid #dee2e6; min-height: 1.4em; }
.mono { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12px; }
.muted { color: #868e96; }
</style>
</head>
<body>
<header><h1>chain-node status</h1><span id="chain">connecting…</span><span id="live" class="live off">connecting…</span></header>
<main>
<div class="tiles">
${TILES.map(([id, label]) => `<div class="tile" id="${id}"><div class="label">${label}</div><div class="value">—</div><div class="note"></div></div>`).join('\n')}
</div>
<div class="cols">
<div><h2>recent blocks</h2><table><thead><tr><th>block</th><th>hash</th><th>txs</th><th>gas used</th><th>age</th></tr></thead><tbody id="blocks"></tbody></table></div>
<div><h2>recent transactions</h2><table><thead><tr><th>hash</th><th>block</th><th>from</th><th>to</th><th>value</th></tr></thead><tbody id="txs"></tbody></table></div>
</div>
<div class="cols">
<div><h2>validators</h2><ul id="validators"></ul></div>
<div><h2>peers</h2><ul id="peers"></ul></div>
</div>
</main>
<script>${SCRIPT}</script>
</body>
</html>
`;

/** GET /status → the page (served with the docs page: node.ts). */
export function statusPageRoute(): [string, StaticRoute] {
  return [STATUS_PATH, { contentType: 'text/html; charset=utf-8', body: STATUS_PAGE }];
}
