/**
 * The server's log: one JSON line per event on stderr (pino, the logger Fastify is built on, which the HTTP
 * server uses too), with `requestId` when it concerns a call, so a line can be found from the `Request-Id` a
 * client quotes. `LOG_LEVEL` sets the level (default info; `serve` and `worker` refuse one pino does not
 * know); with `LOG_REQUESTS=1` every call adds one line at info: its request id, action, status and time.
 * Lines are written synchronously, so that none is lost when the process exits.
 */
import { pino } from 'pino';
import { LOG_LEVELS } from './log-levels.js';

const asked = process.env.LOG_LEVEL || 'info';

export const log = pino(
  {
    // An unknown level is refused by the configuration (config.ts); a module loaded without it logs at info.
    level: (LOG_LEVELS as readonly string[]).includes(asked) ? asked : 'info',
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
  },
  pino.destination({ dest: 2, sync: true }),
);
