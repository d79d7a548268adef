// Types of connection.worker.mjs (plain JavaScript, which the threads load as it is).
import type SQLite from 'better-sqlite3';

/** Opens `path` and attaches each of `attached` under its schema name. */
export function openConnection(path: string, attached?: readonly { schema: string; path: string }[]): SQLite.Database;
