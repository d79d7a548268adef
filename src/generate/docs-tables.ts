/**
 * Markdown building blocks of the docs: escaped tables, code spans, GitHub-style heading anchors, and the
 * field tables of a JSON Schema (one row per property, nested objects as dot paths, array items as `[]`).
 */
import { slug } from '../core/heading-slug.js';
import { isObject } from '../spec/json-schema.js';
import type { JsonSchema } from '../spec/model.js';

/** A `label: value` line of a fact list, as the `facts` partial renders it; the value is markdown. */
export interface Fact {
  label: string;
  value: string;
}

/** A markdown table as the `table` partial renders it; every cell is already escaped. */
export interface TableView {
  header: string[];
  rows: string[][];
}

/** What a field table shows of a schema: its type, its properties, and the named schemas it extends. */
export interface SchemaView {
  type: string;
  /** Default and constraints of a schema shown without a table, e.g. a named string with a pattern. */
  constraints: string;
  table: TableView | null;
  /** Sentences such as "Has every field of [Key](#key).", for `allOf` members that are references. */
  includes: string[];
}

/** Turns a named-schema name into a markdown link (or plain text) for a type column. */
export type RefLink = (name: string) => string;
/** Turns a version date into a markdown link to its changelog entry. */
export type VersionLink = (date: string) => string;

interface FieldRow {
  field: string;
  type: string;
  required: boolean;
  description: string;
  since?: string;
  until?: string;
}

export const byString = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** A face's page, relative to `docs/`. */
export const facePath = (face: string) => `faces/${face}.md`;

/** The event catalogue, relative to `docs/`. */
export const EVENTS_PATH = 'events.md';

/** A link to an action's section (`face.action`), from a page in `docs/` itself. */
export const actionLink = (id: string) => `[${code(id)}](${facePath(id.split('.')[0]!)}#${slug(id)})`;

/** A link to an event type's entry in the catalogue; `up` is the way from the linking page to `docs/`. */
export const eventLink = (type: string, up = '') => `[${code(type)}](${up}${EVENTS_PATH}#${slug(type)})`;

const UNITS: Record<string, string> = { ms: 'ms', s: 's', m: 'min', h: 'h' };

/** A retry schedule as configured (`5s,5m,2h`) in words: `5 s, 5 min, 2 h`. */
export function durations(schedule: string): string {
  return schedule
    .split(',')
    .map((entry) => entry.trim().replace(/^(\d+(?:\.\d+)?)(ms|s|m|h)$/, (_all, n: string, unit: string) => `${n} ${UNITS[unit]}`))
    .join(', ');
}

/** A table with every cell escaped. */
export function table(header: string[], rows: string[][]): TableView {
  return { header: header.map(cell), rows: rows.map((row) => row.map(cell)) };
}

/**
 * One table cell: a pipe would end the cell (GFM reads `\|` as a pipe, inside code spans too), and a line
 * break would end the row.
 */
function cell(text: string): string {
  return text
    .replace(/\s*\n\s*/g, ' ')
    .replace(/\|/g, '\\|')
    .trim();
}

/** A code span that survives backticks in its text. */
export function code(text: string): string {
  if (!text.includes('`')) return `\`${text}\``;
  return `\`\` ${text} \`\``;
}

// One formatter for every number: building one costs far more than formatting with it.
const DECIMAL = new Intl.NumberFormat('en-US', { maximumFractionDigits: 20, useGrouping: false });

/** Decimal text without exponent notation: prices such as 5e-7 read as 0.0000005. */
export function decimal(value: number): string {
  return DECIMAL.format(value);
}

/** Collapses a (possibly multi-line) description into one paragraph. */
export function oneLine(text: string | undefined): string {
  return (text ?? '').replace(/\s+/g, ' ').trim();
}

/**
 * The field table of a schema as written in a face file (`since`/`until` still present). `named` holds the
 * face's named schemas, whose descriptions stand in for those of properties that only reference them.
 */
export function schemaView(schema: JsonSchema, ref: RefLink, version: VersionLink, named: Record<string, JsonSchema>): SchemaView {
  const rows: FieldRow[] = [];
  const includes: string[] = [];
  collect(schema, '', rows, includes, ref, named);
  const type = typeLabel(schema, ref);
  if (!rows.length) return { type, constraints: constraints(schema).join(' '), table: null, includes };
  const versioned = rows.some((r) => r.since || r.until);
  const header = ['Field', 'Type', 'Required', 'Description', ...(versioned ? ['Versions'] : [])];
  const cells = rows.map((r) => {
    const row = [code(r.field), r.type, r.required ? 'yes' : 'no', r.description];
    if (versioned) row.push(versionRange(r.since, r.until, version));
    return row;
  });
  return { type, constraints: '', table: table(header, cells), includes };
}

/** "since 2026-01-01, until 2026-09-01" with each date linked; empty when neither is set. */
export function versionRange(since: string | undefined, until: string | undefined, version: VersionLink): string {
  const parts: string[] = [];
  if (since) parts.push(`since ${version(since)}`);
  if (until) parts.push(`until ${version(until)}`);
  return parts.join(', ');
}

