/**
 * `generated/docs/`: the markdown reference of the API. Each page is a Handlebars template under
 * `templates/docs/` filled with a plain view model built here (the event catalogue's in docs-events.ts), so
 * the templates hold layout and prose only. Links are relative, so the pages read the same on a code host
 * and under the server's `/docs/`.
 */
import { memo } from '../memo/memo.js';
import { BATCH_ACTION } from '../core/dispatch-types.js';
import { slug } from '../core/heading-slug.js';
import type { Action, ApiVersion, Catalog, Face, FaceError, RatePolicy, Tier } from '../spec/model.js';
import { isZeroPrice } from '../spec/price.js';
import { actionErrorCodes, catalogErrors } from '../spec/action-errors.js';
import { STANDARD_ERRORS } from '../spec/standard-errors.js';
import { changes } from './docs-changes.js';
import { effectFact, toolFact } from './docs-effects.js';
import { eventsView } from './docs-events.js';
import { abortExample, exampleView } from './docs-examples.js';
import {
  actionLink,
  byString,
  code,
  EVENTS_PATH,
  eventLink,
  facePath,
  oneLine,
  schemaView,
  table,
  versionRange,
  type Fact,
  type TableView,
} from './docs-tables.js';
import { priceWords } from './price-words.js';
import { renderDoc } from './templates.js';

/** The heading of the index section that lists the units (templates/docs/index.md.hbs). */
const UNITS_ANCHOR = 'prices-and-units';

/** Every docs page, by path under `generated/`. */
export function emitDocs(catalog: Catalog): Map<string, string> {
  const files = new Map<string, string>();
  files.set('docs/index.md', renderDoc('index', indexView(catalog)));
  const { currency, latest } = catalog.platform;
  // A face's page depends on the face (whose events name their emitters), the currency and the newest version (its tools) alone.
  for (const face of catalog.faces) files.set(`docs/${facePath(face.name)}`, memo('doc-face', { face, currency, latest }, () => renderDoc('face', faceView(face, currency, latest))));
  files.set(`docs/${EVENTS_PATH}`, renderDoc('events', eventsView(catalog)));
  files.set('docs/scopes.md', renderDoc('scopes', scopesView(catalog)));
  files.set('docs/errors.md', renderDoc('errors', errorsView(catalog)));
  files.set('docs/versions.md', renderDoc('versions', versionsView(catalog)));
  return files;
}

function indexView(catalog: Catalog) {
  const { platform } = catalog;
  const statuses = [...new Set(STANDARD_ERRORS.map((e) => e.status))].sort((a, b) => a - b);
  return {
    latest: platform.latest,
    errorDocsUrl: platform.errorDocsUrl,
    limits: {
      bodyBytes: platform.limits.bodyBytes,
      batchSize: platform.limits.batchSize,
      timeoutDefault: platform.limits.timeout.default,
      timeoutMax: platform.limits.timeout.max,
    },
    faces: table(
      ['Face', 'Summary', 'Actions'],
      catalog.faces.map((f) => [`[${code(f.name)}](${facePath(f.name)})`, oneLine(f.summary), String(f.actions.length)]),
    ),
    versions: table(
      ['Version', 'Status', 'Summary'],
      [...platform.versions].reverse().map((v) => [`[${v.date}](versions.md#${slug(v.date)})`, v.status, oneLine(v.summary)]),
    ),
    tiers: tiersTable(platform.tiers),
    errors: statuses.map((status): Fact => {
      const errors = STANDARD_ERRORS.filter((e) => e.status === status).sort((a, b) => byString(a.code, b.code));
      const types = [...new Set(errors.map((e) => code(e.type)))].sort(byString);
      return {
        label: `${status} ${types.join(', ')}`,
        value: errors.map((e) => `[${code(e.code)}](errors.md#${slug(e.code)})`).join(', '),
      };
    }),
    scopeCount: platform.scopes.length,
    currency: platform.currency.toUpperCase(),
    units: unitsTable(catalog),
    example: indexExample(catalog),
    ...indexFeatures(catalog),
  };
}

