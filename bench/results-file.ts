/**
 * A section's results as JSON, in bench/results/<section>.json: when and on which Node they were measured,
 * then the section's own fields, in the order given.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export function writeResults(section: string, fields: Record<string, unknown>): void {
  const file = new URL(`./results/${section}.json`, import.meta.url);
  mkdirSync(new URL('.', file), { recursive: true });
  writeFileSync(file, `${JSON.stringify({ timestamp: new Date().toISOString(), node: process.version, ...fields }, null, 2)}\n`);
  console.log(`Results: ${relative(process.cwd(), fileURLToPath(file))}`);
}
