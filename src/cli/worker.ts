/**
 * `dispatch worker`: delivers webhooks without serving the API, for deployments that run delivery in its
 * own processes (set `WEBHOOK_WORKER=off` on the servers then). Several workers may share one PostgreSQL
 * store; each delivery is leased by one of them at a time. Stops on SIGINT or SIGTERM after the deliveries
 * in flight are settled.
 */
import type { Command } from 'commander';

export function registerWorker(program: Command): void {
  program
    .command('worker')
    .description('Deliver webhooks from the store named by DATABASE_URL (or DATA_DIR), without serving the API. Settings: WEBHOOK_* (see README).')
    .action(async () => {
      const [{ readConfig }, { openStore }, { WebhookWorker }] = await Promise.all([
        import('../runtime/config.js'),
        import('../store/open.js'),
        import('../webhooks/worker.js'),
      ]);
      const config = readConfig();
      const { secretKeysOrExit } = await import('./secret-keys.js');
      if (!secretKeysOrExit(config)) return;
      const db = await openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
      const worker = new WebhookWorker(db, config.webhooks);
      // The worker's timers do not keep the process alive on their own; this does, until a signal.
      const alive = setInterval(() => {}, 1 << 30);
      const stop = async () => {
        clearInterval(alive);
        await worker.stop();
        await db.destroy();
        process.exit(0);
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      worker.start();
      console.log(`Webhook worker ${config.serverVersion} delivering from ${config.databaseUrl ? 'PostgreSQL' : `SQLite in ${config.dataDir}`}`);
    });
}
