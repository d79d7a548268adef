/**
 * The minute of an ISO time as rollups key it: `YYYY-MM-DDTHH:MM` (UTC), which sorts as time does and whose
 * prefixes name its hour (13 characters) and day (10).
 */
export const minuteOf = (iso: string): string => iso.slice(0, 16);
