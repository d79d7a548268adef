/**
 * The formatter's thread: what it prints and formats is what prettier and ts-morph make in process; a
 * file prettier refuses, or statements that cannot be sent to the thread, fail with the reason, and the
 * thread goes on serving the files after them.
 */
import { printStructure, StructureKind, type StatementStructures } from 'ts-morph';
import { describe, expect, it } from 'vitest';
import { format, formatCached, formatStatements } from '../../src/generate/format.js';

const statements: StatementStructures[] = [
  { kind: StructureKind.Interface, name: 'Note', isExported: true, docs: ['A note.'], properties: [{ name: 'text', type: 'string' }, { name: 'tags', type: 'string[]', hasQuestionToken: true }] },
  { kind: StructureKind.TypeAlias, name: 'Notes', isExported: true, type: 'Note[]' },
];

describe("the formatter's thread", () => {
  it('formats texts and prints statements as prettier and ts-morph do in process', async () => {
    const text = 'export const  x = { "a": 1, b: [1,2,3] }\n';
    expect(await formatCached('a.ts', text)).toBe(await format('a.ts', text));
    const printed = printStructure({ kind: StructureKind.SourceFile, statements });
    expect(await formatStatements('types.ts', '// head\n', statements)).toBe(await format('types.ts', `// head\n${printed}`));
    expect(await formatStatements('types.ts', '', statements)).toContain("export interface Note {\n  text: string;\n  tags?: string[];\n}");
  });

  it("fails a file prettier refuses with prettier's reason, and formats the next one", async () => {
    await expect(formatCached('broken.ts', 'export const = ;\n')).rejects.toThrow(/Unexpected token|Expression expected|Identifier expected/);
    expect(await formatCached('fine.ts', 'let  y=2\n')).toBe('let y = 2;\n');
  });

  it('fails statements it cannot send to the thread (a writer function), and formats the next file', async () => {
    const unsendable = [{ kind: StructureKind.TypeAlias, name: 'Later', type: (writer: { write(text: string): void }) => writer.write('string') }] as StatementStructures[];
    await expect(formatStatements('later.ts', '', unsendable)).rejects.toThrow(/could not be cloned/);
    expect(await formatCached('fine.ts', 'let  z=3\n')).toBe('let z = 3;\n');
  });

  it('refuses statements for a file that is not TypeScript', () => {
    expect(() => formatStatements('page.md', '', statements)).toThrow(/not a TypeScript file/);
  });
});
