"""The Python SDK against the real server: a call per face, typed errors, retries after a 429's Retry-After, an
idempotent replay, streams, a batch, pages and webhook deliveries, with `Client` and `AsyncClient`."""
import base64
import queue
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any, Dict, Iterator, List, Tuple

import pytest

from conftest import Server, unique
from unified_dispatch import (
    AsyncClient,
    AuthenticationError,
    BatchError,
    Client,
    DispatchError,
    InvalidRequestError,
    NotFoundError,
    RateLimitError,
    WebhookVerificationError,
    models,
    params,
)


def test_calls_an_action_of_every_face(client: Client) -> None:
    assert [m.id for m in client.ai.models().items][:1] == ["gpt-4o-mini"]
    user = client.auth.signup(email=f"{unique('ada')}@example.com", password="correct horse battery")
    assert isinstance(user, models.AuthSignupResult)
    assert client.billing.list_prices(limit=1).has_more in (True, False)
    sent = client.email.send(from_="shop@example.com", to=["ada@example.com"], subject="Hello", text="Hi")
    assert sent.id.startswith("em_") and sent.from_ == "shop@example.com"
    assert isinstance(client.events.list(limit=1).items, list)
    assert client.keys.get(id=client.keys.list(limit=1).items[0].id).id.startswith("key_")
    customer = client.payments.create_customer(email="c@example.com", metadata={"plan": "pro"})
    assert customer.id.startswith("cus_") and customer.to_dict()["metadata"] == {"plan": "pro"}
    stored = client.storage.put(key=f"{unique('notes')}.txt", content=base64.b64encode(b"hello").decode(), content_type="text/plain")
    assert base64.b64decode(client.storage.get(key=stored.key).content) == b"hello"
    assert isinstance(client.usage.summary(), models.UsageSummaryResult)
    assert isinstance(client.webhooks.list().items, list)


def test_sends_nested_arguments_with_their_wire_keys(client: Client) -> None:
    tiers: List[params.BillingPriceTierParam] = [{"upTo": 1000, "unitAmount": "0"}, {"upTo": None, "unitAmount": "0.2", "flatAmount": 100}]
    price = client.billing.create_price(currency="usd", type="graduated", usage={"source": "meter", "meterType": "tokens"}, tiers=tiers)
    assert price.to_dict()["tiers"] == tiers
    assert price.to_dict()["usage"] == {"source": "meter", "meterType": "tokens"}


def test_raises_the_error_class_of_each_type_with_its_code(client: Client) -> None:
    with pytest.raises(AuthenticationError) as refused:
        client.auth.login(email="nobody@example.com", password="wrong password")
    assert (refused.value.status, refused.value.code) == (401, "invalid_credentials")
    assert refused.value.request_id and refused.value.request_id.startswith("req_")
    with pytest.raises(NotFoundError) as missing:
        client.keys.get(id="key_00000000000000000000000000")
    assert missing.value.code == "resource_not_found"
    with pytest.raises(InvalidRequestError) as invalid:
        client.call("keys", "list", {"limit": "many"})
    assert invalid.value.code == "payload_invalid" and invalid.value.details and invalid.value.details["errors"]
    bad = Client(api_key="sk_test_" + "x" * 40, entity="demo", base_url=client.base_url)
    with pytest.raises(AuthenticationError) as unknown:
        bad.keys.list()
    assert unknown.value.code == "api_key_invalid" and unknown.value.attempts == 1


def test_retries_a_429_after_its_retry_after(client: Client, server: Server) -> None:
    issued = client.keys.create(name=unique("free"), scopes=["*"], entities="*", tier="free")
    limited = Client(api_key=issued.key, entity="demo", base_url=server.url, max_retries=0)
    refusal = None
    for _ in range(200):
        try:
            limited.keys.list(limit=1)
        except RateLimitError as error:
            refusal = error
            break
    assert refusal is not None and refusal.retry_after_seconds is not None and refusal.retry_after_seconds >= 1
    # The bucket refills one call a second: the next call passes at once if a call's worth came back since the
    # refusal, and then the one after it is refused. Each call is answered, and one needs its retry.
    attempts = []
    for _ in range(5):
        answer = limited.with_raw_response.keys.list(limit=1, options={"max_retries": 3})
        assert answer.status == 200
        attempts.append(answer.attempts)
        if answer.attempts >= 2:
            break
    assert attempts[-1] >= 2, attempts


def test_replays_a_call_made_again_with_its_idempotency_key(client: Client) -> None:
    key = unique("order")
    first = client.with_raw_response.payments.create_customer(email="r@example.com", options={"idempotency_key": key})
    again = client.with_raw_response.payments.create_customer(email="r@example.com", options={"idempotency_key": key})
    assert again.parse().id == first.parse().id
    assert again.headers.get("Idempotent-Replayed") == "true" and first.headers.get("Idempotent-Replayed") is None
    assert again.request_id == first.request_id


