/**
 * The breaking-change classifier on small in-memory catalogues: one edit of a face per case, with the class
 * it must get, whether it is an error, and the `line:col` it is reported at in the edited file.
 */
import { describe, expect, it } from 'vitest';
import { compareCatalogs } from '../../src/diff/gate.js';
import { locator } from '../../src/diff/locate.js';
import { diffReport } from '../../src/diff/report.js';
import { versionChanges } from '../../src/generate/docs-changes.js';
import { buildCatalog } from '../../src/spec/index.js';
import type { Catalog } from '../../src/spec/model.js';

const PLATFORM = `scopes:
  demo:read: Read demo things.
  demo:write: Write demo things.
tiers:
  free:
    token: { limit: 10, window: 1s }
    entity: { limit: 20, window: 1m }
  pro:
    token: { limit: 100, window: 1s }
    entity: { limit: 200, window: 1m }
versions:
  - date: 2026-01-01
    status: stable
    summary: First.
limits:
  bodyBytes: 1048576
  batchSize: 100
  timeout: { default: 1000, max: 5000 }
changelogUrl: /docs/versions.md
errorDocsUrl: /docs/errors.md
`;

/** The platform edited: `from` must be in it. */
const editPlatform = (from: string, to: string) => {
  if (!PLATFORM.includes(from)) throw new Error(`"${from}" is not in the platform`);
  return PLATFORM.replace(from, to);
};

/** The platform with a second version, announced on `announced`. */
const withVersion = (announced: string) =>
  PLATFORM.replace('limits:', `  - date: 2026-09-01\n    status: stable\n    announced: ${announced}\n    summary: Second.\nlimits:`);

const FACE = `face: demo
summary: A demo face.
since: 2026-01-01
rate:
  free: { limit: 10, window: 1m }
events:
  demo.echo.done:
    summary: A message was echoed.
    data: { type: object, properties: { message: { type: string } } }
actions:
  echo:
    summary: Echo a message.
    effect: read
    external: false
    scope: demo:read
    emits: [demo.echo.done]
    rate:
      free: { limit: 5, window: 1m }
    payload:
      type: object
      required: [message]
      additionalProperties: false
      properties:
        message: { type: string, maxLength: 100 }
        mode: { type: string, enum: [plain, loud] }
        count: { type: number }
    result:
      type: object
      required: [message]
      properties:
        message: { type: string }
        length: { type: integer }
        kind: { type: string, enum: [short, long] }
  watch:
    summary: Watch a thing.
    effect: read
    external: false
    scope: demo:read
    stream: true
    streamEvents:
      tick:
        summary: A tick.
        data: { type: object, required: [at], properties: { at: { type: string }, n: { type: integer } } }
    atomic: false
    payload: { type: object }
    result: { type: object }
  ping:
    summary: Ping.
    effect: read
    external: false
    scope: demo:read
    payload: { type: object }
    result: { type: object }
`;

const OTHER = `face: other
summary: Another face.
since: 2026-01-01
actions:
  get:
    summary: Get.
    effect: read
    external: false
    scope: demo:read
    payload: { type: object }
    result: { type: object }
`;

type Files = Record<string, string>;
const BASE: Files = { 'platform.yaml': PLATFORM, 'demo.yaml': FACE, 'other.yaml': OTHER };

/**
 * The catalogue of `files`. Lint's own `breaking-change-notice` (a field's `until` too soon after its version
 * was announced) is left to the classifier here, which must find the same thing: the tests of that case read
 * what the diff reports.
 */
function build(files: Files): Catalog {
  const { catalog, diagnostics } = buildCatalog('spec', { files: new Map(Object.entries(files)), lenient: true });
  expect(diagnostics.filter((d) => d.severity === 'error' && d.code !== 'breaking-change-notice')).toEqual([]);
  return catalog!;
}

/** Every change from BASE to `head`: class, position in the edited file, and `error` when it fails the diff. */
function diff(head: Files): string[] {
  const report = diffReport(compareCatalogs(build(BASE), build(head)), locator('spec', new Map(Object.entries(head))));
  return report.entries.map((e) => `${e.class} ${e.file}:${e.line}:${e.col}${e.gated ? ' gated' : ''}${e.error ? ' error' : ''}`);
}

/** `line:col` of the first `needle` in `text` at or after `from`. */
function pos(text: string, needle: string, from = ''): string {
  const index = text.indexOf(needle, from ? text.indexOf(from) : 0);
  if (index < 0) throw new Error(`"${needle}" is not in the text`);
  const lines = text.slice(0, index).split('\n');
  return `${lines.length}:${lines.at(-1)!.length + 1}`;
}

