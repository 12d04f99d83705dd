"""``AdbSession``: one device on an adb server, with uiautomator2, reconnects and budgets.

Each blocking adbutils / uiautomator2 call runs in a worker thread (``asyncio.to_thread``)
with a socket or HTTP timeout. When a call fails because the device dropped off the server,
the session reconnects (``adb connect`` for a network serial, then waits for the ``device``
state) a bounded number of times with backoff, rebuilds the uiautomator2 client and retries
the call once; if the device does not come back it raises
:class:`~device.errors.DeviceDisconnected` (the runner records ``infra_error``). A dead
uiautomator2 server is restarted by uiautomator2 itself on the next call (its
``jsonrpc_call`` stops and starts the server and retries once, bounded by its own 10 s stop
and 30 s launch waits); if that fails too, the session rebuilds the client once, then gives
up with :class:`~device.errors.UiAutomatorError`. Exceptions are converted by
:func:`device.adb.translate` — only the third-party ones that mean the link failed
(:data:`device.adb.LINK_ERRORS`); any other exception is a bug and propagates unchanged, and
using the session before :meth:`AdbSession.open` or after :meth:`AdbSession.close` raises
:class:`~bridge.errors.EnvUsageError`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any, TypeVar

import adbutils
import uiautomator2 as u2
from pydantic import BaseModel, ConfigDict, Field

from bridge.errors import EnvUsageError
from device.adb import LINK_ERRORS, AdbTarget, close_dangling, recoverable, translate
from device.errors import DeviceDisconnected, DeviceError, UiAutomatorError

__all__ = ["AdbSession", "ReconnectPolicy"]

_T = TypeVar("_T")
_log = logging.getLogger(__name__)
_REATTACH_ERRORS: tuple[type[Exception], ...] = (DeviceError, *LINK_ERRORS)
"""What a failed reattach raises: the attempt is counted and the next one waits."""


class ReconnectPolicy(BaseModel):
    """How hard to try to get a dropped device back: attempts, backoff, wait per attempt."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    attempts: int = Field(default=3, ge=0)
    backoff_s: float = Field(default=0.5, ge=0)
    factor: float = Field(default=2.0, ge=1)
    wait_s: float = Field(default=5.0, gt=0, description="how long one attempt waits")


