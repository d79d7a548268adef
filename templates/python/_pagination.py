"""Pages of a list action (`{items, hasMore}`): the first page a call returns, which iterates every item of every
page, asking for the next page only as the loop reaches it. The next page starts after the last item's `id` (or
the field the face file names as its `pageBy`), or at the page's `nextCursor`.
"""
from typing import Any, AsyncIterator, Awaitable, Callable, Dict, Generator, Generic, Iterator, List, Optional, TypeVar, Union

R = TypeVar("R")
I = TypeVar("I")

#: How a list action asks for its next page: `{"after": field}` or `{"cursor": True}`.
Paging = Dict[str, Union[str, bool]]


def next_payload(payload: Dict[str, Any], raw: Any, paging: Paging, action: str) -> Optional[Dict[str, Any]]:
    """The payload of the page after the one the server answered `raw`, or None after the last page."""
    if not raw.get("hasMore"):
        return None
    if paging.get("cursor"):
        value, field = raw.get("nextCursor"), "nextCursor"
    else:
        items = raw.get("items") or [{}]
        after = str(paging.get("after", "id"))
        value, field = items[-1].get(after), f"{after} of its last item"
    if not isinstance(value, str):
        raise ValueError(f"{action} says more pages follow but gives no {field} to ask for them with.")
    return {**payload, **({"cursor": value} if paging.get("cursor") else {"startingAfter": value})}


def _check_limit(limit: Optional[int]) -> None:
    if limit is not None and (not isinstance(limit, int) or limit < 1):
        raise ValueError(f"to_list: limit is a whole number of at least 1, not {limit!r}.")


class _Page(Generic[R, I]):
    def __init__(self, result: R, raw: Any, payload: Dict[str, Any], paging: Paging, action: str) -> None:
        #: The page's result, as its model: `items`, `has_more`, and any other field of the answer.
        self.result = result
        self._next = next_payload(payload, raw, paging, action)
        self._paging = paging
        self._action = action

    @property
    def items(self) -> List[I]:
        """This page's items."""
        return list(getattr(self.result, "items"))

    @property
    def has_more(self) -> bool:
        """Whether another page follows."""
        return self._next is not None

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.result!r})"


class SyncPage(_Page[R, I]):
    """A page of a list action. Iterating it gives every item of this page and of the pages after it."""

    def __init__(self, result: R, raw: Any, payload: Dict[str, Any], paging: Paging, fetch: Callable[[Dict[str, Any]], Any], action: str) -> None:
        super().__init__(result, raw, payload, paging, action)
        self._fetch = fetch

    def next_page(self) -> "Optional[SyncPage[R, I]]":
        """The page after this one, or None after the last."""
        if self._next is None:
            return None
        result, raw = self._fetch(self._next)
        return SyncPage(result, raw, self._next, self._paging, self._fetch, self._action)

    def iter_pages(self) -> "Generator[SyncPage[R, I], None, None]":
        """This page and every page after it."""
        page: Optional[SyncPage[R, I]] = self
        while page is not None:
            yield page
            page = page.next_page()

    def __iter__(self) -> Iterator[I]:
        for page in self.iter_pages():
            yield from page.items

    def to_list(self, limit: Optional[int] = None) -> List[I]:
        """Every item of every page, in order, in one list (as stripe-python's `auto_paging_iter`), or the first
        `limit`: no page past those is asked for."""
        _check_limit(limit)
        collected: List[I] = []
        for item in self:
            collected.append(item)
            if limit is not None and len(collected) >= limit:
                break
        return collected


class AsyncPage(_Page[R, I]):
    """A page of a list action of `AsyncClient`: `async for` gives every item of this page and the next ones."""

    def __init__(self, result: R, raw: Any, payload: Dict[str, Any], paging: Paging, fetch: Callable[[Dict[str, Any]], Awaitable[Any]], action: str) -> None:
        super().__init__(result, raw, payload, paging, action)
        self._fetch = fetch

    async def next_page(self) -> "Optional[AsyncPage[R, I]]":
        """The page after this one, or None after the last."""
        if self._next is None:
            return None
        result, raw = await self._fetch(self._next)
        return AsyncPage(result, raw, self._next, self._paging, self._fetch, self._action)

    async def iter_pages(self) -> "AsyncIterator[AsyncPage[R, I]]":
        """This page and every page after it."""
        page: Optional[AsyncPage[R, I]] = self
        while page is not None:
            yield page
            page = await page.next_page()

    async def __aiter__(self) -> AsyncIterator[I]:
        async for page in self.iter_pages():
            for item in page.items:
                yield item

    async def to_list(self, limit: Optional[int] = None) -> List[I]:
        """Every item of every page, in order, in one list, or the first `limit`."""
        _check_limit(limit)
        collected: List[I] = []
        async for item in self:
            collected.append(item)
            if limit is not None and len(collected) >= limit:
                break
        return collected


class AsyncPager(Generic[R, I]):
    """What a list action of `AsyncClient` returns: awaited, its first page; `async for`, every item."""

    def __init__(self, first: Callable[[], Awaitable[Any]]) -> None:
        self._first = first

    def __await__(self) -> Generator[Any, None, AsyncPage[R, I]]:
        return self._first().__await__()

    async def __aiter__(self) -> AsyncIterator[I]:
        page: AsyncPage[R, I] = await self._first()
        async for item in page:
            yield item

    async def to_list(self, limit: Optional[int] = None) -> List[I]:
        """Every item of every page, in order, in one list, or the first `limit`."""
        page: AsyncPage[R, I] = await self._first()
        return await page.to_list(limit)
