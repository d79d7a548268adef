/**
 * A page of a list action (`{items, hasMore}`, Stripe's list shape) from rows read one past `limit`: the
 * extra row only tells that another page follows, and is never answered.
 */
export function listPage<R, T>(rows: readonly R[], limit: number, wire: (row: R) => T): { items: T[]; hasMore: boolean } {
  return { items: rows.slice(0, limit).map(wire), hasMore: rows.length > limit };
}
