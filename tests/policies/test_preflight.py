"""A policy spec is checked before a run spends anything: what it names exists, and a VLM
endpoint serves the model (one real ``GET /v1/models`` on loopback)."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from policies.errors import PolicySpecError
from policies.registry import preflight


class _Models(BaseHTTPRequestHandler):
    served = ("Qwen/Qwen3-VL-8B-Instruct",)

    def do_GET(self) -> None:
        body = json.dumps({"data": [{"id": name} for name in self.served]}).encode()
        self.send_response(200 if self.path == "/v1/models" else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        return None


@pytest.fixture
def endpoint() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Models)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def test_a_served_model_passes(endpoint: str) -> None:
    parsed = asyncio.run(preflight(f"vlm:qwen3vl@{endpoint}#Qwen/Qwen3-VL-8B-Instruct"))
    assert parsed.kind == "vlm"


def test_a_model_the_server_does_not_serve_is_named(endpoint: str) -> None:
    with pytest.raises(PolicySpecError, match="serves Qwen/Qwen3-VL-8B-Instruct, not 'other'"):
        asyncio.run(preflight(f"vlm:qwen3vl@{endpoint}#other"))


def test_a_dead_endpoint_is_one_error_naming_the_url() -> None:
    with pytest.raises(
        PolicySpecError, match=r"no model server answers at http://127\.0\.0\.1:9/v1/models"
    ):
        asyncio.run(preflight("vlm:qwen3vl@http://127.0.0.1:9/v1"))


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ("learned:checkpoints/nope", "no checkpoint at checkpoints/nope"),
        ("vlm:qwen3vl,scal=1000@http://127.0.0.1:9/v1", "unknown option(s) scal"),
        ("scriptd", "did you mean 'scripted'"),
    ],
)
def test_what_a_spec_names_must_exist(spec: str, says: str) -> None:
    with pytest.raises(PolicySpecError, match=says.replace("(", r"\(").replace(")", r"\)")):
        asyncio.run(preflight(spec))


def test_scripted_and_shipped_checkpoints_pass() -> None:
    assert asyncio.run(preflight("scripted")).kind == "scripted"
    assert asyncio.run(preflight("learned:checkpoints/trained")).kind == "learned"
