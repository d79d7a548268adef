/**
 * The changelog of one API version, derived from the face files by the classifier `dispatch diff` uses:
 * the catalogue as served at the version before against the catalogue as served at this one, each change
 * breaking (a call or a client that worked before may fail) or additive, and written as the sentences of
 * `docs/versions.md`. No git: both views come from the one catalogue.
 */
import { describeChange, type Change, type NameStyle } from '../diff/change.js';
import { classifyViews } from '../diff/classify.js';
import { catalogView, emptyView, type CatalogView } from '../diff/views.js';
import { memo } from '../memo/memo.js';
import type { Catalog, Face } from '../spec/model.js';
import { actionLink, code, eventLink, facePath } from './docs-tables.js';

export interface VersionChanges {
  breaking: Change[];
  additive: Change[];
}

/** What `date` changed against `previous`, the version before it (against nothing for the first version). */
export function versionChanges(catalog: Catalog, date: string, previous: string | undefined): VersionChanges {
  // Face by face, each memoized: a face's changes depend on it alone (tiers are not versioned), and the
  // classifier orders changes by face first, so the faces' lists in catalogue order are the whole list in order.
  const changes = catalog.faces.flatMap((face) => memo('changelog-face', { face, date, previous: previous ?? null }, () => faceChanges(catalog, face, date, previous)));
  return { breaking: changes.filter((c) => c.breaking), additive: changes.filter((c) => !c.breaking) };
}

/** The changelog of one version: breaking changes, then additive ones, each a sentence with its links. */
export function changes(catalog: Catalog, date: string, previous: string | undefined) {
  const { breaking, additive } = versionChanges(catalog, date, previous);
  const sentence = (change: Change) => {
    const text = describeChange(change, docNames);
    return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
  };
  return {
    breaking: breaking.map(sentence),
    additive: additive.map(sentence),
    both: breaking.length > 0 && additive.length > 0,
    none: breaking.length + additive.length === 0,
  };
}

/** Faces, actions and event types as links to their pages. */
const docNames: NameStyle = (kind, id) => (kind === 'action' ? actionLink(id) : kind === 'event' ? eventLink(id) : `[${code(id)}](${facePath(id)})`);

/**
 * The face's changes. Its views leave out the platform's tiers, which are not versioned (both sides would hold
 * the same), so that a view depends on the face alone.
 */
function faceChanges(catalog: Catalog, face: Face, date: string, previous: string | undefined) {
  const alone: Catalog = { platform: { ...catalog.platform, tiers: [] }, faces: [face] };
  return classifyViews(previous === undefined ? emptyView(alone) : faceView(alone, face, previous), faceView(alone, face, date));
}

/**
 * The face alone as served at `date`. Each version's view is both the newer side of its own changelog and
 * the older side of the next one's: kept per face object, it is built once.
 */
const views = new WeakMap<Face, Map<string, CatalogView>>();

function faceView(alone: Catalog, face: Face, date: string): CatalogView {
  let byDate = views.get(face);
  if (!byDate) views.set(face, (byDate = new Map()));
  let view = byDate.get(date);
  if (!view) byDate.set(date, (view = catalogView(alone, date)));
  return view;
}
