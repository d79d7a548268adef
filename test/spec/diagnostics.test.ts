/**
 * Every diagnostic of the face language, asserted by code and `line:col` on small in-memory catalogues,
 * and all reported at once.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
events:
  demo.echo.done:
    summary: A message was echoed.
    data: { type: object, properties: { message: { type: string } } }
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
    effect: read
    external: false
`;

function diagnose(files: Record<string, string>) {
  const result = buildCatalog('spec', { files: new Map(Object.entries({ 'platform.yaml': PLATFORM, ...files })) });
  return result.diagnostics.map((d) => `${d.file}:${d.line}:${d.col} ${d.code}`);
}

describe('face diagnostics', () => {
  it('accepts the valid face', () => {
    const result = buildCatalog('spec', { files: new Map([['platform.yaml', PLATFORM], ['demo.yaml', FACE]]) });
    expect(result.diagnostics).toEqual([]);
    expect(result.catalog?.faces.map((f) => f.name)).toEqual(['demo']);
  });

  const cases: [name: string, face: string, expected: string[]][] = [
    ['YAML syntax, at the bracket left open', FACE.replace('summary: A demo face.', 'summary: [unclosed'), ['spec/demo.yaml:2:10 yaml-syntax']],
    ['recursive alias', FACE.replace('      - payload: { message: hi }', '      - payload: &loop { message: hi, again: [*loop] }'), ['spec/demo.yaml:24:47 recursive-alias']],
    ['unknown scope', FACE.replace('scope: demo:read', 'scope: demo:reed'), ['spec/demo.yaml:11:12 unknown-scope']],
    ['duplicate action', FACE + FACE.slice(FACE.indexOf('  echo:')), ['spec/demo.yaml:28:3 duplicate-action']],
    ['meta-schema: unknown property', FACE.replace('    summary: Echo a message.', '    sumary: Echo a message.'), [
      'spec/demo.yaml:9:3 schema-violation',
      'spec/demo.yaml:10:5 schema-violation',
    ]],
    ['meta-schema: wrong type', FACE.replace('since: 2026-01-01', 'since: 12'), ['spec/demo.yaml:3:8 schema-violation']],
    ['schema rejected by ajv strict', FACE.replace('message: { type: string }\n    result', 'message: { type: string, minLenght: 2 }\n    result'), [
      'spec/demo.yaml:18:34 invalid-json-schema',
    ]],
    ['an action without an example', FACE.replace(/    examples:\n.*\n.*\n/, ''), ['spec/demo.yaml:9:3 missing-example']],
    ['example does not match, at the field', FACE.replace('- payload: { message: hi }', '- payload: { message: 42 }'), ['spec/demo.yaml:24:29 example-mismatch']],
    ['event name form', FACE.replaceAll('demo.echo.done', 'echo.done'), ['spec/demo.yaml:5:3 invalid-event-name']],
    ['event not declared', FACE.replace('emits: [demo.echo.done]', 'emits: [demo.echo.gone]'), [
      'spec/demo.yaml:5:3 unused-event',
      'spec/demo.yaml:12:13 unknown-event',
    ]],
    ['the same result schema rejected in two actions, reported at both', `${FACE.replace('      properties:\n        message: { type: string }\n    examples', '      minProps: 1\n      properties:\n        message: { type: string }\n    examples')}  again:
    summary: Echo again.
    scope: demo:read
    payload: { type: object }
    result:
      type: object
      minProps: 1
      properties:
        message: { type: string }
    examples:
      - payload: {}
        result: { message: 3 }
    effect: read
    external: false
`, ['spec/demo.yaml:21:7 invalid-json-schema', 'spec/demo.yaml:35:7 invalid-json-schema']],
    ['one result schema in two actions, each example checked against it', `${FACE}  again:
    summary: Echo again.
    scope: demo:read
    payload: { type: object }
    result:
      type: object
      properties:
        message: { type: string }
    examples:
      - payload: {}
        result: { message: 3 }
    effect: read
    external: false
`, ['spec/demo.yaml:38:28 example-mismatch']],
    ['results that JSON would spell alike (.inf and null), each checked against its own', `${FACE}  infinite:
    summary: Answer infinity.
    scope: demo:read
    payload: { type: object }
    result: { const: .inf }
    examples:
      - payload: {}
        result: .inf
    effect: read
    external: false
  nothing:
    summary: Answer null.
    scope: demo:read
    payload: { type: object }
    result: { const: null }
    examples:
      - payload: {}
        result: null
    effect: read
    external: false
`, []],
    ['event data schema rejected by ajv strict', FACE.replace('data: { type: object,', 'data: { type: object, minProps: 1,'), ['spec/demo.yaml:7:27 invalid-json-schema']],
    ['event data with an unknown reference', FACE.replace('data: { type: object,', 'data: { $ref: "#/schemas/Gone", type: object,'), ['spec/demo.yaml:7:19 unknown-ref']],
    ['unknown version in since', FACE.replace('since: 2026-01-01', 'since: 2026-02-30'), ['spec/demo.yaml:3:8 unknown-version']],
    ['unknown version in until', FACE.replace('    scope: demo:read', '    scope: demo:read\n    until: 2027-01-01'), ['spec/demo.yaml:12:12 unknown-version']],
    ['unknown version on a property', FACE.replace('message: { type: string }\n    result', 'message: { type: string }\n        extra: { type: string, since: 2025-01-01 }\n    result'), [
      'spec/demo.yaml:19:39 unknown-version',
    ]],
    ['unknown version on a result property', FACE.replace('      properties:\n        message: { type: string }\n    examples', '      properties:\n        message: { type: string, since: 2026-02-30 }\n    examples'), [
      'spec/demo.yaml:22:41 unknown-version',
    ]],
    ['unknown version on an event data property', FACE.replace('properties: { message: { type: string } } }', 'properties: { message: { type: string, until: 2027-01-01 } } }'), [
      'spec/demo.yaml:7:73 unknown-version',
    ]],
    ['result field removed without 90 days notice', FACE.replace('      properties:\n        message: { type: string }\n    examples', '      properties:\n        message: { type: string, until: 2026-09-01 }\n    examples'), [
      'spec/demo.yaml:22:41 breaking-change-notice',
    ]],
    ['a result field added in a version is not breaking, required or not', FACE.replace('    result:\n      type: object\n      properties:\n        message: { type: string }', '    result:\n      type: object\n      required: [message]\n      properties:\n        message: { type: string, since: 2026-09-01 }'), []],
    ['a result field whose type changes in a version without 90 days notice', FACE.replace('      properties:\n        message: { type: string }\n    examples', '      properties:\n        message: { oneOf: [{ type: string, until: 2026-09-01 }, { type: string, minLength: 1, since: 2026-09-01 }] }\n    examples'), [
      'spec/demo.yaml:22:51 breaking-change-notice',
      'spec/demo.yaml:22:102 breaking-change-notice',
    ]],
    ['unknown version on an alternative of a field\'s type', FACE.replace('message: { type: string }\n    result', 'message: { anyOf: [{ type: string }, { type: number, since: 2026-02-30 }] }\n    result'), [
      'spec/demo.yaml:18:69 unknown-version',
    ]],
    ['breaking change without 90 days notice', FACE.replace('    scope: demo:read', '    scope: demo:read\n    until: 2026-09-01'), [
      'spec/demo.yaml:12:12 breaking-change-notice',
    ]],
    ['unknown reference', FACE.replace('message: { type: string }\n    result', 'message: { $ref: "#/schemas/Missing" }\n    result'), [
      'spec/demo.yaml:18:26 unknown-ref',
    ]],
    ['weight on a field that is not an array', FACE.replace('    scope: demo:read', '    scope: demo:read\n    weight: { perItem: { message: 1 } }'), [
      'spec/demo.yaml:12:26 weight-field-not-array',
    ]],
    ['stream events of an action that does not stream', FACE.replace('    scope: demo:read', '    scope: demo:read\n    streamEvents: { tick: { summary: A tick., data: { type: object } } }'), [
      'spec/demo.yaml:12:21 stream-events-without-stream',
    ]],
    ['stream event named as a built-in one', FACE.replace('    scope: demo:read', '    scope: demo:read\n    stream: true\n    streamEvents: { delta: { summary: D., data: { type: object } } }'), [
      'spec/demo.yaml:13:21 schema-violation',
    ]],
    ['stream event data with an unknown reference', FACE.replace('    scope: demo:read', '    scope: demo:read\n    stream: true\n    streamEvents: { tick: { summary: T., data: { $ref: "#/schemas/Gone" } } }'), [
      'spec/demo.yaml:13:56 unknown-ref',
    ]],
    ['an action that does not say what a call does', FACE.replace('    effect: read\n    external: false\n', ''), ['spec/demo.yaml:9:3 effect-missing', 'spec/demo.yaml:9:3 external-missing']],
    ['a write that does not say whether a repeat changes more', FACE.replace('effect: read', 'effect: write'), ['spec/demo.yaml:9:3 idempotent-missing']],
    ['a read declared not idempotent', FACE.replace('effect: read', 'effect: read\n    idempotent: false'), ['spec/demo.yaml:27:17 read-not-idempotent']],
    ['an effect the language does not know', FACE.replace('effect: read', 'effect: delete'), ['spec/demo.yaml:26:13 schema-violation']],
    ['a schema named as a generated type', FACE.replace('actions:', 'schemas:\n  EchoResult: { type: object }\nactions:'), ['spec/demo.yaml:9:3 type-name-clash']],
    ['unknown tier', FACE.replace('since: 2026-01-01\n', 'since: 2026-01-01\nrate: { gold: { limit: 1, window: 1s } }\n'), ['spec/demo.yaml:4:9 unknown-tier']],
    ['error code of the platform', FACE.replace('actions:', 'errors:\n  - { code: timeout, status: 400, type: invalid_request_error, message: M, retryable: false }\nactions:'), [
      'spec/demo.yaml:9:13 duplicate-error-code',
    ]],
  ];

  it.each(cases)('%s', (_name, face, expected) => {
    expect(diagnose({ 'demo.yaml': face })).toEqual(expected);
  });

  it('names the generated type a schema collides with', () => {
    const files = new Map([['platform.yaml', PLATFORM], ['demo.yaml', FACE.replace('actions:', 'schemas:\n  EchoResult: { type: object }\nactions:')]]);
    const [found] = buildCatalog('spec', { files }).diagnostics;
    expect(found?.message).toBe('Schema "EchoResult" would be generated as DemoEchoResult, which is already the result of demo.echo: rename the schema.');
  });

  it('reports a face in a file of another name, and a face declared twice', () => {
    expect(diagnose({ 'demo.yaml': FACE, 'other.yaml': FACE })).toEqual(['spec/other.yaml:1:7 duplicate-face']);
    expect(diagnose({ 'wrong.yaml': FACE })).toEqual(['spec/wrong.yaml:1:7 face-name-mismatch']);
  });

  it('reports every problem at once, across files', () => {
    const broken = FACE.replace('scope: demo:read', 'scope: nope:read').replace('emits: [demo.echo.done]', 'emits: [bad]');
    const second = FACE.replace('face: demo', 'face: other').replaceAll('demo.echo.done', 'other.echo.done').replace('since: 2026-01-01', 'since: 1999-01-01');
    expect(diagnose({ 'demo.yaml': broken, 'other.yaml': second })).toEqual([
      'spec/demo.yaml:5:3 unused-event',
      'spec/demo.yaml:11:12 unknown-scope',
      'spec/demo.yaml:12:13 unknown-event',
      'spec/other.yaml:3:8 unknown-version',
    ]);
  });

  it('points at the array element a meta-schema error is in, not the first one', () => {
    const errors = `errors:
  - { code: a_one, status: 400, type: invalid_request_error, message: One., retryable: false }
  - { code: a_two, status: 400, type: invalid_request_error, message: Two., retryable: false }
  - { code: a_three, status: 400, type: invalid_request_error, mesage: Three., retryable: false }
actions:`;
    expect(diagnose({ 'demo.yaml': FACE.replace('actions:', errors) })).toEqual(['spec/demo.yaml:11:5 schema-violation', 'spec/demo.yaml:11:64 schema-violation']);
  });

  it('points at the keyword ajv refuses, and says what was meant: a keyword, a type, a scope, a reference, an event, a property', () => {
    const face = FACE.replace('message: { type: string }\n    result', 'message: { type: strin }\n        count: { type: integer, minimun: 1 }\n    result')
      .replace('scope: demo:read', 'scope: demo:reed')
      .replace('summary: A demo face.', 'summery: A demo face.');
    const messages = (files: Record<string, string>) =>
      buildCatalog('spec', { files: new Map(Object.entries({ 'platform.yaml': PLATFORM, ...files })) }).diagnostics.map((d) => `${d.line}:${d.col} ${d.message}`);
    expect(messages({ 'demo.yaml': face.replace('summery:', 'summary:') })).toEqual([
      '11:12 Scope "demo:reed" is not declared in platform.yaml. Did you mean "demo:read"?',
      '18:26 The payload schema is rejected by ajv (strict): "strin" is not a JSON Schema type. Did you mean "string"?',
    ]);
    expect(messages({ 'demo.yaml': FACE.replace('message: { type: string }\n    result', 'message: { type: string, minLenght: 1 }\n    result') })).toEqual([
      '18:34 The payload schema is rejected by ajv (strict): strict mode: unknown keyword: "minLenght". Did you mean "minLength"?',
    ]);
    expect(messages({ 'demo.yaml': face })).toContain('2:1 (root): unknown property "summery". Did you mean "summary"?');
    const withRef = FACE.replace('message: { type: string }\n    result', 'message: { $ref: "#/schemas/Mesage" }\n    result').replace('actions:', 'schemas:\n  Message: { type: string }\nactions:');
    expect(messages({ 'demo.yaml': withRef })).toEqual(['20:26 Reference "#/schemas/Mesage" does not name a schema of this face. Did you mean "#/schemas/Message"?']);
    expect(messages({ 'demo.yaml': FACE.replace('emits: [demo.echo.done]', 'emits: [demo.echo.don]') })).toEqual([
      '5:3 Event "demo.echo.done" is declared but no action emits it.',
      '12:13 Event "demo.echo.don" is not declared under the "events" of any face. Did you mean "demo.echo.done"?',
    ]);
  });

  it('still checks every face file against its meta-schema when the platform file is broken', () => {
    const result = buildCatalog('spec', {
      files: new Map([['platform.yaml', PLATFORM.replace('window: 1s', 'window: soon')], ['demo.yaml', FACE.replace('summary: A demo face.', 'summery: A demo face.')]]),
    });
    expect(result.diagnostics.map((d) => `${d.file}:${d.line}:${d.col} ${d.code}`)).toEqual([
      'spec/demo.yaml:1:1 schema-violation',
      'spec/demo.yaml:2:1 schema-violation',
      'spec/platform.yaml:6:33 schema-violation',
    ]);
  });

  it('refuses a face name the generated code keeps for itself, at the name, and asks for no handler module under it', () => {
    const face = FACE.replace('face: demo', 'face: list').replaceAll('demo.echo.done', 'list.echo.done');
    const handlersDir = mkdtempSync(join(tmpdir(), 'dispatch-no-handlers-'));
    expect(buildCatalog('spec', { files: new Map([['platform.yaml', PLATFORM], ['list.yaml', face]]), handlersDir }).diagnostics.map((d) => `${d.line}:${d.col} ${d.code} ${d.message}`)).toEqual([
      '1:7 reserved-face-name Face name "list" is reserved: it would shadow the generated client\'s list() method (the pages of list actions).',
    ]);
  });

  it('formats as file:line:col severity code message', () => {
    const { diagnostics } = buildCatalog('spec', { files: new Map([['platform.yaml', PLATFORM], ['demo.yaml', FACE.replace('scope: demo:read', 'scope: demo:reed')]]) });
    expect(formatDiagnostic(diagnostics[0]!)).toBe('spec/demo.yaml:11:12 error unknown-scope Scope "demo:reed" is not declared in platform.yaml. Did you mean "demo:read"?');
  });
});

describe('schema and example diagnostics, in plain words', () => {
  const messages = (face: string) =>
    buildCatalog('spec', { files: new Map([['platform.yaml', PLATFORM], ['demo.yaml', face]]) }).diagnostics.map((d) => `${d.line}:${d.col} ${d.code} ${d.message}`);

  it('says a mistyped type once, at the named schema every use of it shares, with the type it meant', () => {
    const face = FACE.replace('actions:', 'schemas:\n  Message: { type: strng }\nactions:')
      .replaceAll('message: { type: string }\n    ', 'message: { $ref: "#/schemas/Message" }\n    ');
    expect(messages(face)).toEqual(['9:20 invalid-json-schema The Message schema is rejected by ajv (strict): "strng" is not a JSON Schema type. Did you mean "string"?']);
  });

  it('says a mistyped type once for a payload served in two versions', () => {
    const face = FACE.replace('message: { type: string }\n    result', 'message: { type: strng }\n        extra: { type: string, since: 2026-09-01 }\n    result');
    expect(messages(face)).toEqual(['18:26 invalid-json-schema The payload schema is rejected by ajv (strict): "strng" is not a JSON Schema type. Did you mean "string"?']);
  });

  it('points at the entry of a list of types that is no type', () => {
    const face = FACE.replace('message: { type: string }\n    result', 'message: { type: [strin, "null"] }\n    result');
    expect(messages(face)).toEqual(['18:27 invalid-json-schema The payload schema is rejected by ajv (strict): "strin" is not a JSON Schema type. Did you mean "string"?']);
  });

  it('says once what a keyword every vocabulary checks must be', () => {
    const face = FACE.replace('      additionalProperties: false', '      additionalProperties: none');
    expect(messages(face)).toEqual(['16:29 invalid-json-schema The payload schema is rejected by ajv (strict): additionalProperties is a schema (an object), true or false, not "none".']);
  });

  it('points at each field of an example that breaks its schema, saying what it breaks', () => {
    const face = FACE.replace(
      '    result:\n      type: object\n      properties:\n        message: { type: string }\n',
      '    result:\n      type: object\n      required: [message]\n      additionalProperties: false\n      properties:\n        message: { type: string }\n        count: { type: integer }\n        size: { oneOf: [{ type: string }, { type: integer }] }\n',
    ).replace('        result: { message: hi }', '        result: { count: 1.5, size: true, colour: red }');
    expect(messages(face)).toEqual([
      '29:9 example-mismatch Example 1 does not match the result schema: result has no "message", which its schema requires.',
      '29:26 example-mismatch Example 1 does not match the result schema: result.count must be integer.',
      '29:37 example-mismatch Example 1 does not match the result schema: result.size fits none of its forms: it must be string; or it must be integer.',
      '29:43 example-mismatch Example 1 does not match the result schema: result has "colour", which its schema does not allow.',
    ]);
  });
});

describe('handler diagnostics', () => {
  /** Builds the demo face against a module (its index and its handlers) written to a temporary `src/faces`. */
  function withHandler(face: string, handler: string) {
    const dir = mkdtempSync(join(tmpdir(), 'dispatch-handlers-'));
    mkdirSync(join(dir, 'demo'));
    writeFileSync(join(dir, 'demo', 'index.ts'), MODULE_INDEX);
    writeFileSync(join(dir, 'demo', 'handlers.ts'), handler);
    try {
      const result = buildCatalog('spec', { files: new Map([['platform.yaml', PLATFORM], ['demo.yaml', face]]), handlersDir: dir });
      return result.diagnostics.map((d) => `${d.line}:${d.col} ${d.code} ${d.message}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const MODULE_INDEX = "import { handlers } from './handlers.js';\nexport const demo = { face: 'demo', handlers };\n";
  const handler = (body: string) => `export const handlers = {\n  async echo(payload, ctx) {\n    ${body}\n    return payload;\n  },\n};\n`;

  it('requires atomic: false of a handler that reaches ctx.providers', () => {
    const [found] = withHandler(FACE, handler('await ctx.providers.ai.test.generate(payload);'));
    expect(found).toMatch(/^9:3 atomic-flag-missing Action demo\.echo reaches ctx\.providers \(.*demo\/handlers\.ts:3\)/);
    expect(withHandler(FACE.replace('    scope: demo:read', '    scope: demo:read\n    atomic: false'), handler('await ctx.providers.ai.test.generate(payload);'))).toEqual([]);
  });

  it('sees providers taken apart from the context too', () => {
    expect(withHandler(FACE, handler('const { providers } = ctx; void providers;'))[0]).toMatch(/atomic-flag-missing/);
  });

  it('requires stream: true of a handler that writes to ctx.stream', () => {
    expect(withHandler(FACE, handler("ctx.stream.delta('x');"))[0]).toMatch(/^9:3 stream-flag-missing Action demo\.echo writes to ctx\.stream/);
    expect(withHandler(FACE.replace('    scope: demo:read', '    scope: demo:read\n    stream: true'), handler("ctx.stream.delta('x');"))).toEqual([]);
  });

  it("reports a face without its module at the face's name, and none when there is no modules directory", () => {
    const dir = mkdtempSync(join(tmpdir(), 'dispatch-handlers-'));
    try {
      const files = new Map([['platform.yaml', PLATFORM], ['demo.yaml', FACE]]);
      const found = buildCatalog('spec', { files, handlersDir: dir }).diagnostics.map((d) => `${d.line}:${d.col} ${d.code} ${d.message}`);
      expect(found).toEqual([expect.stringMatching(/^1:7 handler-module-missing Face "demo" has no module .*demo\/index\.ts: `npx dispatch new face demo` writes it, .* exporting `const demo: FaceModule<DemoHandlers>`, with DemoHandlers imported from generated\/server\/types\.ts/)]);
      const pending = new Map([
        [join(dir, 'demo', 'index.ts'), MODULE_INDEX],
        [join(dir, 'demo', 'handlers.ts'), handler('return payload;')],
      ]);
      expect(buildCatalog('spec', { files, handlersDir: dir, pendingHandlers: pending }).diagnostics).toEqual([]);
      expect(buildCatalog('spec', { files, handlersDir: join(dir, 'none') }).diagnostics).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('accepts a handler that only uses the store', () => {
    expect(withHandler(FACE, handler('await ctx.db.selectFrom("x").execute();'))).toEqual([]);
  });
});

describe('platform diagnostics', () => {
  it('requires a stable version and refuses a version declared twice', () => {
    const platform = PLATFORM.replace(/status: stable/g, 'status: retired').replace('date: 2026-09-01', 'date: 2026-01-01');
    const result = buildCatalog('spec', { files: new Map([['platform.yaml', platform]]) });
    expect(result.diagnostics.map((d) => `${d.line}:${d.col} ${d.code}`)).toEqual(['9:3 no-stable-version', '12:11 duplicate-version']);
  });

  it('says once, in its own words, a choice of forms the platform file fits none of', () => {
    const platform = `info:\n  title: Demo\n  license: { name: MIT, identifier: MIT, url: "https://opensource.org/license/mit" }\n${PLATFORM}`;
    const result = buildCatalog('spec', { files: new Map([['platform.yaml', platform]]) });
    expect(result.diagnostics.map((d) => `${d.line}:${d.col} ${d.code} ${d.message}`)).toEqual([
      '3:12 schema-violation info.license: named by an SPDX identifier (e.g. MIT) or by the URL of its text, not both (OpenAPI 3.1).',
    ]);
  });

  it('checks the platform file against its meta-schema', () => {
    const result = buildCatalog('spec', { files: new Map([['platform.yaml', PLATFORM.replace('window: 1s', 'window: soon')]]) });
    expect(result.diagnostics.map((d) => `${d.line}:${d.col} ${d.code}`)).toEqual(['6:33 schema-violation']);
  });
});
