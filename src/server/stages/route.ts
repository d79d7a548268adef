/**
 * Routing: the face and action named in the body (or the path), as served in the resolved version, with the
 * action's checks as the generator wrote them (its face's pipeline and validator modules imported on the
 * face's first call). Also settles whether the caller asked for a stream; a stream the action cannot answer
 * with (or its lack) is refused by its checks, after the scope check.
 */
import { assertIdentified, header } from '../call.js';
import type { Stage } from '../stage.js';
import type { FaceEntry } from '../../core/dispatch-types.js';
import { ApiError } from '../../core/errors.js';
import { checksOf, loadAll } from '../generated-module.js';

export const route: Stage = (call, runtime) => {
  assertIdentified(call);
  const { face: faceName, action: actionName } = call.envelope;
  const version = call.apiVersion;
  const faces = runtime.catalogue.faces;
  const face = faces.get(faceName);
  const action = face?.actions.get(actionName);
  if (!face || !action || !action.versions.has(version)) {
    const available = face ? servedActions(face, version) : [];
    // `param` points into the body; `POST /do/{face}.{action}` names them in its path instead.
    const inBody = call.pathAction === undefined;
    if (available.length === 0) {
      throw new ApiError('face_not_found', `No face "${faceName}" in API version ${version}.`, { param: inBody ? '/face' : undefined, details: { available: faceNames(faces) } });
    }
    throw new ApiError('action_not_found', `Face "${faceName}" has no action "${actionName}" in API version ${version}.`, {
      param: inBody ? '/action' : undefined,
      details: { available },
    });
  }
  call.action = action;
  call.stream = call.envelope.options.stream === true || (header(call, 'accept')?.includes('text/event-stream') ?? false);
  // The first call of a face (or of one whose events it emits) waits for their modules; later ones do not.
  const loading = loadAll(action.modules);
  if (!loading) call.checks = checksOf(action.checks);
  else return loading.then(() => void (call.checks = checksOf(action.checks)));
};

// What a refusal lists is the same for every call that names the same missing face or action: it is made once.
const names = new WeakMap<ReadonlyMap<string, FaceEntry>, readonly string[]>();
const served = new WeakMap<FaceEntry, Map<string, readonly string[]>>();

function faceNames(faces: ReadonlyMap<string, FaceEntry>): readonly string[] {
  let list = names.get(faces);
  if (!list) names.set(faces, (list = Object.freeze([...faces.keys()])));
  return list;
}

function servedActions(face: FaceEntry, version: string): readonly string[] {
  let byVersion = served.get(face);
  if (!byVersion) served.set(face, (byVersion = new Map()));
  let list = byVersion.get(version);
  if (!list) byVersion.set(version, (list = Object.freeze([...face.actions.values()].filter((a) => a.versions.has(version)).map((a) => a.name))));
  return list;
}
