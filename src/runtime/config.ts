/**
 * Server settings from the environment, read once at start. Every setting has a default that runs the
 * embedded mode on a fresh machine.
 */
import { readFileSync } from 'node:fs';

export interface RuntimeConfig {
  port: number;
  host: string;
  dataDir: string;
  keyCacheTtlMs: number;
  logRequests: boolean;
  serverVersion: string;
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): RuntimeConfig {
  return {
    port: integer(env, 'PORT', 8787),
    host: env.HOST || '127.0.0.1',
    dataDir: env.DATA_DIR || '.data',
    keyCacheTtlMs: integer(env, 'KEY_CACHE_TTL_MS', 2000),
    logRequests: env.LOG_REQUESTS === '1',
    serverVersion: packageVersion(),
  };
}

/** The server's semantic version (`meta.version`), from package.json. */
export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a whole number, not "${raw}".`);
  return value;
}