function collect(
  schema: JsonSchema,
  prefix: string,
  rows: FieldRow[],
  includes: string[],
  ref: RefLink,
  named: Record<string, JsonSchema>,
): void {
  if (Array.isArray(schema.allOf)) {
    for (const member of schema.allOf) {
      if (!isObject(member)) continue;
      if (typeof member.$ref === 'string') {
        const owner = prefix ? `${code(prefix.replace(/\.$/, ''))} has` : 'Has';
        includes.push(`${owner} every field of ${ref(refName(member.$ref))}.`);
      } else collect(member, prefix, rows, includes, ref, named);
    }
  }
  if (!isObject(schema.properties)) return;
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  for (const [name, value] of Object.entries(schema.properties)) {
    const property = isObject(value) ? value : {};
    const field = prefix + name;
    rows.push({
      field,
      type: typeLabel(property, ref),
      required: required.has(name),
      description: describe(property, named),
      since: typeof property.since === 'string' ? property.since : undefined,
      until: typeof property.until === 'string' ? property.until : undefined,
    });
    let inner = property;
    let path = field;
    // Arrays of objects list their items' fields under `field[]`.
    while (isObject(inner.items) && !inner.properties) {
      inner = inner.items;
      path += '[]';
    }
    if (typeof inner.$ref !== 'string' && (isObject(inner.properties) || Array.isArray(inner.allOf))) {
      collect(inner, `${path}.`, rows, includes, ref, named);
    }
  }
}

/** ` (until 2027-03-01)` for an alternative of a field's type served only in some versions. */
function datedLabel(alternative: unknown): string {
  if (!isObject(alternative)) return '';
  const dates = [typeof alternative.since === 'string' ? `since ${alternative.since}` : '', typeof alternative.until === 'string' ? `until ${alternative.until}` : ''];
  const text = dates.filter(Boolean).join(', ');
  return text ? ` (${text})` : '';
}

/** A short, readable type: `string (email)`, `integer[]`, a link for a named schema, unions with "or". */
function typeLabel(schema: unknown, ref: RefLink): string {
  if (!isObject(schema)) return 'any';
  if (typeof schema.$ref === 'string') return ref(refName(schema.$ref));
  if ('const' in schema) return code(JSON.stringify(schema.const));
  if (Array.isArray(schema.enum)) return `one of ${schema.enum.map((v) => code(JSON.stringify(v))).join(', ')}`;
  const union = (schema.oneOf ?? schema.anyOf) as unknown;
  if (Array.isArray(union)) return union.map((s) => `${typeLabel(s, ref)}${datedLabel(s)}`).join(' or ');
  if (Array.isArray(schema.allOf)) return schema.allOf.map((s) => typeLabel(s, ref)).join(' and ');
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : typeof schema.type === 'string' ? [schema.type] : [];
  if (!types.length) return schema.properties ? 'object' : 'any';
  return types
    .map((type) => {
      if (type === 'array') return Array.isArray(schema.prefixItems) ? 'tuple' : `${typeLabel(schema.items, ref)}[]`;
      if (type === 'string' && typeof schema.format === 'string') return `string (${schema.format})`;
      return type;
    })
    .join(' or ');
}

/**
 * The description (a referenced named schema's when the property has none), then default and constraints.
 */
function describe(schema: JsonSchema, named: Record<string, JsonSchema>): string {
  let text = schema.description;
  if (text === undefined && typeof schema.$ref === 'string') text = named[refName(schema.$ref)]?.description;
  return [oneLine(typeof text === 'string' ? text : undefined), ...constraints(schema)].filter(Boolean).join(' ');
}

/** Sentences for the default and the bounds and pattern a value must meet. */
function constraints(schema: JsonSchema): string[] {
  const parts: string[] = [];
  if (schema.default !== undefined) parts.push(`Default: ${code(JSON.stringify(schema.default))}.`);
  parts.push(bounds(schema.minimum, schema.exclusiveMinimum, schema.maximum, schema.exclusiveMaximum, ''));
  parts.push(bounds(schema.minLength, undefined, schema.maxLength, undefined, ' characters'));
  parts.push(bounds(schema.minItems, undefined, schema.maxItems, undefined, ' items'));
  if (typeof schema.pattern === 'string') parts.push(`Pattern: ${code(schema.pattern)}.`);
  return parts.filter(Boolean);
}

/** "From 1 to 100 items.", "At least 1.", "More than 0, at most 1."; empty without bounds. */
function bounds(min: unknown, exclusiveMin: unknown, max: unknown, exclusiveMax: unknown, unit: string): string {
  const num = (v: unknown) => (typeof v === 'number' ? decimal(v) : undefined);
  const [lo, xlo, hi, xhi] = [num(min), num(exclusiveMin), num(max), num(exclusiveMax)];
  if (lo !== undefined && hi !== undefined) return `From ${lo} to ${hi}${unit}.`;
  const parts = [
    lo !== undefined ? `at least ${lo}` : xlo !== undefined ? `more than ${xlo}` : '',
    hi !== undefined ? `at most ${hi}` : xhi !== undefined ? `less than ${xhi}` : '',
  ].filter(Boolean);
  if (!parts.length) return '';
  const text = parts.join(', ') + unit;
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

function refName(ref: string): string {
  return ref.split('/').pop()!;
}