/** The declared units with the actions that price each, or null when platform.yaml declares none. */
function unitsTable(catalog: Catalog): TableView | null {
  const { units } = catalog.platform;
  if (!units.length) return null;
  const actions = catalog.faces.flatMap((f) => f.actions);
  return table(
    ['Unit', 'Meaning', 'Priced by'],
    units.map((u) => [
      code(u.name),
      oneLine(u.description),
      actions.filter((a) => !isZeroPrice(a.cost.perUnit[u.name] ?? '0')).map((a) => actionLink(a.id)).join(', ') || 'none yet',
    ]),
  );
}

/** What the Batches, Streams and Webhooks sections name: the actions concerned, with links, and examples. */
function indexFeatures(catalog: Catalog) {
  const actions = catalog.faces.flatMap((f) => f.actions);
  const list = (ids: string[]) => ids.map(actionLink).join(', ') || 'none at present';
  const batch = actions.find((a) => a.id === BATCH_ACTION);
  const [example] = batch?.examples ?? [];
  const webhooks = catalog.faces.some((f) => f.name === 'webhooks');
  return {
    batchLink: batch ? actionLink(batch.id) : code(BATCH_ACTION),
    batchExample: batch && example ? exampleView(batch, example, 0) : null,
    abortExample: abortExample(catalog.platform.errorDocsUrl),
    nonAtomic: list(actions.filter((a) => !a.atomic).map((a) => a.id)),
    streaming: list(actions.filter((a) => a.stream).map((a) => a.id)),
    webhooksFace: webhooks ? `[${code('webhooks')}](${facePath('webhooks')})` : code('webhooks'),
  };
}

/** The first example of an action the latest version serves, to show a whole request and response. */
function indexExample(catalog: Catalog) {
  const { latest } = catalog.platform;
  for (const action of catalog.faces.flatMap((f) => f.actions)) {
    const [example] = action.examples;
    if (example && action.variants.some((v) => v.versions.includes(latest))) {
      return { action: code(action.id), ...exampleView(action, example, 0) };
    }
  }
  return null;
}

function faceView(face: Face, currency: string, latest: string) {
  const ref = (name: string) => (face.schemas.some((s) => s.name === name) ? `[${name}](#${slug(name)})` : name);
  const version = (date: string) => `[${date}](../versions.md#${slug(date)})`;
  const named = Object.fromEntries(face.schemas.map((s) => [s.name, s.schema]));
  const facts: Fact[] = [
    { label: 'Since', value: version(face.since) },
    { label: 'Face file', value: code(`faces/${face.file}`) },
  ];
  // A built-in face has no handler module: the runtime serves its actions itself.
  if (face.builtin) facts.push({ label: 'Built in', value: 'yes: served by the runtime itself' });
  if (Object.keys(face.rate).length) facts.push({ label: 'Rate limits', value: rates(face.rate) });
  return {
    name: face.name,
    summary: face.summary.trim(),
    description: face.description?.trim() ?? '',
    facts,
    actionIndex: table(
      ['Action', 'Summary', 'Scope'],
      face.actions.map((a) => [`[${code(a.id)}](#${slug(a.id)})`, oneLine(a.summary), code(a.scope)]),
    ),
    actions: face.actions.map((action) => ({
      heading: action.id,
      summary: action.summary.trim(),
      description: action.description?.trim() ?? '',
      facts: actionFacts(face, action, version, currency, latest),
      payload: schemaView(action.payload, ref, version, named),
      result: schemaView(action.result, ref, version, named),
      examples: action.examples.map((example, i) => exampleView(action, example, action.examples.length > 1 ? i + 1 : 0)),
    })),
    events: face.events.length
      ? table(
          ['Event', 'Summary', 'Emitted by'],
          face.events.map((e) => [
            eventLink(e.type, '../'),
            oneLine(e.summary),
            // An action of another face (billing's payInvoice sends payments events) is on that face's page.
            e.emittedBy.map((id) => (id.startsWith(`${face.name}.`) ? `[${code(id)}](#${slug(id)})` : `[${code(id)}](${id.split('.')[0]}.md#${slug(id)})`)).join(', ') ||
              'no action yet',
          ]),
        )
      : null,
    schemas: face.schemas.map(({ name, schema }) => ({
      name,
      description: typeof schema.description === 'string' ? schema.description.trim() : '',
      view: schemaView(schema, ref, version, named),
    })),
    errors: face.errors.length ? errorTable(face.errors, (c) => `../errors.md#${slug(c)}`) : null,
  };
}

