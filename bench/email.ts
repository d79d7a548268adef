/**
 * The email section: `email.send` per second in test mode, where a message is composed, stored, captured
 * and delivered in the call (its history, its events), with nothing sent; beside the pipeline row
 * (bench/beside-pipeline.ts).
 */
import { besidePipeline } from './beside-pipeline.js';

const send = {
  face: 'email',
  action: 'send',
  payload: { from: 'Acme <hello@acme.test>', to: ['ada@example.com'], subject: 'Your receipt', text: 'Thank you for your order.', html: '<p>Thank you for your order.</p>' },
};

export const email = () =>
  besidePipeline({
    section: 'email',
    title: 'E-mail: POST /do email.send (test mode: captured and delivered in the call)',
    unit: 'messages',
    call: send,
    check: (status, body) => {
      const message = body.data as { status?: string } | undefined;
      return message?.status === 'delivered' ? undefined : `a sample call answered ${status} with a message ${message?.status ?? 'missing'}, not delivered.`;
    },
  });
