/**
 * The periods usage rollups are kept at: an ISO time's prefix names the minute, hour or day it falls in, so
 * that periods sort as time does and a rollup row is found by text alone.
 */
export type Grain = 'minute' | 'hour' | 'day';

/** The length of an ISO time's prefix that names its period: `YYYY-MM-DDTHH:MM`, `YYYY-MM-DDTHH`, `YYYY-MM-DD`. */
export const PERIOD_LENGTH: Record<Grain, number> = { minute: 16, hour: 13, day: 10 };

/** The period of `grain` an ISO time falls in, as the rollups name it (these texts sort as time does). */
export const periodOf = (iso: string, grain: Grain): string => iso.slice(0, PERIOD_LENGTH[grain]);
