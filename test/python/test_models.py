"""The result models without a server: read from the wire's camelCase, given back by `to_dict()`, on the pydantic
this Python has, and without httpx; the pydantic 2 path runs where pydantic 2 is installed."""
import json
import subprocess
import sys

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


# Runs in a Python where importing httpx fails, as where it is not installed.
WITHOUT_HTTPX = """
import json, sys
from importlib.abc import MetaPathFinder

class NoHttpx(MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "httpx" or name.startswith("httpx."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, NoHttpx())
from unified_dispatch import models, unwrap
from unified_dispatch._models import validate
key = validate(models.KeysKey, json.loads(sys.argv[1]))
print(json.dumps({"name": key.name, "wire": key.to_dict(), "httpx": "httpx" in sys.modules, "unwrap": callable(unwrap)}))
try:
    from unified_dispatch import Client
except ModuleNotFoundError as missing:
    print(missing.name)
"""


def test_the_models_need_no_httpx() -> None:
    run = subprocess.run([sys.executable, "-c", WITHOUT_HTTPX, json.dumps(WIRE)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    read, client = run.stdout.splitlines()
    assert json.loads(read) == {"name": "ci", "wire": WIRE, "httpx": False, "unwrap": True}
    # The client itself does need httpx, and says so when first used.
    assert client == "httpx"
