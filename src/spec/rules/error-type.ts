/**
 * Rule `error-type-mismatch`: a face error whose status docs/contract.md § Errors gives one type must have that type, so
 * that clients can branch on `type` alone (a 401 is always an `authentication_error`, whichever face
 * answers it). Statuses the table shares between types (400, 409, 503, ...) are left to the face.
 */
import { diagnostic, type Diagnostic } from '../diagnostics.js';
import type { Face } from '../model.js';
import type { SourceFile } from '../source.js';

export const TYPE_OF_STATUS: Readonly<Record<number, string>> = {
  401: 'authentication_error',
  402: 'payment_error',
  403: 'permission_error',
  404: 'not_found_error',
  429: 'rate_limit_error',
};

/** Reports each mismatch at the error's `type`. */
export function errorTypeMismatch(face: Face, source: SourceFile): Diagnostic[] {
  const written = (source.value as { errors?: { code?: unknown }[] }).errors ?? [];
  return face.errors.flatMap((error) => {
    const expected = TYPE_OF_STATUS[error.status];
    if (!expected || expected === error.type) return [];
    const index = written.findIndex((e) => e.code === error.code);
    return [diagnostic('error-type-mismatch', source.at(['errors', index, 'type']), { code: error.code, status: error.status, type: error.type, expected })];
  });
}
