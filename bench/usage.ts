/**
 * The usage section: what the usage stage costs the pipeline row and how fast `usage.ingest` takes events
 * over HTTP (bench/usage-http.ts), then `usage.summary` over a month of a million records
 * (bench/usage-summary.ts), on SQLite and PostgreSQL; the figures are also written to bench/results/usage.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { usageHttp } from './usage-http.js';
import { usageSummary } from './usage-summary.js';

export async function usage(): Promise<void> {
  const http = await usageHttp();
  const summary = await usageSummary();
  const file = new URL('./results/usage.json', import.meta.url);
  mkdirSync(new URL('.', file), { recursive: true });
  writeFileSync(file, `${JSON.stringify({ timestamp: new Date().toISOString(), node: process.version, http, summary }, null, 2)}\n`);
  console.log(`Results: ${relative(process.cwd(), fileURLToPath(file))}`);
}
