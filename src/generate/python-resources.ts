/**
 * `generated/python/unified_dispatch/resources/<face>.py`: a face's methods, one per action, in four classes: the
 * face of `Client` and of `AsyncClient`, and their `with_raw_response` views. A method takes the action's payload
 * as keyword arguments (snake_case, typed from the payload schema, a nested object as a `TypedDict` of params.py,
 * sent by their wire names), returns the result model, a page for a list action, and for a streaming action a
 * `Stream` when called with `stream=True`.
 */
import { isObject } from '../spec/json-schema.js';
import type { Action, Face, JsonSchema } from '../spec/model.js';
import { withoutLinks } from './client-methods.js';
import type { ClientFace } from './client-model.js';
import { pagingOf } from './client-paging.js';
import { eventMapping, streamEventModels, streamUnion } from './python-events.js';
import { docstring, pyString, pythonName } from './python-names.js';
import type { ParamPrinter } from './python-params.js';
import { objectShape, pascal, unionOf } from './python-types.js';

/** Keyword arguments every method has besides the payload's, which a payload field must not take. */
const METHOD_ARGUMENTS = new Set(['self', 'options', 'stream']);

/** One keyword argument of a method: its Python name, the field's wire name, its type, whether it is required. */
export interface Argument {
  name: string;
  wire: string;
  type: string;
  required: boolean;
  description?: string;
}

/** The module's Python name of a face: `payments`, or `import_` for a keyword. */
export const faceModule = (face: Face) => pythonName(face.name);
/** The class of a face's methods: `Payments` (and `AsyncPayments`, `PaymentsWithRawResponse`, ...). */
export const faceClass = (face: Face) => face.typeName;
/** The Python name of an action's method: `create_intent`. */
export const methodName = (action: Action) => pythonName(action.name, METHOD_ARGUMENTS);

/**
 * The keyword arguments of an action, from its payload: an object's properties, those of every object an
 * `allOf` joins, or, for a `oneOf` of objects, those of every branch (required when every branch requires it).
 */
export function payloadArguments(action: Action, payload: JsonSchema, face: Face, params: ParamPrinter, used: Set<string>): Argument[] {
  const named = (isObject(payload.$defs) ? payload.$defs : {}) as Record<string, JsonSchema>;
  const scope = { named, prefix: face.typeName };
  const resolve = (s: unknown) => (isObject(s) && typeof s.$ref === 'string' ? (named[s.$ref.split('/').pop()!] ?? {}) : isObject(s) ? s : {});
  const branches = Array.isArray(payload.oneOf ?? payload.anyOf) ? ((payload.oneOf ?? payload.anyOf) as unknown[]).map(resolve) : [payload];
  const shapes = branches.map((branch) => {
    const shape = objectShape(branch, named);
    if (!shape && Object.keys(branch).some((k) => !['type', 'properties', 'required', 'additionalProperties', 'description', '$defs'].includes(k))) {
      throw new Error(`The payload of ${action.id} is not an object of properties; the Python client cannot take it as keyword arguments.`);
    }
    return shape ?? { properties: [], required: new Set<string>() };
  });
  const byWire = new Map<string, { types: string[]; required: boolean; description?: string }>();
  for (const shape of shapes) {
    for (const [wire, property] of shape.properties) {
      const known = byWire.get(wire) ?? { types: [], required: true };
      known.types.push(params.typeOf(property, `${action.typeName}${pascal(wire)}`, scope, used));
      const p = resolve(property);
      if (known.description === undefined && typeof (isObject(property) ? property.description : undefined) === 'string') known.description = (property as JsonSchema).description as string;
      else if (known.description === undefined && typeof p.description === 'string') known.description = p.description;
      byWire.set(wire, known);
    }
  }
  const taken = new Set(METHOD_ARGUMENTS);
  return [...byWire].map(([wire, { types, description }]) => {
    const name = pythonName(wire, taken);
    if (taken.has(name)) throw new Error(`Two payload fields of ${action.id} would both be the Python argument ${name}.`);
    taken.add(name);
    const required = shapes.every((shape) => shape.required.has(wire));
    return { name, wire, type: unionOf(types), required, ...(description ? { description } : {}) };
  });
}

