/**
 * A `send` payload made into a stored message: addresses checked one by one at their field, a template
 * rendered with its data, suppressed recipients found, attachments resolved from storage objects (10 MiB
 * together at most), and the time it may go. Nothing is sent here; see queue.ts and outcomes.ts.
 */
import type { EmailSendPayload } from '../../../generated/server/types.js';
import { ApiError, invalidField } from '../../core/errors.js';
import type { Partition } from '../../store/partition.js';
import { getTemplate, suppressedAmong } from './store.js';
import type { StorageService } from '../storage/service.js';
import type { Db } from '../../store/schema.js';
import type { EmailMessageTable } from './tables.js';
import { newId } from '../../store/secrets.js';
import { addressOf } from './addresses.js';
import type { KeptAttachment } from './attachments.js';
import { withEntry } from './status.js';
import type { TemplateBudget } from './template-budget.js';
import { renderTemplate } from './templates.js';

/** Headers the message's own fields make: set through them, never as extra headers. */
const RESERVED_HEADERS = new Set(['from', 'to', 'cc', 'bcc', 'reply-to', 'subject', 'date', 'message-id', 'mime-version', 'content-type', 'content-transfer-encoding', 'sender', 'return-path']);

/** Extra header names: printable ASCII without a colon (RFC 5322 field names), none the message makes itself. */
function checkHeaders(headers: Record<string, string>, param: string): void {
  for (const name of Object.keys(headers)) {
    if (!/^[!-9;-~]+$/.test(name)) throw invalid(`${param}/${name}`, 'a header name is printable ASCII without spaces or a colon');
    if (RESERVED_HEADERS.has(name.toLowerCase())) throw invalid(`${param}/${name}`, `${name} is set by the message's own fields`);
  }
}

/** How far ahead `scheduledAt` may be (Resend's limit is 30 days too). */
const MAX_SCHEDULE_MS = 30 * 86_400_000;
/** The most a message's attachments may come to together, before encoding (Resend and SES allow 40 and 10 MB). */
export const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;

export interface Composed {
  row: EmailMessageTable;
  attachments: KeptAttachment[];
  /** Every recipient, lower case: to, cc and bcc. */
  recipients: string[];
  /** Those on the suppression list. */
  suppressed: string[];
}

const invalid = (param: string, message: string) => invalidField(param, message, 'email');

/**
 * `base` is where the payload is (`/payload`, or `/payload/messages/3` in a batch); a template is rendered
 * within `budget`, the call's.
 */
export async function compose(
  db: Db,
  p: Partition,
  payload: EmailSendPayload,
  base: string,
  budget: TemplateBudget,
  storage: StorageService | undefined,
  now = Date.now(),
): Promise<Composed> {
  addressOf(payload.from, `${base}/from`);
  if (payload.replyTo !== undefined) addressOf(payload.replyTo, `${base}/replyTo`);
  const recipients = (['to', 'cc', 'bcc'] as const).flatMap((field) => (payload[field] ?? []).map((mailbox, i) => addressOf(mailbox, `${base}/${field}/${i}`)));

  let content: { subject: string; text?: string; html?: string };
  if (payload.template !== undefined) {
    if (payload.subject !== undefined || payload.text !== undefined || payload.html !== undefined) {
      throw invalid(`${base}/template`, 'give either a template or subject, text and html, not both');
    }
    const template = await getTemplate(db, p, payload.template);
    if (!template) throw new ApiError('resource_not_found', `No template named "${payload.template}".`, { param: `${base}/template` });
    content = renderTemplate({ name: template.name, subject: template.subject, text: template.text_body, html: template.html_body }, payload.data ?? {}, base, budget);
  } else {
    if (payload.data !== undefined) throw invalid(`${base}/data`, 'data goes with a template');
    if (payload.subject === undefined) throw invalid(`${base}/subject`, 'a message without a template needs a subject');
    if (payload.text === undefined && payload.html === undefined) throw invalid(`${base}/text`, 'a message needs text, html or both');
    content = { subject: payload.subject, ...(payload.text !== undefined ? { text: payload.text } : {}), ...(payload.html !== undefined ? { html: payload.html } : {}) };
  }

  let sendAt = now;
  if (payload.scheduledAt !== undefined) {
    sendAt = Date.parse(payload.scheduledAt);
    // The schema's date-time admits a leap second (…:60), which no clock here can name.
    if (Number.isNaN(sendAt)) throw invalid(`${base}/scheduledAt`, 'is not a time this server can schedule');
    if (sendAt > now + MAX_SCHEDULE_MS) throw invalid(`${base}/scheduledAt`, 'must be at most 30 days ahead');
  }
  checkHeaders(payload.headers ?? {}, `${base}/headers`);
  const suppressed = await suppressedAmong(db, p, [...new Set(recipients)]);
  const attachments = await attachmentsOf(db, p, payload.attachments ?? [], `${base}/attachments`, storage);
  const at = new Date(now).toISOString();
  const row: EmailMessageTable = {
    mode: p.mode,
    entity_id: p.entityId,
    id: newId('em', now),
    status: 'queued',
    from_address: payload.from,
    to_addresses: JSON.stringify(payload.to),
    cc_addresses: payload.cc ? JSON.stringify(payload.cc) : null,
    bcc_addresses: payload.bcc ? JSON.stringify(payload.bcc) : null,
    reply_to: payload.replyTo ?? null,
    subject: content.subject,
    text_body: content.text ?? null,
    html_body: content.html ?? null,
    headers: payload.headers ? JSON.stringify(payload.headers) : null,
    tags: payload.tags ? JSON.stringify(payload.tags) : null,
    template: payload.template ?? null,
    attachments: attachments.length > 0 ? JSON.stringify(attachments) : null,
    scheduled_at: payload.scheduledAt !== undefined ? new Date(sendAt).toISOString() : null,
    next_attempt_at: new Date(Math.max(sendAt, now)).toISOString(),
    leased_until: null,
    attempts: 0,
    last_error: null,
    history: withEntry('[]', { status: 'queued', at }),
    created_at: at,
    updated_at: at,
  };
  return { row, attachments, recipients, suppressed };
}

/**
 * The storage objects to attach, as they are now: a later change or deletion of an object does not change a
 * message already queued, whose content is held by its SHA-256 (see holdAttachments).
 */
async function attachmentsOf(
  db: Db,
  p: Partition,
  given: readonly { key: string; filename?: string }[],
  param: string,
  storage: StorageService | undefined,
): Promise<KeptAttachment[]> {
  const kept: KeptAttachment[] = [];
  if (given.length > 0 && !storage) throw new ApiError('provider_unavailable', 'Attachments are storage objects, and this server serves no storage.', { param });
  for (const [i, attachment] of given.entries()) {
    const object = await storage!.object(db, p, attachment.key, `${param}/${i}/key`);
    if (!object) throw new ApiError('resource_not_found', `No storage object under the key "${attachment.key}".`, { param: `${param}/${i}/key` });
    const filename = attachment.filename ?? object.key.split('/').at(-1)!;
    kept.push({ key: object.key, filename, contentType: object.contentType, size: object.size, sha256: object.sha256, md5: object.md5 });
  }
  const total = kept.reduce((sum, a) => sum + a.size, 0);
  if (total > MAX_ATTACHMENT_BYTES) {
    throw new ApiError('attachments_too_large', `The attachments come to ${total} bytes; a message may carry ${MAX_ATTACHMENT_BYTES}.`, { param, details: { size: total, limit: MAX_ATTACHMENT_BYTES } });
  }
  return kept;
}
