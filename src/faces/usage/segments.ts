/**
 * Which rollups a summary reads: a range of whole minutes split into the coarsest periods that fit it
 * exactly. Whole days come from day rollups, the whole hours around them from hour rollups, and the minutes
 * at either end from minute rollups, so a month reads about thirty rows per group instead of 43 200. A
 * summary grouped by minute reads minutes only, and one grouped by hour never reads days.
 */
import { periodOf, type Grain } from '../../store/periods.js';

export interface Segment {
  grain: Grain;
  /** The first period read and the one after the last, as the rollups name them (`YYYY-MM-DDTHH`, ...). */
  from: string;
  to: string;
}

const STEP_MS: Record<Grain, number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };
const FINER: Record<Grain, Grain | undefined> = { day: 'hour', hour: 'minute', minute: undefined };

/** `[from, to)` (whole minutes) in segments of the coarsest grains up to `coarsest`, oldest first. */
export function segments(from: number, to: number, coarsest: Grain): Segment[] {
  const step = STEP_MS[coarsest];
  const start = Math.ceil(from / step) * step;
  const end = Math.floor(to / step) * step;
  const finer = FINER[coarsest];
  if (!finer) return from < to ? [segment('minute', from, to)] : [];
  if (start >= end) return segments(from, to, finer);
  return [...segments(from, start, finer), segment(coarsest, start, end), ...segments(end, to, finer)];
}

function segment(grain: Grain, from: number, to: number): Segment {
  const text = (ms: number) => periodOf(new Date(ms).toISOString(), grain);
  return { grain, from: text(from), to: text(to) };
}
