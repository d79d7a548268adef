/**
 * A server over a catalogue generated outside the repository: CATALOGUE_DIR holds its generated tables
 * compiled to JavaScript and each action's example result, which its handler answers (load-catalogue.ts).
 * DATA_DIR holds a store already migrated, with the keys issued; PORT is where to listen. The scale section
 * times this process from its start to its first 200, and its throughput, against the same action in a
 * catalogue of one face.
 */
import { openShippedStore } from '../src/server/shipped.js';
import { loadCatalogue } from './load-catalogue.js';

// As `dispatch serve` does: the store opens while the server's modules load.
const opening = openShippedStore({ dataDir: process.env.DATA_DIR! });
const [catalogue, { sandboxProcessor }, { testEmbeddingModel }, { testTextModel }, { createLimiter }, { buildServer }] = await Promise.all([
  loadCatalogue(process.env.CATALOGUE_DIR!),
  import('../src/providers/payments/sandbox.js'),
  import('../src/providers/test-embeddings.js'),
  import('../src/providers/test-model.js'),
  import('../src/server/rate-limit/create.js'),
  import('../src/server/server.js'),
]);
const db = await opening;
const limiter = await createLimiter({ redisPrefix: 'bench:', rateLimitWhenUnavailable: 'refuse' });
const app = await buildServer(catalogue, { db, providers: { ai: { test: testTextModel }, embeddings: { test: testEmbeddingModel }, payments: { test: sandboxProcessor } }, limiter, keyCacheTtlMs: 2000, serverVersion: 'bench' });
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.send?.({ port: Number(process.env.PORT) });
process.on('SIGTERM', () => process.exit(0));
