// Who may reach what (issue 19, items 3, 4 and part of 11), against real nodes: a DNS-rebinding page
// (Host attacker.example with a matching Origin) is refused with 403 over HTTP, WebSocket and the
// docs page on both transports and on a serving thread, while loopback names and IP addresses are
// served; a listener on 0.0.0.0 serves only eth, chain, net and web3 by default, keeps the dev
// account locked and refuses password signing without --allow-insecure-unlock; numeric ids come
// back exactly as written; a transaction field no transaction can carry is a -32602 before the
// password is tried; and a lock sent while an unlock derives its key wins.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { request as httpRequest } from 'node:http';
import { WebSocket } from 'ws';
import { startTestNode, type TestNode, type TestNodeOptions } from './helpers/node.ts';
import { parseFlags, ConfigError, type NodeConfig } from '../src/node/config.ts';

const ATTACKER = 'attacker.example';
const ONE_ETH = '0xde0b6b3a7640000';
const RECIPIENT = '0x' + '42'.repeat(20);

interface Answer {
  status: number;
  body: string;
}

/** One HTTP request on its own connection, with the Host (and Origin) a browser would send. */
function send(port: number, o: { host?: string; origin?: string; method?: string; path?: string; body?: string }): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (o.host !== undefined) headers.host = o.host;
    if (o.origin !== undefined) headers.origin = o.origin;
    const req = httpRequest({ host: '127.0.0.1', port, method: o.method ?? 'POST', path: o.path ?? '/', headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end(o.body);
  });
}

/** A WebSocket handshake with the given Host: 101 when accepted, else the refusal's status. */
function upgrade(port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: '127.0.0.1',
      port,
      path: '/',
      agent: false,
      headers: { host, origin: `http://${host}`, connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' },
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve(res.statusCode!);
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode!);
    });
    req.on('error', reject);
    req.end();
  });
}

const rpcBody = (method: string, params: unknown[] = []) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });

async function withNode<T>(o: TestNodeOptions, fn: (n: TestNode) => Promise<T>): Promise<T> {
  const n = await startTestNode(o);
  try {
    return await fn(n);
  } finally {
    await n.stop();
  }
}

// ---------------------------------------------------------------- item 3: --http.vhosts

const VARIANTS: [string, TestNodeOptions['transport'], number][] = [
  ['uws', 'uws', 0],
  ['node', 'node', 0],
  // a serving thread applies the rules itself (the kernel picks which socket takes a connection)
  ['uws + serving thread', 'uws', 1],
];

for (const [name, transport, threads] of VARIANTS) {
  test(`${name}: a DNS-rebinding page (Host ${ATTACKER}) gets 403 and moves nothing; loopback names and IPs are served`, async () => {
    await withNode({ dev: true, transport, config: { http: { ...devHttp(), threads, docs: true } } }, async (n) => {
      const dev = n.devAccount!;
      const attack = `${ATTACKER}:${n.port}`;
      // repeated, so that with a serving thread both sockets are met
      for (let i = 0; i < 6; i++) {
        const a = await send(n.port, { host: attack, origin: `http://${attack}`, body: rpcBody('eth_sendTransaction', [{ from: dev, to: RECIPIENT, value: ONE_ETH }]) });
        assert.is(a.status, 403, a.body);
        assert.match(JSON.parse(a.body).error.message, /invalid host specified.*attacker\.example.*--http\.vhosts/);
        assert.is((await send(n.port, { host: attack, method: 'GET', path: '/' })).status, 403, 'the docs page');
        assert.is(await upgrade(n.port, attack), 403, 'a WebSocket handshake');
      }
      assert.is(await n.rpc('eth_getBalance', [RECIPIENT, 'latest']), '0x0');
      assert.is(await n.rpc('eth_getTransactionCount', [dev, 'pending']), '0x0');

      for (const host of [`localhost:${n.port}`, `LocalHost:${n.port}`, `127.0.0.1:${n.port}`, `[::1]:${n.port}`, 'localhost', '10.1.2.3:80']) {
        const a = await send(n.port, { host, body: rpcBody('eth_chainId') });
        assert.is(a.status, 200, `${host}: ${a.body}`);
        assert.ok(JSON.parse(a.body).result, host);
        assert.is(await upgrade(n.port, host), 101, host);
      }
      assert.is((await send(n.port, { host: `localhost:${n.port}`, method: 'GET', path: '/' })).status, 200, 'the docs page on localhost');
    });
  });
}

