"""Prints, as JSON, the methods the installed package defines: every face attribute of `Client` and of `AsyncClient`
with its public methods, read from the classes themselves, and the clients' own public methods; and the exception
class the package raises for each error type."""
import inspect
import json

import unified_dispatch
from unified_dispatch import AsyncClient, Client, DispatchError
from unified_dispatch._errors import ERROR_CLASSES


def surface(client: object) -> dict:
    faces = {
        name: sorted(m for m, _ in inspect.getmembers(type(face), callable) if not m.startswith("_"))
        for name, face in vars(client).items()
        if type(face).__module__.startswith("unified_dispatch.resources.")
    }
    own = sorted(m for m, _ in inspect.getmembers(type(client), inspect.isfunction) if not m.startswith("_"))
    return {"faces": faces, "methods": own}


def errors() -> dict:
    """Each error type's class name, from an error built the way an answer builds it; exported by the package."""
    classes = {}
    for type_, cls in ERROR_CLASSES.items():
        assert issubclass(cls, DispatchError) and getattr(unified_dispatch, cls.__name__) is cls
        classes[type_] = cls.__name__
    return classes


print(
    json.dumps(
        {
            "sync": surface(Client(api_key="sk_test_x", entity="demo")),
            "async": surface(AsyncClient(api_key="sk_test_x", entity="demo")),
            "errors": errors(),
        }
    )
)
