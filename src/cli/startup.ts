/**
 * What `serve` and `worker` say when they cannot start for a reason the operator can fix: one line naming
 * the setting, with a hint, and exit code 2 (a configuration error) instead of a stack trace. Anything
 * else is a fault of the program and is thrown as it is.
 */
import { ConfigError } from '../core/settings.js';
import { readConfig, type RuntimeConfig } from '../server/config.js';

/** The flags `serve` and `worker` take, which win over the environment variables they stand for. */
export interface StartFlags {
  port?: string;
  host?: string;
  dataDir?: string;
}

export function withFlags(env: NodeJS.ProcessEnv, flags: StartFlags): NodeJS.ProcessEnv {
  return {
    ...env,
    ...(flags.port !== undefined ? { PORT: flags.port } : {}),
    ...(flags.host !== undefined ? { HOST: flags.host } : {}),
    ...(flags.dataDir !== undefined ? { DATA_DIR: flags.dataDir } : {}),
  };
}

/** readConfig, whose every refusal is a configuration error (some come from the modules it reads with). */
export function settings(env: NodeJS.ProcessEnv): RuntimeConfig {
  return asConfigError(() => readConfig(env));
}

/**
 * `read()`, with the refusals it throws turned into configuration errors: for parsers of settings. A system
 * error (a file that cannot be written) passes as it is, to be explained with the setting it comes from.
 */
export function asConfigError<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof ConfigError || (error as NodeJS.ErrnoException).code !== undefined) throw error;
    throw new ConfigError((error as Error).message);
  }
}

/** Runs a command's start; a problem of configuration is printed on one line and ends it with exit code 2. */
export async function startOrExplain(start: () => Promise<void>, config: () => RuntimeConfig | undefined): Promise<void> {
  try {
    await start();
  } catch (error) {
    // The store wraps what failed under it (`cause`): the first error of the chain that says something wins.
    const line = causes(error).map((cause) => explain(cause, config())).find((said) => said !== undefined);
    if (line === undefined) throw error;
    console.error(line);
    process.exitCode = 2;
    // The store or the limiter may hold the process open; nothing started that needs an orderly stop.
    process.exit(2);
  }
}

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET']);
/** The file system's refusals, each with what it means for a data directory. */
const FILE_CODES = new Map([
  ['EACCES', 'permission denied'],
  ['EPERM', 'not permitted'],
  ['EROFS', 'a read-only file system'],
  ['ENOTDIR', 'a file stands where a directory should be'],
  ['ENOENT', 'it does not exist and cannot be made there'],
  ['EEXIST', 'a file, not a directory, is there'],
  ['ENOSPC', 'no space left on the device'],
]);
/** PostgreSQL's own codes for a refused login and a database that does not exist. */
const POSTGRES_CODES: Record<string, string> = { '28P01': 'the password is refused', '28000': 'the login is refused', '3D000': 'the database does not exist' };

function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let at = error; at instanceof Error && chain.length < 10; at = at.cause) chain.push(at);
  return chain;
}

function explain(error: unknown, config: RuntimeConfig | undefined): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const { code, syscall, path } = error as NodeJS.ErrnoException;
  // Both say in one line what to change: a setting, or the store this program is pointed at.
  if (error.name === 'ConfigError' || error.name === 'StoreMigratedElsewhere') return error.message;
  if (!config) return undefined;
  if (syscall === 'listen') {
    const where = `${config.host}:${config.port}`;
    if (code === 'EADDRINUSE') return `Port ${config.port} is in use on ${config.host}: stop what listens there, or choose another with PORT or --port.`;
    if (code === 'EACCES') return `Listening on ${where} needs privileges this process lacks: choose a port above 1023 with PORT or --port.`;
    if (code === 'EADDRNOTAVAIL') return `HOST ${config.host} is not an address of this machine: use 127.0.0.1, 0.0.0.0 or one of its own (HOST or --host).`;
  }
  if (config.databaseUrl) {
    const url = redacted(config.databaseUrl);
    if (code && CONNECTION_CODES.has(code)) return `DATABASE_URL ${url}: cannot connect (${code}). Is PostgreSQL running there, and reachable from here?`;
    if (code && POSTGRES_CODES[code]) return `DATABASE_URL ${url}: ${POSTGRES_CODES[code]} (${error.message}).`;
    if (error instanceof TypeError && /url/i.test(error.message)) return `DATABASE_URL is not a URL (${error.message}): write it as postgres://user:password@host:5432/database.`;
  }
  const refusal = code === undefined ? undefined : FILE_CODES.get(code);
  if (refusal && path !== undefined && !config.databaseUrl) {
    return `DATA_DIR ${config.dataDir} cannot be used (${code} on ${path}: ${refusal}): set DATA_DIR or --data-dir to a directory this process can write.`;
  }
  return undefined;
}

/** The URL without its password, to print. */
export function redacted(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparsable)';
  }
}
