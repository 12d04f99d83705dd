"""The virtual phone's uiautomator2 server: what ``app_process … com.wetest.uia2.Main`` runs.

:func:`run_uiautomator` is the "process": it listens on a device port (``phone.tcp_handlers``)
for as long as the shell stream that started it stays open, so ``tcp:9008`` fails before the
launch and again after ``stop_uiautomator`` (protocols.md §5.2, pitfall 7). Every ``tcp:9008``
stream carries one HTTP/1.1 exchange — uiautomator2 opens a fresh connection per request — and
:class:`U2HttpServer` answers ``GET /ping`` and ``POST /jsonrpc/0``. The JSON-RPC envelope and
the error mapping the client relies on (§2.3) live in :func:`handle_jsonrpc`; the methods in
:mod:`device.virtual.u2_methods`, the selector engine in :mod:`device.virtual.u2_selectors`.
"""

from __future__ import annotations

import inspect
import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass

from pydantic_core import to_jsonable_python

from device.virtual.errors import (
    BadHttpRequest,
    InvalidParams,
    JavaException,
    SecurityRefused,
    ServerStopped,
)
from device.virtual.phone import ServiceStream, TcpHandler, VirtualPhone
from device.virtual.u2_methods import RpcMethod, U2Service

__all__ = ["U2HttpServer", "handle_jsonrpc", "run_uiautomator"]

logger = logging.getLogger(__name__)

MAX_HEAD = 64 * 1024
"""Request line plus headers, in bytes, beyond which a request is refused (400)."""
MAX_BODY = 16 * 1024 * 1024
"""Largest JSON-RPC body accepted (413 beyond)."""
_JSON = "application/json"
_TEXT = "text/plain; charset=utf-8"
_REASONS = {200: "OK", 400: "Bad Request", 404: "Not Found", 413: "Payload Too Large"}


async def run_uiautomator(phone: VirtualPhone, port: int, stream: ServiceStream) -> None:
    """Run the u2 server on ``port`` until the host closes the shell ``stream``.

    If another server already listens there, print the bind error the jar would and return
    (the shell then ends, which uiautomator2 reports as "server quit unexpectly").
    """
    if port in phone.tcp_handlers:
        message = "java.net.BindException: bind failed: EADDRINUSE (Address already in use)\n"
        await stream.write(f"[server] port {port}: {message}".encode())
        return
    server = U2HttpServer(U2Service(phone))
    handler: TcpHandler = server.serve
    phone.tcp_handlers[port] = handler
    try:
        while await stream.read():
            pass  # the jar ignores its stdin; only the stream closing ends it
    finally:
        if phone.tcp_handlers.get(port) is handler:
            del phone.tcp_handlers[port]
        server.service.stopped = True


@dataclass(frozen=True)
class _Request:
    method: str
    path: str
    body: bytes


def _response(status: int, body: bytes, content_type: str) -> bytes:
    head = (
        f"HTTP/1.1 {status} {_REASONS[status]}\r\n"
        f"Content-Type: {content_type}\r\n"
        f"Content-Length: {len(body)}\r\n"
        "Connection: close\r\n\r\n"
    )
    return head.encode("ascii") + body


async def _read_request(stream: ServiceStream) -> _Request | None:
    """One request off the stream (head and body may come in any chunks); None at EOF."""
    buffer = bytearray()
    while b"\r\n\r\n" not in buffer:
        if len(buffer) > MAX_HEAD:
            raise BadHttpRequest(400, "request head too large")
        chunk = await stream.read()
        if not chunk:
            return None
        buffer += chunk
    head, _, body = bytes(buffer).partition(b"\r\n\r\n")
    request_line, *header_lines = head.decode("latin-1").split("\r\n")
    parts = request_line.split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/"):
        raise BadHttpRequest(400, f"bad request line {request_line[:80]!r}")
    headers = dict(line.partition(":")[::2] for line in header_lines)
    lengths = [v.strip() for k, v in headers.items() if k.strip().lower() == "content-length"]
    length = int(lengths[0]) if lengths and lengths[0].isdigit() else 0
    if length > MAX_BODY:
        raise BadHttpRequest(413, f"body of {length} bytes is over {MAX_BODY}")
    while len(body) < length:
        chunk = await stream.read()
        if not chunk:
            return None
        body += chunk
    return _Request(parts[0].upper(), parts[1].partition("?")[0], body[:length])


