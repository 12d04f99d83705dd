"""Shell protocol v2 framing (``adb shell`` and ``shell2(v2=True)``): packets
``id:uint8 len:uint32le payload`` over one adb stream.

The ``shell,v2`` service (:mod:`device.virtual.shell_service`) speaks it; a long-running
command (``logcat``, ``screenrecord``, ``app_process``) gets a :class:`ShellPacketStream` as
its stream, so it sits below the commands.
"""

from __future__ import annotations

import struct

from device.virtual.phone import ServiceStream

__all__ = [
    "ID_CLOSE_STDIN",
    "ID_EXIT",
    "ID_STDERR",
    "ID_STDIN",
    "ID_STDOUT",
    "ID_WINDOW",
    "ShellPacketStream",
]

_PACKET = struct.Struct("<BI")
ID_STDIN, ID_STDOUT, ID_STDERR, ID_EXIT, ID_CLOSE_STDIN, ID_WINDOW = range(6)


class ShellPacketStream:
    """Shell protocol v2 over an adb stream, seen as a plain byte pipe.

    ``write`` frames stdout packets; ``read`` returns stdin payloads (other packets are
    skipped) and ``b""`` at close-stdin or when the host closes. This is what a long-running
    command (``app_process``) gets as its stream under ``shell,v2``.
    """

    def __init__(self, stream: ServiceStream) -> None:
        self.stream = stream
        self._buffer = bytearray()
        self._stdin_closed = False

    async def write(self, data: bytes) -> None:
        """Send ``data`` as one stdout packet."""
        await self.packet(ID_STDOUT, data)

    async def packet(self, packet_id: int, data: bytes) -> None:
        """Send one packet (empty payloads are skipped, except for exit)."""
        if data or packet_id == ID_EXIT:
            await self.stream.write(_PACKET.pack(packet_id, len(data)) + data)

    async def read(self) -> bytes:
        """The next stdin payload; ``b""`` after close-stdin or when the host closed."""
        while not self._stdin_closed:
            packet = await self._next_packet()
            if packet is None:
                break
            packet_id, payload = packet
            if packet_id == ID_CLOSE_STDIN:
                self._stdin_closed = True
            elif packet_id == ID_STDIN and payload:
                return payload
        return b""

    async def _next_packet(self) -> tuple[int, bytes] | None:
        while True:
            if len(self._buffer) >= _PACKET.size:
                packet_id, length = _PACKET.unpack_from(self._buffer)
                if len(self._buffer) >= _PACKET.size + length:
                    payload = bytes(self._buffer[_PACKET.size : _PACKET.size + length])
                    del self._buffer[: _PACKET.size + length]
                    return packet_id, payload
            chunk = await self.stream.read()
            if not chunk:
                return None
            self._buffer += chunk

    async def close(self) -> None:
        """Close the underlying stream."""
        await self.stream.close()

    async def wait_closed(self) -> None:
        """Return when the host closed the adb stream itself (not only stdin)."""
        while await self.stream.read():
            pass
