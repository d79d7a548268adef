/**
 * The time limits and connection cap of the HTTP server: a client that sends its headers or body too
 * slowly, or keeps an idle connection, is cut off, and connections beyond the cap are closed as they come.
 * Each is a setting (docs/operations.md § Limits and timeouts).
 */
/** How long clients may take and how many may be connected at once. */
export interface HttpLimits {
  /** The whole request, headers and body, must arrive within this (ms). */
  requestTimeoutMs: number;
  /** The headers must arrive within this (ms). */
  headersTimeoutMs: number;
  /** An idle keep-alive connection is closed after this (ms). */
  keepAliveTimeoutMs: number;
  /** Connections beyond this are closed as they are accepted. */
  maxConnections: number;
}

export const DEFAULT_HTTP_LIMITS: HttpLimits = { requestTimeoutMs: 30_000, headersTimeoutMs: 10_000, keepAliveTimeoutMs: 5_000, maxConnections: 10_000 };

/** The longest part of a path that names a version or an action; a longer one is 414 (docs/operations.md § Limits and timeouts). */
export const MAX_PATH_PART = 100;
