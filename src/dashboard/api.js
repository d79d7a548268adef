// Calls POST /do as any client does: the key in `Authorization`, the entity in `X-Entity-ID`, JSON in and
// out; a stream (usage.live) is read with fetch and a reader, since EventSource can neither POST nor send
// headers. Errors come back as the API's error envelope ({error: {type, code, message, ...}, meta}).

/** `do`, resolved against the page (`/dashboard` → `/do`), so that a path prefix in front of the server works. */
const ENDPOINT = new URL('do', document.baseURI).href;

/** The error envelope of a refused call, or a non-JSON answer in its terms. */
export class ApiCallError extends Error {
  constructor(status, body, headers) {
    const error = body && typeof body === 'object' && body.error && typeof body.error === 'object' ? body.error : undefined;
    super(error?.message || `The server answered ${status}.`);
    this.name = 'ApiCallError';
    this.status = status;
    this.code = error?.code ?? 'unexpected_answer';
    this.type = error?.type;
    this.details = error?.details;
    this.requestId = body?.meta?.requestId ?? headers?.get('request-id') ?? undefined;
    const retryAfter = Number(headers?.get('retry-after'));
    this.retryAfterMs = Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : undefined;
  }
}

/** The server could not be reached (network down, server stopped, connection cut). */
export class NetworkError extends Error {
  constructor(cause) {
    super('The server cannot be reached.');
    this.name = 'NetworkError';
    this.cause = cause;
  }
}

/** A stream that ended without its terminal event (`result` or `error`). */
export class StreamInterrupted extends Error {
  constructor() {
    super('The stream was cut before it ended.');
    this.name = 'StreamInterrupted';
  }
}

const headersOf = (auth, extra = {}) => ({
  Authorization: `Bearer ${auth.key}`,
  'X-Entity-ID': auth.entity,
  'Content-Type': 'application/json',
  ...extra,
});

/** What is left of the limit closest to being reached (`RateLimit: "token";r=59;t=1`), when told. */
function remainingOf(headers) {
  const match = /;\s*r=(\d+)/.exec(headers.get('ratelimit') ?? '');
  return match ? Number(match[1]) : undefined;
}

async function post(auth, body, { signal, accept } = {}) {
  try {
    return await fetch(ENDPOINT, {
      method: 'POST',
      headers: headersOf(auth, accept ? { Accept: accept } : {}),
      body: JSON.stringify(body),
      signal,
      cache: 'no-store',
      credentials: 'omit',
      referrerPolicy: 'no-referrer',
    });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new NetworkError(error);
  }
}

async function readJson(response) {
  try {
    return await response.json();
  } catch {
    return undefined;
  }
}

/** One call; resolves to `{data, meta, remaining}`, or throws ApiCallError / NetworkError. */
export async function call(auth, face, action, payload, { signal } = {}) {
  const response = await post(auth, { face, action, payload }, { signal });
  const body = await readJson(response);
  if (!response.ok || !body || typeof body !== 'object' || !('data' in body)) throw new ApiCallError(response.status, body, response.headers);
  return { data: body.data, meta: body.meta, remaining: remainingOf(response.headers) };
}

/**
 * Server-sent events, fed text as it arrives: `id:`, `event:` and `data:` lines, a blank line ends an
 * event (lines end with LF, CRLF or CR; a line starting with ':' is a comment). Calls `onEvent({id, event, data})`
 * with `data` as the text of its data lines.
 */
export function createEventParser(onEvent) {
  let buffer = '';
  let id;
  let event = '';
  let data = [];

  const line = (text) => {
    if (text === '') {
      if (data.length > 0) onEvent({ id, event: event || 'message', data: data.join('\n') });
      event = '';
      data = [];
      return;
    }
    if (text.startsWith(':')) return;
    const colon = text.indexOf(':');
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
    else if (field === 'id' && !value.includes('\0')) id = value;
  };

  return {
    push(text) {
      buffer += text;
      let start = 0;
      for (let i = 0; i < buffer.length; i += 1) {
        const c = buffer[i];
        if (c !== '\n' && c !== '\r') continue;
        // A CR at the end of what has arrived may be the first half of a CRLF.
        if (c === '\r' && i === buffer.length - 1) break;
        line(buffer.slice(start, i));
        if (c === '\r' && buffer[i + 1] === '\n') i += 1;
        start = i + 1;
      }
      buffer = buffer.slice(start);
    },
    end() {
      if (buffer !== '') line(buffer.replace(/\r$/, ''));
      buffer = '';
    },
  };
}

/**
 * Opens a streaming call and reads it to its end. `onEvent({id, event, data})` gets every event with its
 * JSON parsed; resolves to the terminal event (`result` or `error`). A refusal before the stream opens
 * throws ApiCallError; a stream cut before its terminal event throws StreamInterrupted.
 */
export async function stream(auth, face, action, payload, options, { signal, onEvent }) {
  const response = await post(auth, { face, action, payload, options: { ...options, stream: true } }, { signal, accept: 'text/event-stream' });
  if (!response.ok || !(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    throw new ApiCallError(response.status, await readJson(response), response.headers);
  }
  let terminal;
  const parser = createEventParser((raw) => {
    let data;
    try {
      data = JSON.parse(raw.data);
    } catch {
      return;
    }
    const event = { id: raw.id, event: raw.event, data };
    if (event.event === 'result' || event.event === 'error') terminal ??= event;
    onEvent(event);
  });
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  try {
    for (;;) {
      let chunk;
      try {
        chunk = await reader.read();
      } catch (error) {
        if (signal?.aborted) throw error;
        throw new StreamInterrupted();
      }
      if (chunk.done) break;
      parser.push(chunk.value);
      if (terminal) break;
    }
    parser.end();
  } finally {
    reader.cancel().catch(() => {});
  }
  if (!terminal) throw new StreamInterrupted();
  return terminal;
}
