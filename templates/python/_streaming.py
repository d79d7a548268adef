"""Streams (docs/contract.md § Streaming): the server-sent events of a streaming call, read from the wire format
as they arrive. `Stream` and `AsyncStream` iterate the events a caller sees (`start`, `delta`, `progress` and the
action's own), each read into its model, skip `ping` and events this package does not know, and end at the
terminal event: `result`, whose data becomes `stream.result`, or `error`, raised as its `DispatchError` (status
200: the stream had opened).
"""
import json
from typing import Any, AsyncIterator, Generic, Iterable, Iterator, List, Mapping, Optional, TypeVar

import httpx

from ._errors import APIConnectionError, error_from
from ._models import validate

T = TypeVar("T")
#: The type of a stream's events: the union of the models of the events its action sends.
E = TypeVar("E")


class ServerSentEvent:
    """One event as the wire format carries it: its name (`event`) and its `data`, not yet parsed."""

    def __init__(self, event: str, data: str) -> None:
        self.event = event
        self.data = data

    def __repr__(self) -> str:
        return f"ServerSentEvent(event={self.event!r}, data={self.data!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ServerSentEvent) and (self.event, self.data) == (other.event, other.data)


class EventDecoder:
    """The SSE wire format, line by line: `event:` and `data:` fields, comments, and a blank line ending each event."""

    def __init__(self) -> None:
        self._event: Optional[str] = None
        self._data: List[str] = []
        self._pending = ""

    def decode(self, chunk: str) -> List[ServerSentEvent]:
        """Takes a piece of the body as it arrived; returns the events it completes. A line break may be CRLF, LF or
        CR, and a line may arrive in pieces: the unfinished end waits for the next chunk."""
        text = self._pending + chunk
        # A CR at the end may be the first half of a CRLF.
        cut = len(text) - 1 if text.endswith("\r") else len(text)
        lines = text[:cut].replace("\r\n", "\n").replace("\r", "\n").split("\n")
        self._pending = lines.pop() + text[cut:]
        return [event for event in map(self.feed, lines) if event is not None]

    def end(self) -> List[ServerSentEvent]:
        """The body ended: an unfinished last line and event end with it."""
        lines = [self._pending, ""] if self._pending else [""]
        self._pending = ""
        return [event for event in map(self.feed, lines) if event is not None]

    def feed(self, line: str) -> Optional[ServerSentEvent]:
        """Takes one line (without its line break); returns the event a blank line completes, if any."""
        if line == "":
            if not self._data and self._event is None:
                return None
            name, text = self._event or "message", "\n".join(self._data)
            self._event, self._data = None, []
            return ServerSentEvent(name, text)
        if line.startswith(":"):
            return None
        field, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if field == "event":
            self._event = value
        elif field == "data":
            self._data.append(value)
        return None


class _Reader(Generic[T, E]):
    """What both streams share: the model of each event shown, and the terminal event's outcome."""

    def __init__(self, cast_to: Any, events: Mapping[str, Any], url: str, attempt: int, response: Optional[httpx.Response]) -> None:
        self._cast_to = cast_to
        self._events = events
        self._url = url
        self._attempt = attempt
        self._response = response
        self._decoder = EventDecoder()
        self._done = False
        self._result: Any = None

    @property
    def result(self) -> T:
        """The call's result, once the stream's `result` event arrived (after iterating to the end)."""
        if not self._done:
            raise RuntimeError("The stream has not ended yet: iterate it to its end, or call final_result().")
        return self._result  # type: ignore[no-any-return]

    def _take(self, raws: Iterable[ServerSentEvent]) -> List[E]:
        """Of the events read, those a caller sees, each read into its event's model; reads the terminal event into
        the result or raises it."""
        shown: List[E] = []
        for raw in raws:
            if self._done or not (raw.event in self._events or raw.event in ("result", "error")):
                continue
            try:
                data = json.loads(raw.data)
            except ValueError:
                raise self._error(f"event {raw.event}: {raw.data}", {})
            if raw.event == "result" and isinstance(data, dict) and "data" in data:
                self._result = validate(self._cast_to, data["data"])
                self._done = True
            elif raw.event in ("result", "error"):
                self._done = True
                raise self._error(json.dumps(data), data)
            else:
                shown.append(validate(self._events[raw.event], {"event": raw.event, "data": data}))
        return shown

    def _error(self, text: str, body: Any) -> Exception:
        response = self._response
        headers = response.headers if response is not None else httpx.Headers()
        return error_from(200, headers, text, body, self._attempt)

    def _ended_early(self) -> APIConnectionError:
        return APIConnectionError(f"The event stream from {self._url} ended before its result", attempts=self._attempt)


class Stream(_Reader[T, E]):
    """A streaming call: iterate it (once) for its events, in order; then `result` holds the call's result.
    Leaving the loop early and closing it (`with` or `close()`) ends the call."""

    def __init__(self, response: Optional[httpx.Response], cast_to: Any, events: Mapping[str, Any], url: str, attempt: int, finished: Any = None) -> None:
        super().__init__(cast_to, events, url, attempt, response)
        if response is None:
            self._done, self._result = True, finished

    def __iter__(self) -> Iterator[E]:
        response = self._response
        if response is None:
            return
        try:
            for chunk in response.iter_text():
                yield from self._take(self._decoder.decode(chunk))
                if self._done:
                    break
            else:
                yield from self._take(self._decoder.end())
        except httpx.TransportError as exc:
            raise APIConnectionError(f"The connection to {self._url} broke off: {exc}", attempts=self._attempt) from exc
        finally:
            response.close()
        if not self._done:
            raise self._ended_early()

    def final_result(self) -> T:
        """Reads the rest of the stream and returns the call's result."""
        for _ in self:
            pass
        return self.result

    def close(self) -> None:
        if self._response is not None:
            self._response.close()

    def __enter__(self) -> "Stream[T, E]":
        return self

    def __exit__(self, *_: Any) -> None:
        self.close()


class AsyncStream(_Reader[T, E]):
    """`Stream` for `AsyncClient`: `async for event in stream`, then `stream.result`."""

    def __init__(self, response: Optional[httpx.Response], cast_to: Any, events: Mapping[str, Any], url: str, attempt: int, finished: Any = None) -> None:
        super().__init__(cast_to, events, url, attempt, response)
        if response is None:
            self._done, self._result = True, finished

    async def __aiter__(self) -> AsyncIterator[E]:
        response = self._response
        if response is None:
            return
        try:
            async for chunk in response.aiter_text():
                for event in self._take(self._decoder.decode(chunk)):
                    yield event
                if self._done:
                    break
            else:
                for event in self._take(self._decoder.end()):
                    yield event
        except httpx.TransportError as exc:
            raise APIConnectionError(f"The connection to {self._url} broke off: {exc}", attempts=self._attempt) from exc
        finally:
            await response.aclose()
        if not self._done:
            raise self._ended_early()

    async def final_result(self) -> T:
        """Reads the rest of the stream and returns the call's result."""
        async for _ in self:
            pass
        return self.result

    async def close(self) -> None:
        if self._response is not None:
            await self._response.aclose()

    async def __aenter__(self) -> "AsyncStream[T, E]":
        return self

    async def __aexit__(self, *_: Any) -> None:
        await self.close()
