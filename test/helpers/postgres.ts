/**
 * A fresh PostgreSQL database per test run on the local server (127.0.0.1:5432, trust auth), dropped
 * afterwards, so runs never see each other's data.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const POSTGRES = 'postgres://postgres@127.0.0.1:5432';

export async function createTestDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `dispatch_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: `${POSTGRES}/postgres` });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  return {
    url: `${POSTGRES}/${name}`,
    async drop() {
      const client = new pg.Client({ connectionString: `${POSTGRES}/postgres` });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

/**
 * Loads a plain SQL dump (`pg_dump`'s text format, with `--inserts`) into the database at `url`. psql's own
 * commands in it (`\restrict`, which recent pg_dump writes) are psql's business, not SQL, and are left out.
 */
export async function restoreDump(url: string, dump: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(dump.split('\n').filter((line) => !line.startsWith('\\')).join('\n'));
  } finally {
    await client.end();
  }
}