function actionFacts(face: Face, action: Action, version: (date: string) => string, currency: string, latest: string): Fact[] {
  const served = action.variants.flatMap((v) => v.versions);
  const facts: Fact[] = [
    { label: 'Scope', value: `[${code(action.scope)}](../scopes.md)` },
    effectFact(action),
    { label: 'Versions', value: versionRange(action.since, action.until, version) },
    { label: 'Served in', value: served.length ? served.map(version).join(', ') : 'no version currently served' },
    {
      label: 'Streaming',
      value: action.streamOnly
        ? 'only: it answers as a stream alone (send `options.stream: true` or `Accept: text/event-stream`; a call without gets 400 `stream_required`)'
        : action.stream
          ? 'yes: send `options.stream: true` or `Accept: text/event-stream`'
          : 'no',
    },
    ...(action.streamEvents.length
      ? [{ label: 'Stream events', value: action.streamEvents.map((e) => `${code(e.name)}: ${oneLine(e.summary)}`).join('; ') }]
      : []),
    { label: 'Atomic batches', value: atomicity(action) },
    { label: 'Errors', value: errorsFact(face, action) },
    { label: 'Cost', value: priceWords(action.cost, currency, (unit) => `[${code(unit)}](../index.md#${UNITS_ANCHOR})`) },
  ];
  if (action.weight.perCall !== 1 || Object.keys(action.weight.perItem).length) facts.push({ label: 'Rate-limit weight', value: weight(action) });
  if (action.emits.length) facts.push({ label: 'Events', value: action.emits.map((type) => eventLink(type, '../')).join(', ') });
  if (Object.keys(action.rate).length) facts.push({ label: 'Rate limits', value: rates(action.rate) });
  facts.push(toolFact(face, action, latest));
  return facts;
}

/** The codes the action's handler answers, each linked to its entry, besides the pipeline's. */
function errorsFact(face: Face, action: Action): string {
  const platform = '[platform errors](../errors.md#platform-errors) of every call';
  const codes = actionErrorCodes(face, action).map((c) => `[${code(c)}](../errors.md#${slug(c)})`);
  return codes.length ? `${codes.join(', ')}, besides the ${platform}` : `the ${platform} alone`;
}

function atomicity(action: Action): string {
  if (action.id === BATCH_ACTION) return 'no: batches do not nest';
  return action.atomic ? 'yes' : 'no: it has effects outside the store, so an atomic batch refuses it';
}

function scopesView(catalog: Catalog) {
  const actions = new Set(catalog.faces.flatMap((f) => f.actions.map((a) => a.id)));
  const scopes = [...catalog.platform.scopes].sort((a, b) => byString(a.name, b.name));
  return {
    count: scopes.length,
    scopes: table(
      ['Scope', 'Description', 'Actions'],
      scopes.map((s) => [
        code(s.name),
        oneLine(s.description),
        [...s.actions]
          .sort(byString)
          .map((id) => (actions.has(id) ? actionLink(id) : code(id)))
          .join(', ') || 'none yet',
      ]),
    ),
  };
}

function errorsView(catalog: Catalog) {
  const byStatus = (a: FaceError, b: FaceError) => a.status - b.status || byString(a.code, b.code);
  const platform = [...STANDARD_ERRORS].sort(byStatus).map((e) => errorView(e, null));
  const faces = catalog.faces
    .flatMap((f) => f.errors.map((e) => ({ e, face: f.name })))
    .sort((a, b) => byStatus(a.e, b.e))
    .map(({ e, face }) => errorView(e, `[${code(face)}](${facePath(face)})`));
  const all = catalogErrors(catalog).sort(byStatus);
  return { errorDocsUrl: catalog.platform.errorDocsUrl, summary: errorTable(all, (c) => `#${slug(c)}`), platform, faces };
}

