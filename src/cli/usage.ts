/**
 * `dispatch usage summary|events|tail`: usage for operators, read through the API of a running server with
 * the generated client (so `tail` follows the same live stream the dashboard does). The server, key and
 * entity come from `--url`, `--key`, `--entity` or DISPATCH_URL, DISPATCH_API_KEY, DISPATCH_ENTITY.
 */
import type { Command } from 'commander';
import { connectionOptions, usageError, withClient } from './connection.js';
import type { UsageFilter, UsageGroup, UsageRecord, UsageSummaryPayload, UsageTotals } from '../../generated/client/index.js';

interface FilterOptions {
  face?: string;
  action?: string;
  entities?: string;
  keys?: string;
  status?: string;
}

const list = (value: string) => value.split(',').map((s) => s.trim()).filter(Boolean);
const GROUPS = ['face', 'action', 'entity', 'key', 'status', 'minute', 'hour', 'day'] as const;

export function registerUsage(program: Command): void {
  const usage = connectionOptions(
    program.command('usage').description('Read usage from a running server: summaries, call records, and a live tail.'),
    'an API key with usage:read (and usage:live for tail)',
  );
  const withFilters = (command: Command) =>
    command
      .option('--face <faces>', 'only these faces (comma-separated)')
      .option('--action <actions>', 'only these actions (comma-separated)')
      .option('--entities <ids>', "these entities (comma-separated), or '*' for every entity the key may act for")
      .option('--keys <ids>', 'only calls made by these key ids')
      .option('--status <codes>', 'only these HTTP statuses (comma-separated)')
      .option('--json', 'print JSON');

  withFilters(usage.command('summary'))
    .description('Calls, errors, latency, units and cost over a range, grouped.')
    .option('--from <time>', 'start (ISO 8601); default an hour before --to')
    .option('--to <time>', 'end (ISO 8601); default now')
    .option('--group-by <fields>', `comma-separated: ${GROUPS.join(', ')}`)
    .action(async (o: FilterOptions & { from?: string; to?: string; groupBy?: string; json?: boolean }) => {
      const groupBy = o.groupBy ? list(o.groupBy) : [];
      const unknown = groupBy.filter((g) => !(GROUPS as readonly string[]).includes(g));
      if (unknown.length) return usageError(`Unknown --group-by field(s): ${unknown.join(', ')}.`);
      await withClient(usage.opts(), async (client) => {
        const payload: UsageSummaryPayload = { groupBy: groupBy as UsageSummaryPayload['groupBy'], filter: filterOf(o), ...(o.from ? { from: o.from } : {}), ...(o.to ? { to: o.to } : {}) };
        const summary = await client.usage.summary(payload);
        if (o.json) return console.log(JSON.stringify(summary, null, 2));
        const label = (g: UsageGroup) => groupBy.map((f) => String(g[f === 'minute' || f === 'hour' || f === 'day' ? 'time' : (f as keyof UsageGroup)])).join('  ') || 'all';
        console.log(`${summary.from} → ${summary.to}  (${summary.currency})`);
        for (const group of summary.groups) console.log(`${label(group)}  ${totalsLine(group)}`);
        console.log(`total  ${totalsLine(summary.totals)}`);
        for (const m of summary.meters) console.log(`meter ${m.type}${m.entity ? ` ${m.entity}` : ''}${m.time ? ` ${m.time}` : ''}  events=${m.events}  value=${m.value}`);
      });
    });

  withFilters(usage.command('events'))
    .description('Call records, newest first.')
    .option('--limit <n>', 'how many (1-1000)', '20')
    .option('--from <time>', 'answered at or after (ISO 8601)')
    .option('--to <time>', 'answered before (ISO 8601)')
    .action(async (o: FilterOptions & { limit: string; from?: string; to?: string; json?: boolean }) => {
      const limit = Number(o.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) return usageError('--limit must be a whole number from 1 to 1000.');
      await withClient(usage.opts(), async (client) => {
        const page = await client.usage.events({ limit, filter: filterOf(o), ...(o.from ? { from: o.from } : {}), ...(o.to ? { to: o.to } : {}) });
        for (const record of page.items) console.log(o.json ? JSON.stringify(record) : recordLine(record));
      });
    });

  withFilters(usage.command('tail'))
    .description('Follow calls as they are recorded, one line each, until interrupted.')
    .action(async (o: FilterOptions & { json?: boolean }) => {
      await withClient(usage.opts(), async (client) => {
        const stop = new AbortController();
        process.once('SIGINT', () => stop.abort());
        // Each stream ends on its own after a while (docs/contract.md § Streaming: the time-out covers it); follow the next.
        while (!stop.signal.aborted) {
          const stream = client.usage.live.stream({ maxSeconds: 110, filter: filterOf(o) }, { timeout: 120_000, signal: stop.signal });
          try {
            for await (const event of stream) if (event.event === 'record') console.log(o.json ? JSON.stringify(event.data) : recordLine(event.data));
            await stream;
          } catch (error) {
            if (stop.signal.aborted) break;
            throw error;
          }
        }
      });
    });
}

function filterOf(o: FilterOptions): UsageFilter {
  const entities = o.entities?.trim();
  return {
    ...(o.face ? { face: list(o.face) } : {}),
    ...(o.action ? { action: list(o.action) } : {}),
    ...(entities ? { entity: entities === '*' ? '*' : list(entities) } : {}),
    ...(o.keys ? { key: list(o.keys) } : {}),
    ...(o.status ? { status: list(o.status).map(Number) } : {}),
  };
}

function totalsLine(t: UsageTotals): string {
  const units = Object.entries(t.units).map(([unit, amount]) => `${unit}=${amount}`);
  return [`calls=${t.calls}`, `errors=${t.errors}`, `p50=${t.latencyMs.p50 ?? '-'}ms`, `p99=${t.latencyMs.p99 ?? '-'}ms`, `cost=${t.cost}`, ...units].join('  ');
}

/** One call on one line: when, what, outcome, time taken, cost, who. */
export function recordLine(r: UsageRecord): string {
  const outcome = r.errorCode ? `${r.status} ${r.errorCode}` : String(r.status);
  return `${r.at}  ${r.mode}  ${r.entityId}  ${r.face}.${r.action}  ${outcome}  ${r.latencyMs}ms  ${r.cost} ${r.currency}${r.replayed ? '  replayed' : ''}  ${r.keyId}  ${r.requestId}`;
}
