/**
 * The generator's own printers (print-declarations.ts, and print-values.ts for the dispatch table) against
 * what they stand in for: every chunk of the generated types and every face constant of the dispatch table
 * that they print, on the shipped catalogue and on the large one, is byte for byte what ts-morph prints and
 * prettier formats; they print nearly all of them; and what they do not know they leave to prettier rather
 * than guess. The source print-structures.ts writes for the other chunks formats to what ts-morph's does.
 */
import { printStructure, StructureKind, type StatementStructures } from 'ts-morph';
import { describe, expect, it } from 'vitest';
import { CLIENT_INDEX_PATH, CLIENT_TYPES_PATH, emitClient } from '../../src/generate/emit-client.js';
import { emitDispatch } from '../../src/generate/emit-dispatch.js';
import { emitServerTypes } from '../../src/generate/emit-server-types.js';
import { format, formatStatements } from '../../src/generate/format.js';
import { printDeclaration } from '../../src/generate/print-declarations.js';
import { joinStatements, printStructures } from '../../src/generate/print-structures.js';
import { fromRoot } from '../../src/package-root.js';
import { buildCatalog } from '../../src/spec/index.js';
import { FIXTURE_DIR } from '../fixtures/large/build-fixture.js';

/** The chunk as print-declarations.ts prints it, or undefined where any of its statements is prettier's. */
function printDeclarations(chunk: StatementStructures[]): string | undefined {
  const printed = chunk.map(printDeclaration);
  return printed.length > 0 && printed.every((text) => text !== undefined) ? joinStatements(chunk, printed as string[]) : undefined;
}

/** What the printer stands in for: ts-morph's text, formatted by prettier. */
const prettierText = (statements: StatementStructures[]) => format('types.ts', printStructure({ kind: StructureKind.SourceFile, statements }));

function typeChunks(dir: string): StatementStructures[][] {
  const { catalog } = buildCatalog(dir);
  const client = emitClient(catalog!);
  return [...emitServerTypes(catalog!), ...(client.get(CLIENT_TYPES_PATH) as StatementStructures[][])];
}

/** Every chunk of statements the emitters build: the types', and the client's functions and class. */
function statementChunks(dir: string): StatementStructures[][] {
  const { catalog } = buildCatalog(dir);
  return [...typeChunks(dir), ...(emitClient(catalog!, false).get(CLIENT_INDEX_PATH) as StatementStructures[][])];
}

