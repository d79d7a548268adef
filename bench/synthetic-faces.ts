/**
 * A synthetic catalogue the size the platform advertises (42 faces, 276 actions), built from the shipped
 * platform file and face-shaped YAML, for timing the generator.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const FACES = 42;
export const ACTIONS = 276;

export function writeSyntheticFaces(dir: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'platform.yaml'), readFileSync('faces/platform.yaml', 'utf8'));
  for (let f = 0; f < FACES; f++) {
    const count = Math.floor(ACTIONS / FACES) + (f < ACTIONS % FACES ? 1 : 0);
    const actions = Array.from({ length: count }, (_, a) => action(`op${a}`)).join('');
    writeFileSync(join(dir, `face${f}.yaml`), `face: face${f}
summary: Synthetic face ${f}.
since: 2026-01-01
schemas:
  Item:
    type: object
    required: [id, name]
    properties:
      id: { type: string, description: Item id. }
      name: { type: string, maxLength: 200, description: Item name. }
      tags: { type: array, items: { type: string }, description: Tags. }
actions:
${actions}`);
  }
}

function action(name: string): string {
  return `  ${name}:
    summary: Synthetic action ${name}.
    scope: storage:read
    payload:
      type: object
      required: [name]
      additionalProperties: false
      properties:
        name: { type: string, minLength: 1, maxLength: 200, description: A name. }
        email: { type: string, format: email, description: An address. }
        limit: { type: integer, minimum: 1, maximum: 100, default: 20, description: Page size. }
        mode: { type: string, enum: [fast, slow], description: How. }
        since: { type: string, format: date-time, since: 2026-09-01, description: Lower bound. }
    result:
      type: object
      required: [items]
      properties:
        items: { type: array, items: { $ref: "#/schemas/Item" } }
        hasMore: { type: boolean }
    examples:
      - payload: { name: a }
        result: { items: [{ id: x, name: a }] }
`;
}