/** How an action's method answers. */
interface Shape {
  result: string;
  /** A list action's paging and item type. */
  paging?: { paging: string; item: string };
  /** A streaming action's union of event models, the mapping of their names to them, whether it answers only as a stream. */
  stream?: { union: string; events: string; models: string[]; only: boolean };
}

/** The item type of a list action's page: the model of its `items`' elements. */
export type ItemType = (action: Action) => string;

export function shapeOf(action: Action, payload: JsonSchema, itemType: ItemType): Shape {
  const result = `${action.typeName}Result`;
  const paging = pagingOf(action, payload);
  if (paging) {
    const text = 'cursor' in paging ? '{"cursor": True}' : `{"after": ${pyString(paging.after)}}`;
    return { result, paging: { paging: text, item: itemType(action) } };
  }
  if (action.stream) {
    return { result, stream: { union: streamUnion(action), events: eventMapping(action), models: streamEventModels(action).map(([, model]) => model), only: action.streamOnly } };
  }
  return { result };
}

/** The face's module: its imports and its four classes. */
export function faceModuleText(face: Face, actions: ClientFace['actions'], itemType: ItemType, params: ParamPrinter, webhookHelpers: boolean): string {
  const typedDicts = new Set<string>();
  const methods = actions.map(({ action, payload }) => ({ action, args: payloadArguments(action, payload, face, params, typedDicts), shape: shapeOf(action, payload, itemType) }));
  const models = new Set<string>();
  for (const { shape } of methods) {
    models.add(shape.result);
    if (shape.paging && shape.paging.item !== 'Any') models.add(shape.paging.item);
    for (const model of shape.stream ? [shape.stream.union, ...shape.stream.models] : []) models.add(model);
  }
  const cls = faceClass(face);
  const summary = face.summary.trim();
  const base = (prefix: string) => (webhookHelpers ? `(WebhookHelpers)` : prefix);
  const lines = [
    ...docstring(`The \`${face.name}\` face: ${summary}`, ''),
    'from typing import Any, Dict, List, Literal, Mapping, Optional, Tuple, Union, overload',
    '',
    'from .._base_client import (',
    ...['NOT_GIVEN', 'AsyncAPIClient', 'NotGiven', 'RequestOptions', 'SyncAPIClient', 'payload_of', 'to_async_raw_response', 'to_raw_response'].map((n) => `    ${n},`),
    ')',
    'from .._pagination import AsyncPager, SyncPage',
    'from .._streaming import AsyncStream, Stream',
    ...(webhookHelpers ? ['from .._webhooks import WebhookHelpers'] : []),
    'from ..models import (',
    ...[...models].sort().map((n) => `    ${n},`),
    ')',
    ...(typedDicts.size ? ['from ..params import (', ...[...typedDicts].sort().map((n) => `    ${n},`), ')'] : []),
    '',
    '',
    `class ${cls}${base('')}:`,
    ...docstring(summary, '    '),
    '',
    '    def __init__(self, client: SyncAPIClient) -> None:',
    '        self._client = client',
    ...methods.flatMap(({ action, args, shape }) => ['', ...methodLines(action, args, shape, false)]),
    '',
    '',
    `class Async${cls}${base('')}:`,
    ...docstring(summary, '    '),
    '',
    '    def __init__(self, client: AsyncAPIClient) -> None:',
    '        self._client = client',
    ...methods.flatMap(({ action, args, shape }) => ['', ...methodLines(action, args, shape, true)]),
    '',
    '',
    `class ${cls}WithRawResponse:`,
    ...docstring(`The methods of \`${face.name}\`, each returning a \`RawResponse\`: the data with the status, headers and request id.`, '    '),
    '',
    `    def __init__(self, ${faceModule(face)}: ${cls}) -> None:`,
    ...methods.map(({ action }) => `        self.${methodName(action)} = to_raw_response(${faceModule(face)}.${methodName(action)})`),
    '',
    '',
    `class Async${cls}WithRawResponse:`,
    ...docstring(`\`${cls}WithRawResponse\` for \`AsyncClient\`.`, '    '),
    '',
    `    def __init__(self, ${faceModule(face)}: Async${cls}) -> None:`,
    ...methods.map(({ action }) => `        self.${methodName(action)} = to_async_raw_response(${faceModule(face)}.${methodName(action)})`),
  ];
  return `${lines.join('\n')}\n`;
}

