"""The ``shell:``, ``shell,v2,…:`` and ``exec:`` services: a command line over one stream.

* ``shell:CMD`` (protocol v1) and ``exec:CMD``: stdout and stderr go raw onto the stream,
  the stream closes when the command is done (the exit code is lost, as on a phone: adbutils
  and uiautomator2 append ``; echo X4EXIT:$?``).
* ``shell,v2[,raw|,pty][,TERM=…]:CMD`` (shell protocol v2, used by ``adb shell`` and
  ``shell2(v2=True)``): packets ``id:uint8 len:uint32le payload``; we send stdout (1),
  stderr (2) and exit (3, one byte); the host's stdin (0) packets, up to close-stdin (4),
  are the command's standard input; window-size (5) packets are ignored.
* Standard input (v1: the stream's data) is read only when a command asks for it
  (``echo x | adb shell cat``), as a command on a phone reads its stdin pipe.
* The session is a process of the phone (``/system/bin/sh -c CMD``, :mod:`.processes`);
  it ends when its background jobs have (they hold its output, as on a phone).
* ``shell:`` / ``shell,v2,pty:`` with no command: a minimal interactive prompt
  (``marble:/ $ ``) that runs one line at a time until ``exit`` or the host closes.

With ``pty`` (the default of v1 with an empty command), output newlines become ``\\r\\n``
as a terminal would send them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from device.virtual.phone import ServiceStream, VirtualPhone
from device.virtual.shell import Shell, ShellIO
from device.virtual.shell_context import StdinReader
from device.virtual.shell_packets import ID_EXIT, ID_STDERR, ID_STDOUT, ShellPacketStream

__all__ = ["ShellPacketStream", "shell_service"]


class _RawIO:
    """Shell v1 / exec: stdout and stderr interleaved, raw bytes on the stream."""

    def __init__(self, stream: ServiceStream, pty: bool) -> None:
        self.stream = stream
        self.pty = pty

    async def stdout(self, data: bytes) -> None:
        """Write to the stream (``\\n`` → ``\\r\\n`` under a pty)."""
        if data:
            await self.stream.write(data.replace(b"\n", b"\r\n") if self.pty else data)

    async def stderr(self, data: bytes) -> None:
        """Same stream as stdout (v1 has no separate channel)."""
        await self.stdout(data)


class _PacketIO:
    """Shell v2: stdout and stderr as separate packets."""

    def __init__(self, packets: ShellPacketStream, pty: bool) -> None:
        self.packets = packets
        self.pty = pty

    async def stdout(self, data: bytes) -> None:
        """A stdout packet."""
        await self.packets.packet(ID_STDOUT, self._term(data))

    async def stderr(self, data: bytes) -> None:
        """A stderr packet."""
        await self.packets.packet(ID_STDERR, self._term(data))

    def _term(self, data: bytes) -> bytes:
        return data.replace(b"\n", b"\r\n") if self.pty else data


ShellServiceFn = Callable[[ServiceStream], Awaitable[None]]


def shell_service(
    phone: VirtualPhone, kind: str, args: list[str], command: str
) -> ShellServiceFn | None:
    """The service for ``shell[,args]:command`` or ``exec:command``; None if malformed."""
    v2 = "v2" in args
    pty = "pty" in args or (not command and "raw" not in args)
    if kind == "exec" and (args or not command):
        return None

    async def serve(stream: ServiceStream) -> None:
        shell = Shell(phone)
        shell.process.args = ["/system/bin/sh", "-c", command] if command else ["-/system/bin/sh"]
        try:
            if v2:
                packets = ShellPacketStream(stream)
                io: ShellIO = _PacketIO(packets, pty)
                code = await _run(shell, command, io, packets, pty)
                await packets.packet(ID_EXIT, bytes([code & 0xFF]))
            else:
                await _run(shell, command, _RawIO(stream, pty), stream, pty)
        finally:
            shell.close()

    return serve


async def _run(shell: Shell, command: str, io: ShellIO, stream: ServiceStream, pty: bool) -> int:
    try:
        if command:
            shell.input = StdinReader(stream.read)
            status = await shell.run(command, io, stream)
        else:
            status = await _interactive(shell, io, stream, pty)
    except BaseException:
        await shell.jobs.finish(cancel=True)
        raise
    await shell.jobs.finish()
    return status


async def _interactive(shell: Shell, io: ShellIO, stream: ServiceStream, pty: bool) -> int:
    """Run what the host types line by line until ``exit`` or EOF.

    Under a pty it behaves like a terminal (prompt, echo); without one (``adb shell`` with
    piped stdin) like ``sh`` reading a script: no prompt, no echo.
    """
    prompt = f"{shell.phone.identity.device}:/ $ ".encode() if pty else b""
    await io.stdout(prompt)
    pending = bytearray()
    while True:
        chunk = await stream.read()
        if not chunk:
            return shell.status
        chunk = chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        if pty:
            await io.stdout(chunk)
        pending += chunk
        while b"\n" in pending:
            line, _, rest = bytes(pending).partition(b"\n")
            pending = bytearray(rest)
            text = line.decode("utf-8", "replace").strip()
            if text in ("exit", "logout"):
                return shell.status
            if text:
                await shell.run(text, io, stream)
            await io.stdout(prompt)
