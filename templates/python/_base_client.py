"""The transport of the client: posts `{face, action, payload, options}` to `POST /do` and turns the answer into
its data (read into the action's result model) or a `DispatchError`; a streaming call's server-sent events into a
`Stream`; a list action's answer into a page that iterates every item of every page.

Calls that failed for a passing reason (a lost connection, a 429, or an answer whose code the catalogue marks
retryable: `RETRYABLE_CODES`, among them 409 `idempotency_key_in_use`, 500 `internal_error` and 503
`provider_unavailable`) before any answer or stream arrived are retried with exponential backoff and full
jitter, never before `Retry-After`, under one idempotency key made for the call, so that a retry never runs
twice on the server: a retried 500 gets the first answer replayed (docs/contract.md § Idempotency, § Errors). `SyncAPIClient` and `AsyncAPIClient` share everything but the I/O.
"""
import asyncio
import contextvars
import json
import platform
import random
import re
import time
import uuid
from typing import Any, Awaitable, Callable, Dict, Generic, List, Literal, Mapping, Optional, ParamSpec, Sequence, Tuple, TypedDict, TypeVar, Union, cast

import httpx

from ._error_codes import RETRYABLE_CODES
from ._errors import APIConnectionError, DispatchError, error_from, retry_after_seconds
from ._models import validate
from ._pagination import AsyncPage, AsyncPager, Paging, SyncPage
from ._streaming import AsyncStream, Stream
from ._version import API_VERSION, DEFAULT_TIMEOUT, VERSION

T = TypeVar("T")
P = ParamSpec("P")

#: The first backoff step in seconds; each retry doubles it, up to `MAX_BACKOFF`.
BASE_DELAY = 0.25
MAX_BACKOFF = 8.0
#: A `Retry-After` longer than this (seconds) is not waited for: the call fails at once with that answer.
MAX_RETRY_DELAY = 60.0
DEFAULT_MAX_RETRIES = 2
DEFAULT_BASE_URL = "http://localhost:8787"

#: What the client sends as `User-Agent`: the package, its version and the Python it runs on.
USER_AGENT = f"unified-dispatch-python/{VERSION} Python/{platform.python_version()}"


class NotGiven:
    """The default of an optional argument: the field is left out of the payload (`None` would send `null`)."""

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "NOT_GIVEN"


NOT_GIVEN = NotGiven()


class RequestOptions(TypedDict, total=False):
    """Settings of one call, each overriding the client's."""

    #: Makes the call safe to repeat: the server replays the first answer for 24 hours. Without it, a call that
    #: may be retried sends a random key of its own, the same on every attempt.
    idempotency_key: str
    #: The entity this call acts for (`X-Entity-ID`).
    entity: str
    #: The API version of this call (`X-API-Version`).
    api_version: str
    #: The server's time limit for the action in milliseconds (`options.timeout`); past it the server answers
    #: 504 `timeout`. Compare `timeout`, how long this client waits.
    server_timeout: int
    #: How long this client waits for an answer, in seconds; `None` waits without limit.
    timeout: Optional[float]
    #: How often this call is retried; 0 disables.
    max_retries: int
    #: Extra headers for this call; the protocol headers take precedence.
    extra_headers: Mapping[str, str]


class RawResponse(Generic[T]):
    """A call's whole answer, as `client.with_raw_response.<face>.<action>(...)` gives it."""

    def __init__(self, data: T, answer: "Answer") -> None:
        self.data = data
        #: The envelope's `meta`: `timing`, `requestId`, `version`.
        self.meta = answer.meta
        #: The request id: quote it when asking for support.
        self.request_id = answer.request_id
        #: The HTTP status.
        self.status = answer.status
        #: Response headers, e.g. `Request-Id`, `RateLimit`, `Idempotent-Replayed`.
        self.headers = answer.headers
        #: How many requests the call took: 1, plus one per retry.
        self.attempts = answer.attempts

    def parse(self) -> T:
        """The data, as the call without `with_raw_response` returns it."""
        return self.data


def to_raw_response(method: Callable[P, T]) -> Callable[P, RawResponse[T]]:
    """`method`, returning its whole answer as a `RawResponse` (what `client.with_raw_response` is made of)."""

    def raw(*args: P.args, **kwargs: P.kwargs) -> RawResponse[T]:
        token = RAW_RESPONSE.set(True)
        try:
            return cast(RawResponse[T], method(*args, **kwargs))
        finally:
            RAW_RESPONSE.reset(token)

    raw.__doc__ = method.__doc__
    return raw


