"""Our link to an adb server and one device on it, and the one place adb errors are mapped.

* :class:`AdbTarget` says which server (host, port) and which device (serial); it builds its
  own adbutils client, never adbutils' import-time global one, so a private server on a
  non-default port (the virtual phone's) works next to a developer's usual one. Its
  connections never start an adb server (adbutils would, on port 5037) and never leak a
  socket.
* :func:`translate` converts every adbutils / uiautomator2 / socket exception to
  :mod:`device.errors`, here and nowhere else; :func:`recoverable` says which failures a
  reconnect or a uiautomator2 restart may cure (used by :mod:`device.session`).
* :data:`LINK_ERRORS` are the third-party exceptions that mean the phone or its link failed
  (and only those are caught and translated): an exception of any other type from an adb
  call is a bug of ours and propagates unchanged, never disguised as a device failure.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import re
import socket
import time
from pathlib import Path

import adbutils
from adbutils.errors import AdbConnectionError, AdbError, AdbTimeout
from pydantic import BaseModel, ConfigDict, Field
from uiautomator2 import exceptions as u2e

from device.errors import (
    AdbServerUnavailable,
    DeviceDisconnected,
    DeviceError,
    DeviceNotFound,
    DeviceTimeout,
    InjectEventsDenied,
    UiAutomatorError,
)

__all__ = [
    "LINK_ERRORS",
    "AdbTarget",
    "AttachedDevice",
    "adb_binary",
    "close_dangling",
    "mentions_inject_events",
    "recoverable",
    "translate",
]

LINK_ERRORS: tuple[type[Exception], ...] = (
    AdbError,  # adbutils: timeouts, refused connections, FAIL answers of the server
    u2e.BaseException,  # uiautomator2: HTTP, RPC and launch failures of its server
    http.client.HTTPException,  # uiautomator2's HTTP reply cut short (IncompleteRead, …)
    json.JSONDecodeError,  # an unreadable JSON-RPC reply
    OSError,  # sockets: resets, timeouts, unreachable hosts
)
"""The third-party exceptions of an adb / uiautomator2 call that :func:`translate` maps to
:mod:`device.errors`; anything else raised by such a call is a bug and is not caught."""

_NETWORK_SERIAL = re.compile(r"^[\w.\-]+:\d{1,5}$")
_POLL_S = 0.2  # how often to look at the device list while waiting for a device


def adb_binary() -> str:
    """The adb bundled with adbutils (falls back to ``adbutils.adb_path()``'s choice): the
    one to use when ``adb`` is not on PATH."""
    bundled = Path(adbutils.__file__).parent / "binaries" / "adb"
    return str(bundled) if bundled.is_file() else adbutils.adb_path()


def mentions_inject_events(text: str) -> bool:
    """Whether output says injected input was refused (MIUI without the security switch)."""
    return "INJECT_EVENTS" in text


_SOCKET_ATTRIBUTE = "_AdbConnection__conn"
"""Where adbutils' AdbConnection keeps its socket (a private attribute; None once closed)."""


class _NoSpawnConnection(adbutils.AdbConnection):
    """An adb connection that never starts a server, never leaks its socket, and sends at once.

    adbutils runs ``adb start-server`` when a connect fails, on the *default* port, and then
    retries ours (a private server that died would leave a stray server on 5037 behind); and
    it does not close the socket of a failed connect. Nagle's algorithm is off, as the adb
    binary turns it off for its own sockets: http.client sends a request's headers and body
    in two writes, and with Nagle on the body waits for the server's delayed ACK (40 ms on
    Linux) — every uiautomator2 call with parameters paid that.
    """

    def __init__(self, host: str, port: int) -> None:
        self._address = (host, port)
        super().__init__(host, port)

    def _safe_connect(self) -> socket.socket:
        sock = socket.socket()
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock.settimeout(3.0)
            sock.connect(self._address)
            sock.settimeout(None)
        except TimeoutError as exc:
            sock.close()
            raise AdbTimeout(f"connect to the adb server at {self._address} timed out") from exc
        except OSError as exc:
            sock.close()
            raise AdbConnectionError(f"connect to the adb server failed: {exc}") from exc
        return sock

    def close(self) -> None:
        """Half-close, then close; adbutils also sleeps 10 ms between the two, on every
        connection, which costs a shell command 20 ms (its transport asks the server's
        version on a connection of its own) and brings nothing: the server reads our FIN
        or, with unread data left, a reset, and closes the stream either way."""
        sock = getattr(self, _SOCKET_ATTRIBUTE, None)
        if not isinstance(sock, socket.socket):  # adbutils changed: its own close is right
            super().close()
            return
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_WR)
        sock.close()
        setattr(self, _SOCKET_ATTRIBUTE, None)


