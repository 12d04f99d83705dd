"""The ``sync:`` service: adb's file protocol over the phone's files (``SYNC.TXT``).

Requests are ``<4-char id><uint32le length><path>``; we serve them until ``QUIT`` or EOF
(adbutils never sends QUIT, it closes). Every reply record goes out in a single write,
because adbutils reads STAT/DENT bodies with a bare ``recv``.

* ``STAT`` → ``STAT mode size mtime`` (zeros when missing); ``STA2``/``LST2`` (we advertise
  ``stat_v2``) → the 72-byte v2 record, ``error`` = ENOENT when missing.
* ``LIST`` → ``DENT`` records (``.`` and ``..`` included, as adbd's readdir) then a 20-byte
  ``DONE``; ``LIS2`` (``ls_v2``) → ``DNT2`` records then a 76-byte ``DONE``.
* ``RECV`` → ``DATA`` chunks of at most 64 KiB, then ``DONE``; a missing file → ``FAIL``
  + uint32le length + message.
* ``SEND "path,mode"`` then ``DATA``… ``DONE mtime`` → ``OKAY`` + 4 zero bytes. Parent
  directories are implied (``fixed_push_mkdir``); only ``/sdcard`` and
  ``/data/local/tmp`` are writable; the file keeps the pushed mode and belongs to
  ``shell`` (under ``/sdcard``, the FUSE daemon's owner and mode). uiautomator2 pushes
  ``/data/local/tmp/u2.jar`` this way and then checks its md5 with ``toybox md5sum``.

Not implemented (not advertised): ``sendrecv_v2`` (SND2/RCV2 with compression).
"""

from __future__ import annotations

import errno
import logging
import struct

from device.virtual import vfs
from device.virtual.errors import SyncFailed
from device.virtual.phone import ServiceStream, VirtualPhone

__all__ = ["SYNC_DATA_MAX", "StreamBuffer", "serve_sync"]

log = logging.getLogger(__name__)

SYNC_DATA_MAX = 64 * 1024
"""Largest DATA chunk (``SYNC_DATA_MAX``)."""
_HEAD = struct.Struct("<4sI")
_STAT_V1 = struct.Struct("<4sIII")
_STAT_V2 = struct.Struct("<4sIQQIIIIQqqq")
_DENT_V1 = struct.Struct("<4sIIII")
_DENT_V2 = struct.Struct("<4sIQQIIIIQqqqI")
_MAX_PATH = 1024


class StreamBuffer:
    """Exact-size reads over a :class:`ServiceStream` (requests arrive in arbitrary pieces)."""

    def __init__(self, stream: ServiceStream) -> None:
        self.stream = stream
        self._buffer = bytearray()

    async def read_exact(self, size: int) -> bytes | None:
        """``size`` bytes, or None if the stream ends first."""
        while len(self._buffer) < size:
            chunk = await self.stream.read()
            if not chunk:
                return None
            self._buffer += chunk
        data = bytes(self._buffer[:size])
        del self._buffer[:size]
        return data