const edit = (from: string, to: string) => {
  if (!FACE.includes(from)) throw new Error(`"${from}" is not in the face`);
  return FACE.replace(from, to);
};

interface Case {
  name: string;
  face?: string;
  files?: Files;
  /** Expected entries; `face` is the edited demo.yaml, `platform` the edited platform.yaml. */
  expected: (face: string, platform: string) => string[];
}

const cases: Case[] = [
  {
    name: 'stream made the only answer',
    face: edit('    stream: true\n    streamEvents:', '    stream: true\n    streamOnly: true\n    streamEvents:'),
    expected: (f) => [`stream-only-added spec/demo.yaml:${pos(f, 'true', 'streamOnly:')} error`],
  },
  {
    name: 'streaming withdrawn',
    face: edit(FACE.slice(FACE.indexOf('    stream: true'), FACE.indexOf('    atomic: false')), ''),
    expected: (f) => [`streaming-removed spec/demo.yaml:${pos(f, 'watch:')} error`],
  },
  {
    name: 'streaming offered (additive)',
    face: edit('  ping:\n    summary: Ping.\n', '  ping:\n    summary: Ping.\n    stream: true\n'),
    expected: (f) => [`streaming-added spec/demo.yaml:${pos(f, 'true', 'summary: Ping.')}`],
  },
  {
    name: 'stream event renamed (one removed, one added)',
    face: edit('      tick:\n        summary: A tick.\n', '      tock:\n        summary: A tock.\n'),
    expected: (f) => [`stream-event-removed spec/demo.yaml:${pos(f, 'streamEvents:')} error`, `stream-event-added spec/demo.yaml:${pos(f, 'tock:')}`],
  },
  {
    name: 'stream event data field removed',
    face: edit('properties: { at: { type: string }, n: { type: integer } }', 'properties: { at: { type: string } }'),
    expected: (f) => [`stream-field-removed spec/demo.yaml:${pos(f, 'properties', 'tick:')} error`],
  },
  {
    name: 'stream event data field made optional',
    face: edit('required: [at], properties', 'properties'),
    expected: (f) => [`stream-field-optional spec/demo.yaml:${pos(f, 'at:', 'tick:')} error`],
  },
  {
    name: 'removed action',
    face: edit(FACE.slice(FACE.indexOf('  ping:')), ''),
    expected: (f) => [`action-removed spec/demo.yaml:${pos(f, 'actions:')} error`],
  },
  {
    name: 'removed face',
    files: { 'platform.yaml': PLATFORM, 'demo.yaml': FACE },
    expected: () => ['face-removed spec/other.yaml:1:1 error'],
  },
  {
    name: 'removed event (and its emitter no longer emits it)',
    face: edit(FACE.slice(FACE.indexOf('events:'), FACE.indexOf('actions:')), '').replace('    emits: [demo.echo.done]\n', ''),
    // No `events` key is left: the event points at the document; the action at its own key.
    expected: (f) => ['event-removed spec/demo.yaml:1:1 error', `emits-removed spec/demo.yaml:${pos(f, 'echo:')} error`],
  },
  {
    name: 'new required payload field',
    face: edit('required: [message]\n      additionalProperties', 'required: [message, lang]\n      additionalProperties').replace(
      '        count:',
      '        lang: { type: string }\n        count:',
    ),
    expected: (f) => [`payload-field-required spec/demo.yaml:${pos(f, 'lang: {')} error`],
  },
  {
    name: 'payload field removed from a closed object',
    face: edit('        count: { type: number }\n', ''),
    expected: (f) => [`payload-field-removed spec/demo.yaml:${pos(f, 'properties:', 'payload:')} error`],
  },
  {
    name: 'narrowed enum',
    face: edit('enum: [plain, loud]', 'enum: [plain]'),
    expected: (f) => [`payload-enum-narrowed spec/demo.yaml:${pos(f, '[plain]')} error`],
  },
  {
    name: 'narrowed type (number to integer)',
    face: edit('count: { type: number }', 'count: { type: integer }'),
    expected: (f) => [`payload-type-narrowed spec/demo.yaml:${pos(f, 'integer', 'count:')} error`],
  },
  {
    name: 'tightened bound',
    face: edit('maxLength: 100', 'maxLength: 50'),
    expected: (f) => [`payload-bounds-tightened spec/demo.yaml:${pos(f, '50')} error`],
  },
  {
    name: 'removed result field',
    face: edit('        length: { type: integer }\n', ''),
    expected: (f) => [`result-field-removed spec/demo.yaml:${pos(f, 'properties:', 'result:')} error`],
  },
  {
    name: 'result field type changed',
    face: edit('length: { type: integer }', 'length: { type: string }'),
    expected: (f) => [`result-type-changed spec/demo.yaml:${pos(f, 'string', 'length:')} error`],
  },
  {
    name: 'scope change',
    face: edit('    scope: demo:read\n    emits', '    scope: demo:write\n    emits'),
    expected: (f) => [`scope-changed spec/demo.yaml:${pos(f, 'demo:write')} error`],
  },
  {
    name: 'lower action rate limit',
    face: edit('{ limit: 5, window: 1m }', '{ limit: 3, window: 1m }'),
    expected: (f) => [`rate-lowered spec/demo.yaml:${pos(f, '{ limit: 3')} error`],
  },
  {
    name: 'longer face rate window',
    face: edit('{ limit: 10, window: 1m }', '{ limit: 10, window: 1h }'),
    expected: (f) => [`rate-lowered spec/demo.yaml:${pos(f, '{ limit: 10')} error`],
  },
  {
    // 5 per minute allows 300 in an hour: 100 per hour is fewer calls.
    name: 'longer action rate window with a limit below the old allowance',
    face: edit('{ limit: 5, window: 1m }', '{ limit: 100, window: 1h }'),
    expected: (f) => [`rate-lowered spec/demo.yaml:${pos(f, '{ limit: 100')} error`],
  },
  {
    name: 'shorter action rate window with a lower limit',
    face: edit('{ limit: 5, window: 1m }', '{ limit: 4, window: 1s }'),
    expected: (f) => [`rate-lowered spec/demo.yaml:${pos(f, '{ limit: 4')} error`],
  },
  {
    name: 'longer action rate window keeping the old allowance (additive)',
    face: edit('{ limit: 5, window: 1m }', '{ limit: 300, window: 1h }'),
    expected: (f) => [`rate-raised spec/demo.yaml:${pos(f, '{ limit: 300')}`],
  },
  {
    name: 'shorter action rate window with the same limit (additive)',
    face: edit('{ limit: 5, window: 1m }', '{ limit: 5, window: 1s }'),
    expected: (f) => [`rate-raised spec/demo.yaml:${pos(f, '{ limit: 5, window: 1s')}`],
  },
  {
    name: 'removed tier',
    files: { ...BASE, 'platform.yaml': editPlatform('  pro:\n    token: { limit: 100, window: 1s }\n    entity: { limit: 200, window: 1m }\n', '') },
    expected: (_f, p) => [`tier-removed spec/platform.yaml:${pos(p, 'tiers:')} error`],
  },
  {
    name: 'new tier (additive)',
    files: { ...BASE, 'platform.yaml': editPlatform('versions:', '  team:\n    token: { limit: 50, window: 1s }\n    entity: { limit: 100, window: 1m }\nversions:') },
    expected: (_f, p) => [`tier-added spec/platform.yaml:${pos(p, 'team:')}`],
  },
  {
    name: 'wider result enum',
    face: edit('enum: [short, long]', 'enum: [short, long, empty]'),
    expected: (f) => [`result-enum-widened spec/demo.yaml:${pos(f, '[short, long, empty]')} error`],
  },
  {
    name: 'result field made optional',
    face: edit('    result:\n      type: object\n      required: [message]\n', '    result:\n      type: object\n'),
    expected: (f) => [`result-field-optional spec/demo.yaml:${pos(f, 'message:', 'result:')} error`],
  },
  {
    name: 'removed event data field',
    face: edit('data: { type: object, properties: { message: { type: string } } }', 'data: { type: object, properties: {} }'),
    expected: (f) => [`event-field-removed spec/demo.yaml:${pos(f, 'properties', 'demo.echo.done:')} error`],
  },
  {
    name: 'payload field made optional (additive)',
    face: edit('      required: [message]\n      additionalProperties', '      additionalProperties'),
    expected: (f) => [`payload-field-optional spec/demo.yaml:${pos(f, 'message:', 'payload:')}`],
  },
  {
    name: 'result field newly required (additive)',
    face: edit('    result:\n      type: object\n      required: [message]\n', '    result:\n      type: object\n      required: [message, length]\n'),
    expected: (f) => [`result-field-required spec/demo.yaml:${pos(f, '[message, length]')}`],
  },
  {
    name: 'new optional payload field (additive)',
    face: edit('        count:', '        note: { type: string }\n        count:'),
    expected: (f) => [`payload-field-added spec/demo.yaml:${pos(f, 'note:')}`],
  },
  {
    name: 'new action (additive)',
    face: FACE + '  pong:\n    summary: Pong.\n    effect: read\n    external: false\n    scope: demo:read\n    payload: { type: object }\n    result: { type: object }\n',
    expected: (f) => [`action-added spec/demo.yaml:${pos(f, 'pong:')}`],
  },
  {
    name: 'wider enum (additive)',
    face: edit('enum: [plain, loud]', 'enum: [plain, loud, quiet]'),
    expected: (f) => [`payload-enum-widened spec/demo.yaml:${pos(f, '[plain, loud, quiet]')}`],
  },
  {
    name: 'higher rate limit (additive)',
    face: edit('{ limit: 5, window: 1m }', '{ limit: 50, window: 1m }'),
    expected: (f) => [`rate-raised spec/demo.yaml:${pos(f, '{ limit: 50')}`],
  },
  {
    name: 'breaking changes gated behind a new version announced 123 days ahead (allowed)',
    files: {
      ...BASE,
      'platform.yaml': withVersion('2026-05-01'),
      'demo.yaml': edit('        length: { type: integer }\n', '        length: { type: integer, until: 2026-09-01 }\n').replace(
        '  ping:\n    summary: Ping.\n',
        '  ping:\n    summary: Ping.\n    until: 2026-09-01\n',
      ),
    },
    expected: (f) => [
      `result-field-removed spec/demo.yaml:${pos(f, '2026-09-01', 'length:')} gated`,
      `action-removed spec/demo.yaml:${pos(f, '2026-09-01', 'ping:')} gated`,
    ],
  },
  {
    name: "a result field's type changed by dated alternatives behind a version announced in time (allowed)",
    files: {
      ...BASE,
      'platform.yaml': withVersion('2026-05-01'),
      'demo.yaml': edit('        length: { type: integer }\n', '        length:\n          oneOf: [{ type: integer, until: 2026-09-01 }, { type: string, since: 2026-09-01 }]\n'),
    },
    expected: (f) => [`result-type-changed spec/demo.yaml:${pos(f, 'oneOf', 'length:')} gated`],
  },
  {
    name: 'breaking change gated behind a version announced 31 days ahead (error)',
    files: {
      ...BASE,
      'platform.yaml': withVersion('2026-08-01'),
      'demo.yaml': edit('        length: { type: integer }\n', '        length: { type: integer, until: 2026-09-01 }\n'),
    },
    expected: (f) => [`result-field-removed spec/demo.yaml:${pos(f, '2026-09-01', 'length:')} gated error`],
  },
];

