"""The exceptions a call raises (docs/contract.md § Errors).

`DispatchError` is an answer of the API that carries an error; each error type has its subclass
(`AuthenticationError` for `authentication_error`, ...), so `except` can pick a family. `APIConnectionError` is
a call that got no answer. Branch on `code`, which is stable, never on the message.
"""
import email.utils
import math
import time
from typing import Any, Dict, Mapping, Optional, Type, Union

import httpx

from ._error_codes import ErrorCode


class DispatchError(Exception):
    """The API answered with an error."""

    #: The error family, e.g. `invalid_request_error`.
    type: str
    #: The stable error code, e.g. `payload_invalid`: one of the catalogue's, or one a newer server added.
    code: Union[ErrorCode, str]
    #: The HTTP status; 200 for the `error` event of a stream that had opened, so branch on `code`.
    status: int
    message: str
    #: A JSON pointer to the offending field, e.g. `/payload/prompt`.
    param: Optional[str]
    details: Optional[Dict[str, Any]]
    doc_url: Optional[str]
    #: Quote this when asking for support.
    request_id: Optional[str]
    #: Response headers, e.g. `Retry-After` on a 429.
    headers: httpx.Headers
    #: How many requests the call took before it gave up with this answer.
    attempts: int

    def __init__(
        self,
        error: Mapping[str, Any],
        status: int,
        request_id: Optional[str],
        headers: httpx.Headers,
        attempts: int = 1,
    ) -> None:
        super().__init__(str(error.get("message", "")))
        self.type = str(error.get("type", "api_error"))
        self.code = str(error.get("code", "internal_error"))
        self.message = str(error.get("message", ""))
        self.status = status
        param = error.get("param")
        self.param = param if isinstance(param, str) else None
        details = error.get("details")
        self.details = details if isinstance(details, dict) else None
        doc_url = error.get("docUrl")
        self.doc_url = doc_url if isinstance(doc_url, str) else None
        self.request_id = request_id
        self.headers = headers
        self.attempts = attempts

    def __str__(self) -> str:
        return f"{self.status} {self.code}: {self.message}" + (f" (request {self.request_id})" if self.request_id else "")


class InvalidRequestError(DispatchError):
    """400 and the other 4xx of a request wrong as sent (`invalid_request_error`); fix it before retrying."""


class AuthenticationError(DispatchError):
    """401: no key, or one that is unknown, revoked or expired (`authentication_error`)."""


class PaymentError(DispatchError):
    """402: a payment was refused (`payment_error`); `details["declineCode"]` says why."""


class PermissionDeniedError(DispatchError):
    """403: the key lacks a scope or the entity, or a quota is spent (`permission_error`)."""


class NotFoundError(DispatchError):
    """404: no such face, action or resource (`not_found_error`)."""


class IdempotencyError(DispatchError):
    """409 or 422: the idempotency key is in use by a running call, or was used for another request."""


class RateLimitError(DispatchError):
    """429: a rate limit (`rate_limit_error`); `retry_after_seconds` says when the call would pass."""

    @property
    def retry_after_seconds(self) -> Optional[int]:
        """Whole seconds, from the `Retry-After` header (seconds or a date), until the call would pass."""
        value = self.headers.get("Retry-After")
        return None if value is None else math.ceil(retry_after_seconds(value))


class ServerError(DispatchError):
    """The server failed (500), its store is unreachable or it is stopping (503), or similar (`api_error`)."""


class ProviderError(DispatchError):
    """502 or 503: the backend behind a face failed or is not configured (`provider_error`)."""


class ActionTimeoutError(DispatchError):
    """504: the action ran past its time-out on the server (`timeout_error`)."""


class BatchError(DispatchError):
    """An atomic batch failed (`batch_error`, code `batch_aborted`); `details["results"]` has every request's outcome."""


#: The class of each error type of docs/contract.md § Errors; any other type is a plain `DispatchError`.
ERROR_CLASSES: Dict[str, Type[DispatchError]] = {
    "invalid_request_error": InvalidRequestError,
    "authentication_error": AuthenticationError,
    "payment_error": PaymentError,
    "permission_error": PermissionDeniedError,
    "not_found_error": NotFoundError,
    "idempotency_error": IdempotencyError,
    "rate_limit_error": RateLimitError,
    "api_error": ServerError,
    "provider_error": ProviderError,
    "timeout_error": ActionTimeoutError,
    "batch_error": BatchError,
}


class APIConnectionError(Exception):
    """No answer arrived: the network failed, or the client's `timeout` ran out (`timed_out`)."""

    def __init__(self, message: str, *, timed_out: bool = False, attempts: int = 1) -> None:
        super().__init__(message)
        self.timed_out = timed_out
        #: How many requests the call took before it gave up.
        self.attempts = attempts


def error_from(status: int, headers: httpx.Headers, text: str, body: Any, attempts: int) -> DispatchError:
    """The `DispatchError` of an answer that carries no data, whether or not its body is an error envelope."""
    meta = body.get("meta") if isinstance(body, dict) else None
    request_id = meta.get("requestId") if isinstance(meta, dict) else None
    if not isinstance(request_id, str):
        request_id = headers.get("Request-Id")
    error = body.get("error") if isinstance(body, dict) else None
    if not (isinstance(error, dict) and all(isinstance(error.get(f), str) for f in ("type", "code", "message"))):
        # A proxy's error page or a cut-off body has no envelope: keep the status and a glimpse of the text.
        glimpse = text[:200] or "(empty body)"
        error = {"type": "api_error", "code": "internal_error", "message": f"Unexpected {status} answer: {glimpse}"}
    cls = ERROR_CLASSES.get(error["type"], DispatchError)
    return cls(error, status, request_id, headers, attempts)


def retry_after_seconds(value: Optional[str]) -> float:
    """A `Retry-After` (a delay in seconds or an HTTP date) in seconds from now; 0 when absent or unreadable."""
    if value is None:
        return 0.0
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return 0.0
    return max(0.0, when.timestamp() - time.time())
