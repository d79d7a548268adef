/**
 * A face's function of methods in the client's `index.ts`, laid out: one member per action, with its JSDoc,
 * an arrow function that calls the runtime (`client.call`, `client.list` or `client.stream`), and for a
 * streaming action its `.stream()` beside the call (`Object.assign(call, { stream })`, or `{ stream }` alone
 * for an action that answers only as a stream).
 */
import type { Action, Face, JsonSchema } from '../spec/model.js';
import { pagingOf } from './client-paging.js';
import { methodsFunction, propertyName, type ClientFace } from './client-model.js';
import { fits, jsDoc, quoted } from './layout.js';
import { flatValue, valueLines } from './print-values.js';

/** Where a face's methods stand in its object. */
const MEMBER_INDENT = '    ';

/** The face's function that makes its object of methods, ended by a line break. */
export function methodsFunctionText(face: Face, actions: ClientFace['actions']): string {
  const lines = [`function ${methodsFunction(face)}(client: BaseClient) {`, '  return {', ...actions.flatMap(({ action, payload }) => methodLines(action, payload)), '  };', '}'];
  return `${lines.join('\n')}\n`;
}

/**
 * A method in its face's object: its JSDoc, then its arrow function (see arrowLines); a streaming action's
 * `Object.assign(call, { stream })`, or `{ stream }` alone, one part a line.
 */
function methodLines(action: Action, payload: JsonSchema): string[] {
  const { docs, param, returns, body, stream } = methodParts(action, payload);
  const [at, inner, innermost] = [MEMBER_INDENT, `${MEMBER_INDENT}  `, `${MEMBER_INDENT}    `];
  const key = `${propertyName(action.name)}: `;
  const comment = commentLines(docs, at);
  if (!stream) return [...comment, ...arrowLines(at, key, param, returns, body)];
  if (stream.only) return [...comment, `${at}${key}{`, ...commentLines(stream.docs, inner), ...arrowLines(inner, 'stream: ', param, stream.returns, stream.body), `${at}},`];
  return [
    ...comment,
    `${at}${key}Object.assign(`,
    ...arrowLines(inner, '', param, returns, body),
    `${inner}{`,
    ...commentLines(stream.docs, innermost),
    ...arrowLines(innermost, 'stream: ', param, stream.returns, stream.body),
    `${inner}},`,
    `${at}),`,
  ];
}

/**
 * `key(param, options?: CallOptions): returns => body,` at `at`: on its line where it fits, else broken after
 * the arrow, else its parameters too one a line; the body, on a line of its own, breaks as callLines says.
 */
function arrowLines(at: string, key: string, param: string, returns: string, body: Call): string[] {
  const inner = `${at}  `;
  const head = `${at}${key}(${param}, options?: CallOptions): ${returns} =>`;
  const line = `${head} ${flatCall(body)},`;
  if (fits(line)) return [line];
  const bodyLines = callLines(body, inner, ',');
  if (fits(head)) return [head, ...bodyLines];
  return [`${at}${key}(`, `${inner}${param},`, `${inner}options?: CallOptions,`, `${at}): ${returns} =>`, ...bodyLines];
}

/** A call of the runtime: its callee, its arguments as source, and a last argument that is a value (events, paging). */
interface Call {
  callee: string;
  args: string[];
  last?: unknown;
}

const flatCall = ({ callee, args, last }: Call) => `${callee}(${[...args, ...(last === undefined ? [] : [flatValue(last)])].join(', ')})`;

/**
 * The call at `at`, then `end`: on its line if it fits; else its last argument broken where it stands, if the
 * line up to it fits; else one argument a line.
 */
function callLines(call: Call, at: string, end: string): string[] {
  const line = `${at}${flatCall(call)}${end}`;
  if (fits(line)) return [line];
  if (call.last !== undefined) {
    const hugged = valueLines(call.last, `${at}${call.callee}(${call.args.map((arg) => `${arg}, `).join('')}`, at, `)${end}`);
    if (hugged.length > 1 && fits(hugged[0]!)) return hugged;
  }
  const inner = `${at}  `;
  return [
    `${at}${call.callee}(`,
    ...call.args.map((arg) => `${inner}${arg},`),
    ...(call.last === undefined ? [] : valueLines(call.last, inner, inner, ',')),
    `${at})${end}`,
  ];
}

/** A JSDoc comment of paragraphs at `at`. */
const commentLines = (paragraphs: string[], at: string) => jsDoc([paragraphs.join('\n\n')], at);

/** What an action's method is made of. */
function methodParts(action: Action, payload: JsonSchema) {
  const docs = [action.summary.trim(), `Requires the \`${action.scope}\` scope.`];
  if (action.description) docs.push(withoutLinks(action.description.trim()));
  // An action whose payload needs nothing can be called without one, e.g. `client.keys.list()`. A payload
  // made of other schemas (allOf, a $ref) may require fields of theirs, so it is never taken as empty.
  const composed = ['allOf', 'anyOf', 'oneOf', '$ref'].some((keyword) => keyword in payload);
  const optional = payload.type === 'object' && !composed && !(Array.isArray(payload.required) && payload.required.length > 0);
  const param = `payload: ${action.typeName}Payload${optional ? ' = {}' : ''}`;
  const result = `${action.typeName}Result`;
  const args = [quoted(action.face), quoted(action.name), 'payload', 'options'];
  const paging = pagingOf(action, payload);
  if (paging) docs.push('Resolves to the first page; the page, and the returned promise, iterate every item of every page (`for await`).');
  const returns = `${paging ? 'PagePromise' : 'ApiPromise'}<${result}>`;
  const body: Call = paging ? { callee: `client.list<${result}>`, args, last: paging } : { callee: `client.call<${result}>`, args };
  return { docs, param, returns, body, stream: action.stream ? streamParts(action, result, args) : undefined };
}

/** A streaming action's `.stream()`: its JSDoc, its type and its call; `only` when the action answers only as a stream. */
function streamParts(action: Action, result: string, args: string[]) {
  const own = action.streamEvents.map((e) => e.name);
  const named = ['start', 'delta', 'progress', ...own].map((n) => `\`${n}\``);
  const docs = [
    `Streams \`${action.id}\`: iterate the returned \`DispatchStream\` for its ${named.slice(0, -1).join(', ')} and ${named.at(-1)}\n` +
      'events; await it, or its `finalResult()`, for the result.',
  ];
  const types = own.length ? `${result}, ${action.typeName}StreamEvent` : result;
  const body: Call = { callee: `client.stream<${types}>`, args, ...(own.length ? { last: own } : {}) };
  return { docs, returns: `DispatchStream<${types}>`, body, only: Boolean(action.streamOnly) };
}

/** Markdown links become their text: the docs site's relative links mean nothing in an editor. */
export function withoutLinks(text: string): string {
  return text.replace(/\[([^\]]+)\]\([^)]*\)/g, '$1');
}
