/**
 * The floor: a bare node:http server that only reads and parses the body and sends a fixed reply. The
 * real server is measured as a ratio to this, in the same run.
 */
import { createServer } from 'node:http';

const reply = JSON.stringify({ data: { text: 'ok' }, meta: { timing: 0, requestId: 'req_0', version: '0.0.0' } });
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    JSON.parse(Buffer.concat(chunks).toString('utf8'));
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(reply) });
    res.end(reply);
  });
});
// BENCH_PORT when the scale section times its first 200; any free port otherwise.
server.listen(Number(process.env.BENCH_PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  process.send?.({ port: typeof address === 'object' && address ? address.port : 0 });
});
