"""What to keep in mind reading a paired-evaluation report, each said in one sentence a
reader can act on ("read with care"): few suite entries, a difference McNemar does not find
significant, an interval of zero width and why, episodes whose side effects a world could
not see, a phone side that is the virtual phone, a side that is MobileGym. report.md,
report.html and the terminal print them; :mod:`transfer_eval.report` carries them in
``report.json``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

from transfer_eval.stats import BootstrapSummary, McNemar
from transfer_eval.world_names import PairNames

__all__ = ["ALPHA", "FEW_TASKS", "Caveat", "caveats"]

FEW_TASKS = 10
"""Fewer suite entries than this, and the report says its intervals are wide."""
ALPHA = 0.05
"""McNemar p-values at or above this are called not significant."""


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Caveat(_Frozen):
    """Why a figure is weaker than it looks, in one sentence a reader can act on."""

    kind: Literal[
        "few_tasks",
        "not_significant",
        "degenerate_interval",
        "clean_unknown",
        "start_differs",
        "virtual_phone",
        "mobilegym",
    ]
    text: str


def _few(tasks: int) -> list[Caveat]:
    if tasks >= FEW_TASKS:
        return []
    if tasks == 0:
        text = "No suite entry finished in all four cells: nothing was measured."
        return [Caveat(kind="few_tasks", text=text)]
    one = "entry" if tasks == 1 else "entries"
    text = (
        f"Only {tasks} suite {one} (fewer than {FEW_TASKS}): one entry moves a rate by "
        f"{100 / tasks:.0f} pt, so every interval here is wide; read this as a smoke test, "
        "not a measurement."
    )
    return [Caveat(kind="few_tasks", text=text)]


def _not_significant(mcnemar: Sequence[McNemar], names: PairNames) -> list[Caveat]:
    weak = [m for m in mcnemar if m.p_value >= ALPHA]
    if not weak:
        return []
    parts = [
        f"{names.place(m.world)} p = {m.p_value:.3f} ({m.trained_only} trained-only vs "
        f"{m.base_only} base-only wins)"
        for m in weak
    ]
    text = (
        f"Trained vs base is not significant (McNemar exact, p ≥ {ALPHA:g}) "
        f"{' and '.join(parts)}: with this few discordant pairs the difference could be chance."
    )
    return [Caveat(kind="not_significant", text=text)]


def _and(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _degenerate(
    boot: BootstrapSummary, tasks: int, agreed: float | None, names: PairNames
) -> list[Caveat]:
    """Which intervals have zero width, and why every resample gives the same number."""
    gains = [
        f"the {names.name(world)} gain"
        for world, interval in (("sim", boot.sim_gain), ("real", boot.real_gain))
        if interval is not None and interval.degenerate
    ]
    reasons = []
    if gains:
        verb = (
            "has a zero-width 95% interval" if len(gains) == 1 else "have zero-width 95% intervals"
        )
        reasons.append(f"{_and(gains)} {verb} because every entry has the same gain")
    r = boot.retention
    if r.degenerate and r.value is not None:
        why = (
            f"every entry's outcomes {names.place('real')} equal those {names.place('sim')}, so "
            f"every resample retains exactly {100 * r.value:.0f}%"
            if agreed == 1.0
            else "every resample of the entries gives the same ratio"
        )
        reasons.append(f"retention's interval has zero width because {why}")
    if not reasons:
        return []
    text = (
        f"{'; '.join(reasons)}. The bootstrap only resamples the entries it has: a zero "
        f"width is a property of these {tasks} entries, not certainty about other tasks."
    )
    return [Caveat(kind="degenerate_interval", text=text[0].upper() + text[1:])]


def _unseen(unseen: Mapping[str, tuple[int, int]], names: PairNames) -> list[Caveat]:
    parts = [
        f"{blind} of {episodes} episodes {names.place(world)}"
        for world, (blind, episodes) in unseen.items()
        if blind
    ]
    if not parts:
        return []
    text = (
        f"The world could not tell whether anything else changed in {' and '.join(parts)} "
        "(clean unknown): such an episode counts as a success when the goal holds and the "
        "agent said it was done, so side effects there go uncounted and a world that sees "
        "less looks cleaner."
    )
    return [Caveat(kind="clean_unknown", text=text)]


def _start_differs(start: tuple[int, int] | None, what: str) -> list[Caveat]:
    if start is None or start[0] == start[1]:
        return []
    same, compared = start
    text = (
        f"{compared - same} of {compared} pairs did not start from the same {what} in both "
        "worlds (start-state parity below): what differed, not the policy, may explain "
        "their disagreement."
    )
    return [Caveat(kind="start_differs", text=text)]


def _virtual(device_backend: str, device_gap: str, names: PairNames) -> list[Caveat]:
    if device_backend != "virtual":
        return []
    gap = f" (with {device_gap})" if device_gap else ""
    if names.kinds["sim"] != "sim":
        expected = "what it measures is a transfer to our simulator, not to hardware"
    elif device_gap:  # another phone played, pop-ups, text: modelled from the public record
        expected = (
            "what it differs in is a gap modelled from public evidence, not a phone's, so "
            "its retention is not evidence about hardware"
        )
    else:
        expected = "sim–phone agreement is expected there and is not evidence about hardware"
    text = (
        f"The phone side is the virtual phone{gap}, which renders the simulator's own "
        f"state behind adb: {expected}. Run with --device SERIAL for that."
    )
    return [Caveat(kind="virtual_phone", text=text)]


def _mobilegym(names: PairNames) -> list[Caveat]:
    if not names.mobilegym:
        return []
    text = (
        "One side is MobileGym, a simulator written by others: its episodes start from "
        "its own data with the task posed (not from the other world's state), and the UI "
        "tree its policy saw is derived from the page (MobileGym has none). The same bound "
        "spec and the same judge decide success in both worlds; tasks MobileGym cannot "
        "pose are left out of both."
    )
    return [Caveat(kind="mobilegym", text=text)]


def caveats(
    tasks: int,
    mcnemar: Sequence[McNemar],
    boot: BootstrapSummary,
    device_backend: str,
    device_gap: str = "",
    agreed: float | None = None,
    unseen: Mapping[str, tuple[int, int]] | None = None,
    start: tuple[int, int] | None = None,
    names: PairNames | None = None,
) -> list[Caveat]:
    """What to keep in mind reading a report of ``tasks`` entries: few entries, McNemar
    not significant, an interval of zero width (``agreed``: the sim-phone agreement, which
    says why retention's can be), episodes whose side effects a world could not see
    (``unseen``: per world, those episodes and all), pairs that started differently
    (``start``: pairs the same, pairs compared), the virtual phone, MobileGym on a side
    (in that order). ``names``: the two worlds (our simulator and a phone when not
    given)."""
    names = names or PairNames()
    state = "state" if names.mobilegym else "phone"
    return [
        *_few(tasks),
        *_not_significant(mcnemar, names),
        *_degenerate(boot, tasks, agreed, names),
        *_unseen(unseen or {}, names),
        *_start_differs(start, state),
        *_virtual(device_backend, device_gap, names),
        *_mobilegym(names),
    ]
