/**
 * Tells a store that cannot be reached (a lost or refused connection, a database shutting down or
 * restarting, a dead SQLite writer) from a fault in a query. A call that meets the first is answered
 * 503 `store_unavailable` with Retry-After, since a retry can succeed once the store is back; the second stays
 * a 500.
 */
/** PostgreSQL's SQLSTATEs for a lost connection or a server that is stopping or starting. */
const POSTGRES_UNAVAILABLE = /^(08...|57P01|57P02|57P03)$/;
const NODE_UNAVAILABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND']);
const MESSAGES = [/connection terminated/i, /timeout exceeded when trying to connect/i, /SQLite writer thread exited/, /Client has encountered a connection error/i];

export function isStoreUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== undefined && (POSTGRES_UNAVAILABLE.test(code) || NODE_UNAVAILABLE.has(code))) return true;
  return MESSAGES.some((m) => m.test(error.message));
}