test('--http.vhosts: * serves any name; a list serves its names (any case) and IPs, nothing else', async () => {
  await withNode({ config: { http: { ...devHttp(), vhosts: ['*'] } } }, async (n) => {
    assert.is((await send(n.port, { host: `${ATTACKER}:${n.port}`, body: rpcBody('eth_chainId') })).status, 200);
  });
  await withNode({ config: { http: { ...devHttp(), vhosts: ['chain.example'] } } }, async (n) => {
    const status = async (host: string) => (await send(n.port, { host, body: rpcBody('eth_chainId') })).status;
    assert.is(await status(`chain.example:${n.port}`), 200);
    assert.is(await status('CHAIN.example'), 200);
    assert.is(await status(`127.0.0.1:${n.port}`), 200);
    assert.is(await status(`localhost:${n.port}`), 403);
    assert.is(await status(`${ATTACKER}:${n.port}`), 403);
    assert.is(await upgrade(n.port, `chain.example:${n.port}`), 101);
    assert.is(await upgrade(n.port, `localhost:${n.port}`), 403);
  });
});

test('flags: --http.vhosts defaults to localhost and refuses a port or an empty list', () => {
  assert.equal(parse([]).http.vhosts, ['localhost']);
  assert.equal(parse(['--http.vhosts', 'a.example, *']).http.vhosts, ['a.example', '*']);
  assert.throws(() => parseFlags(['--http.vhosts', 'a.example:8545']), (e: unknown) => e instanceof ConfigError && /--http\.vhosts.*a\.example:8545/.test(e.message));
  assert.throws(() => parseFlags(['--http.vhosts', ',']), (e: unknown) => e instanceof ConfigError && /--http\.vhosts/.test(e.message));
});

// ---------------------------------------------------------------- item 4: non-loopback listeners

test('flags: --http.api defaults to eth,chain,net,web3 on a non-loopback address, all on loopback, as given otherwise', () => {
  assert.equal(parse(['--http.addr', '0.0.0.0']).http.api, ['eth', 'chain', 'net', 'web3']);
  assert.equal(parse(['--http.addr', '192.168.1.5']).http.api, ['eth', 'chain', 'net', 'web3']);
  for (const addr of ['127.0.0.1', '127.1.2.3', 'localhost', '::1']) assert.ok(parse(['--http.addr', addr]).http.api.includes('personal'), addr);
  assert.equal(parse(['--http.addr', '0.0.0.0', '--http.api', 'eth,personal']).http.api, ['eth', 'personal']);
});

test('0.0.0.0: admin_ and personal_ are not served, the dev account stays locked (said in the log)', async () => {
  const lines: string[] = [];
  const http = { ...parse(['--http.addr', '0.0.0.0', '--http.port', '0']).http };
  await withNode({ dev: true, logWrite: (l) => lines.push(l), config: { http, verbosity: 3 } }, async (n) => {
    const dev = n.devAccount!;
    const call = async (method: string, params: unknown[] = []) => JSON.parse((await send(n.port, { body: rpcBody(method, params) })).body);
    assert.is((await call('admin_nodeInfo')).error?.code, -32601);
    assert.is((await call('personal_listAccounts')).error?.code, -32601);
    assert.is((await call('txpool_status')).error?.code, -32601);
    assert.ok((await call('chain_chainId')).result);
    assert.equal((await call('eth_accounts')).result, [dev]);
    const sent = await call('eth_sendTransaction', [{ from: dev, to: RECIPIENT, value: ONE_ETH }]);
    assert.match(sent.error?.message ?? '', /authentication needed.*locked/);
    assert.is((await call('eth_getBalance', [RECIPIENT, 'latest'])).result, '0x0');
    assert.ok(lines.some((l) => l.includes(`dev account ${dev} stays locked`) && l.includes('--allow-insecure-unlock')), lines.join(''));
  });
});

