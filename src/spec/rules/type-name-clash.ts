/**
 * Rule `type-name-clash`: the type names the generator makes for a face (each schema `<Face><Name>`, each
 * action's `<Face><Action>Payload`, `…Result` and `…StreamEvent`, each event's `…Data`) are all different.
 * A schema named `IngestResult` in face `usage` would otherwise be generated twice as `UsageIngestResult`:
 * it is reported at the schema, naming what it collides with.
 */
import { diagnostic, type Diagnostic } from '../diagnostics.js';
import type { Face } from '../model.js';
import type { JsonPath, SourceFile } from '../source.js';

export function typeNameClash(face: Face, source: SourceFile): Diagnostic[] {
  const owners = new Map<string, string>();
  for (const action of face.actions) {
    owners.set(`${action.typeName}Payload`, `the payload of ${action.id}`);
    owners.set(`${action.typeName}Result`, `the result of ${action.id}`);
    if (action.streamEvents.length) owners.set(`${action.typeName}StreamEvent`, `the stream events of ${action.id}`);
  }
  for (const event of face.events) owners.set(`${event.typeName}Data`, `the data of event ${event.type}`);
  const out: Diagnostic[] = [];
  for (const { name } of face.schemas) {
    const type = face.typeName + name;
    const other = owners.get(type);
    const at: JsonPath = ['schemas', name];
    if (other) out.push(diagnostic('type-name-clash', source.at(at, true), { schema: name, type, other }));
  }
  return out;
}
