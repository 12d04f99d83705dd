"""What the server refuses before any route runs: web pages on the same machine, methods a
path does not take, bodies that are not JSON, and requests that come before the simulator
can serve them.

A browser lets any web page send requests to ``127.0.0.1``. Three rules keep those pages
out without getting in the way of trainers, ``curl`` or the simulator's own pages:

- **Host** (DNS rebinding): a loopback client must name a loopback host (``127.0.0.1``,
  ``localhost``, ``[::1]``), the address the server was bound to, or a host it was told to
  allow; otherwise 421. Clients from elsewhere already need the token.
- **Origin**: a request that carries an ``Origin`` other than the server's own is 403.
- **Method**: a method the OpenAPI document does not give a path is 405, with ``Allow``
  naming every method it does (Starlette would name only the first route's, and the
  Content-Type rule below would answer 415 first).
- **Content-Type**: ``POST``/``PUT``/``PATCH`` bodies must be ``application/json`` (415), so
  a page cannot send one without a CORS preflight, which this server never grants. JSON
  holding ``NaN`` or ``Infinity`` is 422: JSON has no such numbers.

While Chromium starts, the routes that need it answer 503 with ``Retry-After``.
"""

from __future__ import annotations

import ipaddress
import json
import re
from collections.abc import Awaitable, Callable, Collection, Iterable, Sequence
from functools import cache
from typing import TYPE_CHECKING

from fastapi import FastAPI, Request, Response
from fastapi.routing import APIRoute, APIRouter
from starlette.datastructures import MutableHeaders
from starlette.routing import BaseRoute
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from sim.api_errors import error_response

if TYPE_CHECKING:
    from sim.simulator import Simulator

__all__ = [
    "RETRY_AFTER_S",
    "HeaderHook",
    "MethodTable",
    "RequestCheck",
    "documented_methods",
    "guard_requests",
    "host_name",
    "install_guards",
    "is_loopback_name",
    "needs_pages",
]

RETRY_AFTER_S = 1
"""Seconds a client is asked to wait before trying again while the simulator starts."""

_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})
_LOOPBACK_NAMES = frozenset({"localhost", "localhost."})


def is_loopback_name(host: str) -> bool:
    """Whether ``host`` (an address or a name, no port) is this machine's loopback."""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host.lower() in _LOOPBACK_NAMES


def host_name(header: str) -> str:
    """The host of a ``Host`` header without its port (``[::1]:80`` -> ``::1``)."""
    header = header.strip()
    if header.startswith("["):
        return header[1 : header.find("]")] if "]" in header else header
    if header.count(":") == 1:
        return header.split(":", 1)[0]
    return header


def needs_pages(method: str, path: str) -> bool:
    """Whether a request needs the page pool (Chromium), so must wait until it is up."""
    if path.startswith("/api/envs"):
        return True
    return method == "POST" and path.startswith("/api/instances/") and path.endswith("/task")


_HTTP_METHODS = frozenset({"GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE"})

MethodTable = list[tuple[re.Pattern[str], frozenset[str]]]
"""Each documented path (as the regular expression its template compiles to) and its methods."""


def documented_methods(routes: Iterable[BaseRoute]) -> MethodTable:
    """The methods each documented route of ``routes`` takes, merged by path.

    Read from the routes the OpenAPI document is generated from (``include_in_schema``),
    not from the document itself: generating it costs ~0.6 s of pydantic schema work on the
    first request of every server, for a table the routes already hold.
    """
    by_path: dict[str, tuple[re.Pattern[str], set[str]]] = {}
    for route in routes:
        if isinstance(route, APIRoute) and route.include_in_schema:
            _, methods = by_path.setdefault(route.path_format, (route.path_regex, set()))
            methods.update(method.upper() for method in route.methods or ())
    return [(regex, frozenset(methods) & _HTTP_METHODS) for regex, methods in by_path.values()]


def _not_allowed(table: MethodTable, path: str, method: str) -> list[str] | None:
    """The methods documented for ``path`` when ``method`` is not one of them; None when it
    is, or when no documented path matches (a 404, or a route the document leaves out)."""
    allowed = set().union(*(methods for regex, methods in table if regex.match(path)))
    if not allowed or method in allowed:
        return None
    return sorted(allowed)


def _rejects_constant(name: str) -> float:
    raise ValueError(f"{name} is not a JSON number: send a finite number or null")