class U2HttpServer:
    """Serves ``tcp:PORT`` streams for one running u2 server: one HTTP exchange each."""

    def __init__(self, service: U2Service) -> None:
        self.service = service
        self.methods = service.methods()

    async def serve(self, stream: ServiceStream) -> None:
        """Read one request, write the response, close (``Connection: close``)."""
        try:
            response = await self._exchange(stream)
            if response is not None and not self.service.stopped:
                await stream.write(response)
        except (ServerStopped, ConnectionError):
            pass  # the "process" died or the host hung up: the connection just drops
        finally:
            await stream.close()

    async def _exchange(self, stream: ServiceStream) -> bytes | None:
        try:
            request = await _read_request(stream)
        except BadHttpRequest as exc:
            return _response(exc.status, str(exc).encode(), _TEXT)
        if request is None:
            return None
        if request.method == "GET" and request.path == "/ping":
            return _response(200, b"pong", _TEXT)
        if request.method == "POST" and request.path == "/jsonrpc/0":
            reply = await handle_jsonrpc(self.methods, request.body)
            return _response(200, json.dumps(reply, ensure_ascii=False).encode(), _JSON)
        return _response(404, b"Not Found", _TEXT)


def _error(request_id: object, code: int, message: str, data: str | None = None) -> dict:
    error: dict[str, object] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


async def handle_jsonrpc(methods: Mapping[str, RpcMethod], body: bytes) -> dict:
    """Answer one JSON-RPC 2.0 request body (protocols.md §2.3) with its response object.

    ``params`` is a positional list, or ``{}`` for none. A Java exception becomes code -32001
    with the class name as ``message`` (how uiautomator2 classifies it) and its text as
    ``data``; unknown methods -32601, bad params -32602, unreadable JSON -32700.

    Raises:
        ServerStopped: the server stopped while the call was waiting (the connection drops).
    """
    try:
        request = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        return _error(None, -32700, "Parse error", str(exc))
    if not isinstance(request, dict) or not isinstance(request.get("method"), str):
        return _error(None, -32600, "Invalid Request", "expected an object with a method")
    request_id, name, params = request.get("id"), request["method"], request.get("params")
    if params is None or params == {}:
        params = []
    if not isinstance(params, list):
        return _error(request_id, -32602, "Invalid params", "params is a positional list")
    method = methods.get(name)
    if method is None:
        return _error(request_id, -32601, "Method not found", f"no method {name!r}")
    try:
        inspect.signature(method).bind(*params)
    except TypeError as exc:
        return _error(request_id, -32602, "Invalid params", f"{name}: {exc}")
    try:
        result = await method(*params)
    except JavaException as exc:
        return _error(request_id, -32001, exc.java_class, exc.message)
    except SecurityRefused as exc:  # a Redmi without its input switch, as its jar answers
        name = "java.lang.SecurityException"
        return _error(request_id, -32001, name, f"{name}: {exc}")
    except InvalidParams as exc:
        return _error(request_id, -32602, "Invalid params", f"{name}: {exc}")
    except ServerStopped:
        raise
    except Exception as exc:  # a bug or a simulator failure must not kill the server
        logger.exception("u2 method %s%r failed", name, params)
        return _error(request_id, -32001, "java.lang.RuntimeException", f"{name}: {exc!r}")
    return {"jsonrpc": "2.0", "id": request_id, "result": to_jsonable_python(result)}