/** A method (with its overloads, for a streaming action that can also answer in one piece). */
function methodLines(action: Action, args: Argument[], shape: Shape, async: boolean): string[] {
  const name = methodName(action);
  const defined = async && !shape.paging ? 'async def' : 'def';
  const streamType = `${async ? 'AsyncStream' : 'Stream'}[${shape.result}, ${shape.stream?.union ?? 'Any'}]`;
  const returns = shape.paging
    ? `${async ? 'AsyncPager' : 'SyncPage'}[${shape.result}, ${shape.paging.item}]`
    : shape.stream?.only
      ? streamType
      : shape.result;
  const params = (stream?: string) => [
    '        self,',
    '        *,',
    ...args.map((a) => `        ${a.name}: ${a.required ? a.type : `Union[${a.type}, NotGiven]`}${a.required ? '' : ' = NOT_GIVEN'},`),
    ...(stream ? [`        stream: ${stream},`] : []),
    '        options: Optional[RequestOptions] = None,',
  ];
  const signature = (stream: string | undefined, type: string, overload: boolean) => [
    ...(overload ? ['    @overload'] : []),
    `    ${defined} ${name}(`,
    ...params(stream),
    `    ) -> ${type}:${overload ? ' ...' : ''}`,
  ];
  const payload = args.length
    ? ['        payload = payload_of(', '            {', ...args.map((a) => `                ${pyString(a.wire)}: ${a.name},`), '            }', '        )']
    : ['        payload: Dict[str, Any] = {}'];
  const wait = async ? 'await ' : '';
  const face = pyString(action.face);
  const act = pyString(action.name);
  const call = `${wait}self._client.call(${face}, ${act}, payload, cast_to=${shape.result}, options=options)`;
  const streamCall = shape.stream ? `${wait}self._client._stream(${face}, ${act}, payload, ${shape.result}, options, ${shape.stream.events})` : '';
  const docs = docstring(methodDocs(action, args, shape, async), '        ');
  if (shape.paging) {
    return [...signature(undefined, returns, false), ...docs, ...payload, `        return self._client._list(${face}, ${act}, payload, ${shape.result}, options, ${shape.paging.paging})`];
  }
  if (!shape.stream) return [...signature(undefined, returns, false), ...docs, ...payload, `        return ${call}`];
  if (shape.stream.only) return [...signature('Literal[True] = True', returns, false), ...docs, ...payload, `        return ${streamCall}`];
  return [
    ...signature('Literal[False] = False', shape.result, true),
    '',
    ...signature('Literal[True]', streamType, true),
    '',
    ...signature('bool = False', `Union[${shape.result}, ${streamType}]`, false),
    ...docs,
    ...payload,
    '        if stream:',
    `            return ${streamCall}`,
    `        return ${call}`,
  ];
}

function methodDocs(action: Action, args: Argument[], shape: Shape, async: boolean): string {
  const parts = [action.summary.trim(), `Requires the \`${action.scope}\` scope.`];
  if (action.description) parts.push(withoutLinks(action.description.trim()));
  if (shape.paging) {
    parts.push(async ? 'Awaited, the first page; `async for` iterates every item of every page.' : 'Returns the first page, which iterates every item of every page.');
  }
  if (shape.stream && !shape.stream.only) parts.push('With `stream=True`, a stream of its events; the result is then `stream.result`.');
  if (shape.stream?.only) parts.push('Answers only as a stream: iterate it for its events; the result is then `stream.result`.');
  const described = args.filter((a) => a.description);
  if (described.length) parts.push(['Args:', ...described.map((a) => `    ${a.name}: ${a.description!.trim().replace(/\s*\n\s*/g, ' ')}`)].join('\n'));
  return parts.join('\n\n');
}
