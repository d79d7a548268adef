/**
 * Server settings from the environment, read once at start. Every setting has a default that runs the
 * embedded mode on a fresh machine.
 */
import { readFileSync } from 'node:fs';
import { fromRoot } from '../package-root.js';
import { choice, ConfigError, integer, publicUrl } from '../core/settings.js';
import { LOG_LEVELS } from '../core/log-levels.js';
import { corsOrigins } from './cors.js';
import { DEFAULT_HTTP_LIMITS, type HttpLimits } from './http-limits.js';

export interface RuntimeConfig {
  /** Origins browser pages may call the API from (`CORS_ORIGINS`: a comma-separated list, or `*`). */
  corsOrigins: '*' | string[];
  port: number;
  host: string;
  dataDir: string;
  /** PostgreSQL for everything durable when several processes share state; SQLite under dataDir otherwise. */
  databaseUrl?: string;
  /** Redis for rate limits shared by several processes; in-process limits otherwise. */
  redisUrl?: string;
  /** Prefix of every Redis key, so that deployments (and test runs) sharing a Redis stay apart. */
  redisPrefix: string;
  /** What a request meets when Redis cannot be reached: let through (and counted), or 503. */
  rateLimitWhenUnavailable: 'allow' | 'refuse';
  keyCacheTtlMs: number;
  idempotencyTtlSeconds: number;
  idempotencyLeaseMarginMs: number;
  /** How long events and their deliveries are kept. */
  eventRetentionDays: number;
  logRequests: boolean;
  /** LOG_LEVEL, checked here so that a wrong one stops the start with one line (log.ts reads it itself). */
  logLevel: string;
  serverVersion: string;
  http: HttpLimits;
  /** Asked of `GET /metrics` as a bearer token when set. */
  metricsToken?: string;
  /** Past this many tools a key may call, `/mcp` lists the meta tools instead. */
  mcpToolLimit: number;
  /** Where clients reach this server (`PUBLIC_URL`), the base of error docUrls; the listening address when unset. */
  publicUrl?: string;
  /** Seals secrets at rest; made into the data directory in the embedded mode when unset. */
  secretKey?: string;
  /** Keys that sealed before the current one, still used to open what they sealed. */
  previousSecretKeys: string[];
}

/** REDIS_URL, when set: a redis://, rediss:// or unix: URL, or a socket path (what the Redis client reads as such). */
function redisUrl(env: NodeJS.ProcessEnv): string | undefined {
  const value = env.REDIS_URL || undefined;
  if (value === undefined || value.startsWith('/')) return value;
  let protocol: string | undefined;
  try {
    protocol = new URL(value).protocol;
  } catch {
    // Reported below, as any value that is not such a URL.
  }
  if (protocol !== 'redis:' && protocol !== 'rediss:' && protocol !== 'unix:') {
    throw new ConfigError('REDIS_URL is not a redis:// URL: write it as redis://host:6379, rediss:// for TLS, or a socket path.');
  }
  return value;
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): RuntimeConfig {
  return {
    port: portNumber(env),
    host: env.HOST || '127.0.0.1',
    dataDir: env.DATA_DIR || '.data',
    databaseUrl: env.DATABASE_URL || undefined,
    redisUrl: redisUrl(env),
    redisPrefix: env.REDIS_PREFIX || 'dispatch:',
    rateLimitWhenUnavailable: choice(env, 'RATE_LIMIT_WHEN_UNAVAILABLE', ['allow', 'refuse'] as const, 'allow'),
    keyCacheTtlMs: integer(env, 'KEY_CACHE_TTL_MS', 2000),
    idempotencyTtlSeconds: integer(env, 'IDEMPOTENCY_TTL_SECONDS', 86_400),
    idempotencyLeaseMarginMs: integer(env, 'IDEMPOTENCY_LEASE_MARGIN_MS', 5_000),
    eventRetentionDays: integer(env, 'EVENT_RETENTION_DAYS', 30),
    logRequests: env.LOG_REQUESTS === '1',
    logLevel: choice(env, 'LOG_LEVEL', LOG_LEVELS, 'info'),
    serverVersion: packageVersion(),
    http: {
      requestTimeoutMs: integer(env, 'REQUEST_TIMEOUT_MS', DEFAULT_HTTP_LIMITS.requestTimeoutMs),
      headersTimeoutMs: integer(env, 'HEADERS_TIMEOUT_MS', DEFAULT_HTTP_LIMITS.headersTimeoutMs),
      keepAliveTimeoutMs: integer(env, 'KEEP_ALIVE_TIMEOUT_MS', DEFAULT_HTTP_LIMITS.keepAliveTimeoutMs),
      maxConnections: integer(env, 'MAX_CONNECTIONS', DEFAULT_HTTP_LIMITS.maxConnections),
    },
    metricsToken: env.METRICS_TOKEN || undefined,
    mcpToolLimit: integer(env, 'MCP_TOOL_LIMIT', 40),
    publicUrl: publicUrl(env),
    corsOrigins: corsOrigins(env.CORS_ORIGINS),
    secretKey: env.DISPATCH_SECRET_KEY || undefined,
    previousSecretKeys: (env.DISPATCH_PREVIOUS_SECRET_KEYS ?? '').split(',').map((k) => k.trim()).filter(Boolean),
  };
}

/** The server's semantic version (`meta.version`), from package.json. */
export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(fromRoot('package.json'), 'utf8')) as { version: string };
  return pkg.version;
}

function portNumber(env: NodeJS.ProcessEnv): number {
  const port = integer(env, 'PORT', 8787);
  if (port > 65_535) throw new ConfigError(`PORT must be a port number from 0 to 65535, not "${env.PORT}".`);
  return port;
}
