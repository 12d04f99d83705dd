"""``vlm-replay:RUN``: a recorded run's model replies, served again without a GPU.

:class:`ReplayServer` is a real OpenAI-compatible HTTP server on 127.0.0.1 (an ephemeral
port, a daemon thread, so it never outlives the process) that answers
``/v1/chat/completions`` from a :class:`~policies.vlm.recording.Recording` by request key
and lists the recorded models at ``/v1/models``. A request the recording does not hold is
refused (HTTP 404), never answered with a made-up reply.

:class:`RecordedVLMPolicy` starts one such server, points the usual
:class:`~policies.vlm.base.VLMPolicy` at it with the adapter, options and model the
recording was made with, and stops the server with itself (:meth:`close`, or when it is
collected). Because the VLMPolicy is the same code as in the live run, the same
observations produce byte-identical requests, hence the recorded replies, actions and
records: a VLM run can be re-judged, re-reported and regression-tested exactly. A request
that is not recorded ends the episode as ``infra_error`` naming the step and what differs.

Where the adapter comes from: the run directory's ``manifest.json`` (the ``vlm:`` spec whose
base URL is the one the recording proxy served at), else the recording's own ``adapter``
(``mgb vlm record --adapter``). Identical requests recorded several times are answered with
their replies in recorded order (the last one again once they are used up), counted per
server, that is per policy.
"""

from __future__ import annotations

import json
import socket
import threading
import weakref
from dataclasses import dataclass
from pathlib import Path

import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from pydantic import JsonValue

from bridge.errors import PolicyError
from bridge.schema import Observation, PolicyContext, PolicyOutput
from policies.errors import PolicySpecError
from policies.registry import VLMSpec, parse_spec
from policies.vlm.base import VLMPolicy
from policies.vlm.errors import RecordingError
from policies.vlm.recording import Recording, request_key, request_summary

__all__ = ["Miss", "RecordedVLMPolicy", "ReplayServer", "recorded_spec"]

_STOP_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class Miss:
    """A request the recording does not hold: its key and what differs from the nearest
    recorded one."""

    key: str
    difference: str


class ReplayServer:
    """Answers chat completions from a recording on 127.0.0.1, in a daemon thread."""

    def __init__(self, recording: Recording) -> None:
        """Prepare a server for ``recording``; :meth:`start` binds and serves."""
        self.recording = recording
        self.misses: list[Miss] = []
        self._served: dict[str, int] = {}
        self._lock = threading.Lock()
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> str:
        """Listen on an ephemeral loopback port and serve; returns the base URL (``/v1``).
        The socket listens before this returns, so requests may follow at once."""
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
        sock.listen(64)
        config = uvicorn.Config(self.app(), log_level="warning", access_log=False,
                                lifespan="off", loop="asyncio")  # fmt: skip
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=_serve, args=(self._server, sock), name="vlm-replay", daemon=True
        )
        self._thread.start()
        return f"http://127.0.0.1:{sock.getsockname()[1]}/v1"

    def close(self) -> None:
        """Stop serving and wait for the thread (idempotent)."""
        _stop_server(self._server, self._thread)
        self._server = self._thread = None

    def answer(self, body: dict[str, JsonValue]) -> dict[str, JsonValue] | None:
        """The recorded reply to ``body`` (the next one for a request recorded several
        times), or None after noting the miss in :attr:`misses`."""
        key = request_key(body)
        replies = self.recording.replies(key)
        with self._lock:
            if not replies:
                self.misses.append(Miss(key, _nearest_difference(self.recording, body)))
                return None
            served = self._served.get(key, 0)
            self._served[key] = served + 1
        return replies[min(served, len(replies) - 1)].response

    def app(self) -> FastAPI:
        """The OpenAI-compatible app answering from the recording."""
        app = FastAPI()

        @app.post("/v1/chat/completions")
        async def chat(request: Request) -> JSONResponse:
            body = json.loads(await request.body())
            reply = self.answer(body) if isinstance(body, dict) else None
            if reply is None:
                message = f"this request is not in the recording {self.recording.root}"
                return JSONResponse({"error": {"message": message}}, 404)
            return JSONResponse(reply)

        @app.get("/v1/models")
        async def models() -> JSONResponse:
            data = [{"id": name, "object": "model"} for name in self.recording.models()]
            return JSONResponse({"object": "list", "data": data})

        return app


