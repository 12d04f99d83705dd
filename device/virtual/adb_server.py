"""Our private adb server: the adb binary bundled with adbutils, on a port of our own.

A developer's own adb server (port 5037) is never touched: we run the bundled binary as
our own child, ``adb -P PORT server nodaemon`` (and ``ANDROID_ADB_SERVER_PORT=PORT`` in its
environment only; not ``start-server``, whose daemon forks away and would outlive a killed
run unnoticed), so we know its pid (:attr:`PrivateAdbServer.process`, which a caller can
record and a later run reap), wait for it by polling ``host:version`` until a deadline,
attach the virtual phone with ``adb connect`` and check ``host:devices`` until it reports
``device``. mDNS discovery, USB scanning and the emulator port scan are switched off
(``ADB_MDNS=0``, ``ADB_USB=0``, ``ADB_EMU=0``) so the private server touches nothing but
loopback. Nothing here changes the caller's environment: every subprocess gets its own copy.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import adbutils

from device.adb import adb_binary
from device.host_process import HostProcess
from device.virtual.errors import AdbPortTaken, PrivateAdbServerError

__all__ = ["DEFAULT_ADB_PORT", "PrivateAdbServer", "adb_binary", "free_port"]

log = logging.getLogger(__name__)

DEFAULT_ADB_PORT = 5037
"""The adb server port of every developer machine: we never use it unless asked."""


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that was free a moment ago (bind to 0, read it, release it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


class PrivateAdbServer:
    """A private adb server process on ``port`` (0: a free one) of 127.0.0.1.

    Args:
        port: server port; 0 picks a free one. 5037 only when you mean it.
        adb_path: the adb binary (default: the one bundled with adbutils).
        android_user_home: where adb keeps its keys (``ANDROID_USER_HOME``); None keeps
            adb's default (``~/.android``).
        usb: let the server scan USB too (off: it serves only what we connect).
    """

    def __init__(
        self,
        port: int = 0,
        adb_path: str | None = None,
        android_user_home: Path | None = None,
        usb: bool = False,
    ) -> None:
        self.port = port or free_port()
        self._port_is_ours = not port
        """Whether we picked the port (then another may take it first: we pick again)."""
        self.adb_path = adb_path or adb_binary()
        self.android_user_home = android_user_home
        self.usb = usb
        self.started = False
        self.owned = False
        """Whether we started the server (only then does :meth:`kill` stop it)."""
        self._child: subprocess.Popen[bytes] | None = None
        self.process: HostProcess | None = None
        """The server process we started (None for one we found running)."""

    # ---- environment and raw calls
    def env(self) -> dict[str, str]:
        """The environment of our adb processes (a copy; the caller's is untouched)."""
        env = dict(os.environ)
        env.update(
            ANDROID_ADB_SERVER_PORT=str(self.port),
            ADBUTILS_ADB_PATH=self.adb_path,
            ADB_MDNS="0",
            ADB_EMU="0",
        )
        if not self.usb:
            env["ADB_USB"] = "0"
        if self.android_user_home is not None:
            self.android_user_home.mkdir(parents=True, exist_ok=True)
            env["ANDROID_USER_HOME"] = str(self.android_user_home)
        return env

    def adb(
        self, *args: str, timeout: float = 30.0, input: str | None = None
    ) -> subprocess.CompletedProcess[str]:
        """Run ``adb -P PORT ARGS`` with our environment (``input`` feeds its stdin)."""
        command = [self.adb_path, "-P", str(self.port), *args]
        stdin = subprocess.DEVNULL if input is None else None
        try:
            return subprocess.run(
                command,
                env=self.env(),
                capture_output=True,
                text=True,
                timeout=timeout,
                stdin=stdin,
                input=input,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise PrivateAdbServerError(f"`{' '.join(command)}` failed: {exc}") from exc

    def client(self, socket_timeout: float | None = 30.0) -> adbutils.AdbClient:
        """An adbutils client of this server (never adbutils' import-time global one)."""
        return adbutils.AdbClient(host="127.0.0.1", port=self.port, socket_timeout=socket_timeout)

    def _request(self, service: str, timeout: float = 5.0) -> bytes | None:
        """One host service over a raw socket: up to 12 reply bytes, None if unreachable."""
        request = f"{len(service):04x}{service}".encode()
        reply = b""
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=timeout) as sock:
                sock.sendall(request)
                while len(reply) < 12:
                    chunk = sock.recv(12 - len(reply))
                    if not chunk:
                        break
                    reply += chunk
        except OSError:
            return None
        return reply

    def _version(self) -> int | None:
        """``host:version`` (adb answers ``OKAY0004`` + 4 hex digits), None if no answer."""
        reply = self._request("host:version")
        if reply is None or not reply.startswith(b"OKAY") or len(reply) < 12:
            return None
        try:
            return int(reply[8:12], 16)
        except ValueError:
            return None

    def running(self) -> bool:
        """Whether anything still listens on our port (a dying server counts)."""
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=2):
                return True
        except ConnectionRefusedError:
            return False
        except OSError:
            return True

    # ---- lifecycle
    def start(self, timeout: float = 30.0) -> PrivateAdbServer:
        """Start the server (``adb -P PORT server nodaemon``, our child) and wait until it
        answers. A port we picked ourselves that another process took in the meantime (it
        was free a moment ago) is picked again, up to three times."""
        attempts = 1
        while True:
            try:
                return self._start(timeout)
            except AdbPortTaken:
                if not self._port_is_ours or attempts == 3:
                    raise
                log.info("port %d was taken before adb could listen: picking another", self.port)
                self.port, attempts = free_port(), attempts + 1

    def _start(self, timeout: float) -> PrivateAdbServer:
        if self._version() is not None:
            log.warning(
                "an adb server already answers on port %d: using it (and leaving it "
                "running at the end)",
                self.port,
            )
            self.started = True
            return self
        if self.port == DEFAULT_ADB_PORT:
            log.warning("starting the private adb server on the default port 5037")
        command = [self.adb_path, "-P", str(self.port), "server", "nodaemon"]
        with tempfile.TemporaryFile() as errors:  # what adb says if it cannot start
            try:
                child = subprocess.Popen(
                    command,
                    env=self.env(),
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=errors,
                    start_new_session=True,  # a Ctrl-C reaches us, and we stop it in order
                )
            except OSError as exc:
                raise PrivateAdbServerError(f"`{' '.join(command)}` failed: {exc}") from exc
            self._child = child
            deadline = time.monotonic() + timeout
            while self._version() is None:
                if child.poll() is not None:
                    errors.seek(0)
                    said = errors.read().decode(errors="replace").strip()[-500:]
                    self._child = None
                    taken = "Address already in use" in said
                    failure = AdbPortTaken if taken else PrivateAdbServerError
                    raise failure(
                        f"adb -P {self.port} server nodaemon exited ({child.returncode}): {said}"
                    )
                if time.monotonic() > deadline:
                    self._stop_child(timeout)
                    raise PrivateAdbServerError(
                        f"the adb server on port {self.port} did not answer within {timeout:.0f} s"
                    )
                time.sleep(0.05)  # polling a process we started, bounded by the deadline
        self.process = HostProcess.of(child.pid)
        self.started = self.owned = True
        log.info("private adb server on port %d (version %s)", self.port, self._version())
        return self

    def _require_running(self) -> None:
        """Fail cleanly instead of letting adbutils auto-start a server on port 5037."""
        if not self.running():
            raise PrivateAdbServerError(
                f"no adb server listens on port {self.port}: start() it first"
            )

    def devices(self) -> dict[str, str]:
        """``host:devices``: serial → state."""
        self._require_running()
        client = self.client()
        with client.make_connection() as conn:
            conn.send_command("host:devices")
            conn.check_okay()
            text = conn.read_string_block()
        return dict(line.split("\t", 1) for line in text.splitlines() if "\t" in line)

    def connect(self, address: str, timeout: float = 30.0) -> str:
        """``adb connect ADDRESS`` and wait until the device's state is ``device``."""
        self._require_running()
        message = self.client().connect(address, timeout=timeout)
        deadline = time.monotonic() + timeout
        while self.devices().get(address) != "device":
            if time.monotonic() > deadline:
                raise PrivateAdbServerError(
                    f"{address} did not come online on the adb server (port {self.port}): "
                    f"connect said {message!r}; devices: {self.devices()}"
                )
            time.sleep(0.05)  # polling the server for a state change, with a deadline
        log.info("adb server %d: %s is online", self.port, address)
        return address

    def disconnect(self, address: str) -> None:
        """``adb disconnect ADDRESS`` (no error if it was not connected or no server runs)."""
        if not self.running():
            return
        with contextlib.suppress(adbutils.AdbError, OSError):
            self.client().disconnect(address, raise_error=False)

    def kill(self, timeout: float = 10.0) -> None:
        """Stop the server (``host:kill``, as ``adb kill-server``) and wait until it is gone.

        Idempotent. A server we did not start (one that already answered on the port) is
        left running. ``host:kill`` goes over a plain socket, so nothing can start a server
        in order to kill it.
        """
        if not self.owned:
            self.started = False
            return
        self._request("host:kill", timeout=timeout)
        deadline = time.monotonic() + timeout
        while self.running():
            if time.monotonic() > deadline:
                log.warning(
                    "the adb server on port %d is still listening %.0f s after kill-server",
                    self.port,
                    timeout,
                )
                break
            time.sleep(0.05)  # waiting for a process we stopped to exit, with a deadline
        self._stop_child(timeout)
        self.started = self.owned = False

    def _stop_child(self, timeout: float) -> None:
        """Reap the server process we started (SIGTERM, then SIGKILL, if it lingers)."""
        child, self._child, self.process = self._child, None, None
        if child is None:
            return
        try:
            child.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            child.terminate()
            try:
                child.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()

    def __enter__(self) -> PrivateAdbServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.kill()
