"""Recorded model replies: the request key, the on-disk format, and the recording proxy.

A *recording* is a directory (``mgb vlm record --out DIR``)::

    DIR/recording.json     what was recorded: format and version, the upstream endpoint,
                           the URL the proxy served at, the adapter if given
    DIR/exchanges.jsonl    one line per successful chat completion, appended atomically
                           (bridge.durable): its request key, the request with each image
                           replaced by its digest, and the upstream's JSON reply unchanged

The **request key** is the SHA-256 of the request body as canonical JSON (keys sorted, no
spaces, UTF-8): the model, every message with its image bytes (inside their ``data:``
URLs), and every sampling parameter (temperature, max_tokens, anything ``extra_body``
adds). Any difference the model could see makes another key, so a replay answers only the
request that was really asked. A run directory may hold its recording in
``RUN/vlm_recording`` (:func:`find_recording`).

:func:`recording_proxy` is the OpenAI-compatible proxy ``mgb vlm record`` serves: it
forwards ``/v1/chat/completions`` and ``/v1/models`` to the upstream and appends every
successful completion. Only successes are kept: an upstream error goes back to the client
(which retries it) and is not a reply a replay should give.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Final, Literal

import httpx
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, JsonValue, NonNegativeInt, ValidationError

from bridge.durable import append_line, cut_torn_tail, write_atomic
from policies.vlm.errors import RecordingError

__all__ = [
    "EXCHANGES_FILE",
    "INFO_FILE",
    "RUN_RECORDING_DIR",
    "Exchange",
    "Recording",
    "RecordingInfo",
    "RecordingWriter",
    "find_recording",
    "recording_proxy",
    "request_key",
    "request_summary",
]

INFO_FILE = "recording.json"
EXCHANGES_FILE = "exchanges.jsonl"
RUN_RECORDING_DIR = "vlm_recording"
"""Where a run directory keeps the recording of its model's replies."""

_FORMAT: Final = "mgb-vlm-recording"
_FORWARDED_HEADERS = ("authorization", "content-type")


def request_key(body: Mapping[str, JsonValue]) -> str:
    """``sha256:<hex>`` of ``body`` as canonical JSON: the same request, the same key,
    whatever the order of its fields; any other image byte or parameter, another key."""
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def request_summary(body: JsonValue) -> JsonValue:
    """``body`` with each ``data:`` URL replaced by ``sha256:<hex>`` of the URL: what a
    recording keeps of a request (the texts to read, the images only as digests, since
    every request repeats the history's screenshots)."""
    if isinstance(body, dict):
        return {key: request_summary(value) for key, value in body.items()}
    if isinstance(body, list):
        return [request_summary(value) for value in body]
    if isinstance(body, str) and body.startswith("data:"):
        return "sha256:" + hashlib.sha256(body.encode("utf-8")).hexdigest()
    return body


class RecordingInfo(BaseModel):
    """``recording.json``: what a recording is and where it was made."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    format: Literal["mgb-vlm-recording"] = _FORMAT
    version: Literal[1] = 1
    upstream: str = Field(min_length=1, description="the endpoint replies came from")
    served_at: str | None = Field(default=None, description="the proxy's base URL")
    adapter: str | None = Field(default=None, description="ADAPTER[,K=V...] of the policy")
    created_at: str = Field(default_factory=lambda: datetime.now(timezone.utc).isoformat())


class Exchange(BaseModel):
    """One line of ``exchanges.jsonl``: a request (by key and summary) and its reply."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    index: NonNegativeInt
    key: str = Field(pattern=r"^sha256:[0-9a-f]{64}$")
    model: str | None = None
    request: JsonValue = None
    response: dict[str, JsonValue]


def find_recording(path: Path) -> Path:
    """The recording directory ``path`` names: itself, or ``path/vlm_recording`` when
    ``path`` is a run directory that holds one.

    Raises:
        RecordingError: neither holds a ``recording.json``.
    """
    for candidate in (path, path / RUN_RECORDING_DIR):
        if (candidate / INFO_FILE).is_file():
            return candidate
    raise RecordingError(
        f"no VLM recording at {path} (no {INFO_FILE} there nor in {path / RUN_RECORDING_DIR}); "
        "record one with `mgb vlm record --upstream URL --out DIR`"
    )


class Recording:
    """A recording read from disk: its info and its replies by request key."""

    def __init__(self, root: Path, info: RecordingInfo, exchanges: list[Exchange]) -> None:
        """Wrap loaded contents; use :meth:`open`."""
        self.root, self.info, self.exchanges = root, info, exchanges
        self._by_key: dict[str, list[Exchange]] = {}
        for exchange in exchanges:
            self._by_key.setdefault(exchange.key, []).append(exchange)

    @classmethod
    def open(cls, path: Path) -> Recording:
        """Read the recording at ``path`` (a recording or a run directory holding one).

        Raises:
            RecordingError: it is absent, or a file is unreadable (named with its line).
        """
        root = find_recording(path)
        try:
            info = RecordingInfo.model_validate_json((root / INFO_FILE).read_bytes())
        except (OSError, ValidationError) as exc:
            raise RecordingError(f"{root / INFO_FILE} is not a VLM recording: {exc}") from exc
        return cls(root, info, _read_exchanges(root / EXCHANGES_FILE))

    def replies(self, key: str) -> list[Exchange]:
        """Every recorded exchange of the request ``key``, in the order they were made."""
        return list(self._by_key.get(key, ()))

    def models(self) -> list[str]:
        """The distinct model names the recorded requests asked for, sorted."""
        return sorted({e.model for e in self.exchanges if e.model is not None})


