/**
 * The body parser of `POST /do`: UTF-8 JSON only (a charset parameter may say so; any other charset is 415),
 * at most `MAX_JSON_DEPTH` levels of nesting (deeper bodies are refused before they are parsed, so no
 * recursive step later, such as the canonical JSON of an idempotency fingerprint, can run out of stack),
 * and no `__proto__` or `constructor.prototype` keys (refused rather than silently dropped).
 */
import type { FastifyRequest } from 'fastify';
import secureJson from 'secure-json-parse';
import { ApiError } from '../core/errors.js';

/** The deepest nesting of objects and arrays a body may have (the envelope takes two of these levels). */
export const MAX_JSON_DEPTH = 64;

const CHARSET = /;\s*charset\s*=\s*"?([^";\s]+)"?/i;

export function parseJsonBody(request: FastifyRequest, body: string, done: (error: Error | null, value?: unknown) => void): void {
  let value: unknown;
  try {
    value = readJsonBody(request.headers['content-type'], body);
  } catch (error) {
    done(error as ApiError);
    return;
  }
  done(null, value);
}

/** The value of a JSON body sent with this Content-Type; an ApiError in the contract's terms when it cannot be read. */
export function readJsonBody(contentType: string | undefined, body: string): unknown {
  const charset = CHARSET.exec(contentType ?? '')?.[1]?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    throw new ApiError('unsupported_media_type', `The body must be JSON in UTF-8, not ${charset}.`);
  }
  if (nestsDeeperThan(body, MAX_JSON_DEPTH)) {
    const message = `The body nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels.`;
    throw new ApiError('payload_invalid', message, { details: { errors: [{ param: '', message, keyword: 'maxDepth' }] } });
  }
  try {
    return secureJson.parse(body, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (error) {
    const reason = (error as Error).message.includes('prototype') ? 'it holds a forbidden __proto__ or constructor.prototype key' : 'it is not valid JSON';
    throw new ApiError('invalid_json', `The body cannot be read: ${reason}.`);
  }
}

/** True when brackets outside strings open deeper than `limit`; one pass over the text, no recursion. */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > limit) return true;
    } else if (c === 125 /* } */ || c === 93 /* ] */) depth--;
  }
  return false;
}
