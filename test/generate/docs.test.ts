/**
 * The generated docs of the shipped faces: the event catalogue lists every event type with the actions that
 * emit it and documents the body the worker really sends; face pages link their events; the index documents
 * batches, streams and webhooks; and every relative link of every page lands on a page and a heading.
 */
import { posix } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { slug } from '../../src/core/heading-slug.js';
import { actionLink } from '../../src/generate/docs-tables.js';
import { emitDocs } from '../../src/generate/emit-docs.js';
import { buildCatalog } from '../../src/spec/index.js';
import type { Catalog } from '../../src/spec/model.js';
import { eventBody, signatures } from '../../src/faces/webhooks/message.js';

const FACES = new URL('../../faces/', import.meta.url).pathname;
const FIXTURE = new URL('../fixtures/notes/faces/', import.meta.url).pathname;

function catalogOf(dir: string): Catalog {
  const { catalog, diagnostics } = buildCatalog(dir);
  expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return catalog!;
}

const catalog = catalogOf(FACES);
const docs = emitDocs(catalog);
const page = (path: string) => {
  const text = docs.get(`docs/${path}`);
  if (text === undefined) throw new Error(`no page ${path}`);
  return text;
};
const events = catalog.faces.flatMap((f) => f.events);

/** The text of a `##` section, up to the next heading of the same or a higher level. */
function section(text: string, heading: string): string {
  const level = /^#+/.exec(heading)![0].length;
  const start = text.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`no section "${heading}"`);
  const rest = text.slice(start + heading.length + 2);
  const end = rest.search(new RegExp(`^#{1,${level}} `, 'm'));
  return end < 0 ? rest : rest.slice(0, end);
}

/** Lines outside fenced code blocks. */
function prose(text: string): string[] {
  let fenced = false;
  return text.split('\n').filter((line) => {
    if (line.startsWith('```')) fenced = !fenced;
    return !fenced && !line.startsWith('```');
  });
}

/** The anchors of a page's headings, numbered on repeats as GitHub does. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of prose(text)) {
    const heading = /^#{1,6} (.+)$/.exec(line)?.[1];
    if (!heading) continue;
    const base = slug(heading);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  return out;
}

/** Every relative link of every page that does not land on a generated page and one of its headings. */
function deadLinks(pages: Map<string, string>): string[] {
  const dead: string[] = [];
  for (const [path, text] of pages) {
    for (const line of prose(text)) {
      for (const [, target] of line.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        const [file, anchor] = target!.split('#');
        const to = file ? posix.join(posix.dirname(path), file) : path;
        const linked = pages.get(to);
        if (linked === undefined || (anchor !== undefined && !anchors(linked).has(anchor))) dead.push(`${path}: ${target}`);
      }
    }
  }
  return dead;
}

