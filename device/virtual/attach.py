"""A virtual phone attached to our private adb server: the one-call setup for CLIs and tests.

::

    with attach_virtual_phone(seed=0) as attached:
        print(attached.adb_command("shell", "wm", "size"))   # a command line to copy
        device = attached.adb.client().device(attached.serial)

Leaving the block disconnects the phone, kills the private adb server and stops the phone.
A caller that may itself be killed (SIGKILL runs no cleanup) names a ``server_record``: the
adb server's process is recorded there while it runs, and the next attach with the same
record first stops a server a killed run left behind.
"""

from __future__ import annotations

import logging
import shlex
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from device.host_process import HostProcess
from device.virtual.adb_server import PrivateAdbServer
from device.virtual.phone import Perturbations
from device.virtual.server import VirtualPhoneHandle, VirtualPhoneServer

__all__ = ["AttachedVirtualPhone", "attach_virtual_phone"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class AttachedVirtualPhone:
    """A running virtual phone and the private adb server that has it online."""

    phone: VirtualPhoneHandle
    adb: PrivateAdbServer

    @property
    def serial(self) -> str:
        """The phone's adb serial (``127.0.0.1:<phone port>``)."""
        return self.phone.serial

    @property
    def adb_port(self) -> int:
        """The private adb server's port (give it to adbutils / ``adb -P``)."""
        return self.adb.port

    def adb_command(self, *args: str) -> str:
        """A shell command line running ``adb`` against this phone (for people to copy)."""
        words = [self.adb.adb_path, "-P", str(self.adb.port), "-s", self.serial, *args]
        return shlex.join(words)


@contextmanager
def attach_virtual_phone(
    seed: int = 0,
    port: int = 0,
    adb_port: int = 0,
    android_user_home: Path | None = None,
    perturbations: Perturbations | None = None,
    server_record: Path | None = None,
    ready: bool = True,
) -> Iterator[AttachedVirtualPhone]:
    """Start a virtual phone and a private adb server, ``adb connect`` them, clean up after.

    Args:
        seed: the simulator instance's seed.
        port: the phone's adbd port (0: a free one).
        adb_port: the private adb server's port (0: a free one; never 5037 unless given).
        android_user_home: where that adb server keeps its keys (default ``~/.android``).
        perturbations: reality-gap knobs of the phone.
        server_record: where to record the private adb server's process while it runs
            (a leftover recorded there by a killed run is stopped first).
        ready: the phone set up for runs (its profile's input switch on); False: as it comes
            from the box, for ``mgb device doctor`` to find what is missing.
    """
    if server_record is not None:
        leftover = HostProcess.reap(server_record)
        if leftover is not None:
            log.warning("stopped adb server %d left by a killed run", leftover.pid)
    server = VirtualPhoneServer(seed=seed, port=port, perturbations=perturbations, ready=ready)
    adb = PrivateAdbServer(port=adb_port, android_user_home=android_user_home)
    phone = server.start()
    try:
        adb.start()
        if server_record is not None and adb.process is not None:
            adb.process.remember(server_record)
        adb.connect(phone.address)
        yield AttachedVirtualPhone(phone, adb)
    finally:
        adb.disconnect(phone.address)
        adb.kill()
        if server_record is not None:
            server_record.unlink(missing_ok=True)
        server.stop()
