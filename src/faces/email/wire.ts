/**
 * Rows of the email store in the wire shapes of faces/email.yaml: camelCase, JSON columns parsed, optional
 * fields only when set.
 */
import type { EmailMessage, EmailSuppression, EmailTemplate } from '../../../generated/server/types.js';
import type { EmailMessageTable, EmailSuppressionTable, EmailTemplateTable } from './tables.js';

const json = <K extends string, T>(key: K, value: string | null) => (value !== null ? ({ [key]: JSON.parse(value) as T } as Record<K, T>) : {});
const text = <K extends string>(key: K, value: string | null) => (value !== null ? ({ [key]: value } as Record<K, string>) : {});

/** The `Message-ID` header a message is sent with: stable, so a receiver can tell a resend from a new message. */
export const messageIdHeader = (id: string) => `<${id}@dispatch>`;

export function toMessage(row: EmailMessageTable): EmailMessage {
  const attachments = row.attachments !== null ? (JSON.parse(row.attachments) as { key: string; filename: string; contentType: string; size: number }[]) : undefined;
  return {
    id: row.id,
    status: row.status,
    from: row.from_address,
    to: JSON.parse(row.to_addresses) as string[],
    ...json('cc', row.cc_addresses),
    ...json('bcc', row.bcc_addresses),
    ...text('replyTo', row.reply_to),
    subject: row.subject,
    ...text('text', row.text_body),
    ...text('html', row.html_body),
    ...json('headers', row.headers),
    ...json('tags', row.tags),
    ...text('template', row.template),
    ...(attachments ? { attachments: attachments.map(({ key, filename, contentType, size }) => ({ key, filename, contentType, size })) } : {}),
    ...text('scheduledAt', row.scheduled_at),
    messageId: messageIdHeader(row.id),
    attempts: Number(row.attempts),
    ...text('lastError', row.last_error),
    history: JSON.parse(row.history) as EmailMessage['history'],
    createdAt: row.created_at,
  } as EmailMessage;
}

export function toTemplate(row: EmailTemplateTable): EmailTemplate {
  return { id: row.id, name: row.name, subject: row.subject, ...text('text', row.text_body), ...text('html', row.html_body), createdAt: row.created_at, updatedAt: row.updated_at };
}

export function toSuppression(row: EmailSuppressionTable): EmailSuppression {
  return { address: row.address, reason: row.reason, ...text('message', row.message_id), createdAt: row.created_at };
}
