/**
 * Payload validation with the precompiled validator of the resolved version. Every violation is reported
 * (`details.errors`), each with the JSON pointer of the field it is about.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import { assertParsed, invariant, type CallState } from '../call.js';
import { ApiError } from '../../core/errors.js';

/** The validator of an action's payload: one for every version, or one per version served. */
export type PayloadValidators = ValidateFunction | ReadonlyMap<string, ValidateFunction>;

/** Checks the payload with the validator of the call's version. */
export function validatePayload(call: CallState, validators: PayloadValidators): void {
  assertParsed(call);
  const check = typeof validators === 'function' ? validators : validators.get(call.apiVersion!);
  invariant(check, 'the action is served in the call\'s version');
  if (check(call.envelope.payload)) return;
  const errors = (check.errors ?? []).map(violation);
  const first = errors[0]!;
  throw new ApiError('payload_invalid', `${first.param}: ${first.message}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}`, {
    param: first.param,
    details: { errors },
  });
}

function violation(error: ErrorObject): { param: string; message: string; keyword: string } {
  const params = error.params as Record<string, unknown>;
  let param = `/payload${error.instancePath}`;
  let message = error.message ?? 'is invalid';
  if (error.keyword === 'required') {
    param += `/${String(params.missingProperty)}`;
    message = 'is required';
  } else if (error.keyword === 'additionalProperties') {
    param += `/${String(params.additionalProperty)}`;
    message = 'is not a field of this action in this API version';
  } else if (error.keyword === 'enum') {
    message = `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
  } else if (error.keyword === 'discriminator') {
    // A oneOf with a discriminator is checked by its tag first: the tag is the field at fault, not the object.
    param += `/${String(params.tag)}`;
    message = params.error === 'tag' ? 'is required, as a string' : `is not one of the kinds this action takes (see its payload's oneOf)`;
  }
  return { param, message, keyword: error.keyword };
}
