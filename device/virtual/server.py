"""``VirtualPhoneServer``: a simulator instance served as an adb device from a background loop.

The simulator (Chromium, its FastAPI server), the :class:`VirtualPhone` and the adbd
listener all run on one asyncio loop in a dedicated thread, so blocking adbutils /
uiautomator2 / ``adb`` calls from the caller's thread never stall the phone::

    with VirtualPhoneServer(seed=0) as phone:            # starts everything
        with PrivateAdbServer() as adb:                   # device.virtual.adb_server
            adb.connect(phone.address)
            device = adb.client().device(phone.serial)    # "127.0.0.1:<port>"
            print(device.shell("wm size"))                # Physical size: 1080x2400

Work on the phone's state from the caller's thread goes through :meth:`VirtualPhoneHandle.call`
(it runs a coroutine on the phone's loop).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Coroutine
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, TypeVar

from device.virtual.adbd import Adbd
from device.virtual.errors import VirtualPhoneError
from device.virtual.phone import Perturbations, VirtualPhone
from sim.simulator import SimConfig, Simulator

__all__ = ["VirtualPhoneHandle", "VirtualPhoneServer"]

log = logging.getLogger(__name__)

T = TypeVar("T")


@dataclass(frozen=True)
class VirtualPhoneHandle:
    """A running virtual phone: where it listens and how to reach its state."""

    host: str
    port: int
    phone: VirtualPhone = field(repr=False)
    """The device model; touch it only on the phone's loop (see :meth:`call`)."""
    server: VirtualPhoneServer = field(repr=False)

    @property
    def address(self) -> str:
        """``host:port`` to give ``adb connect``."""
        return f"{self.host}:{self.port}"

    @property
    def serial(self) -> str:
        """The adb serial once connected (adb names TCP devices by their address)."""
        return self.address

    def call(
        self, work: Callable[[VirtualPhone], Coroutine[Any, Any, T]], timeout: float = 60.0
    ) -> T:
        """Run ``await work(phone)`` on the phone's loop and return its result."""
        return self.server.run(work(self.phone), timeout)

    def host_banners(self) -> list[str]:
        """The CNXN banners of the adb servers attached now (their ``features=`` list)."""
        adbd = self.server.adbd
        return list(adbd.host_banners) if adbd is not None else []

    def stop(self) -> None:
        """Stop the phone (same as :meth:`VirtualPhoneServer.stop`)."""
        self.server.stop()


class VirtualPhoneServer:
    """Owns the simulator, one instance, its VirtualPhone and the adbd listener.

    Args:
        seed: seed of the simulator instance (same seed, same phone).
        port: adbd's TCP port on ``host``; 0 picks a free one.
        host: address to bind (loopback).
        sim_config: simulator settings (default: the screen of the profile played, one page:
            the phone draws one screen at a time, and a page that keeps showing it need not
            load it again).
        perturbations: reality-gap knobs of the phone (the profile it plays among them).
        ready: whether the phone is set up for runs as a person prepares one (the input
            switch of its profile on); False is the phone as it comes from the box.
    """

    def __init__(
        self,
        seed: int = 0,
        port: int = 0,
        host: str = "127.0.0.1",
        sim_config: SimConfig | None = None,
        perturbations: Perturbations | None = None,
        ready: bool = True,
    ) -> None:
        self.seed = seed
        self.ready = ready
        self.port = port
        self.host = host
        self.perturbations = perturbations or Perturbations()
        self.sim_config = sim_config or SimConfig(pages=1, profile=self.perturbations.screen)
        self.adbd: Adbd | None = None
        self._sim: Simulator | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._handle: VirtualPhoneHandle | None = None

    # ---- the loop thread
    def _run_loop(self, loop: asyncio.AbstractEventLoop) -> None:
        asyncio.set_event_loop(loop)
        try:
            loop.run_forever()
        finally:
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = 60.0) -> T:
        """Run a coroutine on the phone's loop from another thread and wait for it."""
        if self._loop is None:
            raise VirtualPhoneError("the virtual phone is not running: call start() first")
        future: Future[T] = asyncio.run_coroutine_threadsafe(coro, self._loop)
        return future.result(timeout)

    # ---- lifecycle
    def start(self, timeout: float = 120.0) -> VirtualPhoneHandle:
        """Start the simulator, the phone and adbd; returns where it listens."""
        if self._handle is not None:
            return self._handle
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._run_loop, args=(self._loop,), name="virtual-phone", daemon=True
        )
        self._thread.start()
        try:
            self._handle = self.run(self._astart(), timeout)
        except Exception as exc:
            self.stop()
            raise VirtualPhoneError(f"the virtual phone did not start: {exc}") from exc
        return self._handle

    async def _astart(self) -> VirtualPhoneHandle:
        self._sim = Simulator(self.sim_config)
        await self._sim.start()
        instance = self._sim.create_instance(seed=self.seed)
        phone = VirtualPhone(
            self._sim, instance, serial=f"VP{self.seed:08d}", perturbations=self.perturbations
        )
        if self.ready:
            phone.make_ready()
        self.adbd = await Adbd(phone, host=self.host, port=self.port).start()
        log.info("virtual phone (seed %d) listening on %s:%d", self.seed, self.host, self.adbd.port)
        return VirtualPhoneHandle(self.host, self.adbd.port, phone, self)

    async def _astop(self) -> None:
        if self.adbd is not None:
            await self.adbd.close()
            self.adbd = None
        if self._sim is not None:
            await self._sim.close()
            self._sim = None

    def stop(self, timeout: float = 60.0) -> None:
        """Stop adbd, the simulator and the loop thread; idempotent."""
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        try:
            if loop.is_running():
                self.run(self._astop(), timeout)
        except Exception:
            log.exception("virtual phone: error while stopping")
        finally:
            loop.call_soon_threadsafe(loop.stop)
            thread.join(timeout)
            self._loop = self._thread = self._handle = None

    def __enter__(self) -> VirtualPhoneHandle:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
