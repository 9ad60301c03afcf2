// The baseline for the dispatch-overhead row: bare node:http doing the same JSON work as the
// node for web3_clientVersion (parse the request, answer with a fixed string), nothing else.
import { createServer } from 'node:http';

const version = 'chain-node/bare-baseline';
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const msg = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: unknown };
    const body = JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: version });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  const a = server.address() as { port: number };
  process.stdout.write(`bare server serving JSON-RPC on http://127.0.0.1:${a.port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