class _Session:
    def __init__(self, phone: VirtualPhone, stream: ServiceStream) -> None:
        self.phone = phone
        self.stream = stream
        self.input = StreamBuffer(stream)

    @property
    def mtime(self) -> int:
        """Timestamps are the simulated clock (non-zero: adbutils' ``exists`` needs that)."""
        return self.phone.instance.state.os.clock_ms // 1000

    async def serve(self) -> None:
        while True:
            head = await self.input.read_exact(_HEAD.size)
            if head is None:
                return
            request, length = _HEAD.unpack(head)
            if request == b"QUIT":
                return
            if length > _MAX_PATH:
                await self._fail("path too long")
                return
            raw = await self.input.read_exact(length)
            if raw is None:
                return
            path = raw.decode("utf-8", "surrogateescape")
            log.debug("sync: %s %s", request.decode("ascii", "replace"), path)
            if not await self._dispatch(request, path):
                return

    async def _dispatch(self, request: bytes, path: str) -> bool:
        """Serve one request; False ends the session (after a FAIL, as adbd does)."""
        try:
            if request == b"STAT":
                await self._stat_v1(path)
            elif request in (b"STA2", b"LST2"):
                await self._stat_v2(request, path)
            elif request in (b"LIST", b"LIS2"):
                await self._list(path, v2=request == b"LIS2")
            elif request == b"RECV":
                await self._recv(path)
            elif request == b"SEND":
                await self._send(path)
            else:
                raise SyncFailed(f"unknown command {request!r}")
        except SyncFailed as exc:
            await self._fail(str(exc))
            return False
        return True

    async def _fail(self, message: str) -> None:
        data = message.encode("utf-8")
        await self.stream.write(_HEAD.pack(b"FAIL", len(data)) + data)

    def _lookup(self, path: str) -> vfs.Stat | None:
        return vfs.stat(self.phone.files, vfs.normalize(path))

    async def _stat_v1(self, path: str) -> None:
        found = self._lookup(path)
        if found is None:
            await self.stream.write(_STAT_V1.pack(b"STAT", 0, 0, 0))
        else:
            size = min(found.size, 0xFFFFFFFF)
            await self.stream.write(_STAT_V1.pack(b"STAT", found.mode, size, self._time(found)))

    def _time(self, found: vfs.Stat) -> int:
        """A node's time in seconds (the clock's when it has none: never zero)."""
        return found.mtime_ms // 1000 or self.mtime

    def _v2_fields(self, found: vfs.Stat | None) -> tuple[int, ...]:
        if found is None:
            return (errno.ENOENT, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        t = self._time(found)
        return (
            0,
            0xFD00,
            found.inode or 1 + found.size % 100_000,
            found.mode,
            2 if found.is_dir else 1,
            found.uid,
            found.gid,
            found.size,
            t,
            t,
            t,
        )

    async def _stat_v2(self, request: bytes, path: str) -> None:
        await self.stream.write(_STAT_V2.pack(request, *self._v2_fields(self._lookup(path))))

    async def _list(self, path: str, v2: bool) -> None:
        directory = vfs.normalize(path)
        found = self._lookup(path)
        entries: dict[str, vfs.Stat] = {}
        if found is not None and found.is_dir:
            parent = vfs.Stat(vfs.DIR_MODE, 4096, found.mtime_ms)
            entries = {".": found, "..": parent, **vfs.list_dir(self.phone.files, directory)}
        for name, entry in entries.items():
            encoded = name.encode("utf-8", "surrogateescape")
            if v2:
                record = _DENT_V2.pack(b"DNT2", *self._v2_fields(entry), len(encoded))
            else:
                size = min(entry.size, 0xFFFFFFFF)
                record = _DENT_V1.pack(b"DENT", entry.mode, size, self._time(entry), len(encoded))
            await self.stream.write(record + encoded)
        if v2:
            await self.stream.write(_DENT_V2.pack(b"DONE", *([0] * 11), 0))
        else:
            await self.stream.write(_DENT_V1.pack(b"DONE", 0, 0, 0, 0))

    async def _recv(self, path: str) -> None:
        try:
            data = vfs.read_file(self.phone.files, vfs.normalize(path))
        except vfs.FsError as exc:
            raise SyncFailed(f"open failed: {exc}") from exc
        view = memoryview(data)
        for start in range(0, len(data), SYNC_DATA_MAX):
            chunk = view[start : start + SYNC_DATA_MAX]
            await self.stream.write(_HEAD.pack(b"DATA", len(chunk)) + bytes(chunk))
        await self.stream.write(_HEAD.pack(b"DONE", 0))

    async def _send(self, spec: str) -> None:
        path, _, mode_text = spec.rpartition(",")
        if not path or not mode_text.isdigit():
            path, mode_text = spec, "33188"
        target = vfs.normalize(path)
        received = await self._receive_data()
        if received is None:
            return
        data, mtime = received
        try:
            vfs.write_file(self.phone.files, target, data, mode=int(mode_text))
            if mtime > 0:  # adbd sets the pushed file's time to the host file's
                vfs.set_mtime(self.phone.files, target, mtime * 1000, create=False)
        except vfs.FsError as exc:
            raise SyncFailed(f"couldn't create file: {exc}") from exc
        log.info("sync: stored %s (%d bytes, mode %o)", target, len(data), int(mode_text))
        await self.stream.write(_HEAD.pack(b"OKAY", 0))

    async def _receive_data(self) -> tuple[bytes, int] | None:
        """DATA chunks until DONE, and the DONE's mtime; None if the host went away."""
        parts: list[bytes] = []
        while True:
            head = await self.input.read_exact(_HEAD.size)
            if head is None:
                return None
            kind, length = _HEAD.unpack(head)
            if kind == b"DONE":
                return b"".join(parts), length
            if kind != b"DATA" or length > SYNC_DATA_MAX:
                raise SyncFailed("invalid data message")
            chunk = await self.input.read_exact(length)
            if chunk is None:
                return None
            parts.append(chunk)


async def serve_sync(phone: VirtualPhone, stream: ServiceStream) -> None:
    """Serve one ``sync:`` stream until the host quits or closes it."""
    await _Session(phone, stream).serve()
