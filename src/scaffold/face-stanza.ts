/**
 * The face-file side of `dispatch new`: a starter action stanza (payload and result schemas, scope, one
 * example), a whole new face file around it, and the same stanza added to an existing face file. The
 * starter is deliberately small and valid, so the generator accepts it as it stands and the author edits
 * from a green build.
 */
import { isMap, isScalar, parseDocument, Document } from 'yaml';
import { isDeepStrictEqual } from 'node:util';
import { ScaffoldError } from './names.js';

export interface ActionExample {
  payload: Record<string, unknown>;
  result: Record<string, unknown>;
}

export interface ActionStanza {
  summary: string;
  scope: string;
  effect: 'read' | 'write' | 'destroy';
  idempotent?: boolean;
  external: boolean;
  /** The codes its handler answers: the starter handler's 501 until the author lists the real ones. */
  errors: string[];
  payload: Record<string, unknown>;
  result: Record<string, unknown>;
  examples: ActionExample[];
}

/** One field in, the same field out: enough for a schema, a type, a validator and an example. */
export function starterAction(face: string, action: string, scope: string, summary?: string): ActionStanza {
  const field = (what: string, extra: Record<string, unknown> = {}) => ({
    type: 'string',
    ...extra,
    description: `An example field of the ${what}; replace it with the action's own.`,
  });
  return {
    summary: summary ?? `TODO: say in one line what ${face}.${action} does.`,
    scope,
    ...starterEffects(action),
    errors: ['not_implemented'],
    payload: { type: 'object', required: ['id'], additionalProperties: false, properties: { id: field('payload', { minLength: 1 }) } },
    result: { type: 'object', required: ['id'], additionalProperties: false, properties: { id: field('result') } },
    examples: [{ payload: { id: 'example' }, result: { id: 'example' } }],
  };
}

/** Verbs an action name may start with (`get`, `getUser`) that say what a call does. */
const READS = ['get', 'list', 'read', 'search', 'find', 'query', 'count', 'describe', 'lookup', 'check', 'preview'];
const DESTROYS = ['delete', 'remove', 'revoke', 'destroy', 'purge', 'cancel', 'void'];

/**
 * What a call does, as the action's name suggests: a read for `get…` or `list…`, a destroy for `delete…` or
 * `revoke…`, otherwise a write that a repeat does again; none reaches outside. The author corrects it (the
 * face language requires it said, docs/writing-a-face.md § Writing a face); a starter must build as written.
 */
export function starterEffects(action: string): Pick<ActionStanza, 'effect' | 'idempotent' | 'external'> {
  const verb = (verbs: string[]) => verbs.some((v) => action === v || (action.startsWith(v) && /[A-Z0-9]/.test(action.charAt(v.length))));
  if (verb(READS)) return { effect: 'read', external: false };
  if (verb(DESTROYS)) return { effect: 'destroy', idempotent: true, external: false };
  return { effect: 'write', idempotent: false, external: false };
}

export interface NewFace {
  face: string;
  summary: string;
  since: string;
  action: string;
  stanza: ActionStanza;
  /** The face meta-schema, relative to the faces directory, for the editor's language server. */
  schemaPath: string;
}

export function newFaceFile(input: NewFace): string {
  const doc = new Document({ face: input.face, summary: input.summary, since: input.since, actions: { [input.action]: input.stanza } });
  // Written as text: a document comment would be printed with a blank line after it, which no face file has.
  return `# yaml-language-server: $schema=${input.schemaPath}\n${print(doc)}`;
}

/**
 * The face file with one more action after the last. The file is located with the Document API but changed
 * by inserting text at the end of its `actions` mapping: printing the whole document again would re-space
 * every flow collection of the file (`[a, b]` and `{ a: b }` cannot both keep their style), and every other
 * byte, comments included, is the author's.
 */
export function addAction(text: string, file: string, action: string, stanza: ActionStanza): string {
  const doc = parseDocument(text);
  if (doc.errors.length > 0) throw new ScaffoldError(`${file} is not valid YAML (${doc.errors[0]!.message.split('\n')[0]}).`);
  const actions = doc.get('actions', true);
  if (!isMap(actions) || actions.flow || !actions.range) throw new ScaffoldError(`${file} has no block mapping "actions" to add to.`);
  if (actions.items.some((pair) => isScalar(pair.key) && pair.key.value === action)) {
    throw new ScaffoldError(`${file} already declares action "${action}".`);
  }
  const firstKey = actions.items[0]?.key;
  const keyOffset = isScalar(firstKey) && firstKey.range ? firstKey.range[0] : actions.range[0];
  const indent = keyOffset - (text.lastIndexOf('\n', keyOffset - 1) + 1);
  const end = actions.range[1];
  const stanzaText = print(new Document({ [action]: stanza }))
    .split('\n')
    .map((line) => (line ? ' '.repeat(indent) + line : line))
    .join('\n');
  const before = text.slice(0, end);
  const updated = `${before}${before.endsWith('\n') ? '' : '\n'}${stanzaText}${text.slice(end)}`;
  // The insertion is by offset, so make sure it meant what it should: the old file plus this action, nothing else.
  const expected = doc.toJS() as { actions: Record<string, unknown> };
  expected.actions[action] = stanza;
  if (!isDeepStrictEqual(parseDocument(updated).toJS(), expected)) {
    throw new ScaffoldError(`could not add action "${action}" to ${file} without changing the rest of it; add it by hand.`);
  }
  return updated;
}

/** The face files' own style: block mappings, short lists in flow (`required: [id]`), no folded lines. */
function print(doc: Document): string {
  const flowLists = (node: unknown): void => {
    if (!node || typeof node !== 'object') return;
    const n = node as { items?: unknown[]; flow?: boolean; value?: unknown };
    if (Array.isArray(n.items)) {
      if (n.items.every((item) => isScalar(item))) n.flow = true;
      for (const item of n.items) flowLists(item);
    }
    if ('value' in n) flowLists(n.value);
  };
  flowLists(doc.contents);
  return doc.toString({ lineWidth: 0, flowCollectionPadding: false });
}
