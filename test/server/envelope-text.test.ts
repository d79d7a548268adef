/**
 * The text of the two envelopes, which the call lane writes and an idempotency record stores, is the text
 * JSON.stringify gives the same body, byte for byte: for any data a handler may answer (nothing, null,
 * nested objects, text that needs escaping, a value with a toJSON of its own, a number JSON writes as
 * null), and for errors with and without a param and details.
 */
import { describe, expect, it } from 'vitest';
import { ApiError, meaningOf } from '../../src/core/errors.js';
import { ErrorEnvelope, SuccessEnvelope, bodyText, errorObject, type Meta } from '../../src/server/envelope.js';

const meta = (timing: number): Meta => ({ timing, requestId: 'req_01M8P6T4CNA9DHPWSV7N1X7V4N', version: '2026.11.0' });

const DATA: unknown[] = [
  undefined,
  null,
  { text: 'positive', model: 'gpt-4o-mini', tokens: { input: 17, output: 1 } },
  { quote: 'say "hi"\n\tand \\ back', emoji: '😀', lone: '\ud800', control: '\u0001', empty: {}, list: [1, 'two', null, undefined, { nested: [true] }] },
  { at: new Date(Date.UTC(2026, 10, 30, 12, 0, 0)), skipped: undefined, dropped: () => 1 },
  new Date(Date.UTC(2026, 10, 30)),
  { toJSON: (key: string) => ({ calledWith: key }) },
  'just text',
  0,
  -0,
  1e21,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  true,
  [],
  ['a', { b: 1 }],
  () => 'a function',
];

describe('envelope text', () => {
  it.each(DATA.map((data, i) => [i, data]))('success %i: the text JSON.stringify gives', (_i, data) => {
    for (const timing of [0, 0.42, 12.5, -0, 1234.56]) {
      const body = new SuccessEnvelope(data, meta(timing));
      expect(body.text()).toBe(JSON.stringify(body));
      expect(bodyText(body)).toBe(JSON.stringify({ data, meta: meta(timing) }));
    }
  });

  it('errors: the text JSON.stringify gives, with and without their param and details', () => {
    const meaning = (error: ApiError) => meaningOf(error, new Map())!;
    const unknown = new ApiError('api_key_invalid', 'The API key is not known.');
    const detailed = new ApiError('payload_invalid', 'bad', { param: '/payload/x', details: { errors: [{ param: '/payload/x', message: 'is "bad"' }] } });
    for (const [error, docs] of [
      [unknown, '/docs/errors'],
      [unknown, 'https://example.com/errors'],
      [detailed, '/docs/errors'],
    ] as const) {
      const body = new ErrorEnvelope(errorObject(error, meaning(error), docs), meta(3.14));
      expect(body.text()).toBe(JSON.stringify(body));
      expect(JSON.parse(body.text()).error.docUrl).toBe(`${docs}#${error.code}`);
    }
  });

  it('leaves any other body to JSON.stringify', () => {
    const stored = { data: { id: 1 }, meta: meta(1) };
    expect(bodyText(stored)).toBe(JSON.stringify(stored));
  });
});
