/**
 * A face grows as one module: in a copy of the project, `dispatch new face counters` writes the face file, the
 * module folder and its test; the module is then given a table of its own (with its migration), background
 * work and an HTTP route, `dispatch generate` runs, and `dispatch serve` serves it all. Nothing outside the face
 * file, the module folder, its test and `generated/` is edited, and the server starts, routes and stops the
 * module without naming it.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '../../src/hash.js';
import { freePort, printedKey, ROOT } from '../helpers/process.js';

/** What a copy of the project holds to generate and serve: the sources, never node_modules or a store. */
const PROJECT = ['faces', 'src', 'templates', 'generated', 'test/helpers', 'package.json', 'tsconfig.json'];
/** Where the face may write: its face file, its module folder, its test, and the generator's output. */
const ALLOWED = [/^faces\/counters\.yaml$/, /^src\/faces\/counters\//, /^test\/counters\//, /^generated\//];

const FACE_FILE = (since: string) => `# yaml-language-server: $schema=../generated/editor/face.schema.json
face: counters
summary: Counters an entity bumps.
since: ${since}
actions:
  bump:
    summary: Add one to a counter and answer its count.
    scope: storage:write
    effect: write
    idempotent: false
    external: false
    payload:
      type: object
      required: [id]
      additionalProperties: false
      properties:
        id: { type: string, minLength: 1, description: The counter's name. }
    result:
      type: object
      required: [id, count]
      additionalProperties: false
      properties:
        id: { type: string, description: The counter's name. }
        count: { type: integer, description: Its count after this bump. }
    examples:
      - payload: { id: visits }
        result: { id: visits, count: 1 }
`;

const TABLES = `/** The counters face's own table, and the migration that makes it. */
import type { Kysely } from 'kysely';
import type { ModuleMigration } from '../../core/face-module.js';

declare module '../../store/schema.js' {
  interface Database {
    counters: { mode: string; entity_id: string; id: string; count: number };
  }
}

export const migrations: readonly ModuleMigration[] = [
  {
    name: '0900_counters',
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('counters')
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('entity_id', 'text', (c) => c.notNull())
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('count', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('counters_pkey', ['mode', 'entity_id', 'id'])
        .execute();
    },
  },
];
`;

const HANDLERS = `/** The counters face's handlers. */
import type { CountersHandlers } from '../../../generated/server/types.js';

export const handlers: CountersHandlers = {
  async bump(payload, ctx) {
    const at = { mode: ctx.mode, entity_id: ctx.entityId, id: payload.id };
    const row = await ctx.db.selectFrom('counters').select('count').where('mode', '=', at.mode).where('entity_id', '=', at.entity_id).where('id', '=', at.id).executeTakeFirst();
    const count = (row?.count ?? 0) + 1;
    if (row) await ctx.db.updateTable('counters').set({ count }).where('mode', '=', at.mode).where('entity_id', '=', at.entity_id).where('id', '=', at.id).execute();
    else await ctx.db.insertInto('counters').values({ ...at, count }).execute();
    return { id: payload.id, count };
  },
};
`;

const INDEX = `/** The counters face module: its handlers, its table, a ticker in the background and a route that reads it. */
import type { CountersHandlers } from '../../../generated/server/types.js';
import { writeFileSync } from 'node:fs';
import type { FaceModule } from '../../core/face-module.js';
import { Poller } from '../../core/poller.js';
import { handlers } from './handlers.js';
import { migrations } from './tables.js';

export const counters: FaceModule<CountersHandlers, { tickMs: number; stoppedFile: string }> = {
  face: 'counters',
  handlers,
  migrations,
  settings: (env) => ({ tickMs: Number(env.COUNTERS_TICK_MS ?? 1000), stoppedFile: env.COUNTERS_STOPPED_FILE ?? '' }),
  start({ settings }) {
    let ticks = 0;
    const ticker = new Poller('counters ticker', settings.tickMs, async () => void ticks++);
    return {
      background: [ticker],
      routes(app) {
        app.get('/counters/ticks', async () => ({ ticks, running: ticker.running }));
      },
      // Called once its background work has stopped: what it says is what the test reads after the stop.
      async close() {
        if (settings.stoppedFile) writeFileSync(settings.stoppedFile, JSON.stringify({ running: ticker.running, ticks }));
      },
    };
  },
};
`;

let dir: string;
let before: Map<string, string>;
let scaffolded: { code: number | null; output: string };
let generated: { code: number | null; output: string };

/** Every file of the copy (node_modules and stores left out), by path, with its hash. */
function snapshot(): Map<string, string> {
  return new Map(
    readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && !['node_modules', '.data', '.cache'].some((skip) => entry.parentPath.includes(`${sep}${skip}`)))
      .map((entry) => {
        const path = join(entry.parentPath, entry.name);
        return [relative(dir, path).split(sep).join('/'), sha256(readFileSync(path, 'utf8'))];
      }),
  );
}

