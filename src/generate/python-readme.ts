/**
 * `generated/python/README.md`: the Python package's README: install, first call, errors, retries, streams, pages,
 * batches, webhooks, async and raw responses, then every face's methods.
 */
import { retryableErrorCodes } from '../spec/action-errors.js';
import type { Catalog } from '../spec/model.js';
import { clientFaces, servedFaces } from './client-model.js';
import { faceModule, methodName } from './python-resources.js';

export function emitPythonReadme(catalog: Catalog): string {
  const { info, latest, limits } = catalog.platform;
  const served = servedFaces(clientFaces(catalog));
  const methods = served.flatMap(({ face, actions }) =>
    actions.map(({ action }) => `| \`client.${faceModule(face)}.${methodName(action)}\` | \`${action.id}\` | ${action.summary.trim().replace(/\|/g, '\\|')} |`),
  );
  const fence = '```';
  const retryable = retryableErrorCodes(catalog).map((c) => `\`${c}\``).join(', ');
  return `# unified_dispatch

The Python client of ${info.title}, for API version ${latest}: \`Client\` and \`AsyncClient\`, one attribute per
face and one method per action (\`client.payments.create_intent(...)\`), with typed keyword arguments, results as
pydantic models, typed errors, retries, streams, auto-paging lists, batches and webhook verification. It depends on
\`httpx\` (0.23 or newer) and \`pydantic\` (1.10 or 2.x) only, and needs Python 3.10 or newer. The models
(\`unified_dispatch.models\`) and webhook verification (\`unwrap\`) import without httpx: the clients are loaded on
first use.

## Install

From a checkout of the repository. On Debian and Ubuntu the system Python (\`/usr/bin/python3\`) is externally
managed (PEP 668): make a virtual environment that sees Debian's packages (\`apt-get install python3-venv
python3-httpx python3-pydantic\`) and install into it; \`--no-build-isolation\` builds with Debian's setuptools,
without asking PyPI for it. Elsewhere, any Python 3.10+ with pip installs it with httpx and pydantic from PyPI.

${fence}sh
/usr/bin/python3 -m venv --system-site-packages .venv && .venv/bin/pip install --no-build-isolation ./generated/python
${fence}

## First call

With the server running (\`npm start\`) and a key in \`DISPATCH_API_KEY\`:

${fence}python
import os

from unified_dispatch import AuthenticationError, Client

client = Client(api_key=os.environ["DISPATCH_API_KEY"], entity="demo", base_url="http://127.0.0.1:8787")
answer = client.ai.generate(model="gpt-4o-mini", prompt="Say hello")
print(answer.text, answer.tokens.output)

try:
    client.auth.login(email="ada@example.com", password="wrong password")
except AuthenticationError as error:
    print(error.status, error.code, error.request_id)

for key in client.keys.list():  # every page, asked for as the loop goes
    print(key.id, key.created_at)
${fence}

Keyword arguments are the payload's fields in snake_case (\`starting_after\` is sent as \`startingAfter\`; a Python
keyword gets a trailing underscore, \`from_\`); an optional one left out is not sent. An argument that takes an
object is a \`TypedDict\` of \`unified_dispatch.params\` with the wire's own keys, so a type checker refuses a
misspelt or missing key:

${fence}python
price = client.billing.create_price(
    currency="usd",
    type="graduated",
    usage={"source": "meter", "meterType": "tokens"},
    tiers=[{"upTo": 1000, "unitAmount": "0"}, {"upTo": None, "unitAmount": "0.2"}],  # params.BillingPriceTierParam
)
${fence}

Results are models whose fields are snake_case; \`to_dict()\` gives the wire's form back. The client sends
\`X-API-Version: ${latest}\` unless \`api_version\` names another.

## Errors

A refused call raises a \`DispatchError\` of its type's class: \`InvalidRequestError\`, \`AuthenticationError\`,
\`PaymentError\`, \`PermissionDeniedError\`, \`NotFoundError\`, \`IdempotencyError\`, \`RateLimitError\`,
\`ServerError\`, \`ProviderError\`, \`ActionTimeoutError\`, \`BatchError\`: the TypeScript client's classes, but for
\`PermissionDeniedError\` (there \`PermissionError\`) and \`ActionTimeoutError\` (there \`TimeoutError\`), whose names
Python's built-ins hold. Each has \`code\` (typed as
\`ErrorCode\`, a \`Literal\` of every code the catalogue knows; a newer server's code still comes through),
\`status\`, \`message\`, \`param\`, \`details\`, \`request_id\`, \`headers\` and \`attempts\`. No answer at all
raises \`APIConnectionError\` (\`timed_out\` when the client's \`timeout\` ran out).

## Retries and time-outs

A call that failed for a passing reason (a lost connection, a 429, or an answer whose code the catalogue marks
retryable, \`RETRYABLE_CODES\`: ${retryable}) is retried up to \`max_retries\` times (2 by default) with exponential
backoff and full jitter, never before the answer's \`Retry-After\` (one over 60 seconds is not waited for). Every
attempt carries the same \`X-Idempotency-Key\`, made for the call unless \`options={"idempotency_key": ...}\` gives
one, so a retry never runs an action twice: a retried 500 gets the first answer replayed. The
client waits \`timeout\` seconds for an answer, by default ${(limits.timeout.max + 5000) / 1000} (the server's longest
time-out plus 5 s); a time-out is not retried. Every method takes \`options\`: \`idempotency_key\`, \`entity\`,
\`api_version\`, \`server_timeout\` (the server's limit, in ms), \`timeout\`, \`max_retries\`, \`extra_headers\`.

## Streams

A streaming action called with \`stream=True\` returns a \`Stream\` of its events (\`start\`, \`delta\`,
\`progress\` and its own), read from the server-sent events as they arrive; its result is then \`stream.result\`.
Each event is a model with a \`Literal\` \`event\` and typed \`data\` (\`StartEvent\`, \`DeltaEvent\`,
\`ProgressEvent\`, and an action's own, such as \`UsageLiveRecordEvent\`); a stream yields its action's union of
them (\`AiGenerateStreamEvent\`), so comparing \`event.event\` narrows the type of \`event.data\`:

${fence}python
stream = client.ai.generate(model="gpt-4o-mini", prompt="Say hello", stream=True)
for event in stream:
    if event.event == "delta":
        print(event.data.text, end="")
print(stream.result.tokens.output)
${fence}

## Pages

A list action returns its first page (\`items\`, \`has_more\`, \`next_page()\`, \`iter_pages()\`, \`result\`);
iterating it gives every item of every page, and \`to_list(limit=...)\` collects them.

## Batches

${fence}python
results = client.batch(
    [
        {"face": "keys", "action": "list", "payload": {"limit": 1}},
        {"face": "ai", "action": "models", "payload": {}},
    ],
    mode="atomic",
)
print([r.status for r in results], results[1].data)
${fence}

## Webhooks

\`client.webhooks.unwrap(body, headers, secret)\` (or \`unified_dispatch.unwrap\`) checks a delivery's Standard
Webhooks signature (HMAC-SHA256 under the endpoint's \`whsec_\` secret, compared in constant time, the timestamp
within five minutes) and returns a \`WebhookEvent\` whose \`data\` is the model of its \`type\`; a bad one raises
\`WebhookVerificationError\`. Pass the body exactly as it arrived. \`generate_test_headers(payload, secret)\` signs
a payload of a test's own.

## Async

\`AsyncClient\` has the same surface: methods are awaited, a stream is \`async for\`'d, and a list action's return
value is both awaitable (the first page) and async-iterable (every item):

${fence}python
import asyncio, os
from unified_dispatch import AsyncClient

async def main() -> None:
    async with AsyncClient(api_key=os.environ["DISPATCH_API_KEY"], entity="demo", base_url="http://127.0.0.1:8787") as client:
        async for key in client.keys.list():
            print(key.id)
        stream = await client.ai.generate(model="gpt-4o-mini", prompt="Say hello", stream=True)
        async for event in stream:
            print(event.event)

asyncio.run(main())
${fence}

## Raw responses

\`client.with_raw_response.<face>.<method>(...)\` returns a \`RawResponse\`: \`status\`, \`headers\`,
\`request_id\`, \`meta\`, \`attempts\`, and the data as \`parse()\` (or \`data\`).

## Methods

| method | action | summary |
|---|---|---|
${methods.join('\n')}
`;
}
