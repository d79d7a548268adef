/**
 * The lint of MCP tools for the clients people use (src/spec/mcp/client-limits.ts, rules `tool-*`): the shipped
 * and the large catalogue pass it; a face file built to break a rule fails `generate` at what to change; and
 * each rule the face language or the tool builder already keeps a face file from breaking (a non-object root,
 * a top-level combinator, a reference, an output that is no object, a character a name cannot have) fails on
 * a tool broken by hand, so that a change to the builder that lets one through is caught.
 */
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../../../src/package-root.js';
import { buildCatalog } from '../../../src/spec/index.js';
import { TOOL_DESCRIPTION_MAX, TOOL_NAME_MAX, toolProblems } from '../../../src/spec/mcp/client-limits.js';
import type { McpTool } from '../../../src/spec/mcp/tool-types.js';
import { PLATFORM } from '../rules/demo.js';

const faceFile = (name: string, action: string, extra = '') => `face: ${name}
summary: A face.
since: 2026-01-01
actions:
  ${action}:
    summary: Do it.
${extra}    scope: demo:read
    effect: read
    external: false
    payload: { type: object }
    result: { type: object }
    examples: [{ payload: {}, result: {} }]
`;

const build = (name: string, text: string) => buildCatalog('spec', { files: new Map([['platform.yaml', PLATFORM], [`${name}.yaml`, text]]) });
const shown = (result: ReturnType<typeof build>) => result.diagnostics.map((d) => `${d.line}:${d.col} ${d.code} ${d.message}`);

/** A tool that passes every rule. */
const TOOL: McpTool = {
  name: 'demo_echo',
  title: 'Echo',
  description: 'Echo a message.',
  inputSchema: { type: 'object', properties: { message: { type: 'string' } } },
  outputSchema: { type: 'object', properties: { message: { type: 'string' } } },
  annotations: { title: 'Echo', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
};
const broken = (change: (tool: McpTool) => void) => {
  const tool = structuredClone(TOOL);
  change(tool);
  return toolProblems(tool).map((p) => p.rule);
};

describe('the MCP lint', () => {
  it.each([
    ['the shipped catalogue', fromRoot('faces')],
    ['the large catalogue', fromRoot('test', 'fixtures', 'large', 'faces')],
  ])('passes %s', (_name, dir) => {
    const { catalog, diagnostics } = buildCatalog(dir);
    expect(diagnostics.filter((d) => d.code.startsWith('tool-'))).toEqual([]);
    expect(catalog).toBeDefined();
  });

  it('passes a tool that fits every client', () => {
    expect(toolProblems(TOOL)).toEqual([]);
  });

  it(`refuses a tool name over ${TOOL_NAME_MAX} characters, at the action's name`, () => {
    const face = 'averyveryverylongfacenamefortesting';
    const result = build(face, faceFile(face, 'andAnEvenLongerActionNameThatGoesOn'));
    expect(shown(result)).toEqual([
      `5:3 tool-name-too-long The MCP tool of ${face}.andAnEvenLongerActionNameThatGoesOn would be named ${face}_andAnEvenLongerActionNameThatGoesOn, 71 characters; clients refuse names over 60 (docs/mcp.md § MCP tools): shorten the action's or the face's name.`,
    ]);
    expect(result.catalog).toBeUndefined();
    expect(shown(build('demo', faceFile('demo', 'anActionNameOfFiftyFiveCharactersThatFitsSixtyExactlyOk')))).toEqual([]);
  });

  it(`refuses a tool description over ${TOOL_DESCRIPTION_MAX} characters, at the action's description`, () => {
    const long = `    description: ${'A sentence of some length that says little. '.repeat(24).trim()}\n`;
    expect(shown(build('demo', faceFile('demo', 'echo', long)))).toEqual([
      '7:18 tool-description-too-long The MCP tool demo_echo would be described in 1063 characters; clients refuse descriptions over 1024 (docs/mcp.md § MCP tools): shorten the summary and description of demo.echo.',
    ]);
  });

  it('reports a reference that names nothing once, as unknown-ref, not again for the tool', () => {
    const text = faceFile('demo', 'echo').replace('result: { type: object }', 'result: { $ref: "#/schemas/Gone" }');
    expect(build('demo', text).diagnostics.map((d) => d.code)).toEqual(['unknown-ref']);
  });

  it('refuses a name with a character model APIs refuse', () => {
    expect(broken((tool) => (tool.name = 'demo.echo'))).toEqual(['tool-name-invalid']);
  });

  it('refuses an input schema without an object at its root', () => {
    expect(broken((tool) => ((tool.inputSchema as Record<string, unknown>).type = 'array'))).toEqual(['tool-input-not-object']);
    expect(broken((tool) => delete (tool.inputSchema as Record<string, unknown>).type)).toEqual(['tool-input-not-object']);
  });

  it('refuses oneOf, anyOf or allOf left at the root of an input schema', () => {
    expect(broken((tool) => (tool.inputSchema.oneOf = [{ required: ['message'] }, { required: ['text'] }]))).toEqual(['tool-input-combinator']);
    expect(broken((tool) => Object.assign(tool.inputSchema, { anyOf: [{}], allOf: [{}] }))).toEqual(['tool-input-combinator', 'tool-input-combinator']);
  });

  it('refuses a reference left in either schema', () => {
    expect(broken((tool) => (tool.inputSchema.properties = { message: { $ref: '#/$defs/Message' } }))).toEqual(['tool-schema-ref']);
    expect(broken((tool) => (tool.outputSchema.items = { $ref: '#/$defs/Item' }))).toEqual(['tool-schema-ref']);
    // A `$ref` key in a value (an enum's, a default's) is data, not a reference.
    expect(broken((tool) => (tool.inputSchema.default = { $ref: 'not a reference' }))).toEqual([]);
  });

  it('refuses an output schema without an object at its root', () => {
    expect(broken((tool) => ((tool.outputSchema as Record<string, unknown>).type = 'array'))).toEqual(['tool-output-not-object']);
    expect(broken((tool) => delete (tool as Partial<McpTool>).outputSchema)).toEqual(['tool-output-not-object']);
  });
});
