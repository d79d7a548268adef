/**
 * `usage.live`: sends each record this server writes that the caller's scope and filter keep, as a
 * `record` event, until the client leaves, `maxSeconds` pass or the call's time-out is near (it ends
 * before it, with a result, so that a follower sees a clean end and reconnects). Records wait in a bounded
 * queue while the client is behind; past it they are counted as dropped rather than held.
 */
import type { UsageLiveResult } from '../../../generated/server/types.js';
import type { HandlerContext } from '../../core/context.js';
import type { UsageRecordTable } from '../../store/schema.js';
import type { UsageFeed } from './feed.js';
import { toRecord } from './records.js';
import { scopePredicate, type UsageScope } from './scope.js';

/** Records held for a client that is behind. */
const MAX_QUEUED = 1000;
/** How long before the call's time-out the stream ends by itself. */
const END_MARGIN_MS = 250;

export function follow(ctx: HandlerContext, feed: UsageFeed, scope: UsageScope, maxSeconds: number): Promise<UsageLiveResult> {
  const keep = scopePredicate(scope);
  const queue: UsageRecordTable[] = [];
  let delivered = 0;
  let dropped = 0;
  let sending = false;
  let done = false;

  const send = async () => {
    if (sending) return;
    sending = true;
    while (queue.length > 0 && !done) {
      const behind = ctx.stream.event('record', toRecord(queue.shift()!));
      delivered += 1;
      if (behind) await behind;
    }
    sending = false;
  };

  const take = (rows: readonly UsageRecordTable[]) => {
    for (const row of rows) {
      if (!keep(row)) continue;
      if (queue.length >= MAX_QUEUED) dropped += 1;
      else queue.push(row);
    }
    void send();
  };

  return new Promise((resolve) => {
    const unsubscribe = feed.subscribe(take, () => end());
    const timer = setTimeout(() => end(), Math.max(0, Math.min(maxSeconds * 1000, ctx.deadline - END_MARGIN_MS - Date.now())));
    ctx.signal.addEventListener('abort', () => end(), { once: true });
    function end() {
      if (done) return;
      done = true;
      unsubscribe();
      clearTimeout(timer);
      resolve({ delivered, dropped });
    }
  });
}