def _read_exchanges(path: Path) -> list[Exchange]:
    if not path.exists():
        return []
    data = path.read_bytes()
    lines = data.split(b"\n")
    if lines and lines[-1]:
        lines = lines[:-1]  # a torn last line (a kill mid-append) was never committed
    exchanges = []
    for number, line in enumerate(lines, start=1):
        if not line:
            continue
        try:
            exchanges.append(Exchange.model_validate_json(line))
        except ValidationError as exc:
            raise RecordingError(
                f"{path} line {number} is not a recorded exchange ({exc.errors()[0]['msg']}); "
                "delete that line to keep the rest"
            ) from exc
    return exchanges


class RecordingWriter:
    """Appends exchanges to a recording directory (created, or continued if it exists)."""

    def __init__(self, root: Path, info: RecordingInfo) -> None:
        """Start writing into ``root``: ``recording.json`` is written if it is absent (a
        continued recording keeps its first info), a torn last line is cut.

        Raises:
            RecordingError: the directory cannot be created or written, or holds another
                kind of file as ``recording.json``.
        """
        self.root = root
        self._exchanges = root / EXCHANGES_FILE
        try:
            root.mkdir(parents=True, exist_ok=True)
            if (root / INFO_FILE).exists():
                self.info = Recording.open(root).info
            else:
                write_atomic(root / INFO_FILE, info.model_dump_json(indent=2).encode("utf-8"))
                self.info = info
            cut_torn_tail(self._exchanges)
            self.count = len(_read_exchanges(self._exchanges))
        except OSError as exc:
            raise RecordingError(
                f"cannot write the recording in {root} ({exc.strerror or exc}); give a "
                "directory you can write with --out"
            ) from exc

    def append(self, body: Mapping[str, JsonValue], response: dict[str, JsonValue]) -> Exchange:
        """Record the reply ``response`` to the request ``body`` (one durable line)."""
        model = body.get("model")
        exchange = Exchange(
            index=self.count,
            key=request_key(body),
            model=model if isinstance(model, str) else None,
            request=request_summary(dict(body)),
            response=response,
        )
        append_line(self._exchanges, exchange.model_dump_json())
        self.count += 1
        return exchange


def recording_proxy(upstream: str, writer: RecordingWriter, timeout_s: float = 600.0) -> FastAPI:
    """The OpenAI-compatible app of ``mgb vlm record``: ``/v1/chat/completions`` and
    ``/v1/models`` forwarded to ``upstream`` (a base URL ending in ``/v1``), every
    successful completion appended to ``writer``. An unreachable upstream is a 502 the
    client retries."""
    base = upstream.rstrip("/")

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with httpx.AsyncClient(timeout=timeout_s) as http:
            app.state.http = http
            yield

    app = FastAPI(lifespan=lifespan)

    @app.post("/v1/chat/completions")
    async def chat(request: Request) -> JSONResponse:
        try:
            body = await request.json()
        except ValueError:
            return JSONResponse({"error": {"message": "the request body is not JSON"}}, 400)
        response = await _forward(request, "POST", f"{base}/chat/completions", body)
        reply = _json_object(response) if response.status_code == 200 else None
        if reply is not None and isinstance(body, dict):
            writer.append(body, reply)
        return response

    @app.get("/v1/models")
    async def models(request: Request) -> JSONResponse:
        return await _forward(request, "GET", f"{base}/models", None)

    return app


async def _forward(request: Request, method: str, url: str, body: JsonValue) -> JSONResponse:
    """``request`` sent on to ``url``; the upstream's status and JSON body (a 502 when it
    cannot be reached or does not answer JSON)."""
    http: httpx.AsyncClient = request.app.state.http
    headers = {k: v for k, v in request.headers.items() if k.lower() in _FORWARDED_HEADERS}
    try:
        upstream = await http.request(method, url, json=body, headers=headers)
    except httpx.HTTPError as exc:
        message = f"the recording proxy cannot reach {url}: {type(exc).__name__}: {exc}"
        return JSONResponse({"error": {"message": message}}, 502)
    try:
        content = upstream.json()
    except ValueError:
        message = f"{url} answered HTTP {upstream.status_code} with a body that is not JSON"
        return JSONResponse({"error": {"message": message}}, 502)
    return JSONResponse(content, upstream.status_code)


def _json_object(response: JSONResponse) -> dict[str, JsonValue] | None:
    content = json.loads(bytes(response.body))
    return content if isinstance(content, dict) and "choices" in content else None
