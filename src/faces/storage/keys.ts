/**
 * Object keys as the storage face keeps them: in Unicode normalisation form C, so that one name a person types
 * is one object whichever way their system composed it (an "é" typed on macOS arrives decomposed, as "e" and
 * a combining accent). Every key and prefix a call or a signed URL names goes through here first.
 */
import { invalidField } from '../../core/errors.js';

/** The longest key, in UTF-16 code units as the face's schema counts them. */
const KEY_MAX_LENGTH = 1024;

/**
 * The key in NFC.
 * @throws ApiError payload_invalid at `param` when NFC makes it longer than a key may be (a few characters,
 *   such as U+0344, are longer in NFC).
 */
export function objectKey(key: string, param: string): string {
  const normalized = key.normalize('NFC');
  if (normalized.length > KEY_MAX_LENGTH) throw invalidField(param, `must NOT have more than ${KEY_MAX_LENGTH} characters once in Unicode NFC`, 'maxLength');
  return normalized;
}

/** A prefix of keys in NFC, as the keys it selects are. */
export const keyPrefix = (prefix: string): string => prefix.normalize('NFC');
