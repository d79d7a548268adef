/**
 * The `email` face (docs/contract.md § E-mail): send (and sendBatch), messages and their history, Handlebars templates,
 * suppression lists. Messages are composed and stored here (src/faces/email/compose.ts); test-mode ones are
 * captured at once unless scheduled, everything else goes through the queue of src/faces/email/worker.ts.
 */
import type { EmailHandlers, EmailMessage, EmailSendPayload } from '../../../generated/server/types.js';
import type { StorageService } from '../storage/service.js';
import { holdAttachments } from './attachments.js';
import { compose } from './compose.js';
import { capturedMoves } from './outcomes.js';
import { announceMail } from './signal.js';
import { movedInMemory, suppressFor, type EmailEvent } from './status.js';
import { checkTemplate } from './templates.js';
import { TemplateBudget } from './template-budget.js';
import { toMessage, toSuppression, toTemplate } from './wire.js';
import type { HandlerContext } from '../../core/context.js';
import { ApiError, meaningOf } from '../../core/errors.js';
import { listPage } from '../../core/list-page.js';
import * as store from './store.js';
import type { Mode } from '../../store/schema.js';
import { newId } from '../../store/secrets.js';
import { afterCommit } from '../../store/transaction.js';

type Ctx = HandlerContext<EmailEvent>;

const partition = (ctx: { mode: Mode; entityId: string }) => ({ mode: ctx.mode, entityId: ctx.entityId });

/**
 * Composes, stores and (test mode, unscheduled) captures one message; `base` is where its payload is, and
 * `budget` what its template may cost (a batch's messages share one).
 */
async function sendOne(ctx: Ctx, payload: EmailSendPayload, base: string, budget = new TemplateBudget()): Promise<EmailMessage> {
  if (ctx.mode === 'live' && !ctx.providers.email?.live) {
    throw new ApiError('provider_unavailable', 'No mail transport is configured for live sending: set SMTP_URL.');
  }
  const p = partition(ctx);
  const storage = ctx.service<StorageService>('storage');
  const { row, recipients, suppressed } = await compose(ctx.db, p, payload, base, budget, storage);
  ctx.reportUnits({ messages: 1, recipients: recipients.length });
  if (suppressed.length > 0) {
    // Sent to no one: one suppressed recipient would otherwise learn nothing, and the others would get a
    // message that names an address it was not sent to.
    const stopped = movedInMemory(row, [{ status: 'suppressed', detail: `On the suppression list: ${suppressed.join(', ')}.`, changes: { next_attempt_at: null } }]).row;
    await store.insertMessage(ctx.db, stopped);
    return toMessage(stopped);
  }
  if (ctx.mode === 'test' && row.scheduled_at === null) {
    // Captured in the call: moved on in memory and stored once as it ends (its attachments never wait in a queue).
    const moves = capturedMoves(recipients);
    const captured = movedInMemory(row, moves.map((move, i) => (i === 0 ? { ...move, changes: { attempts: 1, next_attempt_at: null } } : move)));
    await store.insertMessage(ctx.db, captured.row);
    for (const move of moves) await suppressFor(ctx.db, captured.row, move);
    for (const [type, data] of captured.events) ctx.emit(type, data as never);
    return toMessage(captured.row);
  }
  await store.insertMessage(ctx.db, row);
  await holdAttachments(ctx.db, row, storage);
  // The workers of this process look at once, once the message is committed; others find it at their poll.
  afterCommit(ctx.db, announceMail);
  return toMessage(row);
}

const notFound = (what: string, param: string) => new ApiError('resource_not_found', `No ${what}.`, { param });

