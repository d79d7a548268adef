/**
 * A small in-memory catalogue for the rule tests: a platform with two declared units and one face whose
 * action's `cost` line (line 8, the value at column 11) each case writes.
 */
import { buildCatalog, type BuildResult } from '../../../src/spec/index.js';

export const PLATFORM = `units:
  inputTokens: Tokens in.
  outputTokens: Tokens out.
scopes:
  demo:read: Read demo things.
tiers:
  free:
    token: { limit: 10, window: 1s }
    entity: { limit: 20, window: 1m }
versions:
  - date: 2026-01-01
    status: stable
    summary: First.
limits:
  bodyBytes: 1048576
  batchSize: 100
  timeout: { default: 1000, max: 5000 }
changelogUrl: /docs/versions.md
errorDocsUrl: /docs/errors.md
`;

/** The demo face with `cost` (flow or block YAML) as the action's cost. */
export const faceWithCost = (cost: string) => `face: demo
summary: A demo face.
since: 2026-01-01
actions:
  echo:
    summary: Echo a message.
    scope: demo:read
    cost: ${cost}
    payload: { type: object }
    result: { type: object }
    examples: [{ payload: {}, result: {} }]
    effect: read
    external: false
`;

export function build(face: string, platform = PLATFORM): BuildResult {
  return buildCatalog('spec', { files: new Map([['platform.yaml', platform], ['demo.yaml', face]]) });
}

/** `line:col code` of each diagnostic, in order. */
export const found = (result: BuildResult) => result.diagnostics.map((d) => `${d.line}:${d.col} ${d.code}`);