class AdbSession:
    """A device on an adb server, with uiautomator2, reconnects and time budgets.

    Every public method is a coroutine; the blocking adbutils / uiautomator2 work runs in a
    worker thread (``asyncio.to_thread``) with a socket or HTTP timeout, so a hung phone
    cannot block the event loop nor keep a thread forever.
    """

    def __init__(
        self,
        target: AdbTarget,
        *,
        reconnect: ReconnectPolicy | None = None,
        u2_port: int = 9008,
        call_timeout_s: float = 30.0,
    ) -> None:
        self.target = target
        self.reconnect_policy = reconnect or ReconnectPolicy()
        self.u2_port = u2_port
        self.call_timeout_s = call_timeout_s
        self.reconnects = 0
        """How many times the device was reconnected (for reports and tests)."""
        self._device: adbutils.AdbDevice | None = None
        self._u2: u2.Device | None = None
        self._closed = False

    @property
    def serial(self) -> str:
        """The device's serial (after :meth:`open`)."""
        if self.target.serial is None:
            raise EnvUsageError("the session is not open: call open() first")
        return self.target.serial

    async def open(self) -> None:
        """Find the device on the server (it must be in the ``device`` state)."""
        self.target = await asyncio.to_thread(self.target.resolve)
        self._device = await asyncio.to_thread(self.target.device)

    async def close(self) -> None:
        """Stop using the device; idempotent. The uiautomator2 stream is closed."""
        self._closed = True
        await self._drop_uiautomator()

    async def _drop_uiautomator(self) -> None:
        """Forget the uiautomator2 client and close its server stream (never raises)."""
        client, self._u2 = self._u2, None
        if client is not None:
            try:
                await asyncio.to_thread(client.stop_uiautomator, wait=False)
            except LINK_ERRORS as exc:  # the stream may be dead already: nothing to release
                _log.debug("closing the uiautomator2 stream failed: %s", exc)

    # ---- calls
    async def shell(self, command: str, timeout_s: float | None = None) -> str:
        """Output of an ``adb shell`` command line (stdout and stderr, right-stripped)."""
        budget = timeout_s or self.call_timeout_s
        return await self.call(lambda d: d.shell(command, timeout=budget), f"shell {command!r}")

    async def shell_bytes(self, command: str, timeout_s: float | None = None) -> bytes:
        """Raw output of an ``adb shell`` command (e.g. ``screencap -p``)."""
        budget = timeout_s or self.call_timeout_s

        def run(device: adbutils.AdbDevice) -> bytes:
            return device.shell(command, timeout=budget, encoding=None)

        return await self.call(run, f"shell {command!r}")

    async def uiautomator_dump(self, timeout_s: float | None = None) -> str:
        """The platform's ``uiautomator dump`` (one window; conflicts with a running u2).

        Returns the file's text, or the command's output when it wrote no file (an error).
        """
        budget = timeout_s or self.call_timeout_s
        path = "/data/local/tmp/mgb_uidump.xml"

        def run(device: adbutils.AdbDevice) -> str:
            output = device.shell(f"rm -f {path}; uiautomator dump {path}", timeout=budget)
            if not device.sync.exists(path):
                return output
            return device.sync.read_bytes(path).decode("utf-8", errors="replace")

        return await self.call(run, "uiautomator dump")

    async def getprop(self, key: str) -> str:
        """``getprop KEY`` (empty when unset)."""
        return (await self.shell(f"getprop {key}")).strip()

    async def rpc(self, method: str, *params: Any, timeout_s: float | None = None) -> Any:
        """Call a uiautomator2 JSON-RPC method (started on first use)."""
        budget = timeout_s or self.call_timeout_s
        args: Any = list(params) if params else {}
        return await self.call(
            lambda _: self._uiautomator().jsonrpc_call(method, args, budget), f"rpc {method}"
        )

    async def call(self, work: Callable[[adbutils.AdbDevice], _T], what: str) -> _T:
        """Run ``work(device)`` in a thread; reconnect and retry once if the device dropped.

        Only :data:`~device.adb.LINK_ERRORS` are translated (and may be retried): anything
        else ``work`` raises is a bug and propagates unchanged.
        """
        try:
            return await asyncio.to_thread(work, self._require_device())
        except LINK_ERRORS as exc:
            close_dangling(exc)
            error = translate(exc, what)
            if not recoverable(exc, error) or not await self._recover(error, what):
                raise error from exc
        try:
            return await asyncio.to_thread(work, self._require_device())
        except LINK_ERRORS as exc:
            close_dangling(exc)
            raise translate(exc, f"{what} (after recovering)") from exc

    # ---- recovery
    async def _recover(self, error: DeviceError, what: str) -> bool:
        """Make the next try possible; False when the error stands (device is fine)."""
        if await asyncio.to_thread(self.target.ready):
            if isinstance(error, UiAutomatorError) and self._u2 is not None:
                _log.warning("uiautomator2 failed during %s (%s); restarting it", what, error)
                await self._drop_uiautomator()  # the next rpc builds a client: a new server
                return True
            return False
        await self._reconnect(what, error)
        return True

    async def _reconnect(self, what: str, error: DeviceError) -> None:
        """Get the device back or raise DeviceDisconnected (bounded attempts, backoff)."""
        policy, delay = self.reconnect_policy, self.reconnect_policy.backoff_s
        last: BaseException = error
        for attempt in range(1, policy.attempts + 1):
            if self._closed:
                break
            _log.warning("%s dropped during %s; reconnect %d", self.serial, what, attempt)
            try:
                self._device = await asyncio.to_thread(self.target.reattach, policy.wait_s)
            except _REATTACH_ERRORS as exc:
                last = exc
                await asyncio.sleep(delay)  # backoff between attempts, not synchronization
                delay *= policy.factor
                continue
            self.reconnects += 1
            await self._drop_uiautomator()
            return
        raise DeviceDisconnected(
            f"{self.serial} disconnected during {what} and did not come back after "
            f"{policy.attempts} reconnect attempt(s) ({last}); check the USB cable or Wi-Fi "
            f"and `adb -P {self.target.port} devices`, then run again"
        ) from last

    def _require_device(self) -> adbutils.AdbDevice:
        if self._closed:
            raise EnvUsageError("the session is closed: open a new AdbSession")
        if self._device is None:
            raise EnvUsageError("the session is not open: call open() first")
        return self._device

    def _uiautomator(self) -> u2.Device:
        """The uiautomator2 client, built (and its server started) on first use."""
        if self._u2 is None:
            self._u2 = u2.Device(self._require_device(), port=self.u2_port)
        return self._u2
