"""Prints, as JSON, the methods the installed package defines: every face attribute of `Client` and of `AsyncClient`
with its public methods, read from the classes themselves, and the clients' own public methods."""
import inspect
import json

from unified_dispatch import AsyncClient, Client


def surface(client: object) -> dict:
    faces = {
        name: sorted(m for m, _ in inspect.getmembers(type(face), callable) if not m.startswith("_"))
        for name, face in vars(client).items()
        if type(face).__module__.startswith("unified_dispatch.resources.")
    }
    own = sorted(m for m, _ in inspect.getmembers(type(client), inspect.isfunction) if not m.startswith("_"))
    return {"faces": faces, "methods": own}


print(json.dumps({"sync": surface(Client(api_key="sk_test_x", entity="demo")), "async": surface(AsyncClient(api_key="sk_test_x", entity="demo"))}))
