/**
 * The code samples the API reference shows beside each operation (`x-codeSamples`), in the committed
 * document (generated/openapi.json) and in the one a server serves (its own address written in): every
 * TypeScript sample, each a module of its own, type-checks against the generated client in one program;
 * every curl sample is a well-formed shell command whose arguments (read by bash itself) are this operation's
 * URL, its headers and a JSON body equal to the operation's first request example.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromRoot } from '../../src/package-root.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { typeProblems } from '../helpers/type-check.js';

interface Sample {
  lang: string;
  label: string;
  source: string;
}
interface Operation {
  operationId: string;
  'x-codeSamples'?: Sample[];
  requestBody?: { content: Record<string, { examples?: Record<string, { value: unknown }> }> };
}
interface Document {
  servers: { url: string; variables?: { origin: { default: string } } }[];
  paths: Record<string, Record<string, Operation>>;
}

/** Each sample with the operation that shows it, its path, and the address the document's samples call. */
function samplesOf(name: string, doc: Document) {
  const [server] = doc.servers;
  const origin = server!.variables?.origin.default ?? server!.url;
  return Object.entries(doc.paths).flatMap(([path, operations]) =>
    Object.values(operations).flatMap((operation) => (operation['x-codeSamples'] ?? []).map((sample) => ({ name: `${name}-${operation.operationId}`, origin, path, operation, sample }))),
  );
}

const API_KEY = 'sk_test_samples';
const CLIENT = JSON.parse(readFileSync(fromRoot('generated', 'client', 'package.json'), 'utf8')) as { name: string };
const dir = mkdtempSync(join(tmpdir(), 'dispatch-code-samples-'));

let server: TestServer;
let samples: ReturnType<typeof samplesOf>;
beforeAll(async () => {
  server = await startServer();
  const committed = JSON.parse(readFileSync(fromRoot('generated', 'openapi.json'), 'utf8')) as Document;
  const served = (await (await fetch(`${server.url}/openapi.json`)).json()) as Document;
  samples = [...samplesOf('committed', committed), ...samplesOf('served', served)];
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the x-codeSamples of the OpenAPI document', () => {
  it('gives every operation with a sample one in curl and one in TypeScript, in both documents', () => {
    const operations = new Set(samples.map((s) => s.name));
    expect(operations.size).toBeGreaterThan(150);
    expect(samples.length).toBe(operations.size * 2);
    expect(samples.filter((s) => s.sample.lang === 'TypeScript').length).toBe(operations.size);
    expect(samples.filter((s) => s.sample.source.includes(server.url)).length).toBe(operations.size);
  });

  it('has TypeScript samples that compile against the generated client, each as a module', () => {
    const files = samples
      .filter((s) => s.sample.lang === 'TypeScript')
      .map(({ name, sample }) => {
        const file = join(dir, `${name}.mts`);
        writeFileSync(file, sample.source);
        return file;
      });
    const problems = typeProblems(files, {
      skipLibCheck: true,
      // The samples import the client package by name; here it is the generated source.
      paths: { [CLIENT.name]: [fromRoot('generated', 'client', 'index.ts')] },
      typeRoots: [fromRoot('node_modules', '@types')],
      types: ['node'],
    });
    expect(problems).toEqual([]);
    // The built-in batch face is the client's typed `batch()`.
    const batch = samples.find((s) => s.name === 'committed-batchRun' && s.sample.lang === 'TypeScript')!;
    expect(batch.sample.source).toContain("await client.batch([{ id: 'signup', face: 'auth'");
  }, 120_000);

  it('has curl samples that the shell reads as a call of the operation with its first example', () => {
    const curls = samples.filter((s) => s.sample.lang === 'Shell');
    // bash runs the samples as written, with `curl` standing for a function that prints its arguments.
    const script = ['set -eu', `curl() { printf '%s\\0' "$@"; printf '\\1'; }`, ...curls.map((s) => s.sample.source)].join('\n');
    // No rc file: with a socket for standard input, bash would take itself for a remote shell and read ~/.bashrc.
    const run = spawnSync('bash', ['--norc', '--noprofile', '-c', script], { env: { PATH: process.env.PATH, API_KEY }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const calls = run.stdout.split('\u0001').slice(0, -1);
    expect(calls.length).toBe(curls.length);
    curls.forEach(({ name, origin, path, operation }, i) => {
      const [url, ...rest] = calls[i]!.split('\0').slice(0, -1);
      expect(url, name).toBe(`${origin}${path}`);
      const headers: string[] = [];
      let body: string | undefined;
      for (let at = 0; at < rest.length; at += 2) {
        const [flag, value] = [rest[at], rest[at + 1]];
        expect([name, flag, typeof value]).toEqual([name, expect.stringMatching(/^-[Hd]$/), 'string']);
        if (flag === '-H') headers.push(value!);
        else body = value;
      }
      for (const header of headers) expect(header, name).toMatch(/^[A-Za-z][A-Za-z0-9-]*: \S/);
      expect(headers, name).toEqual(expect.arrayContaining([`Authorization: Bearer ${API_KEY}`, 'X-Entity-ID: acme', 'Content-Type: application/json']));
      const example = Object.values(operation.requestBody?.content['application/json']?.examples ?? {})[0];
      expect(JSON.parse(body!), name).toEqual(example ? example.value : { payload: {} });
    });
  });
});