def test_streams_events_then_the_result(client: Client) -> None:
    stream = client.ai.generate(model="gpt-4o-mini", prompt="Say hello", stream=True)
    events = list(stream)
    start = events[0]
    assert isinstance(start, models.StartEvent) and start.data.request_id.startswith("req_")
    deltas = [e for e in events if e.event == "delta"]
    assert deltas and all(isinstance(e, models.DeltaEvent) for e in deltas)
    text = "".join(e.data.text for e in deltas)
    assert text and text == stream.result.text
    assert stream.result.tokens.output > 0


@pytest.mark.asyncio
async def test_streams_asynchronously(async_client: AsyncClient) -> None:
    stream = await async_client.ai.generate(model="gpt-4o-mini", prompt="Say hello", stream=True)
    events = [event async for event in stream]
    assert [type(e) for e in events[:2]] == [models.StartEvent, models.DeltaEvent]
    assert events[0].event == "start" and events[0].data.api_version
    assert stream.result.text
    answer = await async_client.ai.generate(model="gpt-4o-mini", prompt="Say hello")
    assert answer.model == "gpt-4o-mini"


def test_runs_a_batch_and_refuses_an_atomic_one_that_fails(client: Client) -> None:
    results = client.batch(
        [{"face": "keys", "action": "list", "payload": {"limit": 1}}, {"face": "ai", "action": "models", "payload": {}}],
        mode="atomic",
    )
    assert [r.status for r in results] == [200, 200]
    assert isinstance(results[0].data, models.KeysListResult) and isinstance(results[1].data, models.AiModelsResult)
    with pytest.raises(BatchError) as aborted:
        client.batch(
            [
                {"face": "payments", "action": "createCustomer", "payload": {"email": "b@example.com"}},
                {"face": "keys", "action": "get", "payload": {"id": "key_00000000000000000000000000"}},
            ],
            mode="atomic",
        )
    assert aborted.value.code == "batch_aborted" and aborted.value.details and len(aborted.value.details["results"]) == 2
    mixed = client.batch([{"face": "keys", "action": "get", "payload": {"id": "key_00000000000000000000000000"}}])
    assert mixed[0].error is not None and mixed[0].error["code"] == "resource_not_found"


def test_pages_through_every_page(client: Client) -> None:
    email = f"{unique('page')}@example.com"
    made = {client.payments.create_customer(email=email).id for _ in range(5)}
    first = client.payments.list_customers(limit=2)
    assert len(first.items) == 2 and first.has_more
    pages = list(first.iter_pages())
    assert len(pages) >= 3
    seen = [customer.id for customer in client.payments.list_customers(limit=2)]
    assert made <= set(seen) and len(seen) == len(set(seen))
    assert [c.id for c in first.to_list(limit=3)] == seen[:3]


@pytest.mark.asyncio
async def test_pages_asynchronously(async_client: AsyncClient) -> None:
    for _ in range(3):
        await async_client.payments.create_customer(email="async@example.com")
    page = await async_client.payments.list_customers(limit=2)
    assert len(page.items) == 2 and page.has_more
    seen = [customer.id async for customer in async_client.payments.list_customers(limit=2)]
    assert len(seen) >= 3 and len(seen) == len(set(seen))
    assert [c.id for c in await async_client.payments.list_customers(limit=2).to_list(limit=3)] == seen[:3]


class Receiver:
    """A webhook receiver on 127.0.0.1 that keeps each delivery's body and headers."""

    def __init__(self) -> None:
        self.deliveries: "queue.Queue[Tuple[bytes, Dict[str, str]]]" = queue.Queue()
        deliveries = self.deliveries

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                deliveries.put((body, {k.lower(): v for k, v in self.headers.items()}))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *_: Any) -> None:
                pass

        self.http = HTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.http.server_port}/hooks"
        threading.Thread(target=self.http.serve_forever, daemon=True).start()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    made = Receiver()
    yield made
    made.http.shutdown()


def test_verifies_a_real_delivery_and_refuses_a_tampered_one(client: Client, receiver: Receiver) -> None:
    endpoint = client.webhooks.create(url=receiver.url, event_types=["webhooks.endpoint.ping"])
    client.webhooks.test(id=endpoint.id)
    body, headers = receiver.deliveries.get(timeout=30)
    event = client.webhooks.unwrap(body, headers, endpoint.secret)
    assert event.type == "webhooks.endpoint.ping" and event.id == headers["webhook-id"]
    assert isinstance(event.data, models.WebhooksEndpointPingData)
    tampered = body.replace(b"webhooks.endpoint.ping", b"webhooks.endpoint.pong")
    with pytest.raises(WebhookVerificationError):
        client.webhooks.unwrap(tampered, headers, endpoint.secret)
    with pytest.raises(WebhookVerificationError):
        client.webhooks.unwrap(body, {**headers, "webhook-timestamp": str(int(headers["webhook-timestamp"]) - 600)}, endpoint.secret)
    signed = client.webhooks.generate_test_headers(body.decode(), endpoint.secret)
    assert client.webhooks.unwrap(body, signed, endpoint.secret).id == event.id