def _serve(server: uvicorn.Server, sock: socket.socket) -> None:
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()


def _stop_server(server: uvicorn.Server | None, thread: threading.Thread | None) -> None:
    """Ask ``server`` to exit and join its ``thread`` (either may be None: nothing to do)."""
    if server is not None:
        server.should_exit = True
    if thread is not None and thread is not threading.current_thread():
        thread.join(_STOP_TIMEOUT_S)


def _nearest_difference(recording: Recording, body: dict[str, JsonValue]) -> str:
    """What sets ``body`` apart from the recorded request most like it, in words."""
    summary = request_summary(body)
    if not isinstance(summary, dict) or not recording.exchanges:
        return "the recording holds no requests"
    best = ""
    for exchange in recording.exchanges:
        if isinstance(exchange.request, dict):
            found = _difference(exchange.request, summary)
            if not best or len(found) < len(best):
                best = found
    return best or "no recorded request to compare with"


def _difference(recorded: dict[str, JsonValue], asked: dict[str, JsonValue]) -> str:
    parts = [
        f"{name} {recorded.get(name)!r} (recorded) vs {asked.get(name)!r}"
        for name in sorted((set(recorded) | set(asked)) - {"messages"})
        if recorded.get(name) != asked.get(name)
    ]
    old, new = recorded.get("messages"), asked.get("messages")
    if isinstance(old, list) and isinstance(new, list):
        if len(old) != len(new):
            parts.append(f"{len(new)} messages, the nearest recorded request has {len(old)}")
        for number, (a, b) in enumerate(zip(old, new, strict=False), start=1):
            if a != b:
                parts.append(f"message {number} differs ({_what_differs(a, b)})")
                break
    return "; ".join(parts)


def _what_differs(recorded: JsonValue, asked: JsonValue) -> str:
    """``its image 2`` or ``its text``: the first part of a message that differs."""
    old = recorded.get("content") if isinstance(recorded, dict) else None
    new = asked.get("content") if isinstance(asked, dict) else None
    if not (isinstance(old, list) and isinstance(new, list)):
        return "its text" if isinstance(old, str) and isinstance(new, str) else "its content"
    images = 0
    for a, b in zip(old, new, strict=False):
        is_image = isinstance(b, dict) and b.get("type") == "image_url"
        images += is_image
        if a != b:
            return f"its image {images}" if is_image else "its text"
    return f"{len(new)} parts, recorded {len(old)}"


def recorded_spec(recording: Recording, run: Path) -> VLMSpec:
    """The ``vlm:`` spec the recording was made with, its base URL the proxy's: from the run
    manifest at ``run`` when it names one spec served at the proxy, else from the
    recording's ``adapter``; the model, when the spec names none, is the one recorded.

    Raises:
        RecordingError: neither says which adapter, several specs match, or the recording
            asked for several models and the spec names none.
    """
    info = recording.info
    specs = _manifest_specs(run / "manifest.json", info.served_at)
    if len(specs) > 1:
        raise RecordingError(
            f"{run}/manifest.json names {len(specs)} VLM policies served through the "
            f"recording proxy ({', '.join(map(str, specs))}); record each with its own "
            "`mgb vlm record --out DIR` and replay each directory"
        )
    if not specs and info.adapter is None:
        raise RecordingError(
            f"the recording {recording.root} does not say which adapter made its requests; "
            "replay it from the run directory that holds it, or record with --adapter NAME"
        )
    spec = specs[0] if specs else _adapter_spec(info.adapter or "", info.served_at)
    if spec.model is None:
        models = recording.models()
        if len(models) != 1:
            raise RecordingError(
                f"the recording {recording.root} asked for {len(models)} models "
                f"({', '.join(models) or 'none'}); it cannot say which one to replay"
            )
        spec = spec.model_copy(update={"model": models[0]})
    return spec


