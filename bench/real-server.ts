/**
 * The real server for the benchmark: the whole pipeline over a fresh store, started in its own process so
 * that the load generator does not share its event loop. `BENCH_MODE=shared` runs it on PostgreSQL and
 * Redis (as several processes would) instead of SQLite and in-process limits. It issues many keys, each
 * for its own entity, so that the load spreads over rate-limit buckets as many clients' traffic would, and
 * tells the parent their secrets and ids (the ids are what the keys.get row reads). `BENCH_USAGE=off` turns
 * the usage stage off, to measure what it costs.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { sandboxProcessor } from '../src/providers/payments/sandbox.js';
import { testEmbeddingModel } from '../src/providers/test-embeddings.js';
import { testTextModel } from '../src/providers/test-model.js';
import { BENCH_KEYS } from './keys.js';
import { createLimiter } from '../src/server/rate-limit/create.js';
import { buildServer } from '../src/server/server.js';
import { shippedCatalogue, openShippedStore } from '../src/server/shipped.js';
import { createKey } from '../src/store/keys.js';
import { readModuleSettings } from '../src/server/modules.js';

const shared = process.env.BENCH_MODE === 'shared';
const dataDir = mkdtempSync(join(tmpdir(), 'dispatch-bench-'));
const db = await openShippedStore({ dataDir, databaseUrl: shared ? process.env.DATABASE_URL : undefined });
const keys: string[] = [];
const keyIds: string[] = [];
// A second set, for entities of their own, runs the batch row: a batch spends ten calls of rate limit at once.
const batchKeys: string[] = [];
for (let i = 0; i < BENCH_KEYS; i++) {
  const issued = await createKey(db, { mode: 'test', scopes: ['*'], entities: [`bench${i}`], tier: 'enterprise' });
  keys.push(issued.secret);
  keyIds.push(issued.record.id);
  batchKeys.push((await createKey(db, { mode: 'test', scopes: ['*'], entities: [`batch${i}`], tier: 'enterprise' })).secret);
}
const limiter = await createLimiter({
  redisUrl: shared ? 'redis://127.0.0.1:6379' : undefined,
  redisPrefix: `bench-${process.pid}:`,
  rateLimitWhenUnavailable: 'refuse',
});
// Each module's settings as a server with no variables set but its data directory reads them (stored files under it).
const catalogue = shippedCatalogue();
/** With `BENCH_USAGE=off` the usage module records nothing, so that a run measures what recording costs. */
const usageOff = (settings: Record<string, unknown>) =>
  process.env.BENCH_USAGE === 'off' ? { ...settings, usage: { ...(settings.usage as object), record: false } } : settings;
const app = await buildServer(catalogue, { db, providers: { ai: { test: testTextModel }, embeddings: { test: testEmbeddingModel }, payments: { test: sandboxProcessor } }, limiter, keyCacheTtlMs: 2000, serverVersion: 'bench', settings: usageOff(readModuleSettings(catalogue.modules, { DATA_DIR: dataDir })) });
await app.listen({ port: 0, host: '127.0.0.1' });
process.send?.({ port: (app.server.address() as AddressInfo).port, keys, keyIds, batchKeys });
process.on('SIGTERM', () => process.exit(0));
