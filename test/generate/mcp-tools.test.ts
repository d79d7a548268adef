/**
 * `generated/mcp/tools.json` (emit-mcp.ts) on the shipped and the large catalogue: every tool is one the
 * official SDK's `ToolSchema` accepts, every example of its action passes its input schema (the one object
 * a payload is said as never refuses a valid payload) and its output schema (a wrapped result wrapped as
 * the file says), and the actions that are no tool are not listed.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { ToolSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { emitMcpTools } from '../../src/generate/emit-mcp.js';
import { fromRoot } from '../../src/package-root.js';
import { buildCatalog } from '../../src/spec/index.js';
import type { McpToolsFile } from '../../src/spec/mcp/tool-types.js';

const catalogues = [
  ['the shipped catalogue', fromRoot('faces')],
  ['the large catalogue', fromRoot('test', 'fixtures', 'large', 'faces')],
] as const;

function toolsOf(dir: string) {
  const catalog = buildCatalog(dir).catalog!;
  return { catalog, file: JSON.parse(emitMcpTools(catalog)) as McpToolsFile };
}

describe.each(catalogues)('the MCP tools of %s', (_name, dir) => {
  const { catalog, file } = toolsOf(dir);

  it("are tools the SDK's ToolSchema accepts, each annotation written", () => {
    for (const { tool } of file.tools) {
      const parsed = ToolSchema.safeParse(tool);
      expect(parsed.success ? 'ok' : `${tool.name}: ${parsed.error.message}`).toBe('ok');
      expect(Object.keys(tool.annotations).sort()).toEqual(['destructiveHint', 'idempotentHint', 'openWorldHint', 'readOnlyHint', 'title']);
    }
  });

  it('accept every example of their action, the result wrapped where the file says', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    for (const entry of file.tools) {
      const input = ajv.compile(entry.tool.inputSchema);
      const output = ajv.compile(entry.tool.outputSchema);
      for (const example of entry.examples) {
        expect(input(structuredClone(example.payload)) ? 'ok' : `${entry.tool.name} payload: ${ajv.errorsText(input.errors)}`).toBe('ok');
        const structured = entry.resultProperty ? { [entry.resultProperty]: example.result } : example.result;
        expect(output(structuredClone(structured)) ? 'ok' : `${entry.tool.name} result: ${ajv.errorsText(output.errors)}`).toBe('ok');
      }
    }
  });

  it('are one per action the newest version serves, but the built-in ones and those that answer only as a stream', () => {
    const expected = catalog.faces
      .filter((face) => !face.builtin)
      .flatMap((face) => face.actions.filter((a) => !a.streamOnly && a.variants.some((v) => v.versions.includes(catalog.platform.latest))).map((a) => `${face.name}_${a.name}`))
      .sort();
    expect(file.tools.map((entry) => entry.tool.name)).toEqual(expected);
    expect(file.apiVersion).toBe(catalog.platform.latest);
  });
});

describe('the shipped MCP tools', () => {
  const { file } = toolsOf(fromRoot('faces'));
  const byName = new Map(file.tools.map((entry) => [entry.tool.name, entry]));

  it('leave out batch.run and usage.live', () => {
    expect(byName.has('batch_run')).toBe(false);
    expect(byName.has('usage_live')).toBe(false);
    expect(byName.has('usage_summary')).toBe(true);
  });

  it('say email.send, whose payload is a top-level allOf, as one object', () => {
    const { inputSchema } = byName.get('email_send')!.tool;
    expect(inputSchema.allOf).toBeUndefined();
    expect(inputSchema.required).toEqual(['from', 'to']);
    expect(Object.keys(inputSchema.properties as object)).toContain('template');
  });

  it('carry what the server needs to run a call', () => {
    const { tool: _tool, examples: _examples, ...entry } = byName.get('ai_generate')!;
    expect(entry).toEqual({ face: 'ai', action: 'generate', scope: 'ai:generate', stream: true });
    expect(byName.get('ai_generate')!.tool.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: false, openWorldHint: true });
    expect(byName.get('keys_revoke')!.tool.annotations).toMatchObject({ destructiveHint: true, idempotentHint: true, openWorldHint: false });
  });
});
