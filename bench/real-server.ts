/**
 * The real server for the benchmark: the whole pipeline over a fresh embedded store, with one admin key,
 * started in its own process so that the load generator does not share its event loop.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { testTextModel } from '../src/providers/test-model.js';
import { buildServer } from '../src/runtime/server.js';
import { createKey } from '../src/store/keys.js';
import { openStore } from '../src/store/open.js';

const db = await openStore({ dataDir: mkdtempSync(join(tmpdir(), 'dispatch-bench-')) });
const { secret } = await createKey(db, { mode: 'test', scopes: ['*'], entities: '*', tier: 'enterprise' });
const app = await buildServer({ db, providers: { ai: { test: testTextModel } }, keyCacheTtlMs: 2000, serverVersion: 'bench' });
await app.listen({ port: 0, host: '127.0.0.1' });
process.send?.({ port: (app.server.address() as AddressInfo).port, key: secret });
process.on('SIGTERM', () => process.exit(0));
