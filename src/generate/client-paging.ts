/**
 * How a list action of the client pages: the client's methods page it (client-methods.ts) and its README
 * shows it walked page by page (client-readme.ts).
 */
import type { Action, JsonSchema } from '../spec/model.js';

/** The runtime's `Paging` of a list action: after the last item's field, or by the result's cursor. */
export type Paging = { after: string } | { cursor: true };

/**
 * How a list action pages, or undefined for any other action: its result is `{items, hasMore}`, and its
 * payload takes `startingAfter` (the last item's `id`, or the field the face file names as its `pageBy`) or,
 * paging by cursor, `cursor` (the result's `nextCursor`). A streaming action is never taken for one.
 */
export function pagingOf(action: Action, payload: JsonSchema): Paging | undefined {
  const properties = (schema: JsonSchema) => (schema.properties ?? {}) as Record<string, JsonSchema>;
  const result = properties(action.resultSchema);
  if (action.stream || result.items?.type !== 'array' || result.hasMore?.type !== 'boolean') return undefined;
  const taken = properties(payload);
  if (taken.startingAfter !== undefined) return { after: action.pageBy ?? 'id' };
  if (taken.cursor !== undefined && result.nextCursor?.type === 'string') return { cursor: true };
  return undefined;
}