class _Client(adbutils.AdbClient):
    """An adbutils client whose connections never spawn an adb server (see above), and
    which asks the server's version once (adbutils asks before every device transport)."""

    _version: int | None = None

    def server_version(self) -> int:
        """The server's protocol version (``host:version``), asked once per client."""
        if self._version is None:
            self._version = super().server_version()
        return self._version

    def make_connection(self, timeout: float | None = None) -> adbutils.AdbConnection:
        connection = _NoSpawnConnection(self.host, self.port)
        if timeout:
            connection.conn.settimeout(timeout)
        return connection


class AttachedDevice(BaseModel):
    """One line of ``adb devices -l``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    serial: str
    state: str
    model: str = ""
    product: str = ""
    device: str = ""


class AdbTarget(BaseModel):
    """An adb server (host, port) and optionally one device on it (serial)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    host: str = "127.0.0.1"
    port: int = Field(default=5037, ge=1, le=65535)
    serial: str | None = None
    socket_timeout_s: float = Field(default=30.0, gt=0)

    def client(self) -> adbutils.AdbClient:
        """A client of this server that never starts one (adbutils would, on port 5037)."""
        self.check_server()
        return _Client(host=self.host, port=self.port, socket_timeout=None)

    def check_server(self) -> None:
        """Raise AdbServerUnavailable, with what to do, unless something listens at host:port."""
        try:
            with socket.create_connection((self.host, self.port), timeout=2.0):
                return
        except OSError as exc:
            raise AdbServerUnavailable(
                f"no adb server answers at {self.host}:{self.port} ({exc}); start one with "
                f"`{adb_binary()} -P {self.port} start-server` (the adb bundled with "
                "adbutils), or pass the right --adb-port"
            ) from exc

    def devices(self) -> list[AttachedDevice]:
        """Every device the server knows, in any state (``adb devices -l``)."""
        try:
            infos = self.client().list(extended=True)
        except LINK_ERRORS as exc:
            raise translate(exc, "adb devices") from exc
        return [
            AttachedDevice(
                serial=info.serial,
                state=info.state,
                model=info.tags.get("model", ""),
                product=info.tags.get("product", ""),
                device=info.tags.get("device", ""),
            )
            for info in infos
        ]

    def resolve(self) -> AdbTarget:
        """This target with its serial filled in: the only attached device if none given."""
        ready = [d.serial for d in self.devices() if d.state == "device"]
        if self.serial is not None:
            if self.serial not in ready:
                raise DeviceNotFound(
                    f"device {self.serial!r} is not attached to the adb server at "
                    f"{self.host}:{self.port}; attached: {', '.join(ready) or 'none'} "
                    f"(for a network device run `adb -P {self.port} connect {self.serial}`)"
                )
            return self
        if len(ready) != 1:
            raise DeviceNotFound(
                f"{len(ready)} devices attached to {self.host}:{self.port} "
                f"({', '.join(ready) or 'none'}); give a serial"
            )
        return self.model_copy(update={"serial": ready[0]})

    def device(self) -> adbutils.AdbDevice:
        """The adbutils device for ``serial`` (which must be set: see :meth:`resolve`)."""
        return self.client().device(serial=self._serial())

    def ready(self) -> bool:
        """Whether ``serial`` is listed in the ``device`` state; False if anything fails."""
        try:
            infos = self.client().list()
        except (DeviceError, AdbError, OSError):
            return False
        return any(i.serial == self.serial and i.state == "device" for i in infos)

    def reattach(self, wait_s: float) -> adbutils.AdbDevice:
        """Get a dropped device back: ``adb connect`` a network serial, then wait up to
        ``wait_s`` for the ``device`` state (blocking). Raises DeviceDisconnected."""
        serial = self._serial()
        try:
            if _NETWORK_SERIAL.match(serial):
                self.client().connect(serial, timeout=wait_s)
        except LINK_ERRORS as exc:
            close_dangling(exc)
            raise translate(exc, f"adb connect {serial}") from exc
        deadline = time.monotonic() + wait_s
        while not self.ready():
            if time.monotonic() > deadline:
                raise DeviceDisconnected(f"{serial} not back within {wait_s:g} s")
            time.sleep(_POLL_S)  # polling the server's device list, bounded by the deadline
        return self.device()

    def _serial(self) -> str:
        if self.serial is None:
            raise DeviceNotFound("no serial given; call resolve() first")
        return self.serial


