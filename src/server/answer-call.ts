/**
 * Runs one call of the HTTP API through the pipeline and answers it, whichever lane read its request (the
 * call lane on node:http, or Fastify's routes): JSON, or server-sent events for a streaming call.
 */
import type { ServerResponse } from 'node:http';
import type { CallState, Reply } from './call.js';
import { runCall } from './pipeline.js';
import type { Runtime } from './runtime.js';
import { EventStreamResponse, type StreamLimits } from './sse.js';

/** Where a call came from: the path that named its version or action, if it was not `POST /do`. */
export interface CallPath {
  version?: string;
  action?: { face: string; action: string };
}

/** A call's request as either lane read it. */
export interface CallRequest {
  requestId: string;
  startedAt: number;
  headers: CallState['headers'];
  rawHeaders: readonly string[];
  body: unknown;
  path?: CallPath;
}

/** How a lane answers: JSON by `send`; a stream on the raw response, once `takeOver` has told the lane it is written there. */
export interface CallResponse {
  raw: ServerResponse;
  takeOver(): void;
  send(answer: Reply): void;
}

/** Runs a call through the pipeline and answers it: in the same turn when no stage had to wait. */
export function answerCall(runtime: Runtime, streamLimits: StreamLimits, request: CallRequest, response: CallResponse): void | Promise<void> {
  const { requestId } = request;
  let events: EventStreamResponse | undefined;
  const openStream = (headers: Record<string, string>): EventStreamResponse => {
    response.takeOver();
    // A replay names the request that was answered, as its stored Request-Id header does.
    events = new EventStreamResponse(response.raw, streamLimits, headers, { requestId: headers['Request-Id'] ?? requestId, apiVersion: call.apiVersion! });
    return events;
  };
  const call: CallState = {
    requestId,
    startedAt: request.startedAt,
    headers: request.headers,
    rawHeaders: request.rawHeaders,
    pathVersion: request.path?.version,
    pathAction: request.path?.action,
    body: request.body,
    responseHeaders: { 'Request-Id': requestId },
    openStream: () => openStream(call.responseHeaders).channel,
  };
  const respond = (answer: Reply) => {
    if (events) events.finish(answer);
    // A replayed stream was answered before: it gets its start and its stored terminal event.
    else if (call.stream && call.replayed) openStream(answer.headers).finish(answer);
    else response.send(answer);
  };
  const answer = runCall(call, runtime);
  return answer instanceof Promise ? answer.then(respond) : respond(answer);
}

/** The `{face}.{action}` of `POST /do/{call}`, split at the first dot; undefined when it names no action. */
export function pathAction(call: string): CallPath['action'] {
  const dot = call.indexOf('.');
  if (dot <= 0 || dot === call.length - 1) return undefined;
  return { face: call.slice(0, dot), action: call.slice(dot + 1) };
}
