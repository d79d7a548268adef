"""What the client retries, against a local HTTP server that answers each request as the test scripts it: exactly
lost connections, 429s and the codes the catalogue marks retryable, each attempt under the call's one idempotency
key, no earlier than `Retry-After`."""
import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any, Dict, Iterator, List, Optional, Tuple

import pytest

from unified_dispatch import RETRYABLE_CODES, Client, DispatchError

META = {"requestId": "req_test", "timing": {"totalMs": 1}, "version": "2027-03-01"}
OK = (200, {"data": {"items": [], "hasMore": False}, "meta": META}, {})
Answer = Tuple[int, Dict[str, Any], Dict[str, str]]


def failure(status: int, code: str, headers: Optional[Dict[str, str]] = None) -> Answer:
    return status, {"error": {"type": "api_error", "code": code, "message": f"{code} happened."}, "meta": META}, headers or {}


class Scripted:
    """Answers the n-th request with the n-th answer of `script` (the last one over and over), and keeps the
    idempotency key of each request."""

    def __init__(self) -> None:
        self.script: List[Answer] = [OK]
        self.keys: List[Optional[str]] = []
        scripted = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers["Content-Length"]))
                scripted.keys.append(self.headers.get("X-Idempotency-Key"))
                status, body, headers = scripted.script[min(len(scripted.keys), len(scripted.script)) - 1]
                text = json.dumps(body).encode()
                self.send_response(status)
                for name, value in {"Content-Type": "application/json", "Content-Length": str(len(text)), **headers}.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(text)

            def log_message(self, *_: Any) -> None:
                pass

        self.http = HTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.http.server_port}"
        threading.Thread(target=self.http.serve_forever, daemon=True).start()

    def answer(self, *script: Answer) -> None:
        self.script = list(script)
        self.keys = []


@pytest.fixture
def scripted() -> Iterator[Scripted]:
    made = Scripted()
    yield made
    made.http.shutdown()


def sleepless(url: str, sleeps: List[float]) -> Client:
    client = Client(api_key="sk_test_x", entity="demo", base_url=url)
    client._sleep = sleeps.append
    client._random = lambda: 0.5
    return client


def test_retries_exactly_the_retryable_codes_and_429s(scripted: Scripted) -> None:
    assert {"idempotency_key_in_use", "internal_error", "provider_unavailable", "timeout"} <= RETRYABLE_CODES
    assert "not_implemented" not in RETRYABLE_CODES and "payload_invalid" not in RETRYABLE_CODES
    sleeps: List[float] = []
    client = sleepless(scripted.url, sleeps)
    for status, code in [(500, "internal_error"), (402, "processing_error"), (504, "timeout"), (429, "batch_aborted"), (409, "idempotency_key_in_use")]:
        scripted.answer(failure(status, code), OK)
        assert client.with_raw_response.keys.list().attempts == 2, code
    assert sleeps == [0.125] * 5
    for status, code in [(501, "not_implemented"), (400, "payload_invalid"), (409, "email_taken")]:
        scripted.answer(failure(status, code), OK)
        with pytest.raises(DispatchError) as refused:
            client.keys.list()
        assert (refused.value.code, refused.value.attempts, len(scripted.keys)) == (code, 1, 1)


def test_a_retried_500_keeps_its_key_and_stops_at_the_replay(scripted: Scripted) -> None:
    sleeps: List[float] = []
    client = sleepless(scripted.url, sleeps)
    scripted.answer(failure(500, "internal_error"), failure(500, "internal_error", {"Idempotent-Replayed": "true"}), OK)
    with pytest.raises(DispatchError) as failed:
        client.keys.list()
    assert failed.value.attempts == 2 and failed.value.headers.get("Idempotent-Replayed") == "true"
    assert len(scripted.keys) == 2 and scripted.keys[0] and scripted.keys[0] == scripted.keys[1]


def test_waits_out_retry_after(scripted: Scripted) -> None:
    sleeps: List[float] = []
    client = sleepless(scripted.url, sleeps)
    scripted.answer(failure(503, "store_unavailable", {"Retry-After": "3"}), OK)
    assert client.with_raw_response.keys.list().attempts == 2
    assert sleeps == [3.0]
    scripted.answer(failure(429, "rate_limit_exceeded", {"Retry-After": "61"}), OK)
    with pytest.raises(DispatchError) as refused:
        client.keys.list()
    assert refused.value.attempts == 1 and sleeps == [3.0]
