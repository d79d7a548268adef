/**
 * An action as an MCP tool (src/spec/mcp/tool.ts): its name, title, description and annotations from the
 * face file, its payload said as one object with every reference inlined, its result typed or wrapped as an
 * object, and the actions that are no tool.
 */
import { describe, expect, it } from 'vitest';
import { mcpTool } from '../../../src/spec/mcp/tool.js';
import type { McpToolEntry } from '../../../src/spec/mcp/tool-types.js';
import { build } from '../rules/demo.js';

/** The demo face with `actions` (YAML under `actions:`) and `schemas`. */
const face = (actions: string, schemas = '') => `face: demo
summary: A demo face.
since: 2026-01-01
${schemas ? `schemas:\n${schemas}` : ''}actions:
${actions}`;

/** An action stanza: what a call does, then the rest. */
const action = (name: string, rest: string, effects = 'effect: read\n    external: false') => `  ${name}:
    summary: ${name} something.
    scope: demo:read
    ${effects}
${rest}`;

const SIMPLE = '    payload: { type: object }\n    result: { type: object }\n    examples: [{ payload: {}, result: {} }]\n';

function tools(yaml: string): Map<string, McpToolEntry | undefined> {
  const { catalog, diagnostics } = build(yaml);
  expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  const demo = catalog!.faces[0]!;
  return new Map(demo.actions.map((a) => [a.name, mcpTool(demo, a, catalog!.platform.latest)]));
}

