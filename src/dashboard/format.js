// How the dashboard writes numbers, money, latencies and times. Costs arrive as exact decimal strings
// ("0.000531") and are written from the string, never through a float.

const counts = new Intl.NumberFormat('en-US');
const compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 });

export const formatCount = (n) => counts.format(n);

export const formatCompact = (n) => (Math.abs(n) < 10_000 ? counts.format(n) : compact.format(n));

/** `errors` of `calls` as a percentage with one decimal ("2.5%"); "—" without calls. */
export function formatRate(errors, calls) {
  if (!calls) return '—';
  const rate = (100 * errors) / calls;
  return `${rate === 0 || rate === 100 ? rate.toFixed(0) : rate.toFixed(1)}%`;
}

/** Milliseconds as "5 ms", "1.2 s"; "—" for null (no calls). */
export function formatLatency(ms) {
  if (ms === null || ms === undefined) return '—';
  if (ms < 1000) return `${Number(ms.toPrecision(3))} ms`;
  if (ms < 60_000) return `${Number((ms / 1000).toPrecision(3))} s`;
  return `${Number((ms / 60_000).toPrecision(3))} min`;
}

const symbols = new Map();

/** The narrow symbol of an ISO 4217 code ("usd" → "$"), or the code itself followed by a space. */
export function currencySymbol(currency) {
  const code = String(currency || '').toUpperCase();
  if (!symbols.has(code)) {
    let symbol = `${code} `;
    try {
      const part = new Intl.NumberFormat('en-US', { style: 'currency', currency: code, currencyDisplay: 'narrowSymbol' })
        .formatToParts(0)
        .find((p) => p.type === 'currency');
      if (part) symbol = part.value;
    } catch {
      // Not a currency Intl knows: the code it is.
    }
    symbols.set(code, symbol);
  }
  return symbols.get(code);
}

/** An exact decimal string as money: "$0.000531", "$1,204.50" (at least two decimals, no trailing zeros past them). */
export function formatMoney(decimal, currency) {
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(String(decimal ?? ''));
  if (!match) return String(decimal ?? '—');
  const [, sign, whole, fraction = ''] = match;
  const trimmed = fraction.replace(/0+$/, '').padEnd(2, '0');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${sign}${currencySymbol(currency)}${grouped}.${trimmed}`;
}

/** A chart axis value (a float is fine there) as money with three significant digits. */
export function formatMoneyAxis(value, currency) {
  if (value === null || value === undefined) return '—';
  if (value === 0) return `${currencySymbol(currency)}0`;
  return `${currencySymbol(currency)}${value.toLocaleString('en-US', { maximumSignificantDigits: 3 })}`;
}

/** "inputTokens" → "input tokens". */
export const unitName = (name) => name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();

/**
 * Units added up, as "1,200 input tokens · 3,400 output tokens" (the largest first, at most three). The page names
 * no API version, so the sums come in the one in force (or the key's): numbers, or exact decimal strings from
 * 2027-03-01 on; a float is close enough to show either.
 */
export function formatUnits(units) {
  const entries = Object.entries(units ?? {})
    .map(([name, sum]) => [name, Number(sum)])
    .filter(([, v]) => v);
  if (entries.length === 0) return '';
  entries.sort((a, b) => b[1] - a[1]);
  return entries
    .slice(0, 3)
    .map(([name, value]) => `${formatCompact(value)} ${unitName(name)}`)
    .join(' · ');
}

const clock = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
const dayClock = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' });

/** A record's time: the clock for today, with the date before that. */
export function formatTime(iso) {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return String(iso);
  return at.toDateString() === new Date().toDateString() ? clock.format(at) : dayClock.format(at);
}

export const formatClock = (date) => clock.format(date);
