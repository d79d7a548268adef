/**
 * A webhook receiver for tests: a real HTTP server on 127.0.0.1 that records every delivery (headers, raw
 * body, arrival time) and answers as the test says, so deliveries can be verified with the reference
 * `standardwebhooks` verifier and retries observed as they happen.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Delivery {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
  /** `webhook-id`: the event id. */
  id: string;
}

/** How to answer one delivery: a status (with headers, after a delay), or `hold` to never answer. */
export type Answer = { status: number; headers?: Record<string, string>; delayMs?: number } | 'hold';

export interface Receiver {
  url: string;
  deliveries: Delivery[];
  /** Decides each answer; defaults to 200. */
  answer: (delivery: Delivery, index: number) => Answer;
  /** The deliveries of one event, in arrival order. */
  of(eventId: string): Delivery[];
  close(): Promise<void>;
}

export async function startReceiver(path = '/hooks'): Promise<Receiver> {
  const held: ServerResponse[] = [];
  const receiver: Receiver = {
    url: '',
    deliveries: [],
    answer: () => ({ status: 200 }),
    of: (eventId) => receiver.deliveries.filter((d) => d.id === eventId),
    close: async () => {
      for (const response of held) response.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      const delivery = { headers: request.headers, body, at: Date.now(), id: String(request.headers['webhook-id']) };
      receiver.deliveries.push(delivery);
      const answer = receiver.answer(delivery, receiver.deliveries.length - 1);
      if (answer === 'hold') return void held.push(response);
      setTimeout(() => response.writeHead(answer.status, answer.headers).end(), answer.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  return receiver;
}

/** The event a delivery carries, after checking its signature with the reference verifier. */
export function verified(delivery: Delivery, secret: string): any {
  const headers = {
    'webhook-id': String(delivery.headers['webhook-id']),
    'webhook-timestamp': String(delivery.headers['webhook-timestamp']),
    'webhook-signature': String(delivery.headers['webhook-signature']),
  };
  return new Webhook(secret).verify(delivery.body, headers);
}
