/**
 * Live sending over SMTP with nodemailer (`SMTP_URL`, e.g. `smtp://user:pass@mail.example.com:587` or
 * `smtps://…:465`). One send is one SMTP transaction; its answer becomes the message's next status: accepted
 * is `sent` (recipients refused with a 5xx among others are suppressed), a 4xx reply or a connection failure
 * is `deferred` (tried again), a 5xx reply is `bounced` and suppresses the recipients it names.
 */
import { createTransport } from 'nodemailer';
import type { Move } from './status.js';

export interface OutgoingMessage {
  from: string;
  to: string[];
  cc?: string[];
  bcc?: string[];
  replyTo?: string;
  subject: string;
  text?: string;
  html?: string;
  headers?: Record<string, string>;
  messageId: string;
  attachments?: { filename: string; contentType: string; content: Buffer }[];
}

/** What a live send does; `close` ends its pooled connections. */
export interface MailTransport {
  /** The longest any stage of one send may wait (connect, greeting, each reply). */
  readonly timeoutMs: number;
  send(message: OutgoingMessage): Promise<SentOrNot>;
  close(): void;
}

/** A send's outcome, before it is a status move: `retry` is a deferral, which the queue schedules. */
export type SentOrNot = { kind: 'sent'; move: Move } | { kind: 'retry'; detail: string } | { kind: 'bounced'; move: Move };

interface SmtpError extends Error {
  responseCode?: number;
  response?: string;
  rejected?: string[];
  code?: string;
}

const lower = (addresses: readonly unknown[] | undefined) => (addresses ?? []).map((a) => String(typeof a === 'object' && a !== null && 'address' in a ? a.address : a).toLowerCase());

export function smtpTransport(url: string, options: { timeoutMs?: number } = {}): MailTransport {
  const timeout = options.timeoutMs ?? 30_000;
  const transport = createTransport(url, {});
  // Time-outs on every stage, so that a server that stops answering defers the message instead of holding its lease.
  Object.assign(transport.options as object, { connectionTimeout: timeout, greetingTimeout: timeout, socketTimeout: timeout });
  return {
    timeoutMs: timeout,
    async send(message) {
      try {
        const info = await transport.sendMail(message);
        const refused = lower(info.rejected);
        const detail = info.response ?? 'accepted';
        return { kind: 'sent', move: { status: 'sent', detail, ...(refused.length ? { suppress: refused } : {}) } };
      } catch (error) {
        const e = error as SmtpError;
        const detail = e.response ?? e.message;
        if (e.responseCode !== undefined && e.responseCode >= 500) {
          const named = lower(e.rejected);
          const all = lower([...message.to, ...(message.cc ?? []), ...(message.bcc ?? [])].map((m) => /<([^>]+)>/.exec(m)?.[1] ?? m));
          return { kind: 'bounced', move: { status: 'bounced', detail, suppress: named.length ? named : all } };
        }
        return { kind: 'retry', detail };
      }
    },
    close: () => transport.close(),
  };
}
