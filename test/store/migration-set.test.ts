/**
 * The one order of migrations: the core's and the modules', checked by name before a store is touched; a
 * split migration (written before its tables had one owner) is one migration whose parts run in order, and
 * no other name may be given twice.
 */
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrationSet } from '../../src/store/migration-set.js';
import { CORE_MIGRATIONS } from '../../src/store/migrations.js';

describe('the migration set', () => {
  it('runs the modules’ migrations in the one order by name, after or between the core’s', () => {
    const set = migrationSet([{ name: '0999_widgets', up: async () => {} }]);
    expect(set.names.at(-1)).toBe('0999_widgets');
    expect(set.names).toEqual([...CORE_MIGRATIONS.map((m) => m.name), '0999_widgets'].sort());
  });

  it('refuses a migration named outside NNNN_<what>, naming it', () => {
    expect(() => migrationSet([{ name: 'widgets', up: async () => {} }])).toThrow(/Migration "widgets" is not named NNNN_<what>/);
    expect(() => migrationSet([{ name: '0999_Widgets', up: async () => {} }])).toThrow(/0999_Widgets/);
  });

  it('runs the parts of a split migration as one, the core\'s first, and refuses any other name given twice', async () => {
    const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: new Database(':memory:') }) });
    let tablesBefore: string[] = [];
    const set = migrationSet([{ name: '0001_keys_and_auth', up: async (trx) => void (tablesBefore = (await trx.introspection.getTables()).map((t) => t.name)) }]);
    expect(set.names.filter((n) => n === '0001_keys_and_auth')).toHaveLength(1);
    await (await set.provider.getMigrations())['0001_keys_and_auth']!.up(db);
    expect(tablesBefore).toEqual(['api_keys']);
    await db.destroy();
    expect(() => migrationSet([{ name: '0012_event_log', up: async () => {} }])).toThrow(/Migration "0012_event_log" is given twice/);
    const twice = { name: '0999_widgets', up: async () => {} };
    expect(() => migrationSet([twice, twice])).toThrow(/given twice/);
  });
});
