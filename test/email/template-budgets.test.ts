/**
 * E-mail templates within their budgets (docs/faces/email.md § E-mail), over real HTTP: work a template repeats (nested
 * `each`, `@root`, sections, `with`, helpers inside loops, bodies that write nothing) is refused once it
 * passes the steps a call may run; what it writes, once it passes what a part or a call may hold; a batch
 * shares one budget; a template too large or too deeply nested is refused when made or changed. What the
 * data lacks is named in the project's words, never a JavaScript error's, and normal templates render as
 * Handlebars renders them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type Reply, type TestServer } from '../helpers/server.js';

describe('e-mail templates within their budgets', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server?.close());

  const mail = (action: string, payload: unknown) => server.post({ face: 'email', action, payload });
  const template = async (name: string, parts: Record<string, string>) => {
    const reply = await mail('createTemplate', { name, ...parts });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  };
  const message = (name: string, data: unknown) => ({ from: 'hello@acme.test', to: ['ada@example.com'], template: name, data });
  const send = (name: string, data: unknown) => mail('send', message(name, data));
  const refusal = (reply: Reply) => [reply.status, reply.body.error?.code, reply.body.error?.param, reply.body.error?.details?.budget, reply.body.error?.details?.limit];

  it('refuses work a template repeats once it passes the steps a call may run', async () => {
    const x = Array.from({ length: 200 }, (_, i) => i);
    const repeated = {
      each: '{{#each x}}{{#each @root.x}}{{#each @root.x}}{{@root.y}}{{/each}}{{/each}}{{/each}}',
      sections: '{{#x}}{{#@root.x}}{{#@root.x}}{{@root.y}}{{/@root.x}}{{/@root.x}}{{/x}}',
      silent: '{{#each x}}{{#each @root.x}}{{#each @root.x}}{{/each}}{{/each}}{{/each}}',
      helpers: '{{#each x}}{{#each @root.x}}{{#with @root}}{{#if y}}{{lookup this "y"}}{{else}}-{{/if}}{{/with}}{{#unless @root.y}}.{{/unless}}{{/each}}{{/each}}',
      falsy: '{{#each x}}{{#each @root.x}}{{#each @root.x}}{{#if @root.no}}{{/if}}{{/each}}{{/each}}{{/each}}',
    };
    for (const [name, html] of Object.entries(repeated)) {
      await template(`repeated-${name}`, { subject: 'Hi', html });
      const reply = await send(`repeated-${name}`, { x, y: 'z', no: false });
      expect(refusal(reply), name).toEqual([400, 'template_budget_exceeded', '/payload/data', 'steps', 500_000]);
      expect(reply.body.error.details.part).toBe('html');
    }
  });

  it('refuses what a part or a call writes past what it may hold', async () => {
    await template('long-subject', { subject: '{{#each x}}{{@root.y}}{{/each}}', text: 'Hi' });
    const subject = await send('long-subject', { x: Array.from({ length: 1000 }, (_, i) => i), y: 'y' });
    expect(refusal(subject)).toEqual([400, 'template_budget_exceeded', '/payload/data', 'length', 998]);

    await template('long-text', { subject: 'Hi', text: '{{#each x}}{{@root.big}}{{/each}}' });
    const data = (n: number) => ({ x: Array.from({ length: n }, (_, i) => i), big: 'b'.repeat(10_000) });
    expect(refusal(await send('long-text', data(101)))).toEqual([400, 'template_budget_exceeded', '/payload/data', 'length', 1_000_000]);
    expect((await send('long-text', data(100))).status).toBe(200);

    // Messages of 1,000,002 characters: the fourth takes the call past its 4,000,000, and nothing more is written.
    const { results } = (await mail('sendBatch', { messages: Array.from({ length: 5 }, () => message('long-text', data(100))) })).body.data;
    expect(results.map((r: any) => r.message?.status ?? r.error.code)).toEqual([...Array(3).fill('delivered'), 'template_budget_exceeded', 'template_budget_exceeded']);
    expect([results[3].error.param, results[3].error.message]).toEqual(['/payload/messages/3/data', expect.stringContaining('4000000 characters')]);
  });

  it('shares one budget among the messages of a batch', async () => {
    await template('squares', { subject: 'Hi', text: '{{#each x}}{{#each @root.x}}{{/each}}{{/each}}done' });
    const data = { x: Array.from({ length: 600 }, (_, i) => i) };
    expect((await send('squares', data)).body.data.text).toBe('done');
    const { results } = (await mail('sendBatch', { messages: [message('squares', data), message('squares', data)] })).body.data;
    expect(results.map((r: any) => r.message?.status ?? r.error.code)).toEqual(['delivered', 'template_budget_exceeded']);
    expect(results[1].error.message).toContain('500000 steps');
  });

  it('refuses a template too large or too deeply nested when it is made or changed', async () => {
    const create = (name: string, parts: Record<string, string>) => mail('createTemplate', { name, subject: 'Hi', ...parts });
    // `{{a}}` is three tokens.
    expect(refusal(await create('large', { text: '{{a}}'.repeat(1001) }))).toEqual([400, 'template_budget_exceeded', '/payload/text', 'tokens', 3000]);
    // Its parts together: each fits, not all three.
    expect(refusal(await create('parts', { text: '{{a}}'.repeat(600), html: '{{a}}'.repeat(600) }))).toEqual([400, 'template_budget_exceeded', '/payload/html', 'tokens', 3000]);
    await template('grows', { subject: 'Hi', text: '{{a}}'.repeat(900) });
    expect(refusal(await mail('updateTemplate', { name: 'grows', html: '{{a}}'.repeat(200) }))).toEqual([400, 'template_budget_exceeded', '/payload/html', 'tokens', 3000]);

    const deep = {
      blocks: '{{#if a}}'.repeat(33) + 'x' + '{{/if}}'.repeat(33),
      chain: '{{#if a}}' + '{{else if a}}'.repeat(33) + '{{/if}}',
      parentheses: '{{lookup ' + '(lookup '.repeat(33) + 'a "b"' + ')'.repeat(33) + ' "c"}}',
      path: `{{${'a.'.repeat(33)}b}}`,
    };
    for (const [name, text] of Object.entries(deep)) {
      expect(refusal(await create(`deep-${name}`, { text })), name).toEqual([400, 'template_budget_exceeded', '/payload/text', 'depth', 32]);
    }
    await template('deep-enough', { subject: 'Hi', text: '{{#if a}}'.repeat(31) + '{{b}}' + '{{/if}}'.repeat(31) });
    expect((await send('deep-enough', { a: true, b: 'in' })).body.data.text).toBe('in');
  });

  it('names what the data lacks in its own words, never a JavaScript error', async () => {
    await template('paths', { subject: 'Hi', text: 'Hello {{user.name}}' });
    await template('texts', { subject: 'Hi', text: 'Hello {{name.first}}' });
    await template('items', { subject: 'Hi', text: '{{#each items}}{{title}}{{/each}}' });
    await template('conditions', { subject: 'Hi', text: '{{#if order.total}}paid{{/if}}' });
    const cases: [string, unknown, string][] = [
      ['paths', {}, '"user.name" cannot be read at line 1, column 9: "user" is missing'],
      ['texts', { name: 'Ada' }, '"name.first" cannot be read at line 1, column 9: "name" is a text'],
      ['items', { items: [null] }, '"title" cannot be read at line 1, column 18: the current value is null'],
      ['conditions', { order: null }, '"order.total" cannot be read at line 1, column 7: "order" is null'],
      ['paths', { user: {} }, '"user.name" is not in the data at line 1, column 9'],
    ];
    for (const [name, data, said] of cases) {
      const reply = await send(name, data);
      expect([reply.status, reply.body.error.code, reply.body.error.param], name).toEqual([400, 'payload_invalid', '/payload/data']);
      expect(reply.body.error.message).toBe(`/payload/data: ${said}.`);
    }
    // An object of the data is written as text, in html too, rather than asked for an HTML form of its own.
    await template('objects', { subject: 'Hi', html: '<p>{{x}}</p>' });
    expect((await send('objects', { x: { toHTML: 'no' } })).body.data.html).toBe('<p>[object Object]</p>');
    // Handlebars' own helpers called with the wrong number of arguments never reach a send.
    const wrong = await mail('createTemplate', { name: 'wrong', subject: 'Hi', text: '{{lookup a "b" "c"}}' });
    expect([wrong.status, wrong.body.error.code, wrong.body.error.message]).toEqual([400, 'template_invalid', '/payload/text: lookup takes 2 arguments, not 3 (line 1, column 1)']);
  });

  it('renders normal templates as Handlebars does', async () => {
    await template('receipt', {
      subject: 'Receipt {{order.id}} for {{name}}',
      text: '{{#each order.items as |item|}}{{@index}}. {{item.name}} x{{item.qty}}{{#if @last}}.{{else}},{{/if}} {{/each}}{{#unless order.paid}}unpaid{{/unless}}{{#with order}} total {{total}}{{/with}} {{lookup labels "en"}}{{#tags}}[{{this}}]{{/tags}}{{^none}} none{{/none}}\n  {{~#if name}}  ok  {{~/if~}}  !',
      html: '<p>{{name}} {{{raw}}} {{order.total}}</p>',
    });
    const data = { name: 'Ada & <Bob>', raw: '<b>', labels: { en: 'Thanks' }, tags: ['a', 'b'], none: [], order: { id: 7, paid: false, total: 12.5, items: [{ name: 'tea', qty: 2 }, { name: 'cake', qty: 1 }] } };
    expect(await send('receipt', data).then((r) => r.body.data)).toMatchObject({
      subject: 'Receipt 7 for Ada & <Bob>',
      text: '0. tea x2, 1. cake x1. unpaid total 12.5 Thanks[a][b] none  ok!',
      html: '<p>Ada &amp; &lt;Bob&gt; <b> 12.5</p>',
    });
    // Values are joined as text, never added: 1 and 2 make "12".
    await template('numbers', { subject: '{{a}}{{b}}', text: '{{a}}{{b}}' });
    expect(await send('numbers', { a: 1, b: 2 }).then((r) => [r.body.data.subject, r.body.data.text])).toEqual(['12', '12']);
  });
});
