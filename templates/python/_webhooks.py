"""Reading webhook deliveries (docs/contract.md § Webhooks): `unwrap` checks a delivery's Standard Webhooks signature
(an HMAC-SHA256 of `webhook-id`, `webhook-timestamp` and the body under the endpoint's `whsec_` secret, compared in
constant time, with the timestamp within five minutes of now) and returns its event, its `data` read into the
model of its type; `generate_test_headers` signs a payload of a test's own as a delivery would be.
"""
import base64
import hashlib
import hmac
import json
import time
from typing import Any, Dict, Mapping, Optional, Union

import pydantic

from ._models import BaseModel, validate, validate_as
from .models import EVENT_DATA

#: How far a delivery's timestamp may be from now, in seconds, either way.
TOLERANCE_SECONDS = 5 * 60


class WebhookVerificationError(Exception):
    """A delivery whose signature, timestamp or headers do not check out: do not trust its body."""


class WebhookRequest(BaseModel):
    """The request that caused an event."""

    id: str
    idempotency_key: Optional[str] = pydantic.Field(None, alias="idempotencyKey")


class WebhookEvent(BaseModel):
    """The body of a webhook delivery. Branch on `type`; `data` is the model of that type's data."""

    #: Event id (`evt_…`), also sent as `webhook-id`: deduplicate deliveries on it.
    id: str
    #: The event type, `<face>.<noun>.<outcome>`.
    type: str
    #: When the event happened (ISO 8601).
    timestamp: str
    #: The API version of the request that caused it.
    api_version: Optional[str] = pydantic.Field(None, alias="apiVersion")
    #: True for live-mode data, false for test mode.
    livemode: Optional[bool] = None
    #: The entity the event belongs to.
    entity_id: Optional[str] = pydantic.Field(None, alias="entityId")
    #: The request that caused it, with its idempotency key if it had one.
    request: Optional[WebhookRequest] = None
    #: The event's data: the model of its type's data, or a dict for a type this package does not know.
    data: Any = None


def _key(secret: str) -> bytes:
    encoded = secret[len("whsec_"):] if secret.startswith("whsec_") else secret
    try:
        return base64.b64decode(encoded)
    except ValueError as exc:
        raise WebhookVerificationError("The secret is not a whsec_ secret (base64 after the prefix).") from exc


def _sign(key: bytes, id: str, timestamp: int, body: str) -> str:
    digest = hmac.new(key, f"{id}.{timestamp}.{body}".encode(), hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


def _header(headers: Mapping[str, Any], name: str) -> str:
    for key, value in headers.items():
        if key.lower() == name:
            return " ".join(value) if isinstance(value, (list, tuple)) else str(value)
    raise WebhookVerificationError(f"Missing the {name} header.")


def verify(body: Union[str, bytes], headers: Mapping[str, Any], secret: str, now: Optional[float] = None) -> str:
    """Checks a delivery's signature and timestamp and returns its body as text; raises
    `WebhookVerificationError` otherwise. Pass the body exactly as it arrived, before any JSON parsing."""
    text = body.decode("utf-8") if isinstance(body, bytes) else body
    id = _header(headers, "webhook-id")
    stamp = _header(headers, "webhook-timestamp")
    signatures = _header(headers, "webhook-signature").split()
    try:
        timestamp = int(stamp)
    except ValueError as exc:
        raise WebhookVerificationError("The webhook-timestamp header is not a whole number of seconds.") from exc
    current = time.time() if now is None else now
    if abs(current - timestamp) > TOLERANCE_SECONDS:
        raise WebhookVerificationError("The delivery's timestamp is more than five minutes from now.")
    expected = _sign(_key(secret), id, timestamp, text)
    # During a rotation a delivery carries a signature per secret: one matching suffices.
    if not any(hmac.compare_digest(expected.encode(), given.encode()) for given in signatures):
        raise WebhookVerificationError("No signature of the delivery matches the secret.")
    return text


def unwrap(body: Union[str, bytes], headers: Mapping[str, Any], secret: str) -> WebhookEvent:
    """Verifies a delivery (see `verify`) and returns its event, with `data` read into its type's model."""
    value = json.loads(verify(body, headers, secret))
    event = validate_as(WebhookEvent, value)
    model = EVENT_DATA.get(event.type)
    if model is not None:
        event.data = validate(model, event.data)
    return event


def generate_test_headers(payload: str, secret: str, *, timestamp: Optional[int] = None, id: Optional[str] = None) -> Dict[str, str]:
    """The headers a delivery of `payload` signed with `secret` carries, which `unwrap` accepts: for testing a
    receiver with events of the test's own making. `id` defaults to the payload's `id`, `timestamp` to now."""
    if id is None:
        try:
            id = json.loads(payload).get("id")
        except (ValueError, AttributeError):
            id = None
        if not isinstance(id, str) or id == "":
            raise TypeError("generate_test_headers: the payload has no string `id`; pass `id`.")
    at = int(time.time()) if timestamp is None else timestamp
    return {"webhook-id": id, "webhook-timestamp": str(at), "webhook-signature": _sign(_key(secret), id, at, payload)}


class WebhookHelpers:
    """`unwrap` and `generate_test_headers` on `client.webhooks`, beside the webhooks face's actions."""

    @staticmethod
    def unwrap(body: Union[str, bytes], headers: Mapping[str, Any], secret: str) -> WebhookEvent:
        """Verifies a delivery and returns its event; raises `WebhookVerificationError` otherwise."""
        return unwrap(body, headers, secret)

    @staticmethod
    def generate_test_headers(payload: str, secret: str, *, timestamp: Optional[int] = None, id: Optional[str] = None) -> Dict[str, str]:
        """The signature headers a delivery of `payload` would carry under `secret`."""
        return generate_test_headers(payload, secret, timestamp=timestamp, id=id)