test('0.0.0.0 with personal_ served: every password-signing method is refused; --allow-insecure-unlock allows them and unlocks the dev account', async () => {
  for (const allow of [false, true]) {
    const lines: string[] = [];
    const http = { ...parse(['--http.addr', '0.0.0.0', '--http.port', '0', '--http.api', 'eth,personal']).http };
    await withNode({ dev: true, logWrite: (l) => lines.push(l), config: { http, verbosity: 3, allowInsecureUnlock: allow } }, async (n) => {
      const dev = n.devAccount!;
      const call = async (method: string, params: unknown[]) => JSON.parse((await send(n.port, { body: rpcBody(method, params) })).body);
      const tx = { from: dev, to: RECIPIENT, value: ONE_ETH };
      const attempts: [string, unknown[]][] = [
        ['personal_sendTransaction', [tx, '']],
        ['personal_signAndSendTransaction', [tx, '']],
        ['personal_signTransaction', [{ ...tx, nonce: '0x5' }, '']],
        ['personal_sign', ['0x01', dev, '']],
        ['personal_unlockAccount', [dev, '', 0]],
      ];
      for (const [method, params] of attempts) {
        const r = await call(method, params);
        if (allow) assert.ok(r.result, `${method}: ${JSON.stringify(r.error)}`);
        else {
          assert.is(r.error?.code, -32000, method);
          assert.match(r.error.message, /HTTP access is forbidden.*--allow-insecure-unlock/, method);
        }
      }
      const sent = await call('eth_sendTransaction', [tx]);
      if (allow) {
        assert.ok(sent.result, JSON.stringify(sent.error));
        assert.ok(lines.some((l) => l.includes(`dev account ${dev} is unlocked`) && l.includes('--allow-insecure-unlock')), lines.join(''));
      } else {
        assert.match(sent.error?.message ?? '', /authentication needed/);
        assert.is((await call('eth_getBalance', [RECIPIENT, 'latest'])).result, '0x0');
      }
    });
  }
});

// ---------------------------------------------------------------- item 11: ids, gas bounds, lock race

const ODD_IDS = ['9007199254740993', '1e400', '1.5', '-0', '123456789012345678901234567890', '1E2', '1.50', '-9007199254740993', '0.1e-3'];