export const handlers: EmailHandlers = {
  send: (payload, ctx) => sendOne(ctx, payload, '/payload'),

  async sendBatch(payload, ctx) {
    const results: Awaited<ReturnType<EmailHandlers['sendBatch']>>['results'] = [];
    // One call, one template budget: a batch may not render more than a single send could.
    const budget = new TemplateBudget();
    for (const [i, message] of payload.messages.entries()) {
      try {
        results.push({ message: await sendOne(ctx, message, `/payload/messages/${i}`, budget) });
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        // A code this catalogue does not declare goes on, to be answered as the fault it is.
        const meaning = meaningOf(error, ctx.catalogue.errors);
        if (!meaning || meaning.status >= 500) throw error;
        results.push({ error: { code: error.code, message: meaning.message, ...(error.param ? { param: error.param } : {}) } });
      }
    }
    return { results };
  },

  async get(payload, ctx) {
    const row = await store.getMessage(ctx.db, partition(ctx), payload.id);
    if (!row) throw notFound(`message ${payload.id}`, '/payload/id');
    return toMessage(row);
  },

  async list(payload, ctx) {
    const limit = payload.limit ?? 20;
    const filter = { ...(payload.status ? { status: payload.status } : {}), ...(payload.to ? { to: payload.to } : {}), ...(payload.startingAfter ? { startingAfter: payload.startingAfter } : {}) };
    return listPage(await store.listMessages(ctx.db, partition(ctx), limit, filter), limit, toMessage);
  },

  async createTemplate(payload, ctx) {
    checkTemplate({ subject: payload.subject, text: payload.text, html: payload.html });
    if (!payload.text && !payload.html) {
      throw new ApiError('payload_invalid', '/payload/text: a template needs text, html or both.', { param: '/payload/text' });
    }
    const now = new Date().toISOString();
    const row = {
      mode: ctx.mode,
      entity_id: ctx.entityId,
      id: newId('tmpl'),
      name: payload.name,
      subject: payload.subject,
      text_body: payload.text ?? null,
      html_body: payload.html ?? null,
      created_at: now,
      updated_at: now,
    };
    if (!(await store.insertTemplate(ctx.db, row))) throw new ApiError('template_name_taken', `A template named "${payload.name}" exists already.`, { param: '/payload/name' });
    return toTemplate(row);
  },

  async getTemplate(payload, ctx) {
    const row = await store.getTemplate(ctx.db, partition(ctx), payload.name);
    if (!row) throw notFound(`template named "${payload.name}"`, '/payload/name');
    return toTemplate(row);
  },

  async listTemplates(payload, ctx) {
    const limit = payload.limit ?? 20;
    return listPage(await store.listTemplates(ctx.db, partition(ctx), limit, payload.startingAfter), limit, toTemplate);
  },

  async updateTemplate(payload, ctx) {
    const stored = await store.getTemplate(ctx.db, partition(ctx), payload.name);
    if (!stored) throw notFound(`template named "${payload.name}"`, '/payload/name');
    // Checked whole, as a send will compile it, the parts it keeps first: a refusal names a part that changed.
    const kept = { subject: stored.subject, text: stored.text_body, html: stored.html_body };
    const parts = (['subject', 'text', 'html'] as const).map((field) => [field, payload[field] ?? kept[field]] as const);
    checkTemplate(Object.fromEntries([...parts.filter(([f]) => payload[f] === undefined), ...parts.filter(([f]) => payload[f] !== undefined)]));
    const changes = {
      ...(payload.subject !== undefined ? { subject: payload.subject } : {}),
      ...(payload.text !== undefined ? { text_body: payload.text } : {}),
      ...(payload.html !== undefined ? { html_body: payload.html } : {}),
    };
    if (!(await store.updateTemplate(ctx.db, partition(ctx), payload.name, changes))) throw notFound(`template named "${payload.name}"`, '/payload/name');
    return toTemplate((await store.getTemplate(ctx.db, partition(ctx), payload.name))!);
  },

  async deleteTemplate(payload, ctx) {
    if (!(await store.deleteTemplate(ctx.db, partition(ctx), payload.name))) throw notFound(`template named "${payload.name}"`, '/payload/name');
    return { name: payload.name, deleted: true };
  },

  async listSuppressions(payload, ctx) {
    const limit = payload.limit ?? 20;
    return listPage(await store.listSuppressions(ctx.db, partition(ctx), limit, payload.startingAfter?.toLowerCase()), limit, toSuppression);
  },

  async deleteSuppression(payload, ctx) {
    const address = payload.address.toLowerCase();
    if (!(await store.deleteSuppression(ctx.db, partition(ctx), address))) throw notFound(`suppression of ${address}`, '/payload/address');
    return { address, deleted: true };
  },
};
