/**
 * The one order of migrations: the core's and the modules', checked by name before a store is touched; a
 * name given by the core and a module (a migration written before its tables had one owner) is one
 * migration whose parts run in order.
 */
import type { Kysely } from 'kysely';
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

  it('runs the parts of a name given twice as one migration, in the order given', async () => {
    const ran: string[] = [];
    const part = (label: string) => ({ name: '0999_shared', up: async () => void ran.push(label) });
    const set = migrationSet([part('first'), part('second')]);
    expect(set.names.filter((n) => n === '0999_shared')).toHaveLength(1);
    const migrations = await set.provider.getMigrations();
    await migrations['0999_shared']!.up({} as Kysely<unknown>);
    expect(ran).toEqual(['first', 'second']);
  });
});
