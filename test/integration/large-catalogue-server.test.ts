/**
 * A server over the large catalogue (test/fixtures/large: 42 faces, 276 actions), started as its own process
 * the way the scale bench starts it (bench/catalogue-server.ts over the generated tables, compiled to
 * JavaScript; each handler answers its action's first example). It answers every action that answers JSON
 * with its example, its payload validated by the face's own generated validators. The time from the
 * process's start to its first 200 is reported, not asserted: `npm run bench -- scale` measures it against
 * baselines.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepare, serverEnv, type Prepared } from '../../bench/scratch-catalogue.js';
import { fromRoot } from '../../src/package-root.js';
import { freePort } from '../helpers/process.js';

let prepared: Prepared;
let server: ChildProcess;
let url: string;
let firstOk: number;

async function call(face: string, action: string, payload: unknown, version?: string): Promise<{ status: number; body: { data?: unknown; error?: { code: string } } }> {
  const response = await fetch(`${url}/do`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${prepared.keys[0]}`, 'x-entity-id': 'bench0' },
    body: JSON.stringify({ face, action, payload, ...(version ? { options: { version } } : {}) }),
  });
  return { status: response.status, body: (await response.json()) as { data?: unknown } };
}

beforeAll(async () => {
  prepared = await prepare();
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  server = fork(fromRoot('dist', 'bench', 'catalogue-server.js'), { env: serverEnv(prepared, port), execArgv: [], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  // Polled from the spawn, as a client that retries until the server answers.
  for (;;) {
    if (server.exitCode !== null) throw new Error(`catalogue-server exited with ${server.exitCode}`);
    const answer = await call('search', 'list', { limit: 10 }).catch(() => undefined);
    if (answer) {
      expect(answer.status).toBe(200);
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  firstOk = performance.now() - started;
  console.log(`large catalogue (${prepared.actions} actions): first 200 ${Math.round(firstOk)} ms after the process started`);
}, 120_000);

afterAll(async () => {
  if (server && server.exitCode === null) {
    server.kill();
    await new Promise((resolve) => server.once('exit', resolve));
  }
  if (prepared) rmSync(prepared.dir, { recursive: true, force: true });
});

describe('a server over the large catalogue', () => {
  it('answers every JSON action with its example result, at the last version that serves its latest payload', async () => {
    const answered: string[] = [];
    for (const face of prepared.catalog.faces.filter((f) => !f.builtin)) {
      for (const action of face.actions.filter((a) => !a.streamOnly)) {
        const example = action.examples[0];
        expect(example, `${action.id} has an example`).toBeDefined();
        // Lint checks an example against the action's latest payload; some actions are removed from later versions.
        const version = action.variants.at(-1)!.versions.at(-1)!;
        const { status, body } = await call(face.name, action.name, example!.payload, version);
        expect({ action: action.id, version, status, error: body.error?.code }).toEqual({ action: action.id, version, status: 200, error: undefined });
        expect(body.data).toEqual(example!.result);
        answered.push(action.id);
      }
    }
    // Every face but the built-in batch face, and all but the few actions that answer only as a stream.
    expect(new Set(answered.map((id) => id.split('.')[0])).size).toBe(41);
    expect(answered.length).toBeGreaterThan(prepared.actions - 10);
  }, 120_000);

  it('refuses a payload its face does not allow, in the error envelope', async () => {
    const { status, body } = await call('search', 'list', { limit: 'ten' });
    expect(status).toBe(400);
    expect(body.error?.code).toBe('payload_invalid');
  });
});
