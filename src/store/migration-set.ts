/**
 * Every migration a store runs: the core's own (migrations.ts) and those the face modules bring for their
 * tables, in one order, by name (`NNNN_<what>`). Each name is checked before anything runs. A name that
 * several give is one migration, whose parts run in one go in the order given (the core's first): that is how
 * a migration written before its tables had one owner keeps the name stores have recorded.
 */
import type { Migration, MigrationProvider } from 'kysely';
import type { ModuleMigration } from '../core/face-module.js';
import { CORE_MIGRATIONS } from './migrations.js';

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
