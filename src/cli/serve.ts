/**
 * `dispatch serve` (what `npm start` runs): opens the store, creates the first key on an empty store, and
 * serves the API until SIGINT or SIGTERM, then drains in-flight requests and closes the store.
 */
import type { Command } from 'commander';

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('Serve POST /do. Settings come from the environment: PORT, HOST, DATA_DIR, AI_BASE_URL, ... (see README).')
    .action(async () => {
      // Loaded here so that the other commands never load the server.
      const [{ createProviders }, { readConfig }, { ensureFirstKey }, { buildServer }, { openStore }] = await Promise.all([
        import('../providers/config.js'),
        import('../runtime/config.js'),
        import('../runtime/first-key.js'),
        import('../runtime/server.js'),
        import('../store/open.js'),
      ]);
      const config = readConfig();
      const db = await openStore({ dataDir: config.dataDir });
      const app = await buildServer({
        db,
        providers: createProviders(),
        keyCacheTtlMs: config.keyCacheTtlMs,
        serverVersion: config.serverVersion,
        logger: config.logRequests,
      });
      const firstKey = await ensureFirstKey(db);
      await app.listen({ port: config.port, host: config.host });
      const base = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`;
      console.log(`Unified Dispatch ${config.serverVersion} listening on ${base} (data in ${config.dataDir})`);
      if (firstKey) printFirstKey(base, firstKey);
      const stop = async () => {
        await app.close();
        await db.destroy();
        process.exit(0);
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
}

function printFirstKey(base: string, key: string): void {
  const body = JSON.stringify({ face: 'ai', action: 'generate', payload: { model: 'gpt-4o-mini', prompt: 'Say hello' } });
  console.log(`
Created the first API key: test mode, every scope, every entity. It is shown only this once; keep it:

  ${key}

Try it:

  curl -s ${base}/do \\
    -H 'Authorization: Bearer ${key}' \\
    -H 'X-Entity-ID: demo' \\
    -H 'Content-Type: application/json' \\
    -d '${body}'
`);
}
