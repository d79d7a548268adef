/**
 * The store implementations the conformance suite runs against: embedded SQLite in a temporary directory,
 * and PostgreSQL in a fresh database on the local server. Each `create` gives an empty store location that
 * can be opened any number of times, and removes it afterwards.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoreConfig } from '../../src/store/open.js';
import { createTestDatabase } from '../helpers/postgres.js';

export interface StoreLocation {
  /** Where the store is; `openStore` is given the migrations with it. */
  config: Omit<StoreConfig, 'migrations'>;
  remove(): Promise<void>;
}

export interface StoreImplementation {
  name: string;
  /** Several server processes may share this store (and so may start on it at once). */
  shared: boolean;
  create(): Promise<StoreLocation>;
}

export const implementations: StoreImplementation[] = [
  {
    name: 'SQLite',
    shared: false,
    async create() {
      const dataDir = mkdtempSync(join(tmpdir(), 'dispatch-store-'));
      return { config: { dataDir }, remove: async () => rmSync(dataDir, { recursive: true, force: true }) };
    },
  },
  {
    name: 'PostgreSQL',
    shared: true,
    async create() {
      const database = await createTestDatabase();
      // dataDir must never be touched with a database URL: point it somewhere that cannot be created.
      return { config: { dataDir: '/dev/null/unused', databaseUrl: database.url }, remove: database.drop };
    },
  },
];
