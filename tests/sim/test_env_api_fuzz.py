"""Schemathesis over the server's own OpenAPI document: no request it can build from the
schema gets a 5xx, and every answer (status, content type, body) is one the schema
documents. Bounded: a few deterministic examples per operation.

Schemathesis calls the server synchronously, so the simulator here runs in a thread of
its own, with its own event loop, serving real HTTP on a loopback port.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Iterator

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from sim.simulator import SimConfig, Simulator

pytestmark = pytest.mark.browser

MAX_EXAMPLES = 6
"""Examples per operation: enough to reach every documented refusal, small enough to keep
the run well under a minute on two shared cores."""

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


def _serve(started: queue.Queue[str | BaseException], stop: threading.Event) -> None:
    async def main() -> None:
        try:
            async with Simulator(SimConfig(pages=1)) as sim:
                sim.create_instance(seed=0)  # an instance for the player's routes to find
                started.put(sim.base_url)
                await asyncio.to_thread(stop.wait)
        except BaseException as exc:  # reported to the test thread, which fails with it
            started.put(exc)

    asyncio.run(main())


@pytest.fixture(scope="module")
def served() -> Iterator[str]:
    """The base URL of a simulator serving from a thread of its own."""
    started: queue.Queue[str | BaseException] = queue.Queue()
    stop = threading.Event()
    thread = threading.Thread(target=_serve, args=(started, stop), daemon=True)
    thread.start()
    url = started.get(timeout=180)
    if isinstance(url, BaseException):
        raise url
    yield url
    stop.set()
    thread.join(timeout=60)
    assert not thread.is_alive()


@pytest.fixture(scope="module")
def api_schema(served: str) -> schemathesis.BaseSchema:
    """The server's OpenAPI document as schemathesis reads it."""
    config = schemathesis.Config.from_dict(
        {
            "seed": 16,
            "generation": {"max-examples": MAX_EXAMPLES, "deterministic": True},
            # the coverage phase ignores max-examples (every case the schema defines: minutes)
            "phases": {"coverage": {"enabled": False}, "stateful": {"enabled": False}},
        }
    )
    return schemathesis.openapi.from_url(f"{served}/openapi.json", config=config)


schema = schemathesis.pytest.from_fixture("api_schema")


@schema.parametrize()
@settings(
    max_examples=MAX_EXAMPLES,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)
def test_every_operation_answers_as_documented(case: schemathesis.Case) -> None:
    case.call_and_validate(checks=CHECKS, timeout=60)
