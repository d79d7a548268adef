/**
 * Usage across two `dispatch serve` processes sharing PostgreSQL: after N calls of mixed outcomes sent to
 * both at once, `usage.summary` counts exactly N with the right split by status and face, and its cost is the
 * sum computed from the face files' prices; a SIGTERM writes what each process still held. Then the operator
 * CLI reads the same numbers: `dispatch usage summary|events --json`, and `tail` prints calls as they happen.
 */
import { spawn } from 'node:child_process';
import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { faces } from '../../generated/server/dispatch.js';
import { DISPATCH, printedKey, ROOT, serve, sharedStore, type ServeProcess } from '../helpers/process.js';
import { postStream } from '../helpers/sse.js';

let drop: (() => Promise<void>) | undefined;
let env: Record<string, string>;
let a: ServeProcess;
let b: ServeProcess;
let admin: string;

async function post(server: ServeProcess, key: string, body: unknown, entity = 'acme') {
  const response = await fetch(`${server.url}/do`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'x-entity-id': entity, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

/** Runs the `dispatch` CLI to its end; resolves to its exit code and output. */
function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [DISPATCH, ...args], { cwd: ROOT, env: { ...process.env, DISPATCH_API_KEY: admin } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}

const price = (face: string, action: string) => faces.get(face)!.actions.get(action)!.cost;

beforeAll(async () => {
  ({ env, drop } = await sharedStore());
  a = await serve(env);
  admin = printedKey(a.output());
  // A flush window far longer than the test: only the stop writes what b recorded.
  b = await serve({ ...env, USAGE_FLUSH_MS: '600000' });
}, 60_000);

afterAll(async () => {
  for (const p of [a, b]) if (p && p.child.exitCode === null && p.child.signalCode === null) await p.stop();
  await drop?.();
});

describe('usage across processes on PostgreSQL', () => {
  it('counts every call of both processes exactly, priced from the face files', async () => {
    const limited = (await post(a, admin, { face: 'keys', action: 'create', payload: { scopes: ['keys:read'], entities: ['acme'] } })).body.data.key as string;
    const kinds = [
      { body: { face: 'ai', action: 'generate', payload: { model: 'm', prompt: 'count me' } }, status: 200 },
      { body: { face: 'ai', action: 'generate', payload: { model: 'm' } }, status: 400 },
      { body: { face: 'ai', action: 'nope', payload: {} }, status: 404 },
      { body: { face: 'ai', action: 'generate', payload: { model: 'm', prompt: 'x' } }, status: 403, key: () => limited },
      { body: { face: 'auth', action: 'signup', payload: { email: 'x', password: 'y' } }, status: 400 },
    ];
    const N = 200;
    const answers = await Promise.all(
      Array.from({ length: N }, (_, i) => {
        const kind = kinds[i % kinds.length]!;
        return post(i % 2 ? a : b, kind.key?.() ?? admin, kind.body).then((r) => ({ ...r, expected: kind.status }));
      }),
    );
    expect(answers.map((r) => r.status)).toEqual(answers.map((r) => r.expected));
    const expectedCost = answers
      .filter((r) => r.status === 200)
      .reduce((sum, r) => {
        const p = price('ai', 'generate');
        const tokens = r.body.data.tokens;
        return sum.plus(p.perCall).plus(new Decimal(p.perUnit.inputTokens!).times(tokens.input)).plus(new Decimal(p.perUnit.outputTokens!).times(tokens.output));
      }, new Decimal(0));

    // b holds its records until it stops.
    expect(await b.stop()).toBe(0);
    const summary = async () => (await post(a, admin, { face: 'usage', action: 'summary', payload: { groupBy: ['face', 'status'], filter: { face: ['ai', 'auth'] } } })).body.data;
    await expect.poll(async () => (await summary()).totals.calls, { timeout: 5000 }).toBe(N);
    const { groups, totals } = await summary();
    expect(groups.map((g: any) => [g.face, g.status, g.calls])).toEqual([
      ['ai', 200, 40],
      ['ai', 400, 40],
      ['ai', 403, 40],
      ['ai', 404, 40],
      ['auth', 400, 40],
    ]);
    expect(totals.errors).toBe(160);
    expect(totals.cost).toBe(expectedCost.toFixed());
  });

  it('follows the calls of every process live, each once, follow after follow', async () => {
    const c = await serve({ ...env, USAGE_FLUSH_MS: '50' });
    try {
      // Twice: the second follow starts the relay again after the first stopped it.
      for (let round = 0; round < 2; round++) {
        const seen: any[] = [];
        let ownRequestId: string | undefined;
        let opened!: () => void;
        const started = new Promise<void>((r) => (opened = r));
        const stream = postStream(
          a.url,
          { face: 'usage', action: 'live', payload: { maxSeconds: 5, filter: { face: ['ai'] } }, options: { stream: true } },
          { authorization: `Bearer ${admin}`, 'x-entity-id': 'acme' },
          (event) => {
            if (event.event === 'start') opened();
            if (event.event === 'record') seen.push(event.data);
            return ownRequestId !== undefined && seen.at(-1)?.requestId === ownRequestId ? 'abort' : undefined;
          },
        );
        await started;
        // The relay listens once the first follower subscribes: call the other process until one of its calls arrives.
        const fromC = new Set<string>();
        await expect
          .poll(
            async () => {
              const other = await post(c, admin, { face: 'ai', action: 'generate', payload: { model: 'm', prompt: 'from c' } });
              expect(other.status).toBe(200);
              fromC.add(other.body.meta.requestId);
              return seen.some((r) => fromC.has(r.requestId));
            },
            { timeout: 5000, interval: 200 },
          )
          .toBe(true);
        const own = await post(a, admin, { face: 'ai', action: 'generate', payload: { model: 'm', prompt: 'from a' } });
        ownRequestId = own.body.meta.requestId;
        await stream;
        expect(seen.map((r) => r.requestId)).toContain(ownRequestId);
        // Each record once: a process does not hear its own notices, and a relay listens once.
        expect(new Set(seen.map((r) => r.id)).size).toBe(seen.length);
      }
    } finally {
      await c.stop();
    }
  });

  it('gives operators the same numbers through the CLI, and a live tail', async () => {
    const connection = ['--url', a.url, '--entity', 'acme'];
    const summary = await cli(['usage', ...connection, 'summary', '--group-by', 'status', '--face', 'ai,auth', '--json']);
    expect(summary.code).toBe(0);
    const parsed = JSON.parse(summary.stdout);
    // The live test above made more successful calls; the refusals are the first test's alone.
    expect(parsed.groups.map((g: any) => g.status)).toEqual([200, 400, 403, 404]);
    expect(parsed.groups.find((g: any) => g.status === 400).calls).toBe(80);

    const events = await cli(['usage', ...connection, 'events', '--limit', '3', '--json']);
    expect(events.code).toBe(0);
    const lines = events.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toHaveLength(3);
    expect(lines.every((r: any) => r.mode === 'test' && r.entityId === 'acme')).toBe(true);

    const wrongKey = await cli(['usage', ...connection, '--key', `sk_test_${'Q'.repeat(40)}`, 'summary']);
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stderr).toMatch(/^401 api_key_invalid: /);

    const tail = spawn(process.execPath, [DISPATCH, 'usage', ...connection, 'tail', '--face', 'ai', '--json'], { cwd: ROOT, env: { ...process.env, DISPATCH_API_KEY: admin } });
    let out = '';
    tail.stdout.on('data', (c: Buffer) => (out += c.toString()));
    const exited = new Promise<number | null>((r) => tail.once('exit', r));
    // The tail follows once its stream is open; calls until one shows up.
    await expect
      .poll(
        async () => {
          await post(a, admin, { face: 'ai', action: 'generate', payload: { model: 'm', prompt: 'tail me' } });
          return out.includes('\n');
        },
        { timeout: 8000, interval: 300 },
      )
      .toBe(true);
    const record = JSON.parse(out.split('\n')[0]!);
    expect([record.face, record.action, record.status, record.entityId]).toEqual(['ai', 'generate', 200, 'acme']);
    tail.kill('SIGINT');
    expect(await exited).toBe(0);
  });
});
