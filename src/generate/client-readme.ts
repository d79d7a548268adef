/**
 * `generated/client/README.md`: how to install and use the client package, with its own catalogue's
 * actions in the examples (a call, a list walked page by page, a stream) so every snippet runs as written.
 */
import { CLIENT_PACK_COMMAND, CLIENT_PACKAGE_DIR } from '../client-package/pack-command.js';
import { retryableErrorCodes } from '../spec/action-errors.js';
import { payloadIn } from '../spec/json-schema.js';
import type { Action, Catalog } from '../spec/model.js';
import { clientPackageOf } from './client-package.js';
import { pagingOf } from './client-paging.js';
import { literal } from './ts-literal.js';

export const CLIENT_README_PATH = 'client/README.md';

export function emitClientReadme(catalog: Catalog): string {
  const { platform } = catalog;
  const { name, version } = clientPackageOf(platform);
  const served = catalog.faces
    .filter((face) => !face.builtin)
    .flatMap((face) => face.actions.flatMap((action) => {
      const payload = payloadIn(action, platform.latest);
      return payload ? [{ action, paged: pagingOf(action, payload) !== undefined }] : [];
    }));
  const call = served.find(({ action, paged }) => !action.stream && !paged && action.examples.length > 0)?.action;
  const list = served.find(({ paged }) => paged)?.action;
  const stream = served.find(({ action }) => action.stream && action.examples.length > 0)?.action;
  const method = (action: Action) => `client.${action.face}.${action.name}`;
  const args = (action: Action) => literal(action.examples[0]?.payload ?? {});
  const sections = [
    `# ${name}`,
    `The typed client of ${platform.info.title}, API version ${platform.latest}: one method per action, with the`,
    'payload and result types of that version, typed errors, streams, pages and webhook events. It runs in Node 18+',
    'and in browsers, as ES modules or CommonJS.',
    '## Install',
    `From a checkout of the API, \`dispatch client build\` compiles this directory into \`${CLIENT_PACKAGE_DIR}\`, a package that`,
    '`npm pack` turns into a tarball to install (or `npm publish` to a registry of yours):',
    '```sh',
    `npx dispatch client build && ${CLIENT_PACK_COMMAND} && npm install ./${name}-${version}.tgz`,
    '```',
    '## Use',
    '```ts',
    `import { createClient, DispatchError, RateLimitError } from '${name}';`,
    '',
    "const client = createClient({ baseUrl: 'http://localhost:8787', apiKey: process.env.API_KEY!, entityId: 'acme' });",
    ...(call ? ['', `const data = await ${method(call)}(${args(call)});`, `const { requestId, headers } = await ${method(call)}(${args(call)}).withResponse();`] : []),
    '```',
    'Each action\'s method returns a promise of its `data` whose `.withResponse()` gives the `meta`, the status, the',
    'headers and the request id with it (a streaming action\'s `.stream()` returns a `DispatchStream`, and `batch()` a',
    'plain promise). `const { createClient } = require(...)` works the same from CommonJS.',
    '## Errors',
    'A refused call throws a `DispatchError`, of a subclass for each error type: `InvalidRequestError` (400 and other',
    '4xx of a malformed request), `AuthenticationError` (401), `PaymentError` (402), `PermissionError` (403),',
    '`NotFoundError` (404), `IdempotencyError` (409, 422), `RateLimitError` (429, with `retryAfterSeconds`),',
    '`ServerError` (500, 503), `ProviderError` (502, 503), `TimeoutError` (504) and `BatchError` (an atomic batch',
    'that failed: `batch_aborted`, with `details.results`); another type stays a plain `DispatchError`. The Python',
    'client raises the same classes, but for `PermissionDeniedError` (here `PermissionError`) and `ActionTimeoutError`',
    '(here `TimeoutError`), whose names Python\'s built-ins hold. Each has `code` (one of the catalogue\'s',
    '`ErrorCode`s, or one a newer server added), `status`, `param`, `details`, `docUrl` and `requestId`. No answer at',
    'all is a `DispatchConnectionError` (`timedOut` when the client gave up).',
    '```ts',
    'try {',
    ...(call ? [`  await ${method(call)}(${args(call)});`] : ['  // a call']),
    '} catch (error) {',
    "  if (error instanceof RateLimitError) console.log('retry in', error.retryAfterSeconds, 's');",
    "  else if (error instanceof DispatchError && error.code === 'payload_invalid') console.log(error.param);",
    '  else throw error;',
    '}',
    '```',
    '## Retries and time-outs',
    'A lost connection, a 429 or an answer whose code the catalogue marks retryable (`RETRYABLE_ERROR_CODES`:',
    `${retryableErrorCodes(catalog).map((c) => `\`${c}\``).join(', ')}) is retried twice (\`maxRetries\`)`,
    'with exponential backoff and jitter, never before its `Retry-After` (one over 60 s is not waited for), under one',
    'idempotency key, so a retried call never runs twice: a retried 500 gets the first answer replayed. The client',
    'waits `timeoutMs` for an answer:',
    `by default \`DEFAULT_TIMEOUT_MS\` (${platform.limits.timeout.max + 5000} ms, the server's longest time-out plus 5 seconds). Per call, \`timeoutMs\``,
    'is how long the client waits, and `timeout` the server\'s limit on the action; `headers`, `entityId`,',
    '`apiVersion`, `idempotencyKey` and `signal` are per call too.',
    ...(list
      ? [
          '## Pages',
          `A list action resolves to its first page, \`{items, hasMore}\`, and the page and the promise iterate every`,
          'item of every page, asking for the next page as the loop reaches it:',
          '```ts',
          `for await (const item of ${method(list)}(${args(list)})) console.log(item);`,
          `const page = await ${method(list)}(${args(list)});`,
          'const next = await page.nextPage(); // null after the last page',
          `const all = await ${method(list)}(${args(list)}).toArray({ limit: 1000 }); // every page's items, at most 1000`,
          '```',
        ]
      : []),
    ...(stream
      ? [
          '## Streams',
          '```ts',
          `const stream = ${method(stream)}.stream(${args(stream)});`,
          'for await (const event of stream) console.log(event.event, event.data);',
          'const result = await stream;',
          '```',
        ]
      : []),
    '## Webhooks',
    '`webhooks.unwrap` checks a delivery\'s signature (Standard Webhooks) with the endpoint\'s secret and returns its',
    'event, typed by `type`; pass the body exactly as it arrived:',
    '```ts',
    `import { webhooks } from '${name}';`,
    '',
    'const event = webhooks.unwrap(rawBody, request.headers, process.env.WEBHOOK_SECRET!);',
    '```',
    'To test a receiver without a server, sign a payload of your own as a delivery would be signed;',
    '`webhooks.unwrap` accepts the headers `webhooks.generateTestHeaders` returns (`timestamp` and `id` are optional):',
    '```ts',
    "const payload = JSON.stringify({ id: 'evt_test_1', type: 'test.event', data: {} });",
    "const headers = webhooks.generateTestHeaders({ payload, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' });",
    "webhooks.unwrap(payload, headers, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw').id; // 'evt_test_1'",
    '```',
  ];
  return `${blocks(sections).join('\n\n')}\n`;
}

/** The lines grouped into markdown blocks: a heading, a code fence, or a paragraph of consecutive lines. */
function blocks(lines: string[]): string[] {
  const out: string[][] = [];
  let fenced = false;
  for (const line of lines) {
    const last = out.at(-1);
    const opensBlock = !fenced && (line.startsWith('#') || line.startsWith('```') || last === undefined || last[0]!.startsWith('#') || last.at(-1)!.startsWith('```'));
    if (opensBlock) out.push([line]);
    else last!.push(line);
    if (line.startsWith('```')) fenced = !fenced;
  }
  return out.map((block) => block.join('\n'));
}
