/**
 * Bare Fastify: one `POST /do` route behind Fastify's default JSON parser, sending the floor's fixed reply.
 * It sits between the node:http floor and the real server (itself on Fastify), so that a row can tell what
 * the framework costs from what the pipeline costs.
 */
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';

// The same bytes as floor-server.ts sends, so that both write equal replies.
const reply = JSON.stringify({ data: { text: 'ok' }, meta: { timing: 0, requestId: 'req_0', version: '0.0.0' } });
const app = Fastify({ logger: false });
app.post('/do', async (_request, response) => response.type('application/json; charset=utf-8').send(reply));
// BENCH_PORT when the scale section times its first 200; any free port otherwise.
await app.listen({ port: Number(process.env.BENCH_PORT ?? 0), host: '127.0.0.1' });
process.send?.({ port: (app.server.address() as AddressInfo).port });
process.on('SIGTERM', () => process.exit(0));
