/**
 * The Python models of stream events (docs/contract.md § Streaming): one pydantic model per event, with a `Literal`
 * `event` and typed `data`, for the events every streaming action may send (`start`, `delta`, `progress`) and each
 * action's own; and per streaming action the union of the events it sends, which its `Stream` yields, so a type
 * checker narrows an event by comparing its `event`.
 */
import type { Action, JsonSchema } from '../spec/model.js';
import { withoutDefs } from './client-model.js';
import { STREAM_DATA } from './openapi-platform.js';
import { pyString } from './python-names.js';
import { pascal, type ModelPrinter } from './python-types.js';

/** What each common event tells, as the TypeScript client's `StreamEvent` says it. */
const COMMON_SUMMARIES: Record<keyof typeof STREAM_DATA, string> = {
  start: 'The stream opened; sent first.',
  delta: "A piece of generated text: the pieces concatenate to the result's `text`.",
  progress: 'How far a long task got.',
};

const COMMON = Object.keys(COMMON_SUMMARIES) as (keyof typeof STREAM_DATA)[];

/** The union of the common events, as the TypeScript client names it. */
export const COMMON_UNION = 'StreamEvent';

/** The union of the events an action's stream yields: `AiGenerateStreamEvent`. */
export const streamUnion = (action: Action) => `${action.typeName}StreamEvent`;

/** Each event an action's stream shows, by its wire name, with its model's name: the common ones, then its own. */
export function streamEventModels(action: Action): [event: string, model: string][] {
  return [...COMMON.map((name): [string, string] => [name, `${pascal(name)}Event`]), ...action.streamEvents.map((e): [string, string] => [e.name, `${action.typeName}${pascal(e.name)}Event`])];
}

/** The schema of an event as the stream reads it: `{"event": <name>, "data": <data>}`. */
const eventSchema = (name: string, data: JsonSchema): JsonSchema => ({
  type: 'object',
  required: ['event', 'data'],
  properties: { event: { const: name }, data },
});

/** Prints the models of the common events and their union. */
export function printCommonEvents(printer: ModelPrinter): void {
  for (const name of COMMON) printer.declare(`${pascal(name)}Event`, eventSchema(name, STREAM_DATA[name]), [`The \`${name}\` event of a stream: ${COMMON_SUMMARIES[name]}`]);
  printer.blocks.push(unionText(COMMON_UNION, COMMON.map((name) => `${pascal(name)}Event`), 'The events every streaming action may send before its result.'));
}

/** Prints the models of a streaming action's own events and the union of all it sends. */
export function printActionEvents(printer: ModelPrinter, action: Action): void {
  const models = new Map(streamEventModels(action));
  for (const event of action.streamEvents) {
    printer.declare(models.get(event.name)!, eventSchema(event.name, withoutDefs(event.dataSchema)), [`The \`${event.name}\` event of a \`${action.id}\` stream: ${event.summary.trim()}`]);
  }
  printer.blocks.push(unionText(streamUnion(action), [...models.values()], `The events a \`${action.id}\` stream yields.`));
}

/** The mapping a resource method passes its stream: each event's wire name to its model. */
export function eventMapping(action: Action): string {
  return `{${streamEventModels(action).map(([name, model]) => `${pyString(name)}: ${model}`).join(', ')}}`;
}

const unionText = (name: string, members: string[], comment: string) => `#: ${comment}\n${name} = Union[${members.join(', ')}]`;
