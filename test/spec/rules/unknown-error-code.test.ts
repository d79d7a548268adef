/**
 * Rule `unknown-error-code` over the whole catalogue: an action's `errors` may name a code of its face, of
 * another face (billing's payInvoice answers payments' declines) or of the platform; any other is reported at
 * its entry, with the declared code it may mean. The list is resolved sorted; an action without one has none.
 */
import { describe, expect, it } from 'vitest';
import { buildCatalog } from '../../../src/spec/index.js';
import { actionErrorCodes } from '../../../src/spec/action-errors.js';
import { PLATFORM } from './demo.js';

/** A face `name` declaring the error `declares`, whose one action `run` lists `errors` (none when undefined). */
const face = (name: string, declares: string, errors?: string[]) => `face: ${name}
summary: A face.
since: 2026-01-01
errors:
  - { code: ${declares}, status: 400, type: invalid_request_error, message: Refused., retryable: false }
actions:
  run:
    summary: Run.
    scope: demo:read
${errors ? `    errors: [${errors.join(', ')}]\n` : ''}    payload: { type: object }
    result: { type: object }
    examples: [{ payload: {}, result: {} }]
    effect: read
    external: false
`;

const build = (a: string, b: string) => buildCatalog('spec', { files: new Map([['platform.yaml', PLATFORM], ['alpha.yaml', a], ['beta.yaml', b]]) });
const found = (result: ReturnType<typeof build>) => result.diagnostics.map((d) => `${d.file}:${d.line}:${d.col} ${d.code} ${d.message}`);

describe('unknown-error-code', () => {
  it("takes the face's codes, another face's and the platform's, and resolves them sorted", () => {
    const result = build(face('alpha', 'alpha_refused', ['resource_not_found', 'beta_refused', 'alpha_refused']), face('beta', 'beta_refused'));
    expect(found(result)).toEqual([]);
    const [alpha, beta] = result.catalog!.faces;
    expect(alpha!.actions[0]!.errors).toEqual(['alpha_refused', 'beta_refused', 'resource_not_found']);
    expect(actionErrorCodes(alpha!, alpha!.actions[0]!)).toEqual(['alpha_refused', 'beta_refused', 'resource_not_found']);
    // No list: any code of its face.
    expect(beta!.actions[0]!.errors).toBeUndefined();
    expect(actionErrorCodes(beta!, beta!.actions[0]!)).toEqual(['beta_refused']);
  });

  it('takes an empty list as none, not as its face', () => {
    const { catalog } = build(face('alpha', 'alpha_refused', []), face('beta', 'beta_refused'));
    expect(actionErrorCodes(catalog!.faces[0]!, catalog!.faces[0]!.actions[0]!)).toEqual([]);
  });

  it('reports a code no one declares at its entry, with the one it may mean, and withholds the catalogue', () => {
    const result = build(face('alpha', 'alpha_refused', ['resource_not_fonud', 'alpha_refused', 'nothing_like_it']), face('beta', 'beta_refused'));
    expect(found(result)).toEqual([
      'spec/alpha.yaml:10:14 unknown-error-code Error code "resource_not_fonud" is declared neither under the "errors" of a face nor by the platform. Did you mean "resource_not_found"?',
      'spec/alpha.yaml:10:49 unknown-error-code Error code "nothing_like_it" is declared neither under the "errors" of a face nor by the platform.',
    ]);
    expect(result.catalog).toBeUndefined();
  });

  it('refuses a code that is not a code, and one listed twice, by the meta-schema', () => {
    const result = build(face('alpha', 'alpha_refused', ['Alpha-Refused', 'alpha_refused', 'alpha_refused']), face('beta', 'beta_refused'));
    expect(result.diagnostics.map((d) => `${d.line} ${d.code}`)).toEqual(['10 schema-violation', '10 schema-violation']);
  });
});
