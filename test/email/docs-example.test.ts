/**
 * The e-mail walkthrough (docs/faces/email.md) runs as printed (only the server's address differs): a template,
 * a templated message captured in test mode and read back as it would have been sent, and a hard bounce that
 * suppresses the next message to the same address.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runPageExample } from '../helpers/doc-examples.js';
import { startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.close());


it('runs the e-mail walkthrough as printed', async () => {
  const lines = await runPageExample('docs/faces/email.md', server);
  const [template, read, bounced, suppressed] = lines;
  expect(template.data).toMatchObject({ name: 'welcome', subject: 'Welcome, {{name}}' });
  expect(read.data).toMatchObject({ status: 'delivered', subject: 'Welcome, Ada', text: 'Hello Ada, your code is 4321.', html: '<p>Hello Ada, your code is <b>4321</b>.</p>' });
  expect(read.data.history.map((h: { status: string }) => h.status)).toEqual(['queued', 'sent', 'delivered']);
  expect([bounced.data.status, suppressed.data.status]).toEqual(['bounced', 'suppressed']);
});
