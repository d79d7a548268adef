"""A program using the client as a user would, for mypy to check the package's types against (not run)."""
import asyncio
from typing import List

from unified_dispatch import (
    AsyncClient,
    BatchItemResult,
    Client,
    DispatchError,
    ErrorCode,
    RateLimitError,
    RawResponse,
    StreamEvent,
    SyncPage,
    WebhookEvent,
)
from unified_dispatch.models import AiGenerateResult, BillingPrice, KeysKey, KeysListResult, UsageRecord
from unified_dispatch.params import BillingPriceTierParam


def sync_calls(client: Client) -> None:
    answer: AiGenerateResult = client.ai.generate(model="test", prompt="Say hello")
    tokens: int = answer.tokens.output
    for event in client.ai.generate(model="test", prompt="Say hello", stream=True):
        if event.event == "delta":
            piece: str = event.data.text
        elif event.event == "start":
            request_id: str = event.data.request_id
    for live in client.usage.live(max_seconds=1):
        if live.event == "record":
            record: UsageRecord = live.data
    stream = client.ai.generate(model="test", prompt="Say hello", stream=True)
    final: AiGenerateResult = stream.final_result()
    price: BillingPrice = client.billing.create_price(
        currency="usd",
        type="graduated",
        usage={"source": "meter", "meterType": "tokens"},
        tiers=[{"upTo": 1000, "unitAmount": "0"}, {"upTo": None, "unitAmount": "0.2", "flatAmount": 100}],
    )
    tier: BillingPriceTierParam = {"upTo": None, "unitAmount": "0.2"}
    keys: List[KeysKey] = client.keys.list(limit=2).to_list()
    for key in client.keys.list():
        created: str = key.created_at
    raw: RawResponse[SyncPage[KeysListResult, KeysKey]] = client.with_raw_response.keys.list()
    status: int = raw.status
    results: List[BatchItemResult] = client.batch([{"face": "keys", "action": "list", "payload": {}}], mode="atomic")
    try:
        client.keys.get(id="key_x", options={"idempotency_key": "k1", "max_retries": 0})
    except RateLimitError as error:
        wait = error.retry_after_seconds
    except DispatchError as error:
        code: ErrorCode | str = error.code
    event_: WebhookEvent = client.webhooks.unwrap("{}", {}, "whsec_x")


async def async_calls(client: AsyncClient) -> None:
    answer: AiGenerateResult = await client.ai.generate(model="test", prompt="Say hello")
    stream = await client.ai.generate(model="test", prompt="Say hello", stream=True)
    async for event in stream:
        seen: StreamEvent = event
        if event.event == "progress":
            done: float = event.data.completed
    page = await client.keys.list(limit=1)
    first: List[KeysKey] = page.items
    async for key in client.keys.list():
        key_id: str = key.id
    raw = await client.with_raw_response.keys.get(id="key_x")
    got: KeysKey = raw.parse()


if __name__ == "__main__":
    asyncio.run(async_calls(AsyncClient(api_key="sk_test_x", entity="demo")))
