/**
 * `generated/server/pipelines/<face>.js`: the checks each action runs once it is routed, written out in the
 * pipeline's order (docs/contract.md § Pipeline) with what the face file fixes: the scope it requires,
 * whether an atomic batch may hold it, whether it counts against rate limits, whether it streams, and the
 * validator of its payload in each version. A check the action cannot fail is not written at all (a
 * streaming action has no stream check; an atomic one no atomic check), so a call runs only what it needs.
 *
 * Each export takes the runtime's stage kit (src/server/stages/kit.ts) and makes the action's checks, one
 * stage in the contract's signature; the file imports nothing from the runtime, only the face's validators
 * and the serializers' helpers generated beside it, so that it loads wherever the catalogue is, on the face's
 * first call. Beside each action's checks stands the serializer of its result (result-serializer.ts), where
 * its result schema is closed at its top.
 */
import { BATCH_ACTION } from '../core/dispatch-types.js';
import type { Action, Face } from '../spec/model.js';
import type { Formatted } from './format.js';
import { hasResultSerializer, ResultSerializers } from './result-serializer.js';

export const pipelinesPath = (face: string) => `server/pipelines/${face}.js`;
export const pipelineTypesPath = (face: string) => `server/pipelines/${face}.d.ts`;

/** The export of `action` in its face's pipeline module. */
export const pipelineName = (action: Action) => action.id.replace(/\./g, '_');

/** The export of the serializer of `action`'s result (an action's name holds no underscore, so no action's checks share it). */
export const resultSerializerName = (action: Action) => `${pipelineName(action)}_result`;

/** Whether `action` has a result serializer: its result schema is closed at its top. */
export const hasActionResultSerializer = (action: Action) => hasResultSerializer(action.resultSchema);

const json = (value: unknown) => JSON.stringify(value);

/** A face's module and its types; `serializes`: its code imports the serializers' helpers (SERIALIZER_HELPERS_PATH). */
export function emitPipelines(face: Face): { code: string; types: Formatted[]; serializes: boolean } {
  const serializers = new ResultSerializers();
  const serialized = new Set(face.actions.filter((action) => serializers.add(resultSerializerName(action), action.resultSchema)));
  const code = [
    `import * as validators from '../validators/${face.name}.js';`,
    ...serializers.imports(),
    '',
    ...face.actions.flatMap((action) => [...actionChecks(face, action), '']),
    serializers.source(),
  ].join('\n');
  const types = [
    `import type { ActionChecksMaker } from '../../../src/server/stages/kit.js';`,
    ...(serialized.size > 0 ? [`import type { ResultSerializer } from '../../../src/server/result-serializer.js';`] : []),
    '',
    ...face.actions.flatMap((action) => [
      `export declare const ${pipelineName(action)}: ActionChecksMaker;`,
      ...(serialized.has(action) ? [`export declare const ${resultSerializerName(action)}: ResultSerializer;`] : []),
    ]),
    '',
  ].join('\n');
  return { code, types: [{ formatted: types }], serializes: serialized.size > 0 };
}

function actionChecks(face: Face, action: Action): string[] {
  const name = pipelineName(action);
  const id = json(action.id);
  const checks: string[] = [];
  // Only the requests of an atomic batch can be refused for effects outside the store.
  if (!action.atomic) checks.push(`s.atomicOnly(call, ${id});`);
  checks.push(`s.scope(call, ${id}, ${json(action.scope)});`);
  // After the rate limit: the stream and the payload, in that order.
  const rest: string[] = [];
  if (!action.stream) rest.push(`s.noStream(call, ${id});`);
  if (action.streamOnly) rest.push(`s.streamOnly(call, ${id});`);
  rest.push('s.validate(call, payload);');
  // A batch is counted by its requests, each as a call of its own, not by its envelope.
  const counted = !(face.builtin && action.id === BATCH_ACTION);
  const body = counted ? [...checks, 'return s.after(s.rateLimit(call, runtime), () => {', ...rest.map((line) => `  ${line}`), '});'] : [...checks, ...rest];
  return [
    `/** ${action.id}: ${describe(face, action, counted)} */`,
    `export const ${name} = (s) => {`,
    `  const payload = ${payloadValidators(action)};`,
    `  return function ${name}(call, runtime) {`,
    ...body.map((line) => `    ${line}`),
    '  };',
    '};',
  ];
}

/** One validator when every version checks the payload alike; else the validator of each version. */
function payloadValidators(action: Action): string {
  if (action.variants.length === 1) return `validators.${action.variants[0]!.validator}`;
  const entries = action.variants.flatMap((v) => v.versions.map((date) => `    [${json(date)}, validators.${v.validator}],`));
  return ['new Map([', ...entries, '  ])'].join('\n');
}

function describe(face: Face, action: Action, counted: boolean): string {
  return [
    `scope ${action.scope}`,
    action.atomic ? 'may run in an atomic batch' : 'not in an atomic batch',
    counted ? 'rate-limited' : 'rate-limited by its requests',
    action.stream ? (action.streamOnly ? 'answers only as a stream' : 'streams when asked') : 'never streams',
  ].join('; ') + (face.builtin ? '; served by the runtime.' : '.');
}