function errorView(error: FaceError, face: string | null) {
  return {
    code: error.code,
    status: error.status,
    type: error.type,
    message: oneLine(error.message),
    retry: error.retryable ? 'yes: the same request may succeed later' : 'no: change the request, the key or the setup first',
    face,
  };
}

function errorTable(errors: readonly FaceError[], href: (code: string) => string): TableView {
  return table(
    ['Code', 'Status', 'Type', 'Retry can succeed', 'Meaning'],
    errors.map((e) => [
      `[${code(e.code)}](${href(e.code)})`,
      String(e.status),
      code(e.type),
      e.retryable ? 'yes' : 'no',
      oneLine(e.message),
    ]),
  );
}

function versionsView(catalog: Catalog) {
  const { versions, latest } = catalog.platform;
  return {
    latest,
    versions: versions
      .map((version, i) => ({
        date: version.date,
        summary: oneLine(version.summary),
        facts: versionFacts(version, latest),
        changes: changes(catalog, version.date, versions[i - 1]?.date),
      }))
      .reverse(),
  };
}

function versionFacts(version: ApiVersion, latest: string): Fact[] {
  const facts: Fact[] = [{ label: 'Status', value: version.date === latest ? `${version.status} (newest)` : version.status }];
  // An announced version is served early to whoever names it; it is the default only from its date on.
  if (version.announced) facts.push({ label: 'Announced', value: version.announced }, { label: 'Takes effect', value: version.date });
  if (version.deprecatedAt) facts.push({ label: 'Deprecated', value: version.deprecatedAt });
  if (version.sunset) facts.push({ label: 'Sunset', value: version.sunset });
  return facts;
}

function weight(action: Action): string {
  const parts = [`${action.weight.perCall} per call`];
  for (const field of Object.keys(action.weight.perItem).sort(byString)) parts.push(`${action.weight.perItem[field]} per element of ${code(field)}`);
  return `${parts.join(' + ')}, at most the tightest policy's limit`;
}

function rates(policies: Record<string, RatePolicy>): string {
  return Object.keys(policies)
    .sort(byString)
    .map((tier) => `${code(tier)}: ${rate(policies[tier]!)}`)
    .join(', ');
}

const WINDOWS: Record<number, string> = { 1: 'second', 60: 'minute', 3600: 'hour', 86400: 'day' };

/** The tiers' rate limits, and their storage limits when a tier declares them. */
function tiersTable(tiers: readonly Tier[]): TableView {
  const sorted = [...tiers].sort((a, b) => byString(a.name, b.name));
  if (!sorted.some((t) => t.storage)) return table(['Tier', 'Per key', 'Per entity'], sorted.map((t) => [code(t.name), rate(t.token), rate(t.entity)]));
  const storage = (t: Tier, field: 'objectBytes' | 'storedBytes') => (t.storage ? byteSize(t.storage[field]) : 'no limit');
  return table(
    ['Tier', 'Per key', 'Per entity', 'Largest stored object', 'Storage per entity'],
    sorted.map((t) => [code(t.name), rate(t.token), rate(t.entity), storage(t, 'objectBytes'), storage(t, 'storedBytes')]),
  );
}

/** Bytes in the largest binary unit that divides them (`10485760` → `10 MiB`). */
function byteSize(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let unit = 0;
  let value = bytes;
  while (unit < units.length - 1 && value % 1024 === 0 && value >= 1024) {
    value /= 1024;
    unit++;
  }
  return `${value.toLocaleString('en-US')} ${units[unit]}`;
}

function rate(policy: RatePolicy): string {
  return `${policy.limit} per ${WINDOWS[policy.windowSeconds] ?? `${policy.windowSeconds} seconds`}`;
}