describe('docs/events.md', () => {
  const text = page('events.md');

  it('lists every event type of the shipped faces, sorted, with the actions that emit it', () => {
    expect(events.length).toBeGreaterThan(0);
    const rows = section(text, '## Event types')
      .split('\n')
      .filter((line) => line.startsWith('| ['));
    const types = rows.map((row) => /^\| \[`([^`]+)`\]/.exec(row)![1]);
    expect(types).toEqual(events.map((e) => e.type).sort());
    for (const event of events) {
      const row = rows[types.indexOf(event.type)]!;
      expect(event.emittedBy.length, event.type).toBeGreaterThan(0);
      for (const id of event.emittedBy) expect(row, event.type).toContain(actionLink(id));
    }
    // Concrete cases from the face files.
    expect(rows.find((r) => r.includes('`auth.signup.succeeded`'))).toContain('[`auth.signup`](faces/auth.md#authsignup)');
    expect(rows.find((r) => r.includes('`webhooks.endpoint.ping`'))).toContain('[`webhooks.test`](faces/webhooks.md#webhookstest)');
  });

  it('has an entry per event type with its emitters and its data', () => {
    const reference = section(text, '## Event reference');
    for (const event of events) {
      const entry = section(reference, `### ${event.type}`);
      expect(entry).toContain(event.summary.trim());
      expect(entry).toContain(`- **Face:** [\`${event.face}\`](faces/${event.face}.md#events)`);
      expect(entry).toContain(`- **Emitted by:** ${event.emittedBy.map(actionLink).join(', ')}`);
      expect(entry).toContain('#### Data');
    }
    // Fields of the data, and named schemas linked to the face page that documents them.
    const completed = section(reference, '### ai.generate.completed');
    for (const field of ['`model`', '`tokens.input`', '`tokens.output`', '`streamed`']) expect(completed).toContain(field);
    expect(section(reference, '### keys.key.created')).toContain('Type: [Key](faces/keys.md#key).');
  });

  it('documents exactly the fields of the body the worker sends', () => {
    const body = JSON.parse(
      eventBody({
        id: 'evt_1',
        mode: 'test',
        entity_id: 'acme',
        type: 'auth.signup.succeeded',
        api_version: '2026-09-01',
        request_id: 'req_1',
        idempotency_key: null,
        data: '{}',
        created_at: '2026-09-01T12:00:00.000Z',
      }),
    ) as Record<string, unknown>;
    const sent = Object.entries(body).flatMap(([key, value]) =>
      key === 'request' ? Object.keys(value as object).map((k) => `request.${k}`) : [key],
    );
    const documented = section(text, '## Event body')
      .split('\n')
      .flatMap((line) => /^\| `([^`]+)` \|/.exec(line)?.[1] ?? []);
    expect(documented).toEqual(sent);
    // The example is a whole body of the first event type, as valid JSON.
    const example = JSON.parse(/```json\n([\s\S]*?)\n```/.exec(section(text, '## Event body'))![1]!) as Record<string, unknown>;
    expect(Object.keys(example)).toEqual(Object.keys(body));
    expect(example.type).toBe(events.map((e) => e.type).sort()[0]);
  });

  it('tells receivers the contract: headers, verification, schedules, Retry-After, 410, replays, URLs', () => {
    const receiving = section(text, '## Receiving webhooks');
    for (const header of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) expect(receiving).toContain(`| \`${header}\` |`);
    expect(receiving).toContain("import { Webhook } from 'standardwebhooks';");
    expect(receiving).toContain('new Webhook(secret)');
    expect(receiving).toContain('webhook.verify(rawBody, headers)');
    expect(receiving).toContain('live mode: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h (10 attempts in all)');
    expect(receiving).toContain('test mode: 5 s, 30 s (3 attempts in all)');
    expect(receiving).toContain('within 15 seconds');
    expect(receiving).toContain('`Retry-After`');
    expect(receiving).toContain('`410 Gone` disables the endpoint');
    expect(receiving).toContain('[`webhooks.replay`](faces/webhooks.md#webhooksreplay)');
    expect(receiving).toContain('Deduplicate on `webhook-id`');
    expect(receiving).toContain('Live-mode URLs must use `https`');
  });

  it('shows a verification that accepts what the worker signs, also during a secret rotation', () => {
    const secret = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
    const previous = `whsec_${Buffer.alloc(32, 2).toString('base64')}`;
    const rawBody = JSON.stringify({ id: 'evt_1', type: 'auth.signup.succeeded', data: {} });
    const at = new Date();
    const endpoint = { secret, previous_secret: previous, previous_secret_expires_at: new Date(Date.now() + 60_000).toISOString() };
    const headers = {
      'webhook-id': 'evt_1',
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signatures(endpoint, 'evt_1', at, rawBody),
    };
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    // The snippet of the page, with each secret in turn.
    for (const key of [secret, previous]) {
      const event = new Webhook(key).verify(rawBody, headers) as { id: string };
      expect(event.id).toBe('evt_1');
    }
  });
});

describe('face pages', () => {
  it('list their events, linked to the catalogue, and link each action\'s events', () => {
    for (const face of catalog.faces) {
      const text = page(`faces/${face.name}.md`);
      expect(text).toContain('[Events](../events.md)');
      if (!face.events.length) {
        expect(text).not.toContain('\n## Events\n');
        continue;
      }
      const listed = section(text, '## Events');
      for (const event of face.events) {
        expect(listed).toContain(`[\`${event.type}\`](../events.md#${slug(event.type)})`);
        // An action of another face links to its section on that face's page.
        for (const id of event.emittedBy) {
          const [owner] = id.split('.');
          expect(listed).toContain(`[\`${id}\`](${owner === face.name ? '' : `${owner}.md`}#${slug(id)})`);
        }
      }
      for (const action of face.actions.filter((a) => a.emits.length)) {
        const facts = section(text, `### ${action.id}`);
        const links = action.emits.map((type) => `[\`${type}\`](../events.md#${slug(type)})`).join(', ');
        expect(facts).toContain(`- **Events:** ${links}`);
      }
    }
  });

  it('document the built-in batch face as served by the runtime, with no handler module', () => {
    const batch = catalog.faces.find((f) => f.name === 'batch')!;
    expect(batch.builtin).toBe(true);
    const text = page('faces/batch.md');
    expect(text).toContain('- **Built in:** yes: served by the runtime itself');
    expect(text).not.toMatch(/handler/i);
    expect(text).toContain('- **Atomic batches:** no: batches do not nest');
    expect(page('faces/auth.md')).not.toContain('Built in');
  });

  it('show a stream-only action\'s example answer as the stream it is: start, its events, the result event', () => {
    const live = section(page('faces/usage.md'), '### usage.live');
    const example = catalog.faces.find((f) => f.name === 'usage')!.actions.find((a) => a.name === 'live')!.examples[0]!;
    const answer = /Response:\n\n```text\n([\s\S]*?)\n```/.exec(live)?.[1];
    const events = answer!.split('\n\n').map((block) => Object.fromEntries(block.split('\n').map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)])));
    expect(events.map((e) => [e.id, e.event])).toEqual([['1', 'start'], ['2', 'record'], ['3', 'result']]);
    // Every data line is one line of JSON, as docs/contract.md § Streaming has it; the record's made up from its schema.
    expect(Object.keys(JSON.parse(events[1]!.data!) as object)).toEqual(expect.arrayContaining(['requestId', 'face', 'action']));
    expect(JSON.parse(events[2]!.data!).data).toEqual(example.result);
    expect(section(page('faces/usage.md'), '### usage.summary')).toContain('Response:\n\n```json\n');
  });
});

