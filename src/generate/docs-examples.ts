/**
 * The examples of the docs pages: an action's call with curl and its answer (its JSON envelope, or the
 * events of a stream-only action), and the error body of an atomic batch that failed.
 */
import type { Action, Example } from '../spec/model.js';
import { STANDARD_ERRORS } from '../spec/standard-errors.js';
import { sampleValue } from './docs-events.js';
import { exampleOptions } from './example-options.js';
import { oneLine } from './docs-tables.js';

/**
 * A curl call and its response. The call pins the newest version serving the action, in which the
 * example holds. `number` tells untitled examples apart when an action has several; 0 when it has one.
 */
export function exampleView(action: Action, example: Example, number: number) {
  const version = action.variants.at(-1)?.versions.at(-1);
  const body = JSON.stringify({ face: action.face, action: action.name, payload: example.payload, ...exampleOptions(action) }, null, 2);
  const request = [
    'curl http://localhost:8787/do \\',
    `  -H "Authorization: Bearer $API_KEY" \\`,
    `  -H 'X-Entity-ID: acme' \\`,
    ...(version ? [`  -H 'X-API-Version: ${version}' \\`] : []),
    ...(action.streamOnly ? [`  -H 'Accept: text/event-stream' \\`] : []),
    `  -H 'Content-Type: application/json' \\`,
    `  --data @- <<'JSON'`,
    body,
    'JSON',
  ].join('\n');
  const meta = { timing: 12.5, requestId: 'req_…', version: '…' };
  return {
    heading: ['Example', number ? ` ${number}` : '', example.title ? `: ${oneLine(example.title)}` : ''].join(''),
    request,
    ...(action.streamOnly
      ? { responseLanguage: 'text', response: streamResponse(action, version, { data: example.result, meta }) }
      : { responseLanguage: 'json', response: JSON.stringify({ data: example.result, meta }, null, 2) }),
  };
}

/**
 * A stream-only action's answer as it comes (docs/contract.md § Streaming): `start`, one of each of its events (data made up
 * from its schema, as the face file gives no example of it), then the `result` event with the example's envelope.
 */
function streamResponse(action: Action, version: string | undefined, envelope: unknown): string {
  const events: [string, string][] = [
    ['start', JSON.stringify({ requestId: 'req_…', apiVersion: version ?? '…' })],
    ...action.streamEvents.map((event): [string, string] => [event.name, JSON.stringify(sampleValue(event.dataSchema))]),
    ['result', JSON.stringify(envelope)],
  ];
  return events.map(([name, data], i) => `id: ${i + 1}\nevent: ${name}\ndata: ${data}`).join('\n\n');
}

/**
 * The error body of an atomic batch whose second request failed: the first is rolled back, the third never
 * ran. The failure is a platform error so that the example holds for any catalogue.
 */
export function abortExample(errorDocsUrl: string): { status: number; body: string } {
  const failure = STANDARD_ERRORS.find((e) => e.code === 'resource_not_found')!;
  const error = (errorCode: string, type: string, message: string, extra: object = {}) => ({
    type,
    code: errorCode,
    message,
    ...extra,
    docUrl: `${errorDocsUrl}#${errorCode}`,
  });
  const body = {
    error: error(
      'batch_aborted',
      'batch_error',
      `Request "second" failed with ${failure.code}; the request before it was rolled back. Nothing in the batch took effect.`,
      {
        param: '/payload/requests/1',
        details: {
          results: [
            { id: 'first', outcome: 'succeeded' },
            { id: 'second', outcome: 'failed', status: failure.status, error: error(failure.code, failure.type, failure.message) },
            { id: 'third', outcome: 'notExecuted' },
          ],
        },
      },
    ),
    meta: { timing: 8.1, requestId: 'req_…', version: '…' },
  };
  return { status: failure.status, body: JSON.stringify(body, null, 2) };
}