def to_async_raw_response(method: Callable[P, Awaitable[T]]) -> Callable[P, Awaitable[RawResponse[T]]]:
    """`to_raw_response` for a method of `AsyncClient`."""

    async def raw(*args: P.args, **kwargs: P.kwargs) -> RawResponse[T]:
        token = RAW_RESPONSE.set(True)
        try:
            return cast(RawResponse[T], await method(*args, **kwargs))
        finally:
            RAW_RESPONSE.reset(token)

    raw.__doc__ = method.__doc__
    return raw


class Answer:
    """A JSON answer with data, before its data is read into a model."""

    def __init__(self, data: Any, meta: Dict[str, Any], status: int, headers: httpx.Headers, attempts: int) -> None:
        self.data = data
        self.meta = meta
        self.status = status
        self.headers = headers
        self.attempts = attempts
        request_id = meta.get("requestId")
        self.request_id: Optional[str] = request_id if isinstance(request_id, str) else headers.get("Request-Id")


#: Set while a `with_raw_response` call runs: the transport then returns a `RawResponse`.
RAW_RESPONSE: contextvars.ContextVar[bool] = contextvars.ContextVar("unified_dispatch_raw_response", default=False)


class BatchItemResult:
    """The outcome of one batch request: `data` (read into its action's result), or the `error` it failed with."""

    def __init__(self, id: str, status: int, data: Any = None, error: Optional[Dict[str, Any]] = None) -> None:
        self.id = id
        self.status = status
        self.data = data
        self.error = error

    @property
    def ok(self) -> bool:
        return self.error is None

    def __repr__(self) -> str:
        outcome = f"error={self.error!r}" if self.error is not None else f"data={self.data!r}"
        return f"BatchItemResult(id={self.id!r}, status={self.status}, {outcome})"


class BatchRequest(TypedDict, total=False):
    """One request of `client.batch()`: `face`, `action` and `payload` (with the wire's camelCase keys); `id`
    defaults to its position: "0", "1", ..."""

    id: str
    face: str
    action: str
    payload: Mapping[str, Any]


BatchMode = Literal["atomic", "bestEffort"]


def payload_of(fields: Mapping[str, Any]) -> Dict[str, Any]:
    """The payload: every field given, by its wire name; those left at `NOT_GIVEN` are not sent."""
    return {name: value for name, value in fields.items() if not isinstance(value, NotGiven)}


def checked_header_value(option: str, value: Any) -> str:
    """`value`, when an HTTP header can carry it (visible ASCII); else a `TypeError` naming the option and the
    first character it cannot send (a key pasted with a `…` placeholder in it, say)."""
    if not isinstance(value, str) or value == "":
        raise TypeError(f"{option} is required: a non-empty string.")
    bad = re.search(r"[^\x21-\x7e]", value)
    if bad:
        code = f"{ord(bad.group()):04X}"
        raise TypeError(
            f"{option} holds U+{code} at position {bad.start()}, which an HTTP header cannot carry: "
            "give the value itself, without placeholders or spaces."
        )
    return value


def is_retryable(failure: Union[DispatchError, APIConnectionError]) -> bool:
    """A lost connection (not the client's own time-out), a 429 or an answer with a retryable code; never a
    replayed answer, which the same key only gets again."""
    if isinstance(failure, APIConnectionError):
        return not failure.timed_out
    if failure.headers.get("Idempotent-Replayed") == "true":
        return False
    return failure.status == 429 or failure.code in RETRYABLE_CODES


def retry_delay(failure: Union[DispatchError, APIConnectionError], retry: int, rand: Callable[[], float]) -> Optional[float]:
    """Seconds to wait before retrying after `failure`, or `None` to give up. Full jitter (a random wait up to
    the backoff step) keeps clients that failed together from retrying together; `Retry-After` is a floor."""
    if not is_retryable(failure):
        return None
    floor = retry_after_seconds(failure.headers.get("Retry-After")) if isinstance(failure, DispatchError) else 0.0
    if floor > MAX_RETRY_DELAY:
        return None
    return max(floor, rand() * min(MAX_BACKOFF, BASE_DELAY * 2**retry))