describe("the generator's own printers", () => {
  for (const [name, dir] of [['shipped', fromRoot('faces')], ['large', FIXTURE_DIR]] as const) {
    it(`prints the ${name} catalogue's types as prettier formats them`, async () => {
      const chunks = typeChunks(dir);
      let printed = 0;
      for (const chunk of chunks) {
        const text = printDeclarations(chunk);
        if (text === undefined) continue;
        printed++;
        expect(text).toBe(await prettierText(chunk));
      }
      // Nearly every chunk of both type files: the files' heads (imports), the catalogue-wide declarations
      // (mapped and conditional types) and a few long handler signatures are prettier's.
      expect(printed).toBeGreaterThan(chunks.length * 0.75);
    }, 120_000);
  }

  for (const [name, dir] of [['shipped', fromRoot('faces')], ['large', FIXTURE_DIR]] as const) {
    it(`prints the ${name} catalogue's dispatch table as prettier formats it`, async () => {
      const { catalog } = buildCatalog(dir);
      const printed = emitDispatch(catalog!);
      const texts = emitDispatch(catalog!, false);
      let formatted = 0;
      for (const [i, chunk] of printed.entries()) {
        if (typeof chunk === 'string') continue;
        formatted++;
        expect(chunk.formatted).toBe(await format('dispatch.ts', texts[i] as string));
      }
      // Nearly every face's constant (a value too long for its line is prettier's); the imports and the maps are prettier's.
      expect(formatted).toBeGreaterThan(catalog!.faces.length * 0.75);
    }, 120_000);
  }

  for (const [name, dir] of [['shipped', fromRoot('faces')], ['large', FIXTURE_DIR]] as const) {
    it(`writes source for every chunk of the ${name} catalogue that prettier formats as it formats ts-morph's`, async () => {
      for (const chunk of statementChunks(dir)) {
        const source = printStructures(chunk);
        expect(source, JSON.stringify(chunk).slice(0, 200)).toBeDefined();
        const expected = await prettierText(chunk);
        expect(await format('index.ts', source!)).toBe(expected);
        // As a run formats it: its declarations printed, its other statements formatted one by one.
        expect(await formatStatements('index.ts', '', chunk)).toBe(expected);
      }
    }, 120_000);
  }

  for (const [name, dir] of [['shipped', fromRoot('faces')], ['large', FIXTURE_DIR]] as const) {
    it(`lays out the ${name} catalogue's client methods as prettier formats them`, async () => {
      const { catalog } = buildCatalog(dir);
      const laidOut = emitClient(catalog!).get(CLIENT_INDEX_PATH) as (StatementStructures[] | { formatted: string })[];
      const statements = emitClient(catalog!, false).get(CLIENT_INDEX_PATH) as StatementStructures[][];
      let formatted = 0;
      for (const [i, chunk] of laidOut.entries()) {
        if (Array.isArray(chunk)) continue;
        formatted++;
        expect(chunk.formatted).toBe(await prettierText(statements[i]!));
      }
      // Nearly every face's function: one whose stream call breaks its list of events, or any line too long, is prettier's.
      expect(formatted).toBeGreaterThan(catalog!.faces.filter((f) => !f.builtin && f.actions.length > 0).length * 0.75);
    }, 120_000);
  }

  it("sets statements and members apart as ts-morph does, and leaves what it does not print to ts-morph", async () => {
    const chunk: StatementStructures[] = [
      { kind: StructureKind.ImportDeclaration, moduleSpecifier: './a.js', namedImports: [{ name: 'A', isTypeOnly: true }, 'B'] },
      { kind: StructureKind.ExportDeclaration, moduleSpecifier: './a.js' },
      { kind: StructureKind.TypeAlias, name: 'Pair', typeParameters: [{ name: 'K', constraint: 'string', default: "'a'" }], type: '{ key: K }' },
      { kind: StructureKind.TypeAlias, name: 'Other', type: 'Pair' },
      { kind: StructureKind.Function, name: 'f', parameters: [{ name: 'x', type: 'number', hasQuestionToken: true }], statements: ['if (x) {\nreturn 1;\n}', 'return 2;'] },
      { kind: StructureKind.VariableStatement, declarationKind: 'const' as never, docs: ['One.', 'Two\n\nparagraphs.'], declarations: [{ name: 'a', type: 'number', initializer: '1' }, { name: 'b', initializer: '2' }] },
      {
        kind: StructureKind.Class,
        name: 'C',
        isExported: true,
        extends: 'B',
        properties: [{ name: 'p', isReadonly: true, initializer: '1' }, { name: 'q', docs: ['The q.'], type: 'string', initializer: "''" }],
        ctors: [{ parameters: [{ name: 'o', type: 'object' }], statements: ['super(o);'] }],
        methods: [
          { name: 'm', isAsync: true, typeParameters: [{ name: 'const R' }], parameters: [{ name: 'r', type: 'R', initializer: '{}' }], returnType: 'Promise<R>', statements: ['return r;'] },
          { name: 'n', statements: [] },
        ],
      },
      { kind: StructureKind.Interface, name: 'I', typeParameters: ['T'], properties: [{ name: 'x', type: 'T', isReadonly: true, hasQuestionToken: true }] },
      { kind: StructureKind.Interface, name: 'J', methods: [{ name: 'run', parameters: [{ name: 'a', type: 'string' }], returnType: 'void' }] },
    ];
    expect(await format('index.ts', printStructures(chunk)!)).toBe(await prettierText(chunk));
    const unknown: StatementStructures[][] = [
      [{ kind: StructureKind.Enum, name: 'E', members: [{ name: 'A' }] }],
      [{ kind: StructureKind.Function, name: 'g', statements: [(writer) => writer.write('return;')] }],
      [{ kind: StructureKind.Class, name: 'D', decorators: [{ name: 'sealed' }] }],
      [{ kind: StructureKind.Interface, name: 'K', properties: [{ name: 'a', type: 'string' }], methods: [{ name: 'b' }] }],
      [{ kind: StructureKind.ImportDeclaration, moduleSpecifier: './a.js', defaultImport: 'A' }],
    ];
    for (const unprinted of unknown) expect(printStructures(unprinted)).toBeUndefined();
  });

  it('lays out what does not fit as prettier does', async () => {
    const long = 'x'.repeat(50);
    const chunk: StatementStructures[] = [
      { kind: StructureKind.TypeAlias, name: 'Choice', isExported: true, docs: ['Two lines\nof docs.'], type: `"${long}" | "it's" | { a: "${long}"; /** The b. */ b?: { c: number; d: "${long}" }[] }` },
      { kind: StructureKind.TypeAlias, name: 'Short', isExported: true, type: '[string, 1, -2.5, true]' },
      { kind: StructureKind.TypeAlias, name: 'NextLine', type: `"${long}" | "${long.slice(0, 20)}"` },
      { kind: StructureKind.TypeAlias, name: 'Shape', type: `{ a: "${long}"; b: "${long}" }` },
      { kind: StructureKind.TypeAlias, name: 'Extended', type: `Shape & { /** The c. */ c: "${long}"; d?: "${long}" }` },
      { kind: StructureKind.TypeAlias, name: 'Grouped', isExported: true, type: '((A & B) | (C | D)) | ((E)[]) | ((F | G)[])' },
      {
        kind: StructureKind.Interface,
        name: 'Things',
        isExported: true,
        properties: [
          { name: '"a.b"', type: `{ ${long}: string; [key: string]: unknown }`, hasQuestionToken: true, docs: ['A dotted key.'] },
          { name: 'quoted', type: '"say \\"hi\\""' },
          { name: 'accents', type: `"Ünïcödé — ‘quoted’ ≥ ${long}"`, hasQuestionToken: true },
        ],
      },
      {
        kind: StructureKind.Interface,
        name: 'Methods',
        methods: [{ name: 'run', parameters: [{ name: 'payload', type: `Payload${long}` }, { name: 'ctx', type: `Context<"${long}">` }], returnType: 'Promise<void>' }],
      },
      { kind: StructureKind.Interface, name: 'Empty', isExported: true },
    ];
    expect(printDeclarations(chunk)).toBe(await prettierText(chunk));
  });

  it('leaves to prettier what it does not know', () => {
    const unknown: StatementStructures[][] = [
      [{ kind: StructureKind.TypeAlias, name: 'Mapped', type: '{ [K in keyof T]: T[K] }' }],
      [{ kind: StructureKind.TypeAlias, name: 'Generic', typeParameters: ['T'], type: 'T[]' }],
      [{ kind: StructureKind.TypeAlias, name: 'Big', type: '1e+21' }],
      [{ kind: StructureKind.Interface, name: 'Unquotable', properties: [{ name: '"plain"', type: 'string' }] }],
      [{ kind: StructureKind.TypeAlias, name: 'Wide', type: `"${'字'.repeat(10)}"` }],
      [{ kind: StructureKind.TypeAlias, name: 'Emoji', type: '"↔"' }],
      [{ kind: StructureKind.TypeAlias, name: 'N'.repeat(60), type: `${'B'.repeat(50)} & { a: string; b: string }` }],
      [{ kind: StructureKind.Interface, name: 'Connected', properties: [{ name: '"a‿b"', type: 'string' }] }],
      [{ kind: StructureKind.TypeAlias, name: 'Returned', docs: ['One\rtwo.'], type: 'string' }],
      [{ kind: StructureKind.TypeAlias, name: 'Hugged', type: `{ a: "${'x'.repeat(120)}" } | null` }],
      [{ kind: StructureKind.VariableStatement, declarations: [{ name: 'x', initializer: '1' }] }],
    ];
    for (const chunk of unknown) expect(printDeclarations(chunk)).toBeUndefined();
  });
});