def _body_problem(body: bytes) -> str | None:
    """Why ``body`` cannot be accepted as JSON, when the reason is NaN or Infinity (other
    malformed JSON is left to FastAPI's own validation, which names the position)."""
    if not body:
        return None
    try:
        json.loads(body, parse_constant=_rejects_constant)
    except ValueError as exc:
        message = str(exc)
        return message if "not a JSON number" in message else None
    return None


def _is_json(content_type: str) -> bool:
    return content_type.split(";", 1)[0].strip().lower() == "application/json"


RequestCheck = Callable[[Request], Awaitable[Response | None]]
"""A check run on every HTTP request before any route: a response refuses it, None lets
it through."""
HeaderHook = Callable[[Request, MutableHeaders], None]
"""Adds headers to the response of a request that passed (a cookie, say)."""


class _RequestGuard:
    """Pure ASGI middleware running a :data:`RequestCheck`. Starlette's
    ``@app.middleware("http")`` (``BaseHTTPMiddleware``) costs a task group and two memory
    streams per request, ~10% of a simulator step whose gesture the page posts here; this
    costs a function call. A body the check read is handed on to the route unchanged."""

    def __init__(self, app: ASGIApp, check: RequestCheck, headers: HeaderHook | None) -> None:
        self.app, self.check, self.headers = app, check, headers

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        read: list[Message] = []  # what the check took from the body, given again below

        async def recording() -> Message:
            message = await receive()
            read.append(message)
            return message

        request = Request(scope, recording)
        refusal = await self.check(request)
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        replay = _replaying(read, receive)
        hook = self.headers
        if hook is None:
            await self.app(scope, replay, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                hook(request, MutableHeaders(scope=message))
            await send(message)

        await self.app(scope, replay, with_headers)


def _replaying(read: list[Message], receive: Receive) -> Receive:
    """``receive`` giving what was already read from it first (then, as before, more
    of the body or a disconnect)."""
    if not read:
        return receive
    pending = list(read)

    async def again() -> Message:
        return pending.pop(0) if pending else await receive()

    return again


def guard_requests(app: FastAPI, check: RequestCheck, headers: HeaderHook | None = None) -> None:
    """Run ``check`` on every HTTP request of ``app`` before its routes (the guard added
    last runs first); ``headers`` adds to the responses of the requests it let through."""
    app.add_middleware(_RequestGuard, check=check, headers=headers)


def install_guards(
    app: FastAPI,
    sim: Simulator,
    allowed_hosts: Collection[str],
    routers: Sequence[APIRouter] = (),
) -> None:
    """Refuse foreign hosts and origins, non-JSON bodies, NaN, and requests too early.

    Args:
        app: the server's application.
        sim: the simulator it serves (``ready`` says whether Chromium is up).
        allowed_hosts: host names loopback clients may name besides loopback ones.
        routers: the routers the app includes (their routes are documented with the app's
            own; an included router's routes are not listed in ``app.routes`` itself).
    """
    allowed = {name.lower() for name in allowed_hosts}

    @cache
    def methods() -> MethodTable:
        return documented_methods([*app.routes, *(r for one in routers for r in one.routes)])

    async def guard(request: Request) -> Response | None:
        client = request.client.host if request.client else ""
        host = host_name(request.headers.get("host", "")).lower()
        if is_loopback_name(client) and not (is_loopback_name(host) or host in allowed):
            return error_response(
                421,
                f"Host {host or '(none)'!r} is not this server's: use 127.0.0.1, localhost "
                "or [::1] (or start the server with --allow-host NAME)",
            )
        origin = request.headers.get("origin")
        own = f"{request.url.scheme}://{request.headers.get('host', '')}"
        if origin is not None and origin.rstrip("/").lower() != own.lower():
            return error_response(
                403, f"requests from the web page at {origin!r} are refused (Origin)"
            )
        others = _not_allowed(methods(), request.url.path, request.method)
        if others is not None:
            return error_response(
                405,
                f"{request.method} is not a method of {request.url.path}: use "
                f"{' or '.join(others)}",
                headers={"Allow": ", ".join(others)},
            )
        if request.method in _BODY_METHODS:
            content_type = request.headers.get("content-type", "")
            if not _is_json(content_type):
                shown = content_type or "none"
                return error_response(
                    415, f"Content-Type {shown!r}: send the body as application/json"
                )
            problem = _body_problem(await request.body())
            if problem is not None:
                return error_response(422, f"body: {problem}", "invalid")
        if not sim.ready and needs_pages(request.method, request.url.path):
            return error_response(
                503,
                "the simulator is starting (Chromium is not up yet); retry shortly",
                "not-ready",
                headers={"Retry-After": str(RETRY_AFTER_S)},
            )
        return None

    guard_requests(app, guard)
