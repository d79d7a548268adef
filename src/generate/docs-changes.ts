/**
 * The changelog of one API version, derived from the face files rather than written by hand: actions
 * whose `since`/`until` range starts or ends there, and payload properties whose own range does.
 */
import { presentIn, walkSchema } from '../spec/json-schema.js';
import type { Action, Catalog } from '../spec/model.js';

type Ranged = { since?: unknown; until?: unknown };

export interface FieldChange {
  action: Action;
  /** Dot path of the property, `[]` for array items, e.g. `sampling.topP`. */
  path: string;
}

export interface VersionChanges {
  addedActions: Action[];
  removedActions: Action[];
  addedFields: FieldChange[];
  removedFields: FieldChange[];
}

/**
 * What `date` changed against `previous`, the version before it (none for the first version). Field
 * changes are listed only for actions served by both, since a new action's fields are new with it.
 * Actions keep catalogue order (face, then action); fields are sorted by path within an action.
 */
export function versionChanges(catalog: Catalog, date: string, previous: string | undefined): VersionChanges {
  const was = (item: Ranged) => previous !== undefined && presentIn(item, previous);
  const actions = catalog.faces.flatMap((f) => f.actions);
  const changes: VersionChanges = {
    addedActions: actions.filter((a) => presentIn(a, date) && !was(a)),
    removedActions: actions.filter((a) => !presentIn(a, date) && was(a)),
    addedFields: [],
    removedFields: [],
  };
  for (const action of actions.filter((a) => presentIn(a, date) && was(a))) {
    for (const field of versionedFields(action.payload)) {
      const now = field.chain.every((node) => presentIn(node, date));
      const before = field.chain.every((node) => presentIn(node, previous!));
      if (now && !before) changes.addedFields.push({ action, path: field.path });
      if (!now && before) changes.removedFields.push({ action, path: field.path });
    }
  }
  return changes;
}

/**
 * Properties carrying `since` or `until`, each with the annotated properties that enclose it (itself
 * included): a field exists in a version only if all of them do.
 */
function versionedFields(payload: unknown): { path: string; chain: Ranged[] }[] {
  const annotated: { key: string; path: string; node: Ranged }[] = [];
  walkSchema(payload, (node, path) => {
    if (path.at(-2) !== 'properties' || (node.since === undefined && node.until === undefined)) return;
    annotated.push({ key: path.join('/'), path: fieldPath(path), node });
  });
  return annotated
    .map(({ key, path }) => ({
      path,
      chain: annotated.filter((other) => key === other.key || key.startsWith(`${other.key}/`)).map((other) => other.node),
    }))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** `['properties', 'sampling', 'properties', 'topP']` → `sampling.topP`; array items become `[]`. */
function fieldPath(path: (string | number)[]): string {
  let out = '';
  for (let i = 0; i < path.length; i++) {
    if (path[i] === 'properties' && i + 1 < path.length) out += `${out ? '.' : ''}${path[++i]}`;
    else if (path[i] === 'items') out += '[]';
  }
  return out;
}