describe('dispatch diff classifier', () => {
  it('finds nothing between a catalogue and itself', () => {
    expect(diff(BASE)).toEqual([]);
  });

  it.each(cases)('$name', ({ face, files, expected }) => {
    const head = files ?? { ...BASE, 'demo.yaml': face! };
    expect(diff(head)).toEqual(expected(head['demo.yaml']!, head['platform.yaml']!));
  });

  it('points at list elements as the file writes them, not as the catalogue sorts them', () => {
    const events = ['done', 'started', 'failed']
      .map((e) => `  demo.echo.${e}:\n    summary: Echo ${e}.\n    data: { type: object }\n`)
      .join('');
    const face = (emits: string) =>
      edit(FACE.slice(FACE.indexOf('events:'), FACE.indexOf('actions:')), `events:\n${events}`).replace('emits: [demo.echo.done]', `emits: ${emits}`);
    const base = { ...BASE, 'demo.yaml': face('[demo.echo.started, demo.echo.done]') };
    // Sorted, `failed` comes first; the file writes it second.
    const head = { ...BASE, 'demo.yaml': face('[demo.echo.started, demo.echo.failed]') };
    const f = head['demo.yaml'];
    const report = diffReport(compareCatalogs(build(base), build(head)), locator('spec', new Map(Object.entries(head))));
    expect(report.entries.map((e) => `${e.class} ${e.event} ${e.line}:${e.col}`)).toEqual([
      `emits-removed demo.echo.done ${pos(f, '[demo.echo.started')}`,
      `emits-added demo.echo.failed ${pos(f, 'demo.echo.failed]')}`,
    ]);

    // Versions are sorted by date; platform.yaml may list the newest first.
    const newestFirst = PLATFORM.replace('versions:\n', 'versions:\n  - date: 2026-09-01\n    status: stable\n    announced: 2026-05-01\n    summary: Second.\n');
    const retired = newestFirst.replace('status: stable\n    summary: First.', 'status: retired\n    summary: First.');
    const dropped = compareCatalogs(build({ ...BASE, 'platform.yaml': newestFirst }), build({ ...BASE, 'platform.yaml': retired }));
    const at = locator('spec', new Map([['platform.yaml', retired]]));
    expect(
      dropped.map((d) => {
        const { line, col } = at(d.change.at);
        return `${d.change.class} ${line}:${col}`;
      }),
    ).toEqual([
      `version-retired ${pos(retired, 'retired', '2026-01-01')}`,
    ]);
  });

  it('words an ungated breaking change as a breaking-change error naming class, action and version', () => {
    const head = { ...BASE, 'demo.yaml': edit('enum: [plain, loud]', 'enum: [plain]') };
    const report = diffReport(compareCatalogs(build(BASE), build(head)), locator('spec', new Map(Object.entries(head))));
    expect(report.diagnostics.map((d) => [d.code, d.severity])).toEqual([['breaking-change', 'error']]);
    expect(report.diagnostics[0]!.message).toBe(
      'Narrows the values of payload field `mode` of `demo.echo` ("loud" removed) in served version 2026-01-01 (payload-enum-narrowed); ' +
        'a breaking change must come in a new API version announced at least 90 days ahead.',
    );
  });

  it('words the changes to a stream: the answer it insists on, the data of its events', () => {
    const head = {
      ...BASE,
      'demo.yaml': edit('    stream: true\n    streamEvents:', '    stream: true\n    streamOnly: true\n    streamEvents:').replace(', n: { type: integer }', ''),
    };
    const report = diffReport(compareCatalogs(build(BASE), build(head)), locator('spec', new Map(Object.entries(head))));
    expect(report.entries.map((e) => [e.class, e.streamEvent])).toEqual([
      ['stream-only-added', null],
      ['stream-field-removed', 'tick'],
    ]);
    expect(report.diagnostics.map((d) => d.message.split(' in served')[0])).toEqual([
      'Makes `demo.watch` answer only as a stream (a call that asks for none is refused with 400 `stream_required`)',
      'Removes data field `n` of stream event `tick` of `demo.watch`',
    ]);
  });

  it('reports a change seen at several served versions once, with all of them', () => {
    const twoVersions = { ...BASE, 'platform.yaml': withVersion('2026-05-01') };
    const head = { ...twoVersions, 'demo.yaml': edit('    scope: demo:read\n    emits', '    scope: demo:write\n    emits') };
    const report = diffReport(compareCatalogs(build(twoVersions), build(head)), locator('spec', new Map(Object.entries(head))));
    expect(report.entries.map((e) => [e.class, e.versions])).toEqual([['scope-changed', ['2026-01-01', '2026-09-01']]]);
  });

  it('names the notice a gated change got when it is too short', () => {
    const head = {
      ...BASE,
      'platform.yaml': withVersion('2026-08-01'),
      'demo.yaml': edit('        length: { type: integer }\n', '        length: { type: integer, until: 2026-09-01 }\n'),
    };
    const report = diffReport(compareCatalogs(build(BASE), build(head)), locator('spec', new Map(Object.entries(head))));
    expect(report.diagnostics.map((d) => d.code)).toEqual(['breaking-change-notice']);
    expect(report.diagnostics[0]!.message).toContain('Version 2026-09-01 removes result field `length` of `demo.echo`');
    expect(report.diagnostics[0]!.message).toContain('(announced 2026-08-01, 31 days before)');
  });

  it('classifies the shipped changelog: 2026-09-01 removes ai.generate temperature (breaking) and adds sampling', () => {
    const { catalog } = buildCatalog(new URL('../../faces', import.meta.url).pathname);
    const changes = versionChanges(catalog!, '2026-09-01', '2026-01-01');
    expect(changes.breaking.map((c) => [c.class, c.action, c.field])).toEqual([['payload-field-removed', 'ai.generate', 'temperature']]);
    expect(changes.additive.map((c) => [c.class, c.action, c.field])).toContainEqual(['payload-field-added', 'ai.generate', 'sampling']);
  });

  it("gives a face's changelog whatever the tiers of the catalogue it is asked in (they are not versioned)", () => {
    const { catalog } = buildCatalog(new URL('../../faces', import.meta.url).pathname);
    const first = versionChanges(catalog!, '2026-01-01', undefined);
    const fewerTiers = { ...catalog!, platform: { ...catalog!.platform, tiers: catalog!.platform.tiers.slice(1) } };
    expect(versionChanges(fewerTiers, '2026-01-01', undefined)).toEqual(first);
    expect(first.additive.some((c) => c.class === 'tier-added')).toBe(false);
  });
});
