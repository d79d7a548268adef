/**
 * Live sending over SMTP with nodemailer (`SMTP_URL`, e.g. `smtp://user:pass@mail.example.com:587` or
 * `smtps://…:465`). One send is one SMTP transaction; its answer becomes the message's next status: accepted
 * is `sent`; a 4xx reply, a connection failure or refused credentials is `deferred` (tried again); a 5xx reply
 * is `bounced`. Only recipients refused with a 5xx at RCPT TO are suppressed: a refusal of the sender or of the
 * content says nothing about their addresses.
 */
import type { Transporter } from 'nodemailer';
import { log } from '../core/log.js';

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

/**
 * A send's outcome in the server's words: accepted (`sent`), refused for now (`retry`, a deferral the mail queue
 * schedules) or for good (`bounced`); `suppress` names the recipients refused for good.
 */
export type SentOrNot =
  | { kind: 'sent'; detail: string; suppress?: string[] }
  | { kind: 'retry'; detail: string }
  | { kind: 'bounced'; detail: string; suppress?: string[] };

interface SmtpError extends Error {
  responseCode?: number;
  response?: string;
  code?: string;
  command?: string;
  recipient?: string;
  rejectedErrors?: SmtpError[];
}

/** The recipients a server refused for good at RCPT TO (5xx): the only addresses a reply says are bad. */
function refusedForGood(errors: readonly SmtpError[] | undefined): string[] {
  return (errors ?? []).filter((e) => (e.responseCode ?? 0) >= 500 && e.recipient).map((e) => e.recipient!.toLowerCase());
}

export function smtpTransport(url: string, options: { timeoutMs?: number } = {}): MailTransport {
  const timeout = options.timeoutMs ?? 30_000;
  // Time-outs on every stage, so that a server that stops answering defers the message within its lease.
  // nodemailer is loaded on the first message, so that a server that sends none starts without it.
  let transport: Promise<Transporter> | undefined;
  const transporter = () =>
    (transport ??= import('nodemailer').then(({ createTransport }) => createTransport({ url, connectionTimeout: timeout, greetingTimeout: timeout, socketTimeout: timeout })));
  return {
    timeoutMs: timeout,
    async send(message) {
      try {
        const info = await (await transporter()).sendMail(message);
        const refused = refusedForGood(info.rejectedErrors as SmtpError[] | undefined);
        // Recipients refused for now (4xx) among accepted ones are named, not retried: the others have the message.
        const later = ((info.rejectedErrors ?? []) as SmtpError[]).filter((e) => (e.responseCode ?? 0) < 500).map((e) => e.recipient);
        const detail = [info.response ?? 'accepted', ...(later.length ? [`not accepted for now: ${later.join(', ')}`] : [])].join('; ');
        return { kind: 'sent', detail, ...(refused.length ? { suppress: refused } : {}) };
      } catch (error) {
        const e = error as SmtpError;
        const detail = e.response ?? e.message;
        const code = e.responseCode ?? 0;
        if (e.command === 'RCPT TO' || e.rejectedErrors?.length) {
          // Every recipient refused: for good when every refusal is a 5xx (their addresses are bad), else later.
          const refused = refusedForGood(e.rejectedErrors);
          const all = e.rejectedErrors?.length ? e.rejectedErrors.every((r) => (r.responseCode ?? 0) >= 500) : code >= 500;
          if (all) return { kind: 'bounced', detail, ...(refused.length ? { suppress: refused } : {}) };
          return { kind: 'retry', detail };
        }
        // A refused login is this server's configuration, not the message's: it waits for the fix.
        if (e.code === 'EAUTH') {
          log.error({ detail }, 'e-mail: the SMTP server refused the credentials of SMTP_URL; messages wait');
          return { kind: 'retry', detail };
        }
        // Refused for good at MAIL FROM or DATA (the sender, the content): a bounce, but the recipients are not at fault.
        if (code >= 500) return { kind: 'bounced', detail };
        return { kind: 'retry', detail };
      }
    },
    close: () => void transport?.then((opened) => opened.close()),
  };
}