/** The ids of a response text, as written (top-level "id" members of its objects). */
function idTexts(text: string): string[] {
  return [...text.matchAll(/\{"jsonrpc":"2\.0","id":([^,]+),/g)].map((m) => m[1]!);
}

test('numeric ids come back byte for byte: single, batch, errors, head-cached answers, WebSocket', async () => {
  await withNode({}, async (n) => {
    const post = async (body: string) => (await send(n.port, { body })).body;
    for (const id of [...ODD_IDS, '7']) {
      // viem's layout, ethers' layout, and another
      for (const body of [
        `{"jsonrpc":"2.0","id":${id},"method":"eth_chainId","params":[]}`,
        `{"method":"eth_chainId","params":[],"id":${id},"jsonrpc":"2.0"}`,
        `{ "id" : ${id} , "jsonrpc":"2.0", "method":"eth_getBalance", "params":[{"id":5}] }`,
        `{"jsonrpc":"2.0","id":${id},"method":"no_such_method"}`,
      ]) assert.equal(idTexts(await post(body)), [id], body);
      // eth_blockNumber is kept per head: the kept answer carries each request's own id
      for (let i = 0; i < 2; i++) assert.equal(idTexts(await post(`{"id":${id},"jsonrpc":"2.0","method":"eth_blockNumber"}`)), [id]);
    }
    const batch = `[${ODD_IDS.map((id, i) => `{"jsonrpc":"2.0","id":${id},"method":"${i % 2 ? 'eth_chainId' : 'nope'}"}`).join(',')},{"jsonrpc":"2.0","id":"s","method":"eth_chainId"}]`;
    assert.equal(idTexts(await post(batch)), [...ODD_IDS, '"s"']);

    const ws = new WebSocket(n.wsUrl);
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    try {
      for (const id of ODD_IDS) {
        const answer = new Promise<string>((resolve) => ws.once('message', (d) => resolve(d.toString())));
        ws.send(`{"jsonrpc":"2.0","id":${id},"method":"eth_chainId"}`);
        assert.equal(idTexts(await answer), [id]);
      }
    } finally {
      ws.close();
    }
  });
});

test('a transaction field over its bound is -32602 naming it, before the password, with nothing logged', async () => {
  const lines: string[] = [];
  await withNode({ logWrite: (l) => lines.push(l), config: { verbosity: 4 } }, async (n) => {
    const account = await n.rpc('personal_newAccount', ['pw']);
    const tx = { from: account, to: RECIPIENT };
    const cases: [string, object, RegExp][] = [
      ['gas', { gas: '0x10000000000000001' }, /\bgas 0x10000000000000001 is over/],
      ['nonce', { nonce: '0xffffffffffffffff' }, /\bnonce 0xffffffffffffffff is over/],
      ['value', { value: '0x' + 'f'.repeat(64) }, /\bvalue 0xf+ is over/],
      ['gas × gasPrice', { gas: '0x5208', gasPrice: '0x' + 'f'.repeat(63) }, /gas × gasPrice is over/],
    ];
    for (const [name, fields, pattern] of cases) {
      // the wrong password too: the bound is checked first
      for (const password of ['pw', 'wrong']) {
        for (const method of ['personal_sendTransaction', 'personal_signTransaction']) {
          const r = await n.raw(method, [{ ...tx, ...fields }, password]);
          assert.is(r.error?.code, -32602, `${method} ${name}: ${JSON.stringify(r.error)}`);
          assert.match(r.error!.message, /invalid argument 0 \(transaction\)/);
          assert.match(r.error!.message, pattern);
        }
      }
    }
    // the same bound on the unlocked path (eth_)
    await n.rpc('personal_unlockAccount', [account, 'pw', 60]);
    assert.is((await n.raw('eth_signTransaction', [{ ...tx, gas: '0x10000000000000001' }])).error?.code, -32602);
    const logged = lines.filter((l) => / ERROR |\n\s+at /.test(l));
    assert.equal(logged, [], 'an error or a stack was logged');
  });
});

test('a lock sent while an unlock is still deriving its key (standard scrypt) wins', async () => {
  await withNode({ config: { lightKdf: false } }, async (n) => {
    const account = await n.rpc('personal_newAccount', ['pw']);
    const status = async () => ((await n.rpc('personal_listWallets')) as { status: string; accounts: { address: string }[] }[]).find((w) => w.accounts[0]!.address === account)!.status;
    for (let trial = 0; trial < 3; trial++) {
      const unlocking = n.raw('personal_unlockAccount', [account, 'pw', 0]);
      await new Promise((r) => setTimeout(r, 20)); // the unlock is dispatched and deriving
      assert.is(await n.rpc('personal_lockAccount', [account]), false, 'nothing was unlocked yet');
      const u = await unlocking;
      assert.match(u.error?.message ?? '', /locked while this unlock was deriving its key/, JSON.stringify(u));
      assert.is(await status(), 'Locked', `trial ${trial}`);
    }
    // without the lock the same unlock does unlock
    assert.is(await n.rpc('personal_unlockAccount', [account, 'pw', 0]), true);
    assert.is(await status(), 'Unlocked');
    assert.is(await n.rpc('personal_lockAccount', [account]), true);
  });
});

// ---------------------------------------------------------------- helpers

/** The test helper's HTTP settings (startTestNode replaces the whole http object when given one). */
function devHttp(): NodeConfig['http'] {
  return { addr: '127.0.0.1', port: 0, api: parse([]).http.api, corsDomains: [], maxBodyBytes: 5 * 1024 * 1024, maxBatch: 1000 };
}

function parse(argv: string[]): NodeConfig {
  const c = parseFlags(argv);
  if (c === 'help') throw new Error('help');
  return c;
}


test.run();
