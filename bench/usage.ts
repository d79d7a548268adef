/**
 * The usage section: what the usage stage costs the pipeline row and how fast `usage.ingest` takes events
 * over HTTP (bench/usage-http.ts), then `usage.summary` over a month of a million records
 * (bench/usage-summary.ts), on SQLite and PostgreSQL; the figures are also written to bench/results/usage.json.
 */
import { writeResults } from './results-file.js';
import { usageHttp } from './usage-http.js';
import { usageSummary } from './usage-summary.js';

export async function usage(): Promise<void> {
  const http = await usageHttp();
  const summary = await usageSummary();
  writeResults('usage', { http, summary });
}
