/**
 * Rules `unknown-event` and `unused-event`, over the whole catalogue: an action may emit an event declared by
 * any face (billing's `payInvoice` charges through payments and sends `payments.intent.succeeded`), so an
 * emitted type must be declared by some face, and a declared one emitted by some action. Also links each
 * event to every action that emits it, wherever that action is declared (docs and OpenAPI list them).
 */
import { diagnostic, type Diagnostic } from '../diagnostics.js';
import type { Face } from '../model.js';
import type { RawFace } from '../resolve.js';
import type { SourceFile } from '../source.js';
import { suggestion } from '../suggest.js';

/** `unread`: whether a name is written in a part of the catalogue left unread, which may declare or emit it. */
export function linkEvents(faces: readonly { face: Face; source: SourceFile }[], unread: (name: string) => boolean = () => false): Diagnostic[] {
  const out: Diagnostic[] = [];
  const declared = new Map(faces.flatMap(({ face }) => face.events.map((event) => [event.type, event] as const)));
  for (const event of declared.values()) event.emittedBy = [];
  for (const { face, source } of faces) {
    const raw = source.value as RawFace;
    for (const action of face.actions) {
      for (const type of action.emits) {
        const event = declared.get(type);
        if (event) event.emittedBy.push(action.id);
        else if (!unread(type)) {
          const at = source.at(['actions', action.name, 'emits', raw.actions[action.name]!.emits!.indexOf(type)]);
          out.push(diagnostic('unknown-event', at, { event: type, hint: suggestion(type, declared.keys()) }));
        }
      }
    }
  }
  for (const { face, source } of faces) {
    for (const event of face.events) {
      event.emittedBy.sort();
      if (event.emittedBy.length === 0 && !unread(event.type)) out.push(diagnostic('unused-event', source.at(['events', event.type], true), { event: event.type }));
    }
  }
  return out;
}
