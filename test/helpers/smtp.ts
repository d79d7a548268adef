/**
 * A real SMTP server for mail tests (smtp-server, in process, on a free port), which parses what arrives with
 * mailparser, and can refuse a recipient at RCPT TO or the next messages at DATA with a chosen reply (a 4xx
 * deferral, a 5xx bounce).
 */
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';

export interface TestSmtp {
  url: string;
  port: number;
  /** The messages accepted so far, parsed, with the envelope they came with. */
  received: { mail: ParsedMail; envelope: { from: string; to: string[] } }[];
  /** Answers the next `count` messages' DATA with `code message` instead of accepting them. */
  refuseNext(count: number, code: number, message: string): void;
  /** Answers RCPT TO for `address` with `code message`, every time. */
  refuseRecipient(address: string, code: number, message: string): void;
  close(): Promise<void>;
}

export async function startSmtp(port = 0): Promise<TestSmtp> {
  const received: TestSmtp['received'] = [];
  const refusals: { code: number; message: string }[] = [];
  const refusedRecipients = new Map<string, { code: number; message: string }>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      const refusal = refusedRecipients.get(address.address.toLowerCase());
      if (refusal) callback(Object.assign(new Error(refusal.message), { responseCode: refusal.code }));
      else callback();
    },
    onData(stream, session, callback) {
      const refusal = refusals.shift();
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (refusal) {
          const error = Object.assign(new Error(refusal.message), { responseCode: refusal.code });
          callback(error);
          return;
        }
        simpleParser(Buffer.concat(chunks)).then(
          (mail) => {
            const envelope = { from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address) };
            received.push({ mail, envelope });
            callback();
          },
          (error: Error) => callback(error),
        );
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const actual = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${actual}`,
    port: actual,
    received,
    refuseNext: (count, code, message) => {
      for (let i = 0; i < count; i++) refusals.push({ code, message });
    },
    refuseRecipient: (address, code, message) => refusedRecipients.set(address.toLowerCase(), { code, message }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
