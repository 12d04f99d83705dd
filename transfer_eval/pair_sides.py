"""The two worlds of a paired evaluation: where a gain was made and where it is checked.

``--sim`` names the world the gain was made in: ``sim`` (our simulator, here or on hosts) or
``mobilegym:…`` (a MobileGym build). ``--device`` names the world it is checked in: an adb
serial, ``virtual`` (the virtual phone) or ``mobilegym:…``. Any two different worlds pair:
our simulator → a phone (the usual case), MobileGym → a phone (MobileGym's own sim-to-real
experiment, judged by one deterministic judge instead of a VLM), our simulator → MobileGym
(two simulators written independently). Each world poses and judges the same bound spec
with the same judge; a task one of them cannot pose is left out of both, so pairs stay
pairs (:func:`pair_refusal` says why).

Cells keep the keys ``sim`` (the gain's world) and ``real`` (the checked world) whichever
worlds they are; :meth:`transfer_eval.report.Report.world_name` is how pages name them.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Literal

from bridge.env import Env
from bridge.records import TaskInstance
from bridge.retail import retail_refusal
from mobilegym.errors import MobileGymSourceError
from mobilegym.poseable import mobilegym_refusal
from mobilegym.source import MobileGymSource, is_mobilegym, parse_source
from mobilegym.world import MobileGym
from transfer_eval.sim_source import SimEnvs, SimSource, sim_envs

__all__ = [
    "CheckedWorld",
    "GainSide",
    "GainWorld",
    "checked_world",
    "gain_side",
    "gain_world",
    "mobilegym_envs",
    "pair_refusal",
]

GainWorld = Literal["sim", "mobilegym"]
CheckedWorld = Literal["virtual", "device", "mobilegym"]


def _check_build(option: str, world: str) -> None:
    """A build that is not there, as one line naming the option (a ValueError, which
    pydantic reports as the setting's error)."""
    try:
        parse_source(world)
    except MobileGymSourceError as exc:
        raise ValueError(f"{option} {exc}") from None


def gain_world(sim: str, *, check: bool = True) -> GainWorld:
    """The kind of world ``--sim`` names (``check``: that a MobileGym build is there; a
    recorded run's build need not be, to be replayed elsewhere).

    Raises:
        ValueError: neither ``sim`` nor ``mobilegym:…`` (a build that is not there says so).
    """
    if sim == "sim":
        return "sim"
    if is_mobilegym(sim):
        if check:
            _check_build("--sim", sim)
        return "mobilegym"
    raise ValueError(
        f"--sim {sim!r}: name the world the gain was made in: sim (our simulator) or "
        "mobilegym:PATH / mobilegym:URL (a MobileGym build)"
    )


def checked_world(device: str, *, check: bool = True) -> CheckedWorld:
    """The kind of world ``--device`` names (an adb serial is a real phone; ``check`` as
    for :func:`gain_world`).

    Raises:
        ValueError: a ``mobilegym:`` build that is not there.
    """
    if is_mobilegym(device):
        if check:
            _check_build("--device", device)
        return "mobilegym"
    return "virtual" if device == "virtual" else "device"


def pair_refusal(task: TaskInstance, gain: GainWorld, checked: CheckedWorld) -> str | None:
    """Why a task cannot be paired between the two worlds (one of them cannot pose it), or
    None. Our simulator and the virtual phone pose every task; a real phone only what a
    retail phone can be made to hold (:mod:`bridge.retail`); MobileGym only what its state
    holds (:mod:`mobilegym.poseable`)."""
    if checked == "device" and (why := retail_refusal(task)) is not None:
        return f"a retail phone cannot pose it: {why}"
    if "mobilegym" in (gain, checked):
        if task.spec is None:
            return "MobileGym cannot pose it: it carries no spec"
        if (why := mobilegym_refusal(task.spec)) is not None:
            return f"MobileGym cannot pose it: {why}"
    return None


@dataclass(frozen=True)
class GainSide:
    """The world the gain was made in, as the grid uses it: a maker of new envs (``base``:
    a phone's state our simulator starts from, see :mod:`transfer_eval.phone_twin`; only
    our local simulator takes one)."""

    kind: GainWorld
    make_env: Callable[[], Awaitable[Env]]
    takes_base: bool
    sims: SimEnvs | None = None


@asynccontextmanager
async def mobilegym_envs(
    source: MobileGymSource, step_timeout_s: float
) -> AsyncIterator[Callable[[], Awaitable[Env]]]:
    """A started MobileGym world (its build served on loopback for the block) and a maker
    of its envs, each a new phone of that build."""
    async with MobileGym(source) as gym:

        async def make() -> Env:
            return await gym.env(step_timeout_s=step_timeout_s)

        yield make


@asynccontextmanager
async def gain_side(
    sim: str, source: SimSource, pages: int, step_timeout_s: float
) -> AsyncIterator[GainSide]:
    """The gain's world started for the block: our simulator (``source``: here or on
    hosts, ``pages`` at once) or a MobileGym build."""
    if gain_world(sim) == "mobilegym":
        async with mobilegym_envs(parse_source(sim), step_timeout_s) as make:
            yield GainSide("mobilegym", make, takes_base=False)
        return
    async with sim_envs(source, pages=pages) as sims:

        async def make_sim() -> Env:
            return await sims.env()

        yield GainSide("sim", make_sim, takes_base=source.local, sims=sims)
