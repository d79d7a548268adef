// Types of decimal-functions.worker.mjs (plain JavaScript, which the writer thread loads as it is).
import type SQLite from 'better-sqlite3';

/** `a + b`, exactly, as canonical decimal text (`"0.3"`). */
export function addDecimalTexts(a: string | number | bigint, b: string | number | bigint): string;
/** Defines decimal_add and decimal_sum on a better-sqlite3 connection. */
export function defineDecimalFunctions(db: SQLite.Database): void;
