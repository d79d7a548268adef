/**
 * The generator's own printers have a layout for everything the emitters write: a type, a value or a call
 * that does not fit its line breaks one part a line, each part the same way; what cannot break runs past the
 * width; JSDoc cannot end early; and type text no emitter writes fails the run instead of printing something
 * else. The golden files pin the layouts the catalogues hold; these pin the ones they do not.
 */
import { describe, expect, it } from 'vitest';
import { methodsFunctionText } from '../../src/generate/client-methods.js';
import { printStatements, type Declaration } from '../../src/generate/print-declarations.js';
import { parseType } from '../../src/generate/print-types.js';
import { Code, MapOf, SetOf, valueLines } from '../../src/generate/print-values.js';
import { StructureKind } from '../../src/generate/structure-kinds.js';
import { payloadIn } from '../../src/spec/json-schema.js';
import { buildCatalog } from '../../src/spec/index.js';
import { FIXTURE_DIR } from '../fixtures/large/build-fixture.js';

const long = 'x'.repeat(70);
const quotedLong = `'${long}'`;

describe("the generator's printers", () => {
  it('break a type that does not fit by its kind, part by part', () => {
    const statements: Declaration[] = [
      {
        kind: StructureKind.Interface,
        name: 'Shapes',
        isExported: true,
        properties: [
          { name: 'union', type: `"${long}" | "${long}" | "y"`, hasQuestionToken: true },
          { name: 'hugged', type: `{ a: "${long}"; b: "${long}" } | null` },
          { name: 'tuple', type: `["${long}", "${long}"]` },
          { name: 'generic', type: `Record<"${long}", "${long}">` },
          { name: 'list', type: `("${long}" | "${long}")[]` },
          { name: '"dash-key"', type: `Base & { a: "${long}"; b: "${long}" }` },
        ],
      },
      { kind: StructureKind.TypeAlias, name: 'Next', type: `"${'y'.repeat(55)}" | "${'y'.repeat(55)}"` },
    ];
    expect(printStatements(statements)).toBe(
      [
        'export interface Shapes {',
        '  union?:',
        `    | ${quotedLong}`,
        `    | ${quotedLong}`,
        "    | 'y';",
        '  hugged: {',
        `    a: ${quotedLong};`,
        `    b: ${quotedLong};`,
        '  } | null;',
        '  tuple: [',
        `    ${quotedLong},`,
        `    ${quotedLong},`,
        '  ];',
        '  generic: Record<',
        `    ${quotedLong},`,
        `    ${quotedLong}`,
        '  >;',
        '  list: (',
        `    | ${quotedLong}`,
        `    | ${quotedLong}`,
        '  )[];',
        "  'dash-key': Base & {",
        `    a: ${quotedLong};`,
        `    b: ${quotedLong};`,
        '  };',
        '}',
        '',
        'type Next =',
        `  '${'y'.repeat(55)}' | '${'y'.repeat(55)}';`,
        '',
      ].join('\n'),
    );
  });

  it('write JSDoc that cannot end early, numbers and JSON objects as types, and measure wide characters as two columns', () => {
    const wide = '字'.repeat(40);
    const statements: Declaration[] = [
      { kind: StructureKind.TypeAlias, name: 'Odd', docs: ['Ends */ here.\r\nSecond line.'], type: '1e+21 | -2.5 | {"a":1,"b-c":2}' },
      { kind: StructureKind.TypeAlias, name: 'Wide', docs: ['  '], type: `"${wide}" | "${wide.slice(10)}"` },
    ];
    expect(printStatements(statements)).toBe(
      ['/**', ' * Ends *\\/ here.', ' * Second line.', ' */', "type Odd = 1e21 | -2.5 | { a: 1; 'b-c': 2 };", 'type Wide =', `  | '${wide}'`, `  | '${wide.slice(10)}';`, ''].join('\n'),
    );
  });

  it('print imports on one line, or one name a line, and set an interface apart', () => {
    const names = Array.from({ length: 12 }, (_, i) => `TypeNumber${i}`);
    const statements: Declaration[] = [
      { kind: StructureKind.ImportDeclaration, isTypeOnly: true, moduleSpecifier: './none.js', namedImports: [] },
      { kind: StructureKind.ImportDeclaration, moduleSpecifier: './many.js', namedImports: names.map((name, i) => ({ name, isTypeOnly: i % 2 === 0 })) },
      { kind: StructureKind.ExportDeclaration, moduleSpecifier: './many.js' },
      { kind: StructureKind.Interface, name: 'Empty' },
    ];
    expect(printStatements(statements)).toBe(
      [
        "import type {} from './none.js';",
        'import {',
        ...names.map((name, i) => `  ${i % 2 === 0 ? 'type ' : ''}${name},`),
        "} from './many.js';",
        "export * from './many.js';",
        '',
        'interface Empty {}',
        '',
      ].join('\n'),
    );
  });

  it('refuse type text no emitter writes', () => {
    expect(() => parseType('{ [K in keyof T]: T[K] }')).toThrow(/cannot lay out the type/);
    expect(() => parseType('string extends T ? 1 : 2')).toThrow(/cannot lay out the type/);
  });

  it('break values one part a line, and a table of rows whether or not it fits', () => {
    const value = { rows: [{ x: 1, y: 2 }, { x: 3, y: 4 }], 'b-c': 1e21, quote: "it's", nested: { e: long, f: long } };
    expect(valueLines(value, 'const v = ', '', ';')).toEqual([
      'const v = {',
      '  rows: [',
      '    { x: 1, y: 2 },',
      '    { x: 3, y: 4 },',
      '  ],',
      "  'b-c': 1e21,",
      '  quote: "it\'s",',
      '  nested: {',
      `    e: ${quotedLong},`,
      `    f: ${quotedLong},`,
      '  },',
      '};',
    ]);
    expect(valueLines(new MapOf('<string, number>', []), 'const m = ', '', ';')).toEqual(['const m = new Map<string, number>([]);']);
    expect(valueLines(new MapOf('', [['k', { module: new Code('kValidators'), name: long + long }]]), 'const n = ', '', ';')).toEqual([
      'const n = new Map([',
      '  [',
      "    'k',",
      '    {',
      '      module: kValidators,',
      `      name: '${long}${long}',`,
      '    },',
      '  ],',
      ']);',
    ]);
    expect(valueLines(new SetOf('', ['2024-01-01', '2025-06-01']), 'const s = ', '', ';')).toEqual(["const s = new Set(['2024-01-01', '2025-06-01']);"]);
    expect(valueLines(new SetOf('<string>', [long, long]), 'const t = ', '', ';')).toEqual(['const t = new Set<string>([', `  '${long}',`, `  '${long}',`, ']);']);
  });

  it("lay out the client's calls: the last argument broken where it stands, else one argument a line", () => {
    const { catalog } = buildCatalog(FIXTURE_DIR);
    const chat = catalog!.faces.find((f) => f.name === 'chat')!;
    const subscribe = chat.actions.find((a) => a.name === 'subscribe')!;
    const list = chat.actions.find((a) => a.name === 'list')!;
    const served = [subscribe, { ...subscribe, face: 'x'.repeat(40) }, { ...list, face: 'y'.repeat(60) }];
    const text = methodsFunctionText(chat, served.map((action) => ({ action, payload: payloadIn(action, catalog!.platform.latest)! })));
    expect(text).toContain(
      [
        '        client.stream<ChatSubscribeResult, ChatSubscribeStreamEvent>(\'chat\', \'subscribe\', payload, options, [',
        "          'message',",
        "          'typing',",
        '        ]),',
      ].join('\n'),
    );
    expect(text).toContain(
      [
        '        client.stream<ChatSubscribeResult, ChatSubscribeStreamEvent>(',
        `          '${'x'.repeat(40)}',`,
        "          'subscribe',",
        '          payload,',
        '          options,',
        "          ['message', 'typing'],",
        '        ),',
      ].join('\n'),
    );
    expect(text).toContain(
      [
        '    list: (payload: ChatListPayload = {}, options?: CallOptions): PagePromise<ChatListResult> =>',
        '      client.list<ChatListResult>(',
        `        '${'y'.repeat(60)}',`,
        "        'list',",
        '        payload,',
        '        options,',
        "        { after: 'id' },",
        '      ),',
      ].join('\n'),
    );
  }, 60_000);
});
