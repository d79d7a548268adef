/**
 * Checks the shape of the body, `{face, action, payload, options?}`, and of its options. Unknown fields
 * are refused so that a typo never passes silently. Also settles the idempotency key (header or option).
 * `POST /do/{face}.{action}` names the face and action in its path and sends `{payload, options?}`: from
 * here on it is the same call.
 */
import { header, type CallState, type Envelope } from '../call.js';
import type { Stage } from '../stage.js';
import { ApiError } from '../../core/errors.js';

const ENVELOPE_FIELDS = new Set(['face', 'action', 'payload', 'options']);
const PATH_BODY_FIELDS = new Set(['payload', 'options']);
const OPTION_TYPES: Record<string, string> = { timeout: 'number', idempotencyKey: 'string', version: 'string', stream: 'boolean' };
/** 1–255 printable ASCII characters (docs/contract.md § Idempotency). */
const IDEMPOTENCY_KEY = /^[\x20-\x7e]{1,255}$/;

export const parse: Stage = (call, runtime) => {
  call.envelope = parseEnvelope(call, call.body, runtime.catalogue.platform.limits.timeout.max);
};

function parseEnvelope(call: CallState, sent: unknown, maxTimeout: number): Envelope {
  const body = call.pathAction ? pathEnvelope(call.pathAction, sent) : sent;
  if (!isRecord(body)) throw invalid('The body must be a JSON object: {face, action, payload, options?}.', '');
  for (const field of Object.keys(body)) {
    if (!ENVELOPE_FIELDS.has(field)) throw invalid(`Unknown field "${field}"; the body holds face, action, payload and options.`, `/${field}`);
  }
  if (typeof body.face !== 'string' || body.face === '') throw invalid('"face" must be a non-empty string.', '/face');
  if (typeof body.action !== 'string' || body.action === '') throw invalid('"action" must be a non-empty string.', '/action');
  if (!isRecord(body.payload)) throw invalid('"payload" must be a JSON object.', '/payload');
  const options = body.options ?? {};
  if (!isRecord(options)) throw invalid('"options" must be a JSON object.', '/options');
  for (const [name, value] of Object.entries(options)) {
    const type = Object.hasOwn(OPTION_TYPES, name) ? OPTION_TYPES[name] : undefined;
    if (!type) throw invalid(`Unknown option "${name}"; options are ${Object.keys(OPTION_TYPES).join(', ')}.`, `/options/${name}`);
    if (typeof value !== type) throw invalid(`Option "${name}" must be a ${type}.`, `/options/${name}`);
  }
  const envelope = { face: body.face, action: body.action, payload: body.payload, options: options as Envelope['options'] };
  checkTimeout(envelope.options.timeout, maxTimeout);
  envelope.options.idempotencyKey = idempotencyKey(call, envelope.options.idempotencyKey);
  return envelope;
}

/** The envelope a `POST /do/{face}.{action}` stands for: the face and action of its path, the rest of its body. */
function pathEnvelope(path: { face: string; action: string }, body: unknown): unknown {
  if (!isRecord(body)) throw invalid('The body must be a JSON object: {payload, options?} (the path names the face and action).', '');
  for (const field of Object.keys(body)) {
    if (!PATH_BODY_FIELDS.has(field)) throw invalid(`Unknown field "${field}"; with the action in the path, the body holds payload and options.`, `/${field}`);
  }
  return { ...path, ...body };
}

function checkTimeout(timeout: number | undefined, max: number): void {
  if (timeout !== undefined && !(Number.isInteger(timeout) && timeout >= 1 && timeout <= max)) {
    throw new ApiError('timeout_out_of_range', `options.timeout must be a whole number of milliseconds from 1 to ${max}.`, {
      param: '/options/timeout',
      details: { min: 1, max },
    });
  }
}

function idempotencyKey(call: CallState, fromOptions: string | undefined): string | undefined {
  const fromHeader = header(call, 'x-idempotency-key');
  // Node joins a repeated header with ", ", which would make two keys one; a key may hold a comma itself.
  if (fromHeader?.includes(',') && countHeader(call, 'x-idempotency-key') > 1) {
    throw new ApiError('idempotency_key_invalid', 'Send X-Idempotency-Key once; this request repeats it.');
  }
  if (fromHeader !== undefined && fromOptions !== undefined && fromHeader !== fromOptions) {
    throw new ApiError('idempotency_key_invalid', 'X-Idempotency-Key and options.idempotencyKey differ.', { param: '/options/idempotencyKey' });
  }
  const key = fromHeader ?? fromOptions;
  if (key !== undefined && !IDEMPOTENCY_KEY.test(key)) {
    throw new ApiError('idempotency_key_invalid', 'An idempotency key is 1 to 255 printable ASCII characters.', {
      param: fromHeader !== undefined ? undefined : '/options/idempotencyKey',
    });
  }
  return key;
}

function countHeader(call: CallState, name: string): number {
  let count = 0;
  const raw = call.rawHeaders ?? [];
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === name) count++;
  return count;
}

function invalid(message: string, param: string): ApiError {
  return new ApiError('invalid_envelope', message, param ? { param } : {});
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
