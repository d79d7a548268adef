/**
 * The formatter's thread: what it formats is what prettier makes in process; a file prettier refuses fails
 * with the reason, and the thread goes on serving the files after it.
 */
import { describe, expect, it } from 'vitest';
import { format, formatCached } from '../../src/generate/format.js';

describe("the formatter's thread", () => {
  it('formats texts as prettier does in process', async () => {
    const text = 'export const  x = { "a": 1, b: [1,2,3] }\n';
    expect(await formatCached('a.ts', text)).toBe(await format('a.ts', text));
  });

  it("fails a file prettier refuses with prettier's reason, and formats the next one", async () => {
    await expect(formatCached('broken.ts', 'export const = ;\n')).rejects.toThrow(/Unexpected token|Expression expected|Identifier expected/);
    expect(await formatCached('fine.ts', 'let  y=2\n')).toBe('let y = 2;\n');
  });
});
