"""Schemathesis over the server's own OpenAPI document, with every check it has: no request
it can build gets a 5xx, every answer (status, content type, headers, body) is one the
document gives, a body the document allows is never refused as invalid (422), and a body it
refuses never succeeds. Bounded: a few deterministic examples per operation.

The player's instance and a live env are named in the config, so the routes about one reach
the simulator instead of answering 404 to a random id. (An undeclared method, 405 with
``Allow``, is the coverage phase's check, minutes long: ``test_env_api_robustness`` asks it
directly.)

Schemathesis calls the server synchronously, so the simulator here runs in a thread of
its own, with its own event loop, serving real HTTP on a loopback port.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Iterator

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import CHECKS, load_all_checks

from sim.simulator import SimConfig, Simulator

pytestmark = pytest.mark.browser

MAX_EXAMPLES = 6
"""Examples per operation: enough to reach every documented refusal, small enough to keep
the run well under a minute on two shared cores."""

INSTANCE = "i1"
"""The instance the server creates first: the one the player's routes are asked about."""


def _serve(started: queue.Queue[str | BaseException], stop: threading.Event) -> None:
    async def main() -> None:
        try:
            async with Simulator(SimConfig(pages=1)) as sim:
                first = sim.create_instance(seed=0)  # an instance for the player's routes
                assert first.id == INSTANCE, first.id
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
    """The server's OpenAPI document as schemathesis reads it, every check enabled, with a
    live env named for every route about one but ``DELETE`` (which would close it)."""
    created = httpx.post(f"{served}/api/envs", json={"screenshot": False}, timeout=60)
    env_id = created.raise_for_status().json()["env_id"]
    config = schemathesis.Config.from_dict(
        {
            "seed": 16,
            "generation": {"max-examples": MAX_EXAMPLES, "deterministic": True},
            # the coverage phase ignores max-examples (every case the schema defines: minutes)
            "phases": {"coverage": {"enabled": False}, "stateful": {"enabled": False}},
            "parameters": {"path.instance_id": INSTANCE},
            "operations": [{"exclude-method": "DELETE", "parameters": {"path.env_id": env_id}}],
        }
    )
    checks = config.projects.default.checks_config_for(operation=None, phase=None)
    load_all_checks()
    disabled = [
        c.__name__ for c in CHECKS.get_all() if not checks.get_by_name(name=c.__name__).enabled
    ]
    assert not disabled, f"every check runs; disabled: {disabled}"
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
    case.call_and_validate(timeout=60)  # every enabled check: all of them (api_schema)
