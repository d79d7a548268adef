/**
 * Every migration a store runs: the core's own (migrations.ts) and those the face modules bring for their
 * tables, in one order, by name (`NNNN_<what>`). Each name is checked before anything runs, and each is given
 * once, except the migrations written before their tables had one owner (SPLIT_MIGRATIONS): each owner gives
 * its part under the name stores have recorded, and the parts run in one go, the core's first.
 */
import type { Migration, MigrationProvider } from 'kysely';
import type { ModuleMigration } from '../core/face-module.js';
import { CORE_MIGRATIONS, SPLIT_MIGRATIONS } from './migrations.js';

const NAME = /^\d{4}_[a-z0-9_]+$/;

export interface MigrationSet {
  readonly provider: MigrationProvider;
  /** Every name, in the order they run. */
  readonly names: readonly string[];
}

/** The store's migrations with the modules' (`moduleMigrations`, in the order of the modules). */
export function migrationSet(moduleMigrations: readonly ModuleMigration[]): MigrationSet {
  const parts = new Map<string, Migration['up'][]>();
  for (const { name, up } of [...CORE_MIGRATIONS, ...moduleMigrations]) {
    if (!NAME.test(name)) throw new Error(`Migration "${name}" is not named NNNN_<what> (four digits, then lower-case words joined by _).`);
    // A second migration of one name would never run on a store that ran the first: refused, but for the splits.
    if (parts.has(name) && !SPLIT_MIGRATIONS.has(name)) throw new Error(`Migration "${name}" is given twice: name each migration once, after the newest in use.`);
    parts.set(name, [...(parts.get(name) ?? []), up]);
  }
  const migrations: Record<string, Migration> = Object.fromEntries(
    [...parts].map(([name, ups]): [string, Migration] => [
      name,
      {
        up: async (db) => {
          for (const up of ups) await up(db);
        },
      },
    ]),
  );
  return { provider: { getMigrations: async () => migrations }, names: [...parts.keys()].sort() };
}
