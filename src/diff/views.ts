/**
 * What a client pinned to one API version sees of a catalogue: the faces, actions and event types that exist
 * at that date, each action's payload and result schemas as served then, its scope, the events it emits, how
 * it streams (and its stream's events) and its rate policies. The classifier compares two such views; nothing here knows about git.
 */
import { materialize, presentIn } from '../spec/json-schema.js';
import type { Catalog, JsonSchema, RatePolicy, Tier } from '../spec/model.js';

export interface CatalogView {
  version: string;
  /** By name. */
  faces: Map<string, FaceView>;
  /** Platform tiers; they apply to every version alike. */
  tiers: Map<string, Tier>;
}

export interface FaceView {
  name: string;
  /** File name, e.g. `ai.yaml`. */
  file: string;
  /** The face's own policies by tier: one bucket per key shared by all of the face's actions. */
  rate: Record<string, RatePolicy>;
  /** Event types by type, with their data schema at this version. */
  events: Map<string, JsonSchema>;
  /** By action name. */
  actions: Map<string, ActionView>;
}

export interface ActionView {
  name: string;
  id: string;
  scope: string;
  /** Self-contained schemas (named schemas under `$defs`) as served at this version. */
  payload: JsonSchema;
  result: JsonSchema;
  emits: string[];
  /** Whether it answers as a stream when asked, and whether only so. */
  stream: boolean;
  streamOnly: boolean;
  /** The events its stream sends before the result, by name, with their data schemas as served at this version. */
  streamEvents: Map<string, JsonSchema>;
  /** The action's own policies by tier, checked besides the face's (src/server/stages/rate-limit.ts). */
  rate: Record<string, RatePolicy>;
  /** The written `since`/`until`, so a change can point at the annotation that makes it. */
  since: string;
  until?: string;
}

/** The catalogue as served at `version`. */
export function catalogView(catalog: Catalog, version: string): CatalogView {
  const faces = new Map<string, FaceView>();
  for (const face of catalog.faces) {
    if (face.since > version) continue;
    const named = Object.fromEntries(face.schemas.map((s) => [s.name, s.schema]));
    // Schemas are materialized here rather than taken from `Action.variants`: retired versions have no
    // variant, yet the changelog still describes what they changed.
    const actions = new Map<string, ActionView>();
    for (const action of face.actions) {
      if (!presentIn(action, version)) continue;
      actions.set(action.name, {
        name: action.name,
        id: action.id,
        scope: action.scope,
        payload: materialize(action.payload, version, named),
        result: materialize(action.result, version, named),
        emits: action.emits,
        stream: action.stream,
        streamOnly: action.streamOnly,
        streamEvents: new Map(action.streamEvents.map((e) => [e.name, materialize(e.data, version, named)])),
        rate: action.rate,
        since: action.since,
        until: action.until,
      });
    }
    // Subscribers see an event type once an action that sends it is served; one that no action sends (yet)
    // is part of the face as written.
    const served = new Set([...actions.values()].map((a) => a.id));
    const visible = face.events.filter((e) => e.emittedBy.length === 0 || e.emittedBy.some((id) => served.has(id)));
    const events = new Map(visible.map((e) => [e.type, materialize(e.data, version, named)]));
    faces.set(face.name, { name: face.name, file: face.file, rate: face.rate, events, actions });
  }
  return { version, faces, tiers: new Map(catalog.platform.tiers.map((t) => [t.name, t])) };
}

/** Nothing served yet: what the first version is compared against. */
export function emptyView(catalog: Catalog): CatalogView {
  return { version: '', faces: new Map(), tiers: new Map(catalog.platform.tiers.map((t) => [t.name, t])) };
}
