/**
 * The routes that run the call pipeline: `POST /do`, `POST /{version}/do` and `POST /do/{face}.{action}`,
 * answering JSON or, for a streaming call, server-sent events. A call that arrives while the server stops is
 * refused with 503 shutting_down.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../core/errors.js';
import type { CallState } from './call.js';
import { startOf, type HttpApp } from './http-app.js';
import { runCall } from './pipeline.js';
import type { Runtime } from './runtime.js';
import { EventStreamResponse, type StreamLimits } from './sse.js';

export function registerCallRoutes({ app, sendError, closing, refuseWhileClosing }: HttpApp, runtime: Runtime, streamLimits: StreamLimits): void {
  // A call that arrives while the server stops is refused here, not by a hook, which would cost every request.

  const handleDo = async (request: FastifyRequest, reply: FastifyReply, path?: { version?: string; action?: { face: string; action: string } }) => {
    if (closing()) return refuseWhileClosing(reply);
    const requestId = request.id;
    let events: EventStreamResponse | undefined;
    const openStream = (headers: Record<string, string>): EventStreamResponse => {
      reply.hijack();
      // A replay names the request that was answered, as its stored Request-Id header does.
      events = new EventStreamResponse(reply.raw, streamLimits, headers, { requestId: headers['Request-Id'] ?? requestId, apiVersion: call.apiVersion! });
      return events;
    };
    const call: CallState = {
      requestId,
      startedAt: startOf(reply),
      headers: request.headers,
      rawHeaders: request.raw.rawHeaders,
      pathVersion: path?.version,
      pathAction: path?.action,
      body: request.body,
      responseHeaders: { 'Request-Id': requestId },
      openStream: () => openStream(call.responseHeaders).channel,
    };
    const answer = await runCall(call, runtime);
    if (events) events.finish(answer);
    // A replayed stream was answered before: it gets its start and its stored terminal event.
    else if (call.stream && call.replayed) openStream(answer.headers).finish(answer);
    else return reply.code(answer.status).headers(answer.headers).send(answer.body);
    return reply;
  };

  app.post('/do', (request, reply) => handleDo(request, reply));
  app.post<{ Params: { version: string } }>('/:version/do', (request, reply) => handleDo(request, reply, { version: request.params.version }));
  // The alias that gives each action a path of its own (docs/contract.md § Endpoints): `face.action`, split at the first dot.
  app.post<{ Params: { call: string } }>('/do/:call', (request, reply) => {
    const { call } = request.params;
    const dot = call.indexOf('.');
    if (dot <= 0 || dot === call.length - 1) {
      return sendError(reply, new ApiError('route_not_found', `No endpoint POST /do/${call}; name an action as POST /do/{face}.{action}, e.g. /do/ai.generate.`));
    }
    return handleDo(request, reply, { action: { face: call.slice(0, dot), action: call.slice(dot + 1) } });
  });
}