describe('docs/index.md', () => {
  const text = page('index.md');

  it('links the event catalogue', () => {
    expect(text).toContain('- [Events](events.md): every event type');
    expect(section(text, '## Webhooks')).toContain('[Events](events.md)');
    expect(section(text, '## Webhooks')).toContain('[`webhooks`](faces/webhooks.md)');
  });

  it('documents batches: modes, results, atomic abort and its errors', () => {
    const batches = section(text, '## Batches');
    for (const term of ['`bestEffort`', '`atomic`', '`code: batch_aborted`', '`429 batch_aborted`', '`details.results`', '`succeeded`', '`failed`', '`notExecuted`']) {
      expect(batches).toContain(term);
    }
    expect(batches).toContain('`400 batch_too_large`');
    expect(batches).toContain('`400 atomic_not_supported`');
    expect(batches).toContain('One idempotency key covers the whole batch');
    expect(batches).toContain('rate-limited as a call of its own');
    expect(batches).toContain('[`ai.generate`](faces/ai.md#aigenerate)');
    // The abort example is the error body the runtime builds.
    const bodies = [...batches.matchAll(/```json\n([\s\S]*?)\n```/g)].map((m) => JSON.parse(m[1]!) as Record<string, any>);
    const abort = bodies.find((b) => b.error?.code === 'batch_aborted')!;
    expect(abort.error.type).toBe('batch_error');
    expect(abort.error.details.results.map((r: { outcome: string }) => r.outcome)).toEqual(['succeeded', 'failed', 'notExecuted']);
    expect(batches).toContain(`here \`${abort.error.details.results[1].status}\``);
    // The curl example is the batch face's own.
    expect(batches).toContain('"face": "batch"');
  });

  it('documents streams: how to ask, the event format, pings, the terminal event, replays', () => {
    const streams = section(text, '## Streams');
    expect(streams).toContain('`options.stream: true`');
    expect(streams).toContain('`Accept: text/event-stream`');
    expect(streams).toContain('`400 stream_not_supported`');
    for (const event of ['start', 'delta', 'progress', 'ping', 'result', 'error']) expect(streams).toContain(`| \`${event}\` |`);
    expect(streams).toContain('| `ping` | `{}` | Every 15 seconds');
    expect(streams).toContain('exactly one terminal event');
    expect(streams).toMatch(/```text\nid: 1\nevent: start\ndata: \{"requestId":"req_…","apiVersion":"\d{4}-\d{2}-\d{2}"\}\n\n/);
    expect(streams).toContain('disconnects');
    expect(streams).toContain('covers the whole stream');
    expect(streams).toContain('`start` and the stored terminal event');
    expect(text).not.toContain('## Idempotency, streams and batches');
  });
});

describe('prices', () => {
  it('show each action\'s price in the platform currency, as written, units linked to the index', () => {
    const units = (names: string[]) => names.map((u) => `[\`${u}\`](../index.md#prices-and-units)`);
    const [input, output] = units(['inputTokens', 'outputTokens']);
    expect(section(page('faces/ai.md'), '### ai.generate')).toContain(`- **Cost:** 0.0005 USD per call + 0.0000005 USD per ${input} + 0.000002 USD per ${output}\n`);
    expect(section(page('faces/auth.md'), '### auth.login')).toContain('- **Cost:** 0.0001 USD per call\n');
    expect(section(page('faces/keys.md'), '### keys.list')).toContain('- **Cost:** free\n');
  });

  it('list every declared unit in the index, with the actions that price it', () => {
    const prices = section(page('index.md'), '## Prices and units');
    expect(prices).toContain('in USD');
    for (const unit of catalog.platform.units) expect(prices).toContain(`| \`${unit.name}\` | ${unit.description} |`);
    expect(prices).toContain('| `outputTokens` | Tokens the model generated (ai.generate). | [`ai.generate`](faces/ai.md#aigenerate) |');
  });
});

describe('links', () => {
  it('the link check finds missing pages and missing headings', () => {
    const pages = new Map([
      ['docs/a.md', '# A\n\n## Part\n\n[ok](#part) [ok](faces/b.md#b) [page](c.md) [fenced](faces/b.md#not-a-heading) [web](https://x.example)'],
      ['docs/faces/b.md', '# B\n\n```\n# not a heading\n```\n\n[up](../a.md#part) [up](../a.md#nope)'],
    ]);
    expect(deadLinks(pages)).toEqual(['docs/a.md: c.md', 'docs/a.md: faces/b.md#not-a-heading', 'docs/faces/b.md: ../a.md#nope']);
  });

  it('every relative link of the shipped docs lands on a page and a heading', () => {
    expect(deadLinks(docs)).toEqual([]);
  });

  it('every relative link of the fixture docs lands on a page and a heading', () => {
    expect(deadLinks(emitDocs(catalogOf(FIXTURE)))).toEqual([]);
  });
});
