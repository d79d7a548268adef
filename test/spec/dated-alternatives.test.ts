/**
 * A field whose type changes in a version: its types are the alternatives of a `oneOf`/`anyOf`, each with
 * `since`/`until`, and each version's schema keeps the alternatives it serves (one left is the field's schema).
 */
import { describe, expect, it } from 'vitest';
import { materialize } from '../../src/spec/json-schema.js';

const NAMED = { Decimal: { type: 'string', pattern: '^-?\\d+(\\.\\d+)?$' } };
const METER = {
  type: 'object',
  properties: {
    value: {
      description: 'The sum.',
      oneOf: [{ type: 'number', until: '2027-03-01' }, { $ref: '#/schemas/Decimal', since: '2027-03-01' }],
    },
    // Not dated: left as written, whatever the version.
    either: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
  },
};

describe('dated alternatives of a field', () => {
  it('serve each version its own type of the field', () => {
    expect(materialize(METER, '2026-09-01', NAMED)).toEqual({
      type: 'object',
      properties: { value: { description: 'The sum.', type: 'number' }, either: { oneOf: [{ type: 'string' }, { type: 'integer' }] } },
    });
    expect(materialize(METER, '2027-03-01', NAMED)).toEqual({
      type: 'object',
      properties: { value: { description: 'The sum.', $ref: '#/$defs/Decimal' }, either: { oneOf: [{ type: 'string' }, { type: 'integer' }] } },
      $defs: NAMED,
    });
  });

  it('keep a list of the alternatives served when more than one is left', () => {
    const schema = { anyOf: [{ type: 'string' }, { type: 'integer', since: '2027-03-01' }, { type: 'null', until: '2027-03-01' }] };
    expect(materialize(schema, '2026-09-01', {})).toEqual({ anyOf: [{ type: 'string' }, { type: 'null' }] });
    expect(materialize(schema, '2027-03-01', {})).toEqual({ anyOf: [{ type: 'string' }, { type: 'integer' }] });
  });
});