def translate(exc: BaseException, what: str) -> DeviceError:
    """The :mod:`device.errors` exception for an adbutils / uiautomator2 / socket failure
    (one of :data:`LINK_ERRORS`, or a DeviceError, returned as it is)."""
    if isinstance(exc, DeviceError):
        return exc
    detail = f"{what}: {type(exc).__name__}: {exc}"
    if mentions_inject_events(str(exc)):
        return InjectEventsDenied(detail)
    if isinstance(exc, AdbTimeout | u2e.HTTPTimeoutError | TimeoutError):
        return DeviceTimeout(f"{detail} (the phone did not answer in time)")
    if isinstance(exc, AdbConnectionError):
        return AdbServerUnavailable(f"{detail}; is the adb server still running?")
    if isinstance(exc, u2e.InjectPermissionError):
        return InjectEventsDenied(detail)
    if isinstance(exc, u2e.AccessibilityServiceAlreadyRegisteredError):
        return UiAutomatorError(
            f"{detail}; another automation tool (Appium, an ATX agent, another uiautomator2 "
            "client) holds the accessibility service: stop it and run again"
        )
    if isinstance(exc, u2e.UiAutomationError | u2e.RPCError | u2e.HTTPError):
        return UiAutomatorError(f"{detail}; the uiautomator2 server on the phone failed")
    if isinstance(exc, u2e.ConnectError):
        return DeviceDisconnected(detail)
    return DeviceError(detail)


def close_dangling(exc: BaseException) -> None:
    """Close the adb sockets a failed adbutils call left open.

    ``BaseDevice.open_transport`` does not close its connection when the server answers
    ``FAIL`` (``device '...' not found`` while a phone is away), so every failed call would
    leak a socket. The connection is still referenced by the failed frames: close it there.
    """
    seen: set[int] = set()
    pending: list[BaseException | None] = [exc]
    while pending:
        current = pending.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        traceback = current.__traceback__
        while traceback is not None:
            for value in list(traceback.tb_frame.f_locals.values()):
                if isinstance(value, adbutils.AdbConnection):
                    _close_connection(value)
            traceback = traceback.tb_next
        pending.extend((current.__cause__, current.__context__))


def _close_connection(connection: adbutils.AdbConnection) -> None:
    """Close one connection found in a failed frame; one whose constructor failed (the
    socket never opened) has nothing to close, and adbutils' ``close`` then raises
    ``AttributeError`` on its missing socket."""
    with contextlib.suppress(AttributeError):  # never connected: no socket to leak
        connection.close()


def recoverable(exc: BaseException, error: DeviceError) -> bool:
    """Whether a failure may be the device or its uiautomator2 server going away (so that
    reconnecting or restarting the server can cure it).

    A JSON-RPC error is the server answering (the method failed), a refused injection or a
    missing adb server will not be cured by reconnecting.
    """
    if isinstance(exc, u2e.RPCError):
        return False
    return not isinstance(error, InjectEventsDenied | AdbServerUnavailable)