def _manifest_specs(manifest: Path, served_at: str | None) -> list[VLMSpec]:
    if served_at is None or not manifest.is_file():
        return []
    try:
        config = json.loads(manifest.read_bytes()).get("config", {})
    except (OSError, ValueError, AttributeError) as exc:
        raise RecordingError(f"{manifest} cannot be read ({exc})") from exc
    found: dict[str, VLMSpec] = {}
    for value in config.values() if isinstance(config, dict) else ():
        if isinstance(value, str) and value.startswith("vlm:"):
            try:
                spec = parse_spec(value)
            except PolicySpecError:
                continue
            if isinstance(spec, VLMSpec) and _same_url(spec.base_url, served_at):
                found[str(spec)] = spec
    return list(found.values())


def _adapter_spec(adapter: str, served_at: str | None) -> VLMSpec:
    text = f"vlm:{adapter}@{served_at or 'http://127.0.0.1/v1'}"
    try:
        spec = parse_spec(text)
    except PolicySpecError as exc:
        raise RecordingError(f"the recording's adapter {adapter!r} is not usable: {exc}") from exc
    assert isinstance(spec, VLMSpec)  # the text starts with vlm:
    return spec


def _same_url(a: str, b: str) -> bool:
    return a.rstrip("/") == b.rstrip("/")


class RecordedVLMPolicy:
    """The VLM policy of a recording, answered by its own :class:`ReplayServer`."""

    def __init__(self, recording: Recording, spec: VLMSpec, name: str) -> None:
        """Start the server and build the VLMPolicy of ``spec`` pointed at it."""
        self._server = ReplayServer(recording)
        self._base_url = base_url = self._server.start()
        self._stop = weakref.finalize(self, self._server.close)
        options = {**spec.options, "max_retries": 0}  # a miss is final; retries change nothing
        self.inner = VLMPolicy.from_spec(spec.adapter, base_url, spec.model, name=name, **options)
        self.recorded = spec

    @classmethod
    def open(cls, run: Path, name: str) -> RecordedVLMPolicy:
        """The replay of the recording at ``run`` (a recording, or a run directory that
        holds one), named ``name`` in records.

        Raises:
            RecordingError: no readable recording, or no way to tell its adapter or model.
        """
        recording = Recording.open(run)
        return cls(recording, recorded_spec(recording, run), name)

    @property
    def name(self) -> str:
        """``vlm-replay:RUN``."""
        return self.inner.name

    @property
    def base_url(self) -> str:
        """Where this policy's replay server listens (``http://127.0.0.1:PORT/v1``)."""
        return self._base_url

    def close(self) -> None:
        """Stop the replay server (idempotent; also done when the policy is collected)."""
        self._stop()

    async def preflight(self) -> None:
        """The server lists the recorded model (see :meth:`VLMPolicy.preflight`)."""
        await self.inner.preflight()

    async def reset(self, instruction: str, context: PolicyContext) -> None:
        """Start a new episode (the inner VLMPolicy forgets its history)."""
        await self.inner.reset(instruction, context)

    async def act(self, observation: Observation) -> PolicyOutput:
        """The recorded reply to this step's request, parsed as in the live run.

        Raises:
            PolicyError: the recording does not hold this request (the message names the
                step and what differs from the nearest recorded request).
        """
        misses = len(self._server.misses)
        try:
            return await self.inner.act(observation)
        except PolicyError as exc:
            if len(self._server.misses) == misses:
                raise
            miss = self._server.misses[-1]
            raise PolicyError(
                f"{self.name}: step {observation.step}: the request is not in the recording "
                f"{self._server.recording.root} (key {miss.key}; {miss.difference}); the run "
                "differs from the recorded one here, so there is no reply to replay"
            ) from exc
