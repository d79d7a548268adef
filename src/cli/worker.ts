/**
 * `dispatch worker`: delivers webhooks and e-mail, closes billing periods and settles payments left in
 * flight at the processor without serving the API, for deployments that run them in their own processes
 * (set `WEBHOOK_WORKER=off`, `EMAIL_WORKER=off`, `BILLING_CLOSER=off` and `PAYMENTS_RECONCILER=off` on the
 * servers then). Several workers may share one PostgreSQL store; each delivery and each message is leased by
 * one of them at a time, and each period is closed and each payment settled by one. Stops on SIGINT or
 * SIGTERM after the deliveries in flight are settled (stop-signals.ts: a second signal is ignored, a third
 * forces the exit).
 */
import type { Command } from 'commander';
import type { RuntimeConfig } from '../server/config.js';
import { asConfigError, settings, startOrExplain, withFlags, type StartFlags } from './startup.js';
import { stopOnSignals } from './stop-signals.js';

export function registerWorker(program: Command): void {
  program
    .command('worker')
    .description('Deliver webhooks and e-mail, close billing periods and settle payments left in flight from the store named by DATABASE_URL (or DATA_DIR), without serving the API. Settings: WEBHOOK_*, EMAIL_*, SMTP_URL, BILLING_*, STRIPE_* (see docs/configuration.md).')
    .option('--data-dir <dir>', 'directory of the embedded store and stored files (DATA_DIR, default .data)')
    .action(async (flags: StartFlags) => {
      let config: RuntimeConfig | undefined;
      await startOrExplain(async () => {
        const [{ createProviders }, { versionInForceNow }, { shippedCatalogue, openShippedStore }, { readModuleSettings, startModules }] = await Promise.all([
          import('../providers/config.js'),
          import('../spec/version-in-force.js'),
          import('../server/shipped.js'),
          import('../server/modules.js'),
        ]);
        const env = withFlags(process.env, flags);
        config = settings(env);
        const settled = config;
        const { modules: faceModules, platform, faces } = shippedCatalogue();
        const moduleSettings = asConfigError(() => readModuleSettings(faceModules, env));
        const { configureSecretKeys } = await import('./secret-keys.js');
        asConfigError(() => configureSecretKeys(settled));
        const db = await openShippedStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
        // Their events are written in the version in force when they are written, not in the newest declared.
        const apiVersion = versionInForceNow(platform);
        const modules = await startModules(faceModules, { db, providers: createProviders(), platform, faces, apiVersion, process: 'worker', settings: moduleSettings });
        // The worker's timers do not keep the process alive on their own; this does, until a signal.
        const alive = setInterval(() => {}, 1 << 30);
        stopOnSignals(async () => {
          clearInterval(alive);
          await modules.stop();
          await db.destroy();
        });
        modules.startBackground();
        console.log(`Dispatch worker ${config.serverVersion} running the modules' background work (webhook deliveries, e-mail, billing periods, payments in flight, storage) from ${config.databaseUrl ? 'PostgreSQL' : `SQLite in ${config.dataDir}`}`);
      }, () => config);
    });
}
