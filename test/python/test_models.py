"""The result models without a server: read from the wire's camelCase, given back by `to_dict()`, on the pydantic
this Python has; the pydantic 2 path runs where pydantic 2 is installed."""
import pydantic
import pytest

from unified_dispatch import models
from unified_dispatch._models import PYDANTIC_V2, validate

WIRE = {
    "id": "key_01",
    "mode": "test",
    "name": "ci",
    "prefix": "sk_test_AbCd",
    "last4": "wxyz",
    "scopes": ["keys:read"],
    "entities": "*",
    "tier": "free",
    "createdAt": "2026-01-01T00:00:00.000Z",
    "addedLater": 1,
}


def test_reads_the_wire_form_and_gives_it_back() -> None:
    key = validate(models.KeysKey, WIRE)
    assert isinstance(key, models.KeysKey)
    assert key.created_at == WIRE["createdAt"] and key.expires_at is None
    # A field a newer server added is kept, not refused.
    assert key.to_dict() == WIRE
    page = validate(models.KeysListResult, {"items": [WIRE], "hasMore": False})
    assert page.items[0].id == "key_01" and page.has_more is False


def test_refuses_a_value_outside_its_type() -> None:
    with pytest.raises(pydantic.ValidationError):
        validate(models.KeysKey, {**WIRE, "mode": "sideways"})


@pytest.mark.skipif(not PYDANTIC_V2, reason=f"pydantic 2 is not installed here (pydantic {pydantic.VERSION})")
def test_builds_models_with_pydantic_2() -> None:
    key = models.KeysKey.model_validate(WIRE)  # type: ignore[attr-defined]
    assert key.model_dump(by_alias=True, exclude_unset=True) == WIRE
    by_name = {k: v for k, v in WIRE.items() if k != "createdAt"}
    assert models.KeysKey(**by_name, created_at="x").created_at == "x"
