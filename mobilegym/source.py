"""Where a MobileGym build comes from: ``mobilegym:URL`` (a build someone serves) or
``mobilegym:PATH`` (a built ``dist/``, which we serve on loopback ourselves).

We never ship MobileGym: the user points at their own build (MobileGym's code is Apache-2.0,
its data CC BY-NC 4.0). A source is checked before any work starts — a folder without
``index.html``, a URL that is not ``http(s)`` — and the error says what to point at.

A ``dist/`` is a single-page app with an in-memory router, so every path that is not a file
answers ``index.html``; ``/cdn/...`` (MobileGym's optional data set, absent from most builds)
answers 404 as any missing file does.
"""

from __future__ import annotations

import functools
import hashlib
import http.server
import sys
import threading
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from mobilegym.errors import MobileGymSourceError

__all__ = ["PREFIX", "MobileGymSource", "is_mobilegym", "parse_source", "serve"]

PREFIX = "mobilegym:"
"""How a world string names MobileGym (``--sim mobilegym:../mobilegym/dist``)."""


def is_mobilegym(world: str) -> bool:
    """Whether a world string (``--sim``, ``--device``, ``--build``) names a MobileGym build,
    without checking that the build is there."""
    return world.startswith(PREFIX)


@dataclass(frozen=True)
class MobileGymSource:
    """A MobileGym build: a served ``url`` or a ``dist`` folder (exactly one is set)."""

    url: str | None = None
    dist: Path | None = None

    @property
    def spec(self) -> str:
        """The source as the user writes it (``mobilegym:URL`` or ``mobilegym:PATH``)."""
        return PREFIX + (self.url if self.url is not None else str(self.dist))

    def build_id(self, timeout: float = 10.0) -> str:
        """Which build this is: ``sha256:`` and 16 hex digits of its ``index.html``, which
        names every asset by its content hash (Vite), so two builds differ here exactly when
        their code does. A run records it beside our versions.

        Raises:
            MobileGymSourceError: a URL that does not answer.
        """
        if self.dist is not None:
            page = (self.dist / "index.html").read_bytes()
        else:
            assert self.url is not None
            try:
                with urllib.request.urlopen(self.url, timeout=timeout) as reply:
                    page = reply.read()
            except (OSError, ValueError) as exc:
                raise MobileGymSourceError(
                    f"{self.spec}: the build does not answer ({exc}); is it being served?"
                ) from exc
        return f"sha256:{hashlib.sha256(page).hexdigest()[:16]}"


def parse_source(spec: str) -> MobileGymSource:
    """``mobilegym:URL`` or ``mobilegym:PATH`` (the prefix may be left out) as a source.

    Raises:
        MobileGymSourceError: not a URL and not a folder holding a built ``index.html``.
    """
    target = spec.removeprefix(PREFIX).strip()
    if not target:
        raise MobileGymSourceError(
            "mobilegym: names no build; give mobilegym:URL (a served build) or "
            "mobilegym:PATH (a built dist/ folder)"
        )
    if "://" in target:
        parts = urlsplit(target)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise MobileGymSourceError(
                f"{spec}: not an http(s) URL of a served MobileGym build "
                "(e.g. mobilegym:http://127.0.0.1:4173/)"
            )
        return MobileGymSource(url=target if target.endswith("/") else target + "/")
    dist = Path(target).expanduser().resolve()
    if not dist.is_dir():
        raise MobileGymSourceError(
            f"{spec}: no folder {dist}; point at MobileGym's built dist/ "
            "(`npx vite build` in a MobileGym checkout) or at a served URL"
        )
    if not (dist / "index.html").is_file():
        hint = " (its dist/ holds the build)" if (dist / "dist" / "index.html").is_file() else ""
        raise MobileGymSourceError(
            f"{spec}: {dist} has no index.html{hint}; point at MobileGym's built dist/ folder"
        )
    return MobileGymSource(dist=dist)


class _DistHandler(http.server.SimpleHTTPRequestHandler):
    """Static files of a ``dist/``; a path with no file and no extension is the app."""

    def send_head(self) -> Any:
        path = Path(self.translate_path(self.path))
        if not path.exists() and "." not in path.name:
            self.path = "/index.html"
        return super().send_head()

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: a page load is hundreds of requests."""


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Quiet about a browser that hung up mid-reply (a page closed while its missing
        ``/cdn/...`` requests were answered); anything else is reported as usual."""
        error = sys.exc_info()[1]
        if not isinstance(error, ConnectionError):
            super().handle_error(request, client_address)


@contextmanager
def serve(source: MobileGymSource, host: str = "127.0.0.1") -> Iterator[str]:
    """The base URL of ``source`` for the duration of the block: its own URL, or a static
    server on ``host`` (loopback by default, a free port) over its ``dist/``."""
    if source.url is not None:
        yield source.url
        return
    assert source.dist is not None
    handler = functools.partial(_DistHandler, directory=str(source.dist))
    server = _Server((host, 0), handler)
    thread = threading.Thread(
        target=server.serve_forever, name="mobilegym-dist", kwargs={"poll_interval": 0.1}
    )
    thread.start()
    try:
        port = server.server_address[1]
        yield f"http://{host}:{port}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