def answer_of(response: httpx.Response, text: str, attempt: int) -> Answer:
    """The data of a JSON answer with its meta, or the `DispatchError` it carries."""
    try:
        body = json.loads(text)
    except ValueError:
        body = None
    if response.is_success and isinstance(body, dict) and "data" in body and isinstance(body.get("meta"), dict):
        return Answer(body["data"], body["meta"], response.status_code, response.headers, attempt)
    raise error_from(response.status_code, response.headers, text, body, attempt)


def is_event_stream(response: httpx.Response) -> bool:
    return response.is_success and response.headers.get("Content-Type", "").startswith("text/event-stream")


class BaseAPIClient:
    """What both clients share: their settings, and how a call becomes a request."""

    def __init__(
        self,
        *,
        api_key: str,
        entity: str,
        base_url: Optional[str] = None,
        api_version: Optional[str] = None,
        timeout: Optional[float] = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        default_headers: Optional[Mapping[str, str]] = None,
    ) -> None:
        self.api_key = checked_header_value("api_key", api_key)
        self.entity = checked_header_value("entity", entity)
        self.base_url = (base_url or DEFAULT_BASE_URL).rstrip("/")
        self.api_version = api_version or API_VERSION
        self.timeout = timeout
        self.max_retries = max_retries
        self.default_headers = dict(default_headers or {})
        self._url = f"{self.base_url}/do"
        # For tests: the jitter's random source.
        self._random: Callable[[], float] = random.random

    def _build_request(
        self,
        http: Union[httpx.Client, httpx.AsyncClient],
        face: str,
        action: str,
        payload: Any,
        options: RequestOptions,
        key: Optional[str],
        stream: bool,
    ) -> httpx.Request:
        headers: Dict[str, str] = {"User-Agent": USER_AGENT, **self.default_headers, **options.get("extra_headers", {})}
        entity = options.get("entity")
        headers.update(
            {
                "Authorization": f"Bearer {self.api_key}",
                "X-Entity-ID": self.entity if entity is None else checked_header_value("entity", entity),
                "Content-Type": "application/json",
                "X-API-Version": options.get("api_version") or self.api_version,
            }
        )
        if stream:
            headers["Accept"] = "text/event-stream"
        if key is not None:
            headers["X-Idempotency-Key"] = key
        body: Dict[str, Any] = {"face": face, "action": action, "payload": payload}
        if "server_timeout" in options:
            body["options"] = {"timeout": options["server_timeout"]}
        wait = options.get("timeout", self.timeout)
        # The time-out rides on the request, so one client serves calls that wait differently.
        extensions = {"timeout": httpx.Timeout(wait).as_dict()}
        return http.build_request("POST", self._url, content=json.dumps(body).encode(), headers=headers, extensions=extensions)

    def _retries(self, options: RequestOptions) -> Tuple[int, Optional[str]]:
        """How often the call may be retried, and its idempotency key: the caller's, or one made for it."""
        max_retries = options.get("max_retries", self.max_retries)
        key = options.get("idempotency_key") or (uuid.uuid4().hex if max_retries > 0 else None)
        return max_retries, key

    def _connection_error(self, exc: Exception, options: RequestOptions, attempt: int, answered: bool) -> APIConnectionError:
        if isinstance(exc, httpx.TimeoutException):
            wait = options.get("timeout", self.timeout)
            return APIConnectionError(f"No complete answer from {self._url} within {wait} s", timed_out=True, attempts=attempt)
        lost = f"The connection to {self._url} broke off" if answered else f"Could not reach {self._url}"
        return APIConnectionError(f"{lost}: {exc}", attempts=attempt)

    @staticmethod
    def _result(answer: Answer, cast_to: Any) -> Any:
        data = validate(cast_to, answer.data)
        return RawResponse(data, answer) if RAW_RESPONSE.get() else data

    @staticmethod
    def _batch_results(data: Any, results: Mapping[str, Any], requests: Sequence[BatchRequest]) -> List[BatchItemResult]:
        out: List[BatchItemResult] = []
        for index, item in enumerate(cast(Dict[str, Any], data)["results"]):
            request = requests[index] if index < len(requests) else {}
            cast_to = results.get(f"{request.get('face')}.{request.get('action')}")
            if "error" in item:
                out.append(BatchItemResult(item["id"], item["status"], error=item["error"]))
            else:
                value = item.get("data") if cast_to is None else validate(cast_to, item.get("data"))
                out.append(BatchItemResult(item["id"], item["status"], data=value))
        return out


