"""The real server for the Python SDK's tests: `dispatch serve` started as a process, as `npm start` starts it, on a
fresh data directory and a free port, with the first key it prints; and clients of it."""
import os
import re
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import AsyncIterator, Iterator, NamedTuple

import pytest
import pytest_asyncio

from unified_dispatch import AsyncClient, Client

ROOT = Path(__file__).resolve().parents[2]


class Server(NamedTuple):
    url: str
    key: str


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def server() -> Iterator[Server]:
    port = free_port()
    env = {
        **os.environ,
        "DATA_DIR": tempfile.mkdtemp(prefix="dispatch-python-"),
        "PORT": str(port),
        # The webhook test's receiver listens on 127.0.0.1, and should hear of each event at once.
        "WEBHOOK_ALLOW_PRIVATE_URLS": "1",
        "WEBHOOK_POLL_MS": "100",
    }
    process = subprocess.Popen(
        ["node", str(ROOT / "src/cli/start.mjs"), "serve"], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    assert process.stdout is not None
    output = ""
    # The banner comes first; the first key's block ends with the curl line.
    while "listening on" not in output or "-d '" not in output:
        line = process.stdout.readline()
        if line == "":
            raise RuntimeError(f"dispatch serve exited with {process.wait()}: {output}")
        output += line
    key = re.search(r"^\s+(sk_test_[0-9A-Za-z]{40})$", output, re.M)
    assert key, output
    # Read on, so that the server never waits on a full pipe.
    threading.Thread(target=process.stdout.read, daemon=True).start()
    try:
        yield Server(f"http://127.0.0.1:{port}", key.group(1))
    finally:
        process.terminate()
        process.wait(timeout=30)


@pytest.fixture
def client(server: Server) -> Iterator[Client]:
    with Client(api_key=server.key, entity="demo", base_url=server.url) as made:
        yield made


@pytest_asyncio.fixture
async def async_client(server: Server) -> AsyncIterator[AsyncClient]:
    async with AsyncClient(api_key=server.key, entity="demo", base_url=server.url) as made:
        yield made


def unique(prefix: str) -> str:
    """A name no other test uses: the tests share one server."""
    return f"{prefix}-{time.time_ns()}"
