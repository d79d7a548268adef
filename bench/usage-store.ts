/**
 * The seeded usage stores (bench/usage-seed.ts), kept between runs because seeding a million records takes
 * a while: a SQLite file under node_modules/.cache/dispatch-bench/ and a PostgreSQL database on the local
 * server, each named by a hash of everything that decides its content: the seed's module and every module
 * it imports, transitively (the recorder, the store and its migrations), the seed plan and the prices it
 * uses. Any change to those makes a new name, so a stale store is never read: it is deleted and seeded
 * again. A store is marked complete only after its seed was checked, so an interrupted seed is redone.
 * `BENCH_RESEED=1` seeds again regardless.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { openShippedStore } from '../src/server/shipped.js';
import type { Db } from '../src/store/schema.js';
import { POSTGRES } from '../test/helpers/postgres.js';
import { seedFingerprint, seedUsage, type SeedStats } from './usage-seed.js';

const ROOT = new URL('../', import.meta.url);
const CACHE = fileURLToPath(new URL('node_modules/.cache/dispatch-bench/', ROOT));
const PREFIX = 'dispatch_bench_usage_';
const RESEED = process.env.BENCH_RESEED === '1';

/** The seed's module and the modules of this repository it imports, transitively: what decides a seed. */
function sources(): string[] {
  const seen = new Set<string>();
  const queue = ['bench/usage-seed.ts'];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const [, specifier] of readFileSync(new URL(file, ROOT), 'utf8').matchAll(/from '(\.{1,2}\/[^']+)'/g)) {
      const imported = posix.join(posix.dirname(file), specifier!).replace(/\.js$/, '.ts');
      // generated/ changes with every face; the seed's fingerprint names the prices it takes from there.
      if (!imported.startsWith('generated/') && existsSync(new URL(imported, ROOT))) queue.push(imported);
    }
  }
  return [...seen].sort();
}

export interface SeedMeta extends SeedStats {
  seedSeconds: number;
  seededAt: string;
}

export interface SeededStore {
  label: 'SQLite' | 'PostgreSQL';
  db: Db;
  meta: SeedMeta;
  /** True when the store was seeded by an earlier run. */
  cached: boolean;
}

let hashed: string | undefined;

/** Taken once per run, so that both stores of a run answer for the same sources. */
function contentHash(): string {
  if (hashed) return hashed;
  const hash = createHash('sha256').update(seedFingerprint());
  for (const source of sources()) hash.update(source).update(readFileSync(new URL(source, ROOT)));
  return (hashed = hash.digest('hex').slice(0, 12));
}

/** Seeds ending at the start of today (UTC), so the 30 days are whole days. */
async function seed(db: Db): Promise<SeedMeta> {
  const started = performance.now();
  const stats = await seedUsage(db, new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000));
  return { ...stats, seedSeconds: (performance.now() - started) / 1000, seededAt: new Date().toISOString() };
}

export async function seededSqlite(): Promise<SeededStore> {
  const hash = contentHash();
  const dir = join(CACHE, `usage-${hash}`);
  const metaFile = join(dir, 'seed.json');
  mkdirSync(CACHE, { recursive: true });
  for (const name of readdirSync(CACHE)) if (name.startsWith('usage-') && (name !== `usage-${hash}` || RESEED)) rmSync(join(CACHE, name), { recursive: true, force: true });
  let cached = existsSync(metaFile);
  if (!cached) {
    // Seeded beside, then moved into place whole: a directory with seed.json in it is a finished seed.
    const partial = `${dir}.partial`;
    const db = await openShippedStore({ dataDir: partial });
    let meta: SeedMeta;
    try {
      meta = await seed(db);
    } finally {
      await db.destroy();
    }
    writeFileSync(join(partial, 'seed.json'), `${JSON.stringify(meta, null, 2)}\n`);
    renameSync(partial, dir);
  }
  return { label: 'SQLite', db: await openShippedStore({ dataDir: dir }), meta: JSON.parse(readFileSync(metaFile, 'utf8')) as SeedMeta, cached };
}

export async function seededPostgres(): Promise<SeededStore> {
  const name = `${PREFIX}${contentHash()}`;
  const admin = new pg.Client({ connectionString: `${POSTGRES}/postgres` });
  await admin.connect();
  try {
    // The seed's figures are the database's comment, set once the seed was checked: no comment, no seed.
    const found = await admin.query<{ datname: string; meta: string | null }>(
      `select datname, shobj_description(oid, 'pg_database') as meta from pg_database where datname like '${PREFIX}%'`,
    );
    for (const row of found.rows) if (row.datname !== name || !row.meta || RESEED) await admin.query(`drop database ${row.datname} with (force)`);
    const kept = found.rows.find((row) => row.datname === name && row.meta && !RESEED);
    if (kept) return { label: 'PostgreSQL', db: await openShippedStore({ databaseUrl: `${POSTGRES}/${name}`, dataDir: '' }), meta: JSON.parse(kept.meta!) as SeedMeta, cached: true };

    await admin.query(`create database ${name}`);
    const db = await openShippedStore({ databaseUrl: `${POSTGRES}/${name}`, dataDir: '' });
    const meta = await seed(db);
    // What autovacuum would have done over a month of such writes, done now so that every run reads the same
    // (counted in the seed's time).
    const started = performance.now();
    const client = new pg.Client({ connectionString: `${POSTGRES}/${name}` });
    await client.connect();
    await client.query('vacuum analyze');
    await client.end();
    meta.seedSeconds += (performance.now() - started) / 1000;
    await admin.query(`comment on database ${name} is ${admin.escapeLiteral(JSON.stringify(meta))}`);
    return { label: 'PostgreSQL', db, meta, cached: false };
  } finally {
    await admin.end();
  }
}
