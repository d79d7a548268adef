/**
 * Routing: the face and action named in the body, as served in the resolved version. Also settles whether
 * the caller asked for a stream, and refuses one asked of an action that does not stream.
 */
import { faces } from '../../../generated/server/dispatch.js';
import { header, type CallState } from '../call.js';
import { ApiError } from '../errors.js';

const faceNames = [...faces.keys()];

export function route(call: CallState): void {
  const { face: faceName, action: actionName } = call.envelope;
  const version = call.apiVersion!;
  const face = faces.get(faceName);
  const available = face ? [...face.actions.values()].filter((a) => a.versions.has(version)).map((a) => a.name) : [];
  if (!face || available.length === 0) {
    throw new ApiError('face_not_found', `No face "${faceName}" in API version ${version}.`, { param: '/face', details: { available: faceNames } });
  }
  const action = face.actions.get(actionName);
  const validate = action?.versions.get(version);
  if (!action || !validate) {
    throw new ApiError('action_not_found', `Face "${faceName}" has no action "${actionName}" in API version ${version}.`, {
      param: '/action',
      details: { available },
    });
  }
  const wantsStream = call.envelope.options.stream === true || (header(call, 'accept') ?? '').includes('text/event-stream');
  if (wantsStream && !action.stream) {
    throw new ApiError('stream_not_supported', `${action.id} does not stream; ask without options.stream or Accept: text/event-stream.`);
  }
  call.action = action;
  call.validate = validate;
  call.stream = wantsStream;
}
