/**
 * Classifies every difference between two views of the catalogue (what clients of one version saw, and
 * what they see now, or what the version before saw): faces, actions and event types added or removed,
 * payload, result, event-data and stream-event schemas, scopes, emitted events, streaming, rate limits and
 * the platform's tiers.
 * Pure: no git, no files.
 */
import { PLATFORM_FILE } from '../spec/load.js';
import type { JsonSchema, RatePolicy } from '../spec/model.js';
import type { JsonPath } from '../spec/source.js';
import { directionOf, isBreaking, type Change, type ChangeClass, type SchemaPart, type Where } from './change.js';
import { compareSchemas } from './schema-changes.js';
import type { ActionView, CatalogView, FaceView } from './views.js';

export function classifyViews(before: CatalogView, after: CatalogView): Change[] {
  const out: Change[] = [];
  const add = (change: Omit<Change, 'breaking'>) => out.push({ ...change, breaking: isBreaking(change.class) });
  compareTiers(before, after, add);
  for (const name of union(before.faces.keys(), after.faces.keys())) {
    const b = before.faces.get(name);
    const a = after.faces.get(name);
    if (b && !a) {
      // Its actions and events go with it: one change says it all.
      const detail = `with ${b.actions.size} action${b.actions.size === 1 ? '' : 's'}`;
      add({ class: 'face-removed', face: name, detail, at: { file: b.file, path: ['since'] } });
    } else if (!b && a) {
      add({ class: 'face-added', face: name, at: { file: a.file, path: ['face'] } });
      for (const type of a.events.keys()) add({ class: 'event-added', face: name, event: type, at: { file: a.file, path: ['events', type], key: true } });
      for (const action of a.actions.values()) add({ class: 'action-added', face: name, action: action.id, at: actionAt(a, action) });
    } else if (b && a) {
      compareFace(b, a, add);
    }
  }
  return out.sort(byPlace);
}

type Add = (change: Omit<Change, 'breaking'>) => void;

function compareFace(b: FaceView, a: FaceView, add: Add): void {
  const face = a.name;
  const file = a.file;
  compareRates(b.rate, a.rate, (tier) => ({ file, path: ['rate', tier] }), { face }, add);
  for (const type of union(b.events.keys(), a.events.keys())) {
    const bData = b.events.get(type);
    const aData = a.events.get(type);
    if (bData && !aData) add({ class: 'event-removed', face, event: type, at: { file, path: ['events'], key: true } });
    else if (!bData && aData) add({ class: 'event-added', face, event: type, at: { file, path: ['events', type], key: true } });
    else schemaChanges('event', bData!, aData!, file, ['events', type, 'data'], { face, event: type }, add);
  }
  for (const name of union(b.actions.keys(), a.actions.keys())) {
    const bAction = b.actions.get(name);
    const aAction = a.actions.get(name);
    if (bAction && !aAction) {
      const prefer = [{ path: ['actions', name, 'until'] }, { path: ['actions', name, 'since'] }, { path: ['actions', name], key: true }];
      add({ class: 'action-removed', face, action: bAction.id, at: { file, path: ['actions'], key: true, prefer } });
    } else if (!bAction && aAction) {
      add({ class: 'action-added', face, action: aAction.id, at: actionAt(a, aAction) });
    } else {
      compareAction(a, bAction!, aAction!, add);
    }
  }
}

function compareAction(face: FaceView, b: ActionView, a: ActionView, add: Add): void {
  const file = face.file;
  const at = (...path: JsonPath): JsonPath => ['actions', a.name, ...path];
  const about = { face: face.name, action: a.id };
  if (b.scope !== a.scope) add({ class: 'scope-changed', ...about, detail: `\`${b.scope}\` → \`${a.scope}\``, at: { file, path: at('scope') } });
  for (const event of b.emits.filter((e) => !a.emits.includes(e))) {
    add({ class: 'emits-removed', ...about, event, at: { file, path: at('emits'), prefer: [{ path: at('emits') }, { path: at(), key: true }] } });
  }
  for (const event of a.emits.filter((e) => !b.emits.includes(e))) {
    // The view's `emits` is sorted; the element is found in the list as the file writes it.
    add({ class: 'emits-added', ...about, event, at: { file, path: [...at('emits'), { element: event }] } });
  }
  compareRates(b.rate, a.rate, (tier) => ({ file, path: at('rate', tier) }), about, add);
  compareStreams(file, a.name, b, a, about, add);
  schemaChanges('payload', b.payload, a.payload, file, at('payload'), about, add);
  schemaChanges('result', b.result, a.result, file, at('result'), about, add);
}

/**
 * How the action answers: a stream it no longer offers, or one it now insists on, breaks the calls written
 * for the other; the events of its stream are compared as what the client receives.
 */