describe('an action as an MCP tool', () => {
  it('is named <face>_<action>, titled by its title or its summary, and described by summary and description', () => {
    const found = tools(
      face(
        action('echo', `    title: Echo it\n${SIMPLE}`) +
          action('sendNow', `    description: |\n      Sends it at once.\n      Mind the \`limit\`.\n${SIMPLE}`).replace('sendNow something.', 'Send a message, now or at `scheduledAt`.'),
      ),
    );
    const echo = found.get('echo')!.tool;
    expect([echo.name, echo.title, echo.annotations.title, echo.description]).toEqual(['demo_echo', 'Echo it', 'Echo it', 'echo something.']);
    const send = found.get('sendNow')!.tool;
    expect([send.name, send.title, send.description]).toEqual(['demo_sendNow', 'Send a message, now or at scheduledAt', 'Send a message, now or at `scheduledAt`.\n\nSends it at once.\nMind the `limit`.']);
  });

  it('writes every annotation, mapped from the declared effects', () => {
    const found = tools(
      face(
        action('look', SIMPLE) +
          action('change', SIMPLE, 'effect: write\n    idempotent: true\n    external: false') +
          action('charge', SIMPLE, 'effect: write\n    idempotent: false\n    external: true') +
          action('remove', SIMPLE, 'effect: destroy\n    idempotent: true\n    external: false') +
          action('ask', SIMPLE, 'effect: read\n    idempotent: true\n    external: true'),
      ),
    );
    const hints = (name: string) => {
      const { title: _title, ...rest } = found.get(name)!.tool.annotations;
      return rest;
    };
    expect(hints('look')).toEqual({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    expect(hints('change')).toEqual({ readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    expect(hints('charge')).toEqual({ readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true });
    expect(hints('remove')).toEqual({ readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false });
    expect(hints('ask')).toEqual({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true });
  });

  it('keeps what a server needs: face, action, scope, streaming, examples', () => {
    const entry = tools(face(action('follow', `    stream: true\n${SIMPLE}`))).get('follow')!;
    expect({ ...entry, tool: undefined }).toEqual({ face: 'demo', action: 'follow', scope: 'demo:read', stream: true, examples: [{ payload: {}, result: {} }], tool: undefined });
  });

  it('inlines every reference, and says a schema that contains itself by its name', () => {
    const schemas = `  Node:
    type: object
    description: A node.
    properties:
      name: { type: string }
      children: { type: array, items: { $ref: "#/schemas/Node" } }
`;
    const tool = tools(face(action('put', '    payload: { type: object, properties: { root: { $ref: "#/schemas/Node", description: The root. } } }\n    result: { $ref: "#/schemas/Node" }\n    examples: [{ payload: {}, result: {} }]\n'), schemas)).get('put')!.tool;
    expect(JSON.stringify([tool.inputSchema, tool.outputSchema])).not.toContain('$ref');
    expect(JSON.stringify([tool.inputSchema, tool.outputSchema])).not.toContain('$defs');
    const root = (tool.inputSchema.properties as Record<string, any>).root;
    expect(root.description).toBe('The root.');
    expect(root.properties.children.items).toEqual({ type: 'object', description: 'A Node, nested: the same shape as the Node that contains it.' });
    expect(tool.outputSchema.type).toBe('object');
    expect(tool.outputSchema.description).toBe('A node.');
  });

  it('says a payload with a top-level allOf as the one object it is, with nothing lost', () => {
    const schemas = '  Input: { type: object, required: [to], additionalProperties: false, properties: { to: { type: string }, text: { type: string } } }\n';
    const tool = tools(face(action('send', '    payload: { type: object, allOf: [{ $ref: "#/schemas/Input" }] }\n    result: { type: object }\n    examples: [{ payload: { to: a }, result: {} }]\n'), schemas)).get('send')!.tool;
    expect(tool.inputSchema).toEqual({ type: 'object', properties: { to: { type: 'string' }, text: { type: 'string' } }, required: ['to'], additionalProperties: false });
    expect(tool.description).toBe('send something.');
  });

  it('says a payload of several shapes as one object with every property, required where all require it, and the exact rules in words', () => {
    const payload = `    payload:
      type: object
      required: [currency]
      properties:
        currency: { type: string }
      oneOf:
        - { required: [type, amount], additionalProperties: false, properties: { currency: { type: string }, type: { const: flat }, amount: { type: integer } } }
        - { required: [type, tiers], additionalProperties: false, properties: { currency: { type: string }, type: { const: graduated }, tiers: { type: array }, usage: { type: string } }, minProperties: 3 }
    result: { type: object }
    examples: [{ payload: { currency: usd, type: flat, amount: 5 }, result: {} }]
`;
    const tool = tools(face(action('price', payload, 'effect: write\n    idempotent: false\n    external: false'))).get('price')!.tool;
    expect(tool.inputSchema).toEqual({
      type: 'object',
      // The branches' constants of `type` (a discriminator's tag) are one enum, a choice a model client can show.
      properties: { currency: { type: 'string' }, type: { enum: ['flat', 'graduated'] }, amount: { type: 'integer' }, tiers: { type: 'array' }, usage: { type: 'string' } },
      required: ['currency', 'type'],
      // Every shape is closed, so the one object is too, over all their fields.
      additionalProperties: false,
    });
    expect(tool.description).toBe(
      'price something.\n\nThe payload must also match exactly one of these: (1) `type` is "flat", with `amount`, no field but `currency`, `type`, `amount`; ' +
        '(2) `type` is "graduated", with `tiers`, no field but `currency`, `type`, `tiers`, `usage`, {"minProperties":3}.',
    );
  });

  it('types a result that is always an object, and wraps any other under `result`, saying so', () => {
    const schemas = '  A: { type: object, properties: { a: { type: string } } }\n  B: { type: object, properties: { b: { type: string } } }\n';
    const found = tools(
      face(
        action('both', '    payload: { type: object }\n    result: { description: Both., allOf: [{ $ref: "#/schemas/A" }, { $ref: "#/schemas/B" }] }\n    examples: [{ payload: {}, result: {} }]\n') +
          action('many', '    payload: { type: object }\n    result: { type: array, items: { $ref: "#/schemas/A" } }\n    examples: [{ payload: {}, result: [] }]\n'),
        schemas,
      ),
    );
    const both = found.get('both')!;
    expect(both.resultProperty).toBeUndefined();
    expect(both.tool.outputSchema).toMatchObject({ type: 'object', description: 'Both.', allOf: [{ type: 'object' }, { type: 'object' }] });
    const many = found.get('many')!;
    expect(many.resultProperty).toBe('result');
    expect(many.tool.outputSchema).toEqual({
      type: 'object',
      required: ['result'],
      additionalProperties: false,
      properties: { result: { type: 'array', items: { type: 'object', properties: { a: { type: 'string' } } } } },
    });
  });

  it('is none for an action that answers only as a stream, nor for one the newest version no longer serves', () => {
    const found = tools(face(action('follow', `    stream: true\n    streamOnly: true\n${SIMPLE}`) + action('echo', SIMPLE)));
    expect(found.get('follow')).toBeUndefined();
    expect(found.get('echo')).toBeDefined();
  });
});
