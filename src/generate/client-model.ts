/**
 * What the client is generated from: the faces with the actions the latest version serves, the built-in
 * batch face's method, and the names the client's modules give them.
 */
import { payloadIn } from '../spec/json-schema.js';
import type { Action, Catalog, Face, JsonSchema } from '../spec/model.js';
import { IDENTIFIER, quoted } from './layout.js';

/** A face with the actions the latest version serves, each with its payload schema in that version. */
export interface ClientFace {
  face: Face;
  actions: { action: Action; payload: JsonSchema }[];
}

/** The built-in batch face's `run` action, which becomes `client.batch()` instead of `client.batch.run()`. */
export interface BatchMethod {
  action: Action;
}

/** The faces the client knows: those with an action the latest version serves, or with events. */
export function clientFaces(catalog: Catalog): ClientFace[] {
  const latest = catalog.platform.latest;
  return catalog.faces
    .map((face): ClientFace => ({
      face,
      actions: face.actions.flatMap((action) => {
        const payload = payloadIn(action, latest);
        return payload ? [{ action, payload }] : [];
      }),
    }))
    .filter((f) => f.actions.length > 0 || f.face.events.length > 0);
}

/**
 * Built-in faces are served by the runtime, not by handlers, and the client knows each one by name: today
 * only `batch`, whose `run` becomes the typed `client.batch()`. Any other built-in face is refused rather
 * than turned into a face property the client was never designed for.
 */
export function batchMethod(faces: ClientFace[]): BatchMethod | undefined {
  let batch: BatchMethod | undefined;
  for (const { face, actions } of faces.filter((f) => f.face.builtin)) {
    const run = actions.find((a) => a.action.name === 'run');
    if (face.name !== 'batch' || !run || actions.length !== 1) {
      throw new Error(`The client has no method for built-in face ${face.name} (${actions.map((a) => a.action.id).join(', ')}).`);
    }
    batch = { action: run.action };
  }
  return batch;
}

/** The faces `index.ts` gives a property of methods: those with handlers and actions. */
export const servedFaces = (faces: ClientFace[]) => faces.filter((f) => !f.face.builtin && f.actions.length > 0);

/** The module's own function that makes a face's methods, e.g. `aiMethods`: lower camel case, so no type clashes with it. */
export const methodsFunction = (face: Face) => `${face.typeName.charAt(0).toLowerCase()}${face.typeName.slice(1)}Methods`;

/** A face's or an action's name as a property key: quoted where it is not a name. */
export const propertyName = (name: string) => (IDENTIFIER.test(name) ? name : quoted(name));

export function withoutDefs(schema: JsonSchema): JsonSchema {
  const { $defs: _defs, ...rest } = schema;
  return rest;
}