function compareStreams(file: string, name: string, b: ActionView, a: ActionView, about: { face: string; action: string }, add: Add): void {
  const at = (...path: JsonPath): JsonPath => ['actions', name, ...path];
  const action: Where = { file, path: at(), key: true };
  if (!b.stream && a.stream) add({ class: 'streaming-added', ...about, at: { file, path: at('stream') } });
  if (b.stream && !a.stream) add({ class: 'streaming-removed', ...about, at: { ...action, prefer: [{ path: at('stream') }] } });
  if (!b.streamOnly && a.streamOnly) add({ class: 'stream-only-added', ...about, at: { file, path: at('streamOnly') } });
  if (b.streamOnly && !a.streamOnly && a.stream) add({ class: 'stream-only-removed', ...about, at: { ...action, prefer: [{ path: at('streamOnly') }, { path: at('stream') }] } });
  // A stream the client could not ask for before (or cannot now) has no events to compare.
  if (!a.stream || !b.stream) return;
  for (const event of union(b.streamEvents.keys(), a.streamEvents.keys())) {
    const bData = b.streamEvents.get(event);
    const aData = a.streamEvents.get(event);
    const where = at('streamEvents', event);
    if (bData && !aData) add({ class: 'stream-event-removed', ...about, streamEvent: event, at: { ...action, prefer: [{ path: at('streamEvents'), key: true }] } });
    else if (!bData && aData) add({ class: 'stream-event-added', ...about, streamEvent: event, at: { file, path: where, key: true } });
    else schemaChanges('stream', bData!, aData!, file, [...where, 'data'], { ...about, streamEvent: event }, add);
  }
}

function schemaChanges(
  part: SchemaPart,
  before: JsonSchema,
  after: JsonSchema,
  file: string,
  root: JsonPath,
  about: { face: string; action?: string; event?: string; streamEvent?: string },
  add: Add,
): void {
  for (const c of compareSchemas(before, after, root, directionOf(part))) {
    const cls = `${part}-${c.aspect}` as ChangeClass;
    const at: Where = { file, path: c.path, ...(c.key ? { key: true } : {}), ...(c.prefer ? { prefer: c.prefer } : {}) };
    add({ class: cls, ...about, field: c.field, ...(c.detail ? { detail: c.detail } : {}), at });
  }
}

/**
 * Rate policies compared tier by tier. Face, action and tier policies are separate buckets that all apply
 * to a call, so each is compared with its own kind. A new policy where there was none is lower; one that
 * is gone is higher; otherwise `isLower` compares the two as allowances.
 */
function compareRates(
  before: Record<string, RatePolicy>,
  after: Record<string, RatePolicy>,
  where: (tier: string) => Where,
  about: { face: string; action?: string },
  add: Add,
  label = (tier: string) => `\`${tier}\``,
): void {
  for (const tier of union(Object.keys(before), Object.keys(after))) {
    const b = before[tier];
    const a = after[tier];
    if (b && a && b.limit === a.limit && b.windowSeconds === a.windowSeconds) continue;
    const lowered = !b || (a !== undefined && isLower(b, a));
    const at = where(tier);
    add({
      class: lowered ? 'rate-lowered' : 'rate-raised',
      ...about,
      detail: `${label(tier)}: ${policyText(b)} → ${policyText(a)}`,
      at: a ? at : { ...at, path: at.path.slice(0, -1), key: true },
    });
  }
}

/**
 * Whether `after` lets a client make fewer calls than `before`. Over a longer window the old policy
 * allows its limit once per old window that the new window spans (60 per minute is 7200 per hour), so
 * the new limit must reach that. Over a window no longer than the old one, a client that kept to the old
 * limit keeps to the new one as long as the limit is not lower.
 */
function isLower(before: RatePolicy, after: RatePolicy): boolean {
  if (after.windowSeconds > before.windowSeconds) {
    return after.limit < Math.ceil(after.windowSeconds / before.windowSeconds) * before.limit;
  }
  return after.limit < before.limit;
}

/**
 * The platform's tiers and their own per-key and per-entity policies, which apply to every call of every
 * version. Keys on a removed tier fall back to the lowest one (src/server/stages/rate-limit.ts): their
 * clients lose their tier's limits. An added tier changes nothing for existing keys.
 */
function compareTiers(before: CatalogView, after: CatalogView, add: Add): void {
  for (const name of union(before.tiers.keys(), after.tiers.keys())) {
    const b = before.tiers.get(name);
    const a = after.tiers.get(name);
    if (b && !a) {
      add({ class: 'tier-removed', face: '', detail: name, at: { file: PLATFORM_FILE, path: ['tiers'], key: true } });
      continue;
    }
    if (!b && a) {
      add({ class: 'tier-added', face: '', detail: name, at: { file: PLATFORM_FILE, path: ['tiers', name], key: true } });
      continue;
    }
    for (const bucket of ['token', 'entity'] as const) {
      const label = (tier: string) => `\`${tier}\` per ${bucket === 'token' ? 'key' : 'entity'}`;
      compareRates({ [name]: b![bucket] }, { [name]: a![bucket] }, (tier) => ({ file: PLATFORM_FILE, path: ['tiers', tier, bucket] }), { face: '' }, add, label);
    }
  }
}

const WINDOWS: Record<number, string> = { 1: 'second', 60: 'minute', 3600: 'hour', 86400: 'day' };

function policyText(policy: RatePolicy | undefined): string {
  if (!policy) return 'no limit';
  return `${policy.limit} per ${WINDOWS[policy.windowSeconds] ?? `${policy.windowSeconds} s`}`;
}

function actionAt(face: FaceView, action: ActionView): Where {
  return { file: face.file, path: ['actions', action.name], key: true };
}

function union(a: Iterable<string>, b: Iterable<string>): string[] {
  return [...new Set([...a, ...b])].sort();
}

/** Platform changes first, then by face, then what they are about, class and field: a stable order. */
function byPlace(a: Change, b: Change): number {
  const key = (c: Change) => [c.face, c.action ?? '', c.event ?? '', c.streamEvent ?? '', c.class, c.field ?? '', c.detail ?? ''];
  const ka = key(a);
  const kb = key(b);
  for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return ka[i]! < kb[i]! ? -1 : 1;
  return 0;
}
