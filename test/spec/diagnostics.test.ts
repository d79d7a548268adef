/**
 * Every diagnostic of the face language, asserted by code and `line:col` on small in-memory catalogues,
 * and all reported at once.
 */
import { describe, expect, it } from 'vitest';
import { buildCatalog } from '../../src/spec/index.js';
import { formatDiagnostic } from '../../src/spec/diagnostics.js';

const PLATFORM = `scopes:
  demo:read: Read demo things.
  demo:write: Write demo things.
tiers:
  free:
    token: { limit: 10, window: 1s }
    entity: { limit: 20, window: 1m }
versions:
  - date: 2026-01-01
    status: stable
    summary: First.
  - date: 2026-09-01
    status: stable
    announced: 2026-08-01
    summary: Second.
limits:
  bodyBytes: 1048576
  batchSize: 100
  timeout: { default: 1000, max: 5000 }
changelogUrl: /docs/versions.md
errorDocsUrl: /docs/errors.md
`;

/** A valid face; cases below break one thing each. */
const FACE = `face: demo
summary: A demo face.
since: 2026-01-01
actions:
  echo:
    summary: Echo a message.
    scope: demo:read
    emits: [demo.echo.done]
    payload:
      type: object
      required: [message]
      additionalProperties: false
      properties:
        message: { type: string }
    result:
      type: object
      properties:
        message: { type: string }
    examples:
      - payload: { message: hi }
        result: { message: hi }
`;

function diagnose(files: Record<string, string>) {
  const result = buildCatalog('spec', new Map(Object.entries({ 'platform.yaml': PLATFORM, ...files })));
  return result.diagnostics.map((d) => `${d.file}:${d.line}:${d.col} ${d.code}`);
}

describe('face diagnostics', () => {
  it('accepts the valid face', () => {
    const result = buildCatalog('spec', new Map([['platform.yaml', PLATFORM], ['demo.yaml', FACE]]));
    expect(result.diagnostics).toEqual([]);
    expect(result.catalog?.faces.map((f) => f.name)).toEqual(['demo']);
  });

  const cases: [name: string, face: string, expected: string[]][] = [
    ['YAML syntax', FACE.replace('summary: A demo face.', 'summary: [unclosed'), ['spec/demo.yaml:3:1 yaml-syntax']],
    ['unknown scope', FACE.replace('scope: demo:read', 'scope: demo:reed'), ['spec/demo.yaml:7:12 unknown-scope']],
    ['duplicate action', FACE + FACE.slice(FACE.indexOf('  echo:')), ['spec/demo.yaml:22:3 duplicate-action']],
    ['meta-schema: unknown property', FACE.replace('    summary: Echo a message.', '    sumary: Echo a message.'), [
      'spec/demo.yaml:5:3 schema-violation',
      'spec/demo.yaml:6:5 schema-violation',
    ]],
    ['meta-schema: wrong type', FACE.replace('since: 2026-01-01', 'since: 12'), ['spec/demo.yaml:3:8 schema-violation']],
    ['schema rejected by ajv strict', FACE.replace('message: { type: string }\n    result', 'message: { type: string, minLenght: 2 }\n    result'), [
      'spec/demo.yaml:10:7 invalid-json-schema',
    ]],
    ['example does not match', FACE.replace('- payload: { message: hi }', '- payload: { message: 42 }'), ['spec/demo.yaml:20:18 example-mismatch']],
    ['event name form', FACE.replace('emits: [demo.echo.done]', 'emits: [echo.done]'), ['spec/demo.yaml:8:13 invalid-event-name']],
    ['unknown version in since', FACE.replace('since: 2026-01-01', 'since: 2026-02-30'), ['spec/demo.yaml:3:8 unknown-version']],
    ['unknown version in until', FACE.replace('    scope: demo:read', '    scope: demo:read\n    until: 2027-01-01'), ['spec/demo.yaml:8:12 unknown-version']],
    ['unknown version on a property', FACE.replace('message: { type: string }\n    result', 'message: { type: string }\n        extra: { type: string, since: 2025-01-01 }\n    result'), [
      'spec/demo.yaml:15:39 unknown-version',
    ]],
    ['breaking change without 90 days notice', FACE.replace('    scope: demo:read', '    scope: demo:read\n    until: 2026-09-01'), [
      'spec/demo.yaml:8:12 breaking-change-notice',
    ]],
    ['unknown reference', FACE.replace('message: { type: string }\n    result', 'message: { $ref: "#/schemas/Missing" }\n    result'), [
      'spec/demo.yaml:14:26 unknown-ref',
    ]],
    ['unknown tier', FACE.replace('since: 2026-01-01\n', 'since: 2026-01-01\nrate: { gold: { limit: 1, window: 1s } }\n'), ['spec/demo.yaml:4:9 unknown-tier']],
    ['error code of the platform', FACE.replace('actions:', 'errors:\n  - { code: timeout, status: 400, type: invalid_request_error, message: M, retryable: false }\nactions:'), [
      'spec/demo.yaml:5:13 duplicate-error-code',
    ]],
  ];

  it.each(cases)('%s', (_name, face, expected) => {
    expect(diagnose({ 'demo.yaml': face })).toEqual(expected);
  });

  it('reports a face in a file of another name, and a face declared twice', () => {
    expect(diagnose({ 'demo.yaml': FACE, 'other.yaml': FACE })).toEqual(['spec/other.yaml:1:7 duplicate-face']);
    expect(diagnose({ 'wrong.yaml': FACE })).toEqual(['spec/wrong.yaml:1:7 face-name-mismatch']);
  });

  it('reports every problem at once, across files', () => {
    const broken = FACE.replace('scope: demo:read', 'scope: nope:read').replace('emits: [demo.echo.done]', 'emits: [bad]');
    const second = FACE.replace('face: demo', 'face: other').replace('demo.echo.done', 'other.echo.done').replace('since: 2026-01-01', 'since: 1999-01-01');
    expect(diagnose({ 'demo.yaml': broken, 'other.yaml': second })).toEqual([
      'spec/demo.yaml:7:12 unknown-scope',
      'spec/demo.yaml:8:13 invalid-event-name',
      'spec/other.yaml:3:8 unknown-version',
    ]);
  });

  it('formats as file:line:col severity code message', () => {
    const { diagnostics } = buildCatalog('spec', new Map([['platform.yaml', PLATFORM], ['demo.yaml', FACE.replace('scope: demo:read', 'scope: demo:reed')]]));
    expect(formatDiagnostic(diagnostics[0]!)).toBe('spec/demo.yaml:7:12 error unknown-scope Scope "demo:reed" is not declared in platform.yaml.');
  });
});

describe('platform diagnostics', () => {
  it('requires a stable version and refuses a version declared twice', () => {
    const platform = PLATFORM.replace(/status: stable/g, 'status: retired').replace('date: 2026-09-01', 'date: 2026-01-01');
    const result = buildCatalog('spec', new Map([['platform.yaml', platform]]));
    expect(result.diagnostics.map((d) => `${d.line}:${d.col} ${d.code}`)).toEqual(['9:3 no-stable-version', '12:11 duplicate-version']);
  });

  it('checks the platform file against its meta-schema', () => {
    const result = buildCatalog('spec', new Map([['platform.yaml', PLATFORM.replace('window: 1s', 'window: soon')]]));
    expect(result.diagnostics.map((d) => `${d.line}:${d.col} ${d.code}`)).toEqual(['6:33 schema-violation']);
  });
});
