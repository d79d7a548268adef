/**
 * The status an ApiError answers with where the shipped catalogue is served: an error names a code, and
 * only the served catalogue says what it means (src/core/errors.ts). The providers raise the shipped faces' codes.
 */
import { errors } from '../../generated/server/platform.js';
import { meaningOf, type ApiError } from '../../src/core/errors.js';

export function shippedStatus(error: ApiError): number | undefined {
  return meaningOf(error, errors)?.status;
}
