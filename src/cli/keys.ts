/**
 * `dispatch keys create|list|revoke`: key management straight on the store, for operators (the only way
 * to make the first live key). The API's `keys` face does the same for callers holding `keys:write`.
 */
import { Option, type Command } from 'commander';
import { platform } from '../../generated/server/platform.js';
import { scopes as knownScopes } from '../../generated/server/scopes.js';
import type { Entities, KeyRecord } from '../store/keys.js';
import type { Db, Mode } from '../store/schema.js';

const MODES: Mode[] = ['live', 'test'];
const list = (value: string) => value.split(',').map((s) => s.trim()).filter(Boolean);

export function registerKeys(program: Command): void {
  const keys = program.command('keys').description('Create, list and revoke API keys in the store (DATABASE_URL, or SQLite under DATA_DIR).');

  keys
    .command('create')
    .description('Create a key and print its secret once.')
    .addOption(new Option('--mode <mode>', 'live or test').choices(MODES).makeOptionMandatory())
    .option('--scopes <scopes>', "comma-separated scopes, or '*'", '*')
    .option('--entities <entities>', "comma-separated entity ids, or '*'", '*')
    .option('--tier <tier>', `rate-limit tier: ${platform.tiers.map((t) => t.name).join(', ')}`, platform.tiers[0]!.name)
    .option('--name <name>', 'a label for people', '')
    .option('--api-version <date>', 'pin an API version')
    .option('--expires-at <iso>', 'expiry time (ISO 8601)')
    .option('--json', 'print the new key as JSON')
    // The secret alone, so that a shell can keep it: export DISPATCH_API_KEY=$(dispatch keys create ... --quiet).
    .addOption(new Option('--quiet', 'print only the secret').conflicts('json'))
    .action(async (o: { mode: Mode; scopes: string; entities: string; tier: string; name: string; apiVersion?: string; expiresAt?: string; json?: boolean; quiet?: boolean }) => {
      const scopes = list(o.scopes);
      const entities: Entities = o.entities.trim() === '*' ? '*' : list(o.entities);
      const problem = invalidCreate(scopes, entities, o.tier, o.apiVersion, o.expiresAt);
      if (problem) return usageError(problem);
      await withStore(async (db, { createKey }) => {
        const { record, secret } = await createKey(db, {
          mode: o.mode,
          name: o.name,
          scopes,
          entities,
          tier: o.tier,
          apiVersion: o.apiVersion,
          expiresAt: o.expiresAt,
        });
        if (o.json) console.log(JSON.stringify({ ...record, key: secret }, null, 2));
        else if (o.quiet) console.log(secret);
        else console.log(`${record.id}  ${secret}\nThe secret is shown only this once.`);
      });
    });

  keys
    .command('list')
    .description('List keys, newest first.')
    .addOption(new Option('--mode <mode>', 'only live or test keys').choices(MODES))
    .option('--all', 'include revoked keys')
    .option('--json', 'print JSON')
    .action(async (o: { mode?: Mode; all?: boolean; json?: boolean }) => {
      await withStore(async (db, { listKeys }) => {
        const found = await listKeys(db, { mode: o.mode, includeRevoked: Boolean(o.all) });
        if (o.json) console.log(JSON.stringify(found, null, 2));
        else for (const k of found) console.log(describe(k));
      });
    });

  keys
    .command('revoke <id>')
    .description('Revoke a key at once.')
    .action(async (id: string) => {
      await withStore(async (db, { revokeKey }) => {
        const revoked = (await revokeKey(db, 'live', id)) ?? (await revokeKey(db, 'test', id));
        if (!revoked) {
          console.error(`No key ${id}.`);
          process.exitCode = 1;
          return;
        }
        console.log(`Revoked ${describe(revoked)}`);
      });
    });
}

function invalidCreate(scopes: string[], entities: Entities, tier: string, apiVersion?: string, expiresAt?: string): string | undefined {
  const families = new Set([...knownScopes.keys()].map((s) => s.split(':')[0] + ':*'));
  const unknown = scopes.filter((s) => s !== '*' && !knownScopes.has(s) && !families.has(s));
  if (scopes.length === 0 || unknown.length) return `Unknown scope(s): ${unknown.join(', ') || '(none given)'}.`;
  if (entities !== '*' && (entities.length === 0 || entities.some((e) => !/^[A-Za-z0-9._:-]{1,64}$/.test(e)))) return 'Invalid --entities.';
  if (!platform.tiers.some((t) => t.name === tier)) return `Unknown tier "${tier}".`;
  if (apiVersion && !platform.versions.some((v) => v.date === apiVersion && v.status !== 'retired')) return `API version ${apiVersion} is not served.`;
  if (expiresAt && !(Date.parse(expiresAt) > Date.now())) return '--expires-at must be a future ISO 8601 time.';
  return undefined;
}

function describe(k: KeyRecord): string {
  const state = k.revokedAt ? `revoked ${k.revokedAt}` : k.expiresAt ? `expires ${k.expiresAt}` : 'active';
  const entities = k.entities === '*' ? '*' : k.entities.join(',');
  return `${k.id}  ${k.mode}  ${k.prefix}…${k.last4}  tier=${k.tier}  scopes=${k.scopes.join(',')}  entities=${entities}  ${state}  ${k.name}`;
}

/** Opens the store for one command; the store's modules are loaded only by the commands that use it. */
async function withStore(work: (db: Db, keys: typeof import('../store/keys.js')) => Promise<void>): Promise<void> {
  const [{ readConfig }, keys, { openShippedStore }] = await Promise.all([
    import('../server/config.js'),
    import('../store/keys.js'),
    import('../server/shipped.js'),
  ]);
  const config = readConfig();
  const db = await openShippedStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
  try {
    await work(db, keys);
  } finally {
    await db.destroy();
  }
}

function usageError(message: string): void {
  console.error(message);
  process.exitCode = 2;
}
