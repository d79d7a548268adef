/**
 * Rule `error-type-mismatch`: a face error whose status docs/contract.md § Errors gives one type (401, 402, 403, 404, 429)
 * must have it; it is reported at the error's `type`.
 */
import { describe, expect, it } from 'vitest';
import { build, found } from './demo.js';

const faceWithError = (status: number, type: string) => `face: demo
summary: A demo face.
since: 2026-01-01
errors:
  - code: wrong_secret
    status: ${status}
    type: ${type}
    message: The secret is wrong.
    retryable: false
actions:
  echo:
    summary: Echo a message.
    scope: demo:read
    payload: { type: object }
    result: { type: object }
    examples: [{ payload: {}, result: {} }]
    effect: read
    external: false
`;

describe('error-type-mismatch', () => {
  const cases: [name: string, status: number, type: string, expected: string[]][] = [
    ['a 401 that is an authentication_error', 401, 'authentication_error', []],
    ['a 401 typed as a bad request', 401, 'invalid_request_error', ['7:11 error-type-mismatch']],
    ['a 404 typed as a permission error', 404, 'permission_error', ['7:11 error-type-mismatch']],
    ['a 409, whose type the face chooses', 409, 'invalid_request_error', []],
  ];

  it.each(cases)('%s', (_name, status, type, expected) => {
    expect(found(build(faceWithError(status, type)))).toEqual(expected);
  });

  it('names the status and the type it needs', () => {
    const [d] = build(faceWithError(401, 'invalid_request_error')).diagnostics;
    expect(d?.message).toBe('Error "wrong_secret" has status 401, whose type is "authentication_error" (docs/contract.md § Errors), not "invalid_request_error".');
  });
});
