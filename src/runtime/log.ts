/**
 * The server's log: one JSON line per event on stderr (pino, the logger Fastify is built on, which the HTTP
 * server uses too), with `requestId` when it concerns a call, so a line can be found from the `Request-Id` a
 * client quotes. `LOG_LEVEL` sets the level (default info); with `LOG_REQUESTS=1` every call adds one line at
 * info: its request id, action, status and time.
 */
import { pino } from 'pino';

export const log = pino({
  level: process.env.LOG_LEVEL ?? 'info',
  base: { pid: process.pid },
  timestamp: pino.stdTimeFunctions.isoTime,
}, pino.destination({ dest: 2, sync: true }));
