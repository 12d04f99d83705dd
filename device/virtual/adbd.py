"""adbd's transport protocol over TCP: the device side that the real adb server connects to.

The adb server (``adb connect 127.0.0.1:PORT``) opens one TCP connection and speaks AOSP's
``protocol.txt``: 24-byte little-endian headers (command, arg0, arg1, data length, data
byte-sum, magic = command ^ 0xffffffff) and five messages we implement::

    host                                   virtual phone
    CNXN(0x01000001, maxdata, "host::features=…")  →
                          ←  CNXN(0x01000001, min(maxdata, 256K), "device::ro.product…;features=…")
    OPEN(h, 0, "shell,v2,raw:wm size\\0")  →
                          ←  OKAY(p, h)                   (or CLSE(0, h): service refused)
                          ←  WRTE(p, h, data)             (one at a time per stream …)
    OKAY(h, p)  →                                          (… until the receiver acks it)
    CLSE(h, p)  →         ←  CLSE(p, h)                   (either side ends a stream)

Classic flow control only: we never advertise ``delayed_ack``, so every WRTE waits for the
peer's OKAY. We never send AUTH or STLS. Each stream is a :class:`AdbStream` (the
:class:`~device.virtual.phone.ServiceStream` the services use); services are routed by name:
``shell:``/``shell,v2,…:``/``exec:`` (:mod:`device.virtual.shell_service`), ``sync:``
(:mod:`device.virtual.sync`), ``tcp:PORT`` (``phone.tcp_handlers``), ``framebuffer:``
(:mod:`device.virtual.framebuffer`) and ``reverse:…`` (:mod:`device.virtual.reverse`, one
rule table per host connection). Anything else is refused, which the adb server reports to
its client as ``closed``.

A malformed header (bad magic, oversized payload) closes that connection only; the
listener keeps serving new ones (the adb server reconnects by itself).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import Awaitable, Callable

from device.virtual.adb_wire import (
    A_CLSE,
    A_CNXN,
    A_OKAY,
    A_OPEN,
    A_WRTE,
    ADB_VERSION,
    MAX_HOST_PAYLOAD,
    MAX_PAYLOAD,
    Message,
    device_banner,
    read_message,
)
from device.virtual.errors import ProtocolError, StreamClosed
from device.virtual.framebuffer import serve_framebuffer
from device.virtual.phone import ServiceStream, VirtualPhone
from device.virtual.reverse import ReverseRules
from device.virtual.shell import command_table, system_bin_entries
from device.virtual.shell_service import shell_service
from device.virtual.sync import serve_sync

__all__ = ["AdbStream", "Adbd", "Router", "Service", "default_router"]

log = logging.getLogger(__name__)

Service = Callable[["AdbStream"], Awaitable[None]]
"""A device service bound to one stream (the stream is closed when it returns)."""
Router = Callable[[str], "Service | None"]
"""Maps a service name (``shell:ls``) to its service, None to refuse the OPEN."""


class AdbStream:
    """One open stream, as a :class:`~device.virtual.phone.ServiceStream`.

    ``read`` returns what the host wrote, acknowledging each WRTE (OKAY) only when it is
    consumed, so a slow service back-pressures the host. ``write`` splits data into WRTEs of
    at most the negotiated payload size and waits for the host's OKAY after each.
    """

    def __init__(self, link: _Link, local_id: int, remote_id: int) -> None:
        self.local_id = local_id
        self.reverse_rules = link.reverse_rules
        """The ``adb reverse`` rules of the host connection this stream belongs to."""
        self.remote_id = remote_id
        self._link = link
        self._inbox: asyncio.Queue[bytes] = asyncio.Queue()
        self._ack: asyncio.Future[bool] | None = None
        self._write_lock = asyncio.Lock()
        self.closed = False
        self._eof = False

    async def read(self) -> bytes:
        """The next chunk from the host; ``b""`` once the host closed the stream."""
        if self._eof:
            return b""
        chunk = await self._inbox.get()
        if not chunk:
            self._eof = True
            return b""
        if not self.closed:
            await self._link.send(Message(A_OKAY, self.local_id, self.remote_id))
        return chunk

    async def write(self, data: bytes) -> None:
        """Send ``data`` (waits for the host's OKAY after each WRTE); raises StreamClosed."""
        async with self._write_lock:
            view = memoryview(data)
            for start in range(0, len(data), self._link.max_payload):
                chunk = bytes(view[start : start + self._link.max_payload])
                if self.closed:
                    raise StreamClosed(f"stream {self.local_id} is closed")
                self._ack = asyncio.get_running_loop().create_future()
                await self._link.send(Message(A_WRTE, self.local_id, self.remote_id, chunk))
                if not await self._ack:
                    raise StreamClosed(f"stream {self.local_id} closed while writing")

    async def close(self) -> None:
        """Close the stream from our side (CLSE to the host); idempotent."""
        if self.closed:
            return
        self._shut()
        await self._link.send(Message(A_CLSE, self.local_id, self.remote_id))

    # ---- called by the link
    def on_data(self, data: bytes) -> None:
        """A WRTE arrived (acknowledged when :meth:`read` hands it out)."""
        if data and not self.closed:
            self._inbox.put_nowait(data)

    def on_okay(self) -> None:
        """The host acknowledged our last WRTE."""
        if self._ack is not None and not self._ack.done():
            self._ack.set_result(True)

    def _shut(self) -> None:
        """Mark closed: readers get EOF, a pending write fails."""
        self.closed = True
        self._link.forget(self)
        self._inbox.put_nowait(b"")
        if self._ack is not None and not self._ack.done():
            self._ack.set_result(False)

    async def on_host_close(self) -> None:
        """The host sent CLSE: shut the stream and confirm with our CLSE, as adbd does."""
        if self.closed:
            return
        self._shut()
        await self._link.send(Message(A_CLSE, self.local_id, self.remote_id))

    def on_link_lost(self) -> None:
        """The TCP connection went away: nothing can be sent any more."""
        if not self.closed:
            self._shut()


class _Link:
    """One TCP connection from an adb server: handshake, stream table, message dispatch."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        banner: bytes,
        router: Router,
        ids: itertools.count[int],
        transport_serial: str,
    ) -> None:
        self._reader, self._writer = reader, writer
        self._banner, self._router, self._ids = banner, router, ids
        self.reverse_rules = ReverseRules(transport_serial)
        self._streams: dict[int, AdbStream] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._send_lock = asyncio.Lock()
        self.max_payload = MAX_PAYLOAD
        self.online = False
        self.host_banner = ""
        self._dead = False

    async def send(self, message: Message) -> None:
        """Write one message (header and payload in one write); dropped once the link died."""
        if self._dead:
            return
        async with self._send_lock:
            try:
                self._writer.write(message.pack())
                await self._writer.drain()
            except (ConnectionError, RuntimeError) as exc:
                log.debug("adbd: send %s failed: %s", message, exc)
                self._dead = True

    def forget(self, stream: AdbStream) -> None:
        """Drop a closed stream from the table."""
        self._streams.pop(stream.local_id, None)

    async def run(self) -> None:
        """Serve messages until the peer disconnects or misbehaves."""
        peer = self._writer.get_extra_info("peername")
        try:
            while True:
                limit = self.max_payload if self.online else MAX_HOST_PAYLOAD
                await self._dispatch(await read_message(self._reader, limit))
        except asyncio.IncompleteReadError:
            log.info("adbd: %s disconnected", peer)
        except ProtocolError as exc:
            log.warning("adbd: dropping %s: %s", peer, exc)
        except ConnectionError as exc:
            log.info("adbd: connection to %s lost: %s", peer, exc)
        finally:
            await self.teardown()

    async def teardown(self) -> None:
        """Close the connection; every stream sees EOF (idempotent)."""
        self._dead = True
        for stream in list(self._streams.values()):
            stream.on_link_lost()
        self._writer.close()
        with contextlib.suppress(ConnectionError, OSError):
            await self._writer.wait_closed()

    async def cancel_services(self) -> None:
        """Cancel every running service (server shutdown)."""
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _dispatch(self, message: Message) -> None:
        command = message.command
        if command == A_CNXN:
            await self._on_connect(message)
        elif not self.online:
            log.debug("adbd: ignoring %s before CNXN", message)
        elif command == A_OPEN:
            await self._on_open(message)
        elif command in (A_OKAY, A_WRTE, A_CLSE):
            await self._on_stream_message(message)
        else:
            log.debug("adbd: ignoring %s", message)

    async def _on_connect(self, message: Message) -> None:
        """CNXN: (re)start the session; a repeated CNXN drops the streams, as adbd does."""
        for stream in list(self._streams.values()):
            stream.on_link_lost()
        self.host_banner = message.data.rstrip(b"\0").decode("utf-8", "replace")
        self.max_payload = max(1, min(message.arg1, MAX_PAYLOAD))
        log.info(
            "adbd: host CNXN version=%#x maxdata=%d banner=%r",
            message.arg0,
            message.arg1,
            self.host_banner,
        )
        self.online = True
        await self.send(Message(A_CNXN, ADB_VERSION, self.max_payload, self._banner))

    async def _on_open(self, message: Message) -> None:
        remote_id = message.arg0
        name = message.data.split(b"\0", 1)[0].decode("utf-8", "replace")
        service = self._router(name) if remote_id else None
        if service is None:
            log.info("adbd: refusing service %r", name)
            await self.send(Message(A_CLSE, 0, remote_id))
            return
        stream = AdbStream(self, next(self._ids), remote_id)
        self._streams[stream.local_id] = stream
        log.debug("adbd: open %d <- %d %r", stream.local_id, remote_id, name)
        await self.send(Message(A_OKAY, stream.local_id, remote_id))
        task = asyncio.create_task(self._serve(name, service, stream))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _serve(self, name: str, service: Service, stream: AdbStream) -> None:
        try:
            await service(stream)
        except StreamClosed:
            log.debug("adbd: %r: the host closed the stream", name)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("adbd: service %r failed", name)
        finally:
            await stream.close()

    async def _on_stream_message(self, message: Message) -> None:
        stream = self._streams.get(message.arg1)
        if stream is None or stream.remote_id != message.arg0:
            log.debug("adbd: %s for no open stream", message)
            return
        if message.command == A_OKAY:
            stream.on_okay()
        elif message.command == A_WRTE and not message.data:
            await self.send(Message(A_OKAY, stream.local_id, stream.remote_id))
        elif message.command == A_WRTE:
            stream.on_data(message.data)
        else:
            await stream.on_host_close()


class Adbd:
    """The virtual phone's adbd: a TCP listener on 127.0.0.1 serving adb transport links.

    Args:
        phone: the phone whose services the links reach.
        router: maps service names to services; the default serves shell, sync and tcp.
        host: address to bind (loopback unless you know why not).
        port: port to bind; 0 picks a free one (see :attr:`port` after :meth:`start`).
    """

    def __init__(
        self,
        phone: VirtualPhone,
        router: Router | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:
        self.phone = phone
        self.host = host
        self.port = port
        self._router = router or default_router(phone)
        self._banner = device_banner(phone)
        self._ids = itertools.count(1)
        self._fds = itertools.count(19)  # adbd names a TCP host connection host-<its fd>
        self._server: asyncio.Server | None = None
        self._links: dict[_Link, asyncio.Task[None] | None] = {}

    @property
    def host_banners(self) -> list[str]:
        """The CNXN banners (with features) of the adb servers connected now."""
        return [link.host_banner for link in self._links if link.online]

    async def start(self) -> Adbd:
        """Bind and start accepting connections."""
        self._server = await asyncio.start_server(self._accept, self.host, self.port)
        self.port = self._server.sockets[0].getsockname()[1]
        log.info("adbd: listening on %s:%d", self.host, self.port)
        return self

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        log.info("adbd: connection from %s", writer.get_extra_info("peername"))
        serial = f"host-{next(self._fds)}"
        link = _Link(reader, writer, self._banner, self._router, self._ids, serial)
        self._links[link] = asyncio.current_task()
        try:
            await link.run()
        finally:
            self._links.pop(link, None)

    async def close(self) -> None:
        """Stop listening, drop every link, cancel running services and wait; idempotent."""
        if self._server is not None:
            self._server.close()
            self._server = None
        links = dict(self._links)
        for link in links:
            await link.cancel_services()
            await link.teardown()
        pending = [task for task in links.values() if task is not None]
        if pending:
            await asyncio.wait(pending, timeout=5)


def default_router(phone: VirtualPhone) -> Router:
    """Route ``shell``/``exec``, ``sync:``, ``tcp:PORT``, ``framebuffer:`` and ``reverse:``
    services to ``phone``; its ``/system/bin`` lists the shell's commands from the start
    (``sync:`` can stat it before any shell ran)."""
    phone.files.system_bin = system_bin_entries(command_table())

    def route(name: str) -> Service | None:
        head, sep, rest = name.partition(":")
        if not sep:
            return None
        kind, *args = head.split(",")
        if kind in ("shell", "exec"):
            return shell_service(phone, kind, args, rest)
        if kind == "sync" and not args and not rest:
            return lambda stream: serve_sync(phone, stream)
        if kind == "tcp" and not args:
            return _tcp_service(phone, rest)
        if kind == "framebuffer" and not args and not rest:
            return lambda stream: serve_framebuffer(phone, stream)
        if kind == "reverse" and not args and rest:
            return _reverse_service(rest)
        if kind in _PRODUCTION_REPLIES and not args and not rest:
            return _reply_service(_PRODUCTION_REPLIES[kind])
        return None

    return route


_PRODUCTION_REPLIES = {
    "root": b"adbd cannot run as root in production builds\n",
    "unroot": b"adbd not running as root\n",
}
"""What a production (``user`` build) adbd answers to ``adb root`` / ``adb unroot``."""


def _reply_service(message: bytes) -> Service:
    async def serve(stream: AdbStream) -> None:
        await stream.write(message)

    return serve


def _reverse_service(request: str) -> Service:
    """``reverse:REQUEST``: answered from the stream's host-connection rule table."""

    async def serve(stream: AdbStream) -> None:
        await stream.write(stream.reverse_rules.answer(request))

    return serve


def _tcp_service(phone: VirtualPhone, spec: str) -> Service | None:
    """``tcp:PORT`` to a registered handler; unregistered ports are refused (``closed``)."""
    port_text = spec.split(":", 1)[0]
    if not port_text.isdigit():
        return None
    handler = phone.tcp_handlers.get(int(port_text))
    if handler is None:
        return None

    async def serve(stream: AdbStream) -> None:
        stream_as_service: ServiceStream = stream
        await handler(stream_as_service)

    return serve