/** Runs the copy's `dispatch` from its sources; resolves with its exit code and output. */
async function dispatch(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; output: string }> {
  // The copy keeps its generator memo to itself (node_modules is the checkout's, through a link).
  const child = spawn(process.execPath, ['--import', 'tsx', join(dir, 'src/cli/main.ts'), ...args], { cwd: dir, env: { ...process.env, DISPATCH_CACHE_DIR: join(dir, '.cache'), ...env } });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, output };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dispatch-fixture-face-'));
  for (const part of PROJECT) cpSync(join(ROOT, part), join(dir, part), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  before = snapshot();
  scaffolded = await dispatch(['new', 'face', 'counters', '--action', 'bump', '--scope', 'storage:write', '--summary', 'Counters an entity bumps.']);
  const since = /^since: (\S+)$/m.exec(readFileSync(join(dir, 'faces/counters.yaml'), 'utf8'))![1]!;
  writeFileSync(join(dir, 'faces/counters.yaml'), FACE_FILE(since));
  mkdirSync(join(dir, 'src/faces/counters'), { recursive: true });
  writeFileSync(join(dir, 'src/faces/counters/tables.ts'), TABLES);
  writeFileSync(join(dir, 'src/faces/counters/handlers.ts'), HANDLERS);
  writeFileSync(join(dir, 'src/faces/counters/index.ts'), INDEX);
  generated = await dispatch(['generate']);
}, 180_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a fixture face added as one module', () => {
  it('is scaffolded and generated with no diagnostics', () => {
    expect(scaffolded.code, scaffolded.output).toBe(0);
    expect(generated.code, generated.output).toBe(0);
    expect(readFileSync(join(dir, 'generated/server/modules.ts'), 'utf8')).toContain("import { counters } from '../../src/faces/counters/index.js';");
  });

  it('edits no file outside its face file, its module folder, its test and generated/', () => {
    const after = snapshot();
    const touched = [...after].filter(([path, hash]) => before.get(path) !== hash).map(([path]) => path);
    const removed = [...before.keys()].filter((path) => !after.has(path) && !path.startsWith('generated/'));
    expect(touched.filter((path) => !ALLOWED.some((allowed) => allowed.test(path)))).toEqual([]);
    expect(removed).toEqual([]);
    expect(touched).toEqual(expect.arrayContaining(['faces/counters.yaml', 'src/faces/counters/index.ts', 'src/faces/counters/tables.ts', 'test/counters/bump.test.ts']));
  });

  it('is served: its table keeps counts, its background work runs, its route answers, and it stops with the server', async () => {
    const port = String(await freePort());
    const stopped = join(dir, 'counters-stopped.json');
    const env = { PORT: port, DATA_DIR: join(dir, '.data'), COUNTERS_TICK_MS: '20', COUNTERS_STOPPED_FILE: stopped };
    const child = spawn(process.execPath, ['--import', 'tsx', join(dir, 'src/cli/main.ts'), 'serve'], { cwd: dir, env: { ...process.env, ...env } });
    let output = '';
    const ready = new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('listening on') && output.includes("-d '")) resolve();
      });
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${output}`)));
    });
    try {
      await ready;
      const url = `http://127.0.0.1:${port}`;
      const bump = async () => {
        const reply = await fetch(`${url}/do`, {
          method: 'POST',
          headers: { authorization: `Bearer ${printedKey(output)}`, 'x-entity-id': 'acme', 'content-type': 'application/json' },
          body: JSON.stringify({ face: 'counters', action: 'bump', payload: { id: 'visits' } }),
        });
        return { status: reply.status, body: (await reply.json()) as { data?: unknown; error?: unknown } };
      };
      expect(await bump()).toMatchObject({ status: 200, body: { data: { id: 'visits', count: 1 } } });
      expect(await bump()).toMatchObject({ status: 200, body: { data: { id: 'visits', count: 2 } } });
      await new Promise((r) => setTimeout(r, 200));
      const ticks = (await (await fetch(`${url}/counters/ticks`)).json()) as { ticks: number; running: boolean };
      expect(ticks.running).toBe(true);
      expect(ticks.ticks).toBeGreaterThan(1);
    } finally {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const [code] = (await exited) as [number | null];
      expect(code, output).toBe(0);
      expect(JSON.parse(readFileSync(stopped, 'utf8'))).toMatchObject({ running: false });
    }
  }, 60_000);
});
