/**
 * `dispatch worker`: delivers webhooks and closes billing periods without serving the API, for deployments
 * that run them in their own processes (set `WEBHOOK_WORKER=off` and `BILLING_CLOSER=off` on the servers
 * then). Several workers may share one PostgreSQL store; each delivery is leased by one of them at a time,
 * and each period is closed by one. Stops on SIGINT or SIGTERM after the deliveries
 * in flight are settled.
 */
import type { Command } from 'commander';

export function registerWorker(program: Command): void {
  program
    .command('worker')
    .description('Deliver webhooks and close billing periods from the store named by DATABASE_URL (or DATA_DIR), without serving the API. Settings: WEBHOOK_*, BILLING_* (see README).')
    .action(async () => {
      const [{ readConfig }, { openStore }, { WebhookWorker }, { PeriodCloser }, { platform }] = await Promise.all([
        import('../runtime/config.js'),
        import('../store/open.js'),
        import('../webhooks/worker.js'),
        import('../billing/period-closer.js'),
        import('../../generated/server/platform.js'),
      ]);
      const config = readConfig();
      const { secretKeysOrExit } = await import('./secret-keys.js');
      if (!secretKeysOrExit(config)) return;
      const db = await openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
      const worker = new WebhookWorker(db, config.webhooks);
      const closer = new PeriodCloser(db, { ...config.billing, apiVersion: platform.latest });
      // The worker's timers do not keep the process alive on their own; this does, until a signal.
      const alive = setInterval(() => {}, 1 << 30);
      const stop = async () => {
        clearInterval(alive);
        await Promise.all([worker.stop(), closer.stop()]);
        await db.destroy();
        process.exit(0);
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      worker.start();
      closer.start();
      console.log(`Dispatch worker ${config.serverVersion} delivering webhooks and closing billing periods from ${config.databaseUrl ? 'PostgreSQL' : `SQLite in ${config.dataDir}`}`);
    });
}
