"""The adb transport's wire format: message headers, commands, the device banner.

A message is a 24-byte little-endian header — command, arg0, arg1, data length, data check
(the byte sum of the payload), magic (command ^ 0xffffffff) — followed by the payload
(AOSP ``protocol.txt``). :mod:`device.virtual.adbd` serves the protocol with these.
"""

from __future__ import annotations

import asyncio
import struct
from dataclasses import dataclass

from device.virtual.errors import ProtocolError
from device.virtual.phone import VirtualPhone

__all__ = [
    "ADB_VERSION",
    "A_AUTH",
    "A_CLSE",
    "A_CNXN",
    "A_OKAY",
    "A_OPEN",
    "A_WRTE",
    "DEVICE_FEATURES",
    "MAX_HOST_PAYLOAD",
    "MAX_PAYLOAD",
    "Message",
    "device_banner",
    "read_message",
]

ADB_VERSION = 0x01000001
"""Protocol version we speak (``A_VERSION``: checksums optional, as since Android 9)."""
MAX_PAYLOAD = 256 * 1024
"""Largest WRTE payload we accept or send (adbd's ``MAX_PAYLOAD``)."""
MAX_HOST_PAYLOAD = 1024 * 1024
"""Largest payload a host may announce; anything above it is a malformed header."""

DEVICE_FEATURES = (
    "shell_v2",
    "stat_v2",
    "ls_v2",
    "fixed_push_mkdir",
    "fixed_push_symlink_timestamp",
    "apex",
)
"""Features we advertise: only what we implement. Left out on purpose: ``delayed_ack``
(changes flow control), ``sendrecv_v2*`` (SND2/RCV2 sync), ``cmd``/``abb``/``abb_exec``
(``adb install`` would then stream over ``exec:``/``abb_exec:``), ``track_app``,
``remount_shell``, ``openscreen_mdns``. Without ``sendrecv_v2`` adb 1.0.41 pushes and pulls
with sync v1 (SEND/RECV); ``stat_v2``/``ls_v2`` make it use STA2/LST2/LIS2, which we serve."""


def _tag(name: bytes) -> int:
    return int.from_bytes(name, "little")


A_CNXN, A_OPEN, A_OKAY = _tag(b"CNXN"), _tag(b"OPEN"), _tag(b"OKAY")
A_WRTE, A_CLSE, A_AUTH = _tag(b"WRTE"), _tag(b"CLSE"), _tag(b"AUTH")
_NAMES = {A_CNXN: "CNXN", A_OPEN: "OPEN", A_OKAY: "OKAY", A_WRTE: "WRTE", A_CLSE: "CLSE"}
_HEADER = struct.Struct("<6I")


@dataclass(frozen=True)
class Message:
    """One transport message: a command, two arguments and a payload."""

    command: int
    arg0: int
    arg1: int
    data: bytes = b""

    def pack(self) -> bytes:
        """Header and payload as they go on the wire (the data check is the byte sum)."""
        header = _HEADER.pack(
            self.command,
            self.arg0,
            self.arg1,
            len(self.data),
            sum(self.data) & 0xFFFFFFFF,
            self.command ^ 0xFFFFFFFF,
        )
        return header + self.data

    def __str__(self) -> str:
        name = _NAMES.get(self.command, f"{self.command:08x}")
        return f"{name}({self.arg0:#x}, {self.arg1:#x}, {len(self.data)} bytes)"


async def read_message(reader: asyncio.StreamReader, max_data: int) -> Message:
    """Read one message; :class:`ProtocolError` on a bad magic or an oversized payload.

    The data check is not verified: since ``A_VERSION`` 0x01000001 hosts send 0 there.
    """
    header = await reader.readexactly(_HEADER.size)
    command, arg0, arg1, length, _check, magic = _HEADER.unpack(header)
    if magic != command ^ 0xFFFFFFFF:
        raise ProtocolError(f"bad magic {magic:#010x} for command {command:#010x}")
    if length > max_data:
        raise ProtocolError(f"payload of {length} bytes exceeds the limit of {max_data}")
    data = await reader.readexactly(length) if length else b""
    return Message(command, arg0, arg1, data)


def device_banner(phone: VirtualPhone, features: tuple[str, ...] = DEVICE_FEATURES) -> bytes:
    """The CNXN banner a production Redmi adbd sends (system state ``device``)."""
    props = (
        f"ro.product.name={phone.identity.device};ro.product.model={phone.identity.model};"
        f"ro.product.device={phone.identity.device};"
    )
    return f"device::{props}features={','.join(features)}".encode()
