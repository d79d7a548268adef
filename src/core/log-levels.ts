/** The levels `LOG_LEVEL` may name: pino's. Apart from the logger, so that reading the configuration loads no logger. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
