// Exact addition of decimal texts, and the SQLite functions made of it that the embedded store adds up exact
// decimals with (store/exact-decimal.ts): `decimal_add(a, b)` and the aggregate `decimal_sum(x)`, answering
// canonical decimal text ("0.3": no exponent, no trailing zeros, no "-0"). The writer thread and the read
// connection define the same two from here: plain JavaScript, named .worker.mjs so that the build copies it beside
// the writer thread's module, which loads it as it is. A decimal is held as a BigInt and a count of decimal
// places, which adds several times faster than decimal.js: a summary may add up hundreds of thousands of rows.

/** A decimal text, or a number read as its shortest decimal (exponent form included), as [digits, places]. */
function parse(value) {
  let text = String(value);
  let shift = 0;
  const e = text.search(/e/i);
  if (e >= 0) {
    shift = Number(text.slice(e + 1));
    text = text.slice(0, e);
  }
  const dot = text.indexOf('.');
  const places = (dot < 0 ? 0 : text.length - dot - 1) - shift;
  const digits = BigInt(dot < 0 ? text : text.slice(0, dot) + text.slice(dot + 1));
  return places < 0 ? [digits * 10n ** BigInt(-places), 0] : [digits, places];
}

function add([a, aPlaces], [b, bPlaces]) {
  if (aPlaces === bPlaces) return [a + b, aPlaces];
  return aPlaces > bPlaces ? [a + b * 10n ** BigInt(aPlaces - bPlaces), aPlaces] : [a * 10n ** BigInt(bPlaces - aPlaces) + b, bPlaces];
}

function format([digits, places]) {
  while (places > 0 && digits % 10n === 0n) {
    digits /= 10n;
    places -= 1;
  }
  const negative = digits < 0n;
  const text = (negative ? -digits : digits).toString().padStart(places + 1, '0');
  const unsigned = places > 0 ? `${text.slice(0, -places)}.${text.slice(-places)}` : text;
  return negative ? `-${unsigned}` : unsigned;
}

/** Integers whose sum a double holds exactly. */
const SMALL_INTEGER = /^-?\d{1,15}$/;

/** `a + b`, exactly, as canonical decimal text; most units (tokens, bytes) are small integers, added as numbers. */
export const addDecimalTexts = (a, b) => (SMALL_INTEGER.test(a) && SMALL_INTEGER.test(b) ? String(Number(a) + Number(b)) : format(add(parse(a), parse(b))));

/** Defines decimal_add and decimal_sum on a better-sqlite3 connection; both pass NULL through as sum does. */
export function defineDecimalFunctions(db) {
  db.function('decimal_add', { deterministic: true }, (a, b) => (a === null || b === null ? null : addDecimalTexts(a, b)));
  db.aggregate('decimal_sum', {
    start: () => null,
    step: (total, x) => (x === null ? total : total === null ? parse(x) : add(total, parse(x))),
    result: (total) => (total === null ? null : format(total)),
  });
}