class SyncAPIClient(BaseAPIClient):
    """The untyped core of `Client`: `call` also reaches actions this package was generated without."""

    def __init__(self, *, http_client: Optional[httpx.Client] = None, **settings: Any) -> None:
        super().__init__(**settings)
        self._http = http_client or httpx.Client()
        # For tests: waits between attempts.
        self._sleep: Callable[[float], None] = time.sleep

    def close(self) -> None:
        self._http.close()

    def __enter__(self: T) -> T:
        return self

    def __exit__(self, *_: Any) -> None:
        self.close()

    def call(self, face: str, action: str, payload: Any = None, *, cast_to: Any = Any, options: Optional[RequestOptions] = None) -> Any:
        """Calls `face.action` and returns its data read as `cast_to`, or raises a `DispatchError` (of its type's
        class) or an `APIConnectionError`."""
        answer = self._exchange(face, action, payload if payload is not None else {}, options or {}, False)
        return self._result(cast(Answer, answer), cast_to)

    def _list(self, face: str, action: str, payload: Dict[str, Any], cast_to: Any, options: Optional[RequestOptions], paging: Paging) -> Any:
        # An idempotency key names one request: the pages after the first are requests of their own.
        later = {name: value for name, value in (options or {}).items() if name != "idempotency_key"}

        def fetch(sent: Dict[str, Any], first: bool) -> Tuple[Any, Answer]:
            answer = cast(Answer, self._exchange(face, action, sent, (options or {}) if first else cast(RequestOptions, later), False))
            return validate(cast_to, answer.data), answer

        def fetch_next(sent: Dict[str, Any]) -> Tuple[Any, Any]:
            result, answer = fetch(sent, False)
            return result, answer.data

        result, answer = fetch(payload, True)
        page: SyncPage[Any, Any] = SyncPage(result, answer.data, payload, paging, fetch_next, f"{face}.{action}")
        return RawResponse(page, answer) if RAW_RESPONSE.get() else page

    def _stream(self, face: str, action: str, payload: Dict[str, Any], cast_to: Any, options: Optional[RequestOptions], events: Mapping[str, Any]) -> Any:
        opened = self._exchange(face, action, payload, options or {}, True)
        if isinstance(opened, Answer):
            # The server answered in one piece (an action that does not stream): a stream of no events.
            stream: Stream[Any, Any] = Stream(None, cast_to, events, self._url, 1, finished=validate(cast_to, opened.data))
            return RawResponse(stream, opened) if RAW_RESPONSE.get() else stream
        response, attempt = opened
        stream = Stream(response, cast_to, events, self._url, attempt)
        if RAW_RESPONSE.get():
            return RawResponse(stream, Answer(None, {}, response.status_code, response.headers, attempt))
        return stream

    def _batch(self, requests: Sequence[BatchRequest], mode: BatchMode, results: Mapping[str, Any], options: Optional[RequestOptions]) -> Any:
        answer = cast(Answer, self._exchange("batch", "run", {"mode": mode, "requests": list(requests)}, options or {}, False))
        items = self._batch_results(answer.data, results, requests)
        return RawResponse(items, answer) if RAW_RESPONSE.get() else items

    def _exchange(self, face: str, action: str, payload: Any, options: RequestOptions, stream: bool) -> Union[Answer, Tuple[httpx.Response, int]]:
        max_retries, key = self._retries(options)
        request = self._build_request(self._http, face, action, payload, options, key, stream)
        attempt = 0
        while True:
            attempt += 1
            try:
                return self._attempt(request, options, attempt, stream)
            except (DispatchError, APIConnectionError) as failure:
                delay = retry_delay(failure, attempt - 1, self._random) if attempt <= max_retries else None
                if delay is None:
                    raise
            self._sleep(delay)

    def _attempt(self, request: httpx.Request, options: RequestOptions, attempt: int, stream: bool) -> Union[Answer, Tuple[httpx.Response, int]]:
        try:
            response = self._http.send(request, stream=True)
        except httpx.TransportError as exc:
            raise self._connection_error(exc, options, attempt, False) from exc
        if stream and is_event_stream(response):
            return response, attempt
        try:
            text = response.read().decode("utf-8", "replace")
        except httpx.TransportError as exc:
            raise self._connection_error(exc, options, attempt, True) from exc
        finally:
            response.close()
        return answer_of(response, text, attempt)


