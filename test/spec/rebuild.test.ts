/**
 * Builds in one process, as a watch runs them: a face whose file did not change keeps its resolved form and
 * its lint results, yet every build answers as a fresh one would when what the face depends on changed in
 * another file (the platform, another face's error codes, who emits its events).
 */
import { describe, expect, it } from 'vitest';
import { formatDiagnostic } from '../../src/spec/diagnostics.js';
import { buildCatalog } from '../../src/spec/index.js';
import { PLATFORM } from './rules/demo.js';

const ERROR = `errors:
  - { code: demo_conflict, status: 409, type: invalid_request_error, message: It conflicts., retryable: false }
`;

function face(name: string, { emits, errors = '' }: { emits?: string; errors?: string } = {}): string {
  return `face: ${name}
summary: The ${name} face.
since: 2026-01-01
events:
  ${name}.echo.done:
    summary: A message was echoed.
    data: { type: object }
${errors}actions:
  echo:
    summary: Echo a message.
    scope: demo:read
    emits: [${emits ?? `${name}.echo.done`}]
    payload: { type: object }
    result: { type: object }
    examples: [{ payload: {}, result: {} }]
    effect: read
    external: false
`;
}

const build = (files: Record<string, string>) => buildCatalog('spec', { files: new Map(Object.entries({ 'platform.yaml': PLATFORM, ...files })) });
const shown = (result: ReturnType<typeof build>) => result.diagnostics.map(formatDiagnostic);

describe('rebuilding in one process', () => {
  it("reports a duplicate error code on the unchanged face, and drops it once the other face's file changes", () => {
    const beta = face('beta', { errors: ERROR });
    const first = build({ 'alpha.yaml': face('alpha', { errors: ERROR }), 'beta.yaml': beta });
    expect(shown(first)).toEqual([expect.stringMatching(/^spec\/beta\.yaml:\d+:\d+ error duplicate-error-code .*in alpha\.yaml/)]);
    const second = build({ 'alpha.yaml': face('alpha'), 'beta.yaml': beta });
    expect(shown(second)).toEqual([]);
    expect(second.catalog?.faces.map((f) => f.errors.length)).toEqual([0, 1]);
  });

  it("recounts who emits an unchanged face's event, without touching the catalogue built before", () => {
    const alpha = face('alpha');
    const first = build({ 'alpha.yaml': alpha, 'beta.yaml': face('beta', { emits: 'alpha.echo.done, beta.echo.done' }) });
    expect(shown(first)).toEqual([]);
    const emitters = (result: ReturnType<typeof build>) => result.catalog?.faces[0]?.events[0]?.emittedBy;
    expect(emitters(first)).toEqual(['alpha.echo', 'beta.echo']);
    const second = build({ 'alpha.yaml': alpha, 'beta.yaml': face('beta') });
    expect(emitters(second)).toEqual(['alpha.echo']);
    expect(emitters(first)).toEqual(['alpha.echo', 'beta.echo']);
  });

  it('checks an unchanged face again against a changed platform', () => {
    const alpha = face('alpha');
    expect(shown(build({ 'alpha.yaml': alpha }))).toEqual([]);
    const platform = PLATFORM.replace('  demo:read: Read demo things.\n', '  demo:write: Write demo things.\n');
    const result = buildCatalog('spec', { files: new Map([['platform.yaml', platform], ['alpha.yaml', alpha]]) });
    expect(shown(result)).toEqual([expect.stringMatching(/^spec\/alpha\.yaml:\d+:\d+ error unknown-scope/)]);
  });
});
