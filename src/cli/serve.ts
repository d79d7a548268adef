/**
 * `dispatch serve` (what `npm start` runs): opens the store, creates the first key on an empty store, and
 * serves the API until SIGINT or SIGTERM, then drains in-flight requests, writes buffered usage and closes the
 * store (stop-signals.ts: a second signal is ignored, a third forces the exit).
 */
import type { AddressInfo } from 'node:net';
import type { Command } from 'commander';
import { ConfigError } from '../core/settings.js';
import type { RuntimeConfig } from '../server/config.js';
import { asConfigError, redacted, settings, startOrExplain, withFlags, type StartFlags } from './startup.js';
import { stopOnSignals } from './stop-signals.js';

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('Serve POST /do. Settings come from the environment: PORT, HOST, DATA_DIR, AI_BASE_URL, ... (see docs/configuration.md).')
    .option('--port <port>', 'port to listen on (PORT, default 8787)')
    .option('--host <host>', 'address to listen on (HOST, default 127.0.0.1)')
    .option('--data-dir <dir>', 'directory of the embedded store and stored files (DATA_DIR, default .data)')
    .action(async (flags: StartFlags) => {
      let config: RuntimeConfig | undefined;
      await startOrExplain(async () => {
        const env = withFlags(process.env, flags);
        config = settings(env);
        const settled = config;
        // The modules' settings are checked first: a setting that cannot be used stops the start before the
        // store is made or touched. The store then opens (its writer thread starting, its migrations checked)
        // while the server loads; loaded here so that the other commands never load the server.
        const [{ shippedCatalogue, openShippedStore }, { readModuleSettings }] = await Promise.all([import('../server/shipped.js'), import('../server/modules.js')]);
        const catalogue = shippedCatalogue();
        const moduleSettings = asConfigError(() => readModuleSettings(catalogue.modules, env));
        const opening = openShippedStore({ dataDir: settled.dataDir, databaseUrl: settled.databaseUrl });
        // Awaited below; a configuration error thrown first must not leave its failure unhandled.
        opening.catch(() => {});
        const [{ createProviders, aiModelsFromEnv }, { ensureFirstKey }, { buildServer }, { createLimiter }, { configureSecretKeys }, { log }] =
          await Promise.all([
            import('../providers/config.js'),
            import('../server/first-key.js'),
            import('../server/server.js'),
            import('../server/rate-limit/create.js'),
            import('./secret-keys.js'),
            import('../core/log.js'),
          ]);
        asConfigError(() => configureSecretKeys(settled));
        const db = await opening;
        const limiter = await createLimiter(config);
        if (config.redisUrl && limiter.reachable && !(await limiter.reachable())) {
          const problem = `REDIS_URL ${redacted(config.redisUrl)}: cannot connect. Is Redis running there, and reachable from here?`;
          // In allow mode an unreachable Redis lets calls through unchecked, by choice: the start goes on.
          if (config.rateLimitWhenUnavailable === 'allow') log.warn(`${problem} Rate limits are not checked until it answers (RATE_LIMIT_WHEN_UNAVAILABLE=allow).`);
          else {
            await limiter.close();
            throw new ConfigError(problem);
          }
        }
        const app = await buildServer(catalogue, {
          db,
          providers: createProviders(),
          aiModels: aiModelsFromEnv(),
          limiter,
          keyCacheTtlMs: config.keyCacheTtlMs,
          idempotencyTtlSeconds: config.idempotencyTtlSeconds,
          idempotencyLeaseMarginMs: config.idempotencyLeaseMarginMs,
          eventRetentionDays: config.eventRetentionDays,
          serverVersion: config.serverVersion,
          logger: config.logRequests,
          http: config.http,
          settings: moduleSettings,
          ...(config.metricsToken ? { metricsToken: config.metricsToken } : {}),
          mcpToolLimit: config.mcpToolLimit,
          corsOrigins: config.corsOrigins,
          // Unset, the listening address stands in, unless it is every interface (0.0.0.0, ::), which no client
          // reaches, or port 0, whose port is known only once listening: docUrls then stay relative to wherever
          // the client called.
          ...(config.publicUrl || (!WILDCARD_HOSTS.has(config.host) && config.port !== 0) ? { publicUrl: config.publicUrl ?? listeningBase(config.host, config.port) } : {}),
        });
        // Installed before anything is printed, so that whoever reads the banner can already stop us cleanly.
        stopOnSignals(async () => {
          await app.close();
          await limiter.close();
          await db.destroy();
        });
        // Listen first: a key created by a start that then fails to listen would never be shown to anyone.
        await app.listen({ port: config.port, host: config.host });
        const firstKey = await ensureFirstKey(db, catalogue.platform);
        // The port bound, which --port 0 leaves to the system.
        const base = listeningBase(config.host, (app.server.address() as AddressInfo).port);
        const state = config.databaseUrl ? 'PostgreSQL' : `SQLite in ${config.dataDir}`;
        const banner = `Unified Dispatch ${config.serverVersion} listening on ${base} (store: ${state}; rate limits: ${config.redisUrl ? 'Redis' : 'in process'})`;
        // One write, so that a reader never sees the banner without the key that follows it.
        console.log(firstKey ? `${banner}\n${firstKeyMessage(base, firstKey)}` : banner);
      }, () => config);
    });
}

const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]']);

/** `http://HOST:PORT`, an IPv6 host in brackets. */
const listeningBase = (host: string, port: number) => `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

function firstKeyMessage(base: string, key: string): string {
  const body = JSON.stringify({ face: 'ai', action: 'generate', payload: { model: 'gpt-4o-mini', prompt: 'Say hello' } });
  return `
Created the first API key: test mode, every scope, every entity. It is shown only this once; keep it:

  ${key}

See every call, its latency and its cost at ${base}/dashboard (paste the key there). Try it:

  curl -s ${base}/do \\
    -H 'Authorization: Bearer ${key}' \\
    -H 'X-Entity-ID: demo' \\
    -H 'Content-Type: application/json' \\
    -d '${body}'
`;
}