class AsyncAPIClient(BaseAPIClient):
    """The untyped core of `AsyncClient`: `call` also reaches actions this package was generated without."""

    def __init__(self, *, http_client: Optional[httpx.AsyncClient] = None, **settings: Any) -> None:
        super().__init__(**settings)
        self._http = http_client or httpx.AsyncClient()
        self._sleep: Callable[[float], Any] = asyncio.sleep

    async def close(self) -> None:
        await self._http.aclose()

    async def __aenter__(self: T) -> T:
        return self

    async def __aexit__(self, *_: Any) -> None:
        await self.close()

    async def call(self, face: str, action: str, payload: Any = None, *, cast_to: Any = Any, options: Optional[RequestOptions] = None) -> Any:
        """Like `Client.call`, awaited."""
        answer = await self._exchange(face, action, payload if payload is not None else {}, options or {}, False)
        return self._result(cast(Answer, answer), cast_to)

    def _list(self, face: str, action: str, payload: Dict[str, Any], cast_to: Any, options: Optional[RequestOptions], paging: Paging) -> Any:
        later = {name: value for name, value in (options or {}).items() if name != "idempotency_key"}
        raw = RAW_RESPONSE.get()

        async def fetch(sent: Dict[str, Any], first: bool) -> Tuple[Any, Answer]:
            answer = cast(Answer, await self._exchange(face, action, sent, (options or {}) if first else cast(RequestOptions, later), False))
            return validate(cast_to, answer.data), answer

        async def fetch_next(sent: Dict[str, Any]) -> Tuple[Any, Any]:
            result, answer = await fetch(sent, False)
            return result, answer.data

        async def first() -> Any:
            result, answer = await fetch(payload, True)
            page: AsyncPage[Any, Any] = AsyncPage(result, answer.data, payload, paging, fetch_next, f"{face}.{action}")
            return RawResponse(page, answer) if raw else page

        return AsyncPager(first)

    async def _stream(self, face: str, action: str, payload: Dict[str, Any], cast_to: Any, options: Optional[RequestOptions], events: Mapping[str, Any]) -> Any:
        opened = await self._exchange(face, action, payload, options or {}, True)
        if isinstance(opened, Answer):
            stream: AsyncStream[Any, Any] = AsyncStream(None, cast_to, events, self._url, 1, finished=validate(cast_to, opened.data))
            return RawResponse(stream, opened) if RAW_RESPONSE.get() else stream
        response, attempt = opened
        stream = AsyncStream(response, cast_to, events, self._url, attempt)
        if RAW_RESPONSE.get():
            return RawResponse(stream, Answer(None, {}, response.status_code, response.headers, attempt))
        return stream

    async def _batch(self, requests: Sequence[BatchRequest], mode: BatchMode, results: Mapping[str, Any], options: Optional[RequestOptions]) -> Any:
        answer = cast(Answer, await self._exchange("batch", "run", {"mode": mode, "requests": list(requests)}, options or {}, False))
        items = self._batch_results(answer.data, results, requests)
        return RawResponse(items, answer) if RAW_RESPONSE.get() else items

    async def _exchange(self, face: str, action: str, payload: Any, options: RequestOptions, stream: bool) -> Union[Answer, Tuple[httpx.Response, int]]:
        max_retries, key = self._retries(options)
        request = self._build_request(self._http, face, action, payload, options, key, stream)
        attempt = 0
        while True:
            attempt += 1
            try:
                return await self._attempt(request, options, attempt, stream)
            except (DispatchError, APIConnectionError) as failure:
                delay = retry_delay(failure, attempt - 1, self._random) if attempt <= max_retries else None
                if delay is None:
                    raise
            await self._sleep(delay)

    async def _attempt(self, request: httpx.Request, options: RequestOptions, attempt: int, stream: bool) -> Union[Answer, Tuple[httpx.Response, int]]:
        try:
            response = await self._http.send(request, stream=True)
        except httpx.TransportError as exc:
            raise self._connection_error(exc, options, attempt, False) from exc
        if stream and is_event_stream(response):
            return response, attempt
        try:
            text = (await response.aread()).decode("utf-8", "replace")
        except httpx.TransportError as exc:
            raise self._connection_error(exc, options, attempt, True) from exc
        finally:
            await response.aclose()
        return answer_of(response, text, attempt)
