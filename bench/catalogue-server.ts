/**
 * A server over a catalogue generated outside the repository: CATALOGUE_DIR holds its generated tables
 * compiled to JavaScript (`generated/server/dispatch.js`, `platform.js` and the validators) and
 * `results.json`, each action's example result, which its handler answers. DATA_DIR holds a store already
 * migrated, with the keys issued; PORT is where to listen. The scale section times this process from its
 * start to its first 200, and its throughput, against the same action in a catalogue of one face.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { EventEntry, FaceEntry } from '../src/core/dispatch-types.js';
import type { AnyHandler } from '../src/core/context.js';
import type { Catalogue } from '../src/core/catalogue.js';
import type { AnyFaceModule } from '../src/core/face-module.js';
import { openShippedStore } from '../src/server/shipped.js';

const dir = process.env.CATALOGUE_DIR!;
// As `dispatch serve` does: the store opens while the server's modules load.
const opening = openShippedStore({ dataDir: process.env.DATA_DIR! });
const load = (path: string) => import(pathToFileURL(join(dir, 'generated', 'server', path)).href);
const [tables, { platform, errors }, { scopes }, { sandboxProcessor }, { testEmbeddingModel }, { testTextModel }, { createLimiter }, { buildServer }] = await Promise.all([
  load('dispatch.js'),
  load('platform.js'),
  load('scopes.js'),
  import('../src/providers/payments/sandbox.js'),
  import('../src/providers/test-embeddings.js'),
  import('../src/providers/test-model.js'),
  import('../src/server/rate-limit/create.js'),
  import('../src/server/server.js'),
]);
const db = await opening;
const faces = tables.faces as ReadonlyMap<string, FaceEntry>;
const results = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as Record<string, unknown>;
const modules: AnyFaceModule[] = [...faces.values()]
  .filter((face) => !face.builtin)
  .map((face) => ({ face: face.name, handlers: Object.fromEntries([...face.actions.values()].map((a): [string, AnyHandler] => [a.name, async () => results[a.id] ?? {}])) }));
const catalogue: Catalogue = { faces, eventTypes: tables.eventTypes as ReadonlyMap<string, EventEntry>, platform, scopes, errors, modules };
const limiter = await createLimiter({ redisPrefix: 'bench:', rateLimitWhenUnavailable: 'refuse' });
const app = await buildServer(catalogue, { db, providers: { ai: { test: testTextModel }, embeddings: { test: testEmbeddingModel }, payments: { test: sandboxProcessor } }, limiter, keyCacheTtlMs: 2000, serverVersion: 'bench' });
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.send?.({ port: Number(process.env.PORT) });
process.on('SIGTERM', () => process.exit(0));
