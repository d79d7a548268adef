/**
 * The secret key that seals secrets at rest (src/store/sealed.ts), for `serve` and `worker`:
 * `DISPATCH_SECRET_KEY` when set (with `DISPATCH_PREVIOUS_SECRET_KEYS` still opening what older keys sealed).
 * In the embedded mode without it, a key is made on the first start and kept in `<DATA_DIR>/secret.key`
 * (readable by its owner only); with `DATABASE_URL` it is required, since every process sharing the store
 * must use the same key.
 */
import { linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeDirectory } from '../make-directory.js';
import type { RuntimeConfig } from '../server/config.js';
import { newSecretKey, parseSecretKey, useSecretKeys } from '../store/sealed.js';

/** Configures the keys; returns where the current one came from, for the start-up banner. */
export function configureSecretKeys(config: Pick<RuntimeConfig, 'secretKey' | 'previousSecretKeys' | 'databaseUrl' | 'dataDir'>): string {
  const previous = config.previousSecretKeys.map((k) => parseSecretKey(k, 'DISPATCH_PREVIOUS_SECRET_KEYS'));
  if (config.secretKey) {
    useSecretKeys(parseSecretKey(config.secretKey), previous);
    return 'DISPATCH_SECRET_KEY';
  }
  if (config.databaseUrl) {
    throw new Error('DISPATCH_SECRET_KEY is required with DATABASE_URL: every process sharing the store seals and opens secrets with it. Make one with `openssl rand -base64 32`.');
  }
  const file = join(config.dataDir, 'secret.key');
  makeDirectory(config.dataDir);
  // Written whole to a file of its own, then linked into place: of two processes starting at once on an
  // empty directory, only one makes the key, and the other never reads it half written.
  const draft = `${file}.${process.pid}.tmp`;
  writeFileSync(draft, `${newSecretKey()}\n`, { mode: 0o600 });
  try {
    linkSync(draft, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    rmSync(draft, { force: true });
  }
  useSecretKeys(parseSecretKey(readFileSync(file, 'utf8'), file), previous);
  return file;
}
