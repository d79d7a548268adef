/**
 * Reads a server-sent-event answer over real HTTP with a real SSE parser (`eventsource-parser`), keeping
 * every event with its id, name and parsed data, in order.
 */
import { createParser } from 'eventsource-parser';

export interface SseEvent {
  id: string | undefined;
  event: string;
  data: any;
}

export interface SseReply {
  status: number;
  headers: Headers;
  events: SseEvent[];
  /** The body, when the answer was not a stream (an error before the stream opened). */
  json?: any;
}

/**
 * Posts a call and collects its events until the server ends the stream. `onEvent` sees each event as it
 * arrives; returning `'abort'` disconnects (as a client that goes away), after which the events so far are
 * returned.
 */
export async function postStream(
  url: string,
  body: unknown,
  headers: Record<string, string>,
  onEvent?: (event: SseEvent) => 'abort' | void,
): Promise<SseReply> {
  const controller = new AbortController();
  const response = await fetch(`${url}/do`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    signal: controller.signal,
  });
  const events: SseEvent[] = [];
  if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
    return { status: response.status, headers: response.headers, events, json: await response.json() };
  }
  let aborted = false;
  const parser = createParser({
    onEvent(message) {
      const event = { id: message.id, event: message.event ?? 'message', data: JSON.parse(message.data) };
      events.push(event);
      if (!aborted && onEvent?.(event) === 'abort') {
        aborted = true;
        controller.abort();
      }
    },
  });
  const decoder = new TextDecoder();
  try {
    for await (const chunk of response.body!) parser.feed(decoder.decode(chunk, { stream: true }));
  } catch (error) {
    if (!aborted) throw error;
  }
  return { status: response.status, headers: response.headers, events };
}
