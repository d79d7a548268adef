/**
 * A stored message as nodemailer sends it: the rendered parts, the stable Message-ID, and its attachments'
 * bytes read from storage at the time of sending.
 */
import type { StorageService } from '../storage/service.js';
import type { EmailMessageTable } from './tables.js';
import { attachmentContents } from './attachments.js';
import { storedAddresses } from './addresses.js';
import type { OutgoingMessage } from '../../providers/smtp.js';
import { messageIdHeader } from './wire.js';

const list = (json: string | null) => (json !== null ? (JSON.parse(json) as string[]) : []);

/** Every recipient of a message, lower case: to, cc and bcc. */
export function recipientsOf(row: EmailMessageTable): string[] {
  return [...list(row.to_addresses), ...list(row.cc_addresses), ...list(row.bcc_addresses)].flatMap(storedAddresses);
}

export async function outgoing(row: EmailMessageTable, storage: StorageService | undefined): Promise<OutgoingMessage> {
  const attachments = await attachmentContents(storage, row);
  return {
    from: row.from_address,
    to: list(row.to_addresses),
    ...(row.cc_addresses !== null ? { cc: list(row.cc_addresses) } : {}),
    ...(row.bcc_addresses !== null ? { bcc: list(row.bcc_addresses) } : {}),
    ...(row.reply_to !== null ? { replyTo: row.reply_to } : {}),
    subject: row.subject,
    ...(row.text_body !== null ? { text: row.text_body } : {}),
    ...(row.html_body !== null ? { html: row.html_body } : {}),
    ...(row.headers !== null ? { headers: JSON.parse(row.headers) as Record<string, string> } : {}),
    messageId: messageIdHeader(row.id),
    ...(attachments.length > 0 ? { attachments } : {}),
  };
}
