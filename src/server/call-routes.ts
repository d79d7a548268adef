/**
 * The routes that run the call pipeline: `POST /do`, `POST /{version}/do` and `POST /do/{face}.{action}`,
 * answering JSON or, for a streaming call, server-sent events. Most calls reach them by the call lane
 * (call-lane.ts) on node:http; the rest (a browser's, a chunked body, any request the lane leaves) by
 * Fastify's routes here. Both run a call by `answerCall`. A call that arrives while the server stops is
 * refused with 503 shutting_down.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../core/errors.js';
import { callLane } from './call-lane.js';
import { answerCall, pathAction, type CallPath } from './answer-call.js';
import { startOf, type HttpApp } from './http-app.js';
import type { Runtime } from './runtime.js';
import type { StreamLimits } from './sse.js';

/** `varyOrigin`: whether API answers say `Vary: Origin`, as cors.ts decides. */
export function registerCallRoutes(http: HttpApp, runtime: Runtime, { streamLimits, varyOrigin }: { streamLimits: StreamLimits; varyOrigin: boolean }): void {
  const { app, sendError, closing, refuseWhileClosing } = http;
  http.setLane(callLane(runtime, { streamLimits, closing, shuttingDown: http.shuttingDown, varyOrigin }));
  // A call that arrives while the server stops is refused here, not by a hook, which would cost every request.
  const handleDo = async (request: FastifyRequest, reply: FastifyReply, path?: CallPath) => {
    if (closing()) return refuseWhileClosing(reply);
    const call = { requestId: request.id, startedAt: startOf(reply), headers: request.headers, rawHeaders: request.raw.rawHeaders, body: request.body, path };
    await answerCall(runtime, streamLimits, call, {
      raw: reply.raw,
      takeOver: () => reply.hijack(),
      send: (answer) => void reply.code(answer.status).headers(answer.headers).send(answer.body),
    });
    // Sent (or hijacked for a stream) by now: Fastify is told so by the reply itself.
    return reply;
  };

  app.post('/do', (request, reply) => handleDo(request, reply));
  app.post<{ Params: { version: string } }>('/:version/do', (request, reply) => handleDo(request, reply, { version: request.params.version }));
  // The alias that gives each action a path of its own (docs/contract.md § Endpoints): `face.action`, split at the first dot.
  app.post<{ Params: { call: string } }>('/do/:call', (request, reply) => {
    const action = pathAction(request.params.call);
    if (!action) {
      const { call } = request.params;
      return sendError(reply, new ApiError('route_not_found', `No endpoint POST /do/${call}; name an action as POST /do/{face}.{action}, e.g. /do/ai.generate.`));
    }
    return handleDo(request, reply, { action });
  });
}
