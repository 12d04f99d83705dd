"""Start-state parity: did the two cells of a pair start from the same phone?

A pair (one suite entry, one policy, one repeat, a simulator cell and a phone cell) measures
transfer only if both cells start alike. Two things are compared, both recorded by the runs
themselves: the observable state the task was posed in (``EpisodeRecord.start_state``:
settings, the watched provider rows, the task folders) and the first screen: node by node
(``trees/0000.xml``) when both worlds draw the same screens, else by the app in front
(a virtual Redmi draws HyperOS's screens at 440 dpi, a real phone and MobileGym their own:
no node of theirs is the simulator's, and that is the look, not the start). Keys Android
rewrites by itself (the volatile settings) are left out. A pair whose either side has no
record of its start is ``unknown``, never counted as equal.
"""

from __future__ import annotations

import difflib
import fnmatch
from collections.abc import Iterable, Mapping, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from bridge.errors import TrajectoryError
from bridge.observed import volatile_settings
from bridge.records import EpisodeRecord, StepRecord
from bridge.schema import ObservedState, UINode
from bridge.trajectory import RunStore
from bridge.uitree import parse_hierarchy

__all__ = [
    "PairStart",
    "StartParity",
    "StartParitySummary",
    "app_differences",
    "start_parity",
    "state_differences",
    "tree_differences",
]

SHOWN = 4
"""Differences named per pair (the rest are counted)."""


class PairStart(BaseModel):
    """How one pair started: the same, differently (what differed), or unknown (why)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    label: str
    role: str
    repeat: int
    verdict: Literal["same", "different", "unknown"]
    state: list[str] = Field(default_factory=list)
    """Observable-state differences (``global.wifi_on: sim '1', phone '0'``)."""
    tree: list[str] = Field(default_factory=list)
    """First-screen differences (``node 12: sim 'Wi-Fi' / phone 'WLAN'``)."""
    why: str | None = None
    """Why the pair is unknown."""


class StartParity(BaseModel):
    """Every pair's start, and how many started the same."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    pairs: list[PairStart] = Field(default_factory=list)
    looks: str | None = None
    """Why the first screens were compared by the app in front, not node by node (how the
    phone's screens look other than the simulator's); None: node by node."""

    @property
    def compared(self) -> int:
        """Pairs whose both starts were recorded."""
        return sum(pair.verdict != "unknown" for pair in self.pairs)

    @property
    def same(self) -> int:
        """Pairs that started from the same observable state and the same first screen."""
        return sum(pair.verdict == "same" for pair in self.pairs)

    @property
    def rate(self) -> float | None:
        """``same / compared`` (None when nothing could be compared)."""
        return self.same / self.compared if self.compared else None

    @property
    def different(self) -> list[PairStart]:
        """The pairs that started differently."""
        return [pair for pair in self.pairs if pair.verdict == "different"]


class StartParitySummary(BaseModel):
    """``report.json``'s ``start_parity``: how many pairs were compared, how many started
    the same, and each pair that did not (with what differed) or could not be compared."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    compared: int
    same: int
    rate: float | None
    different: list[PairStart] = Field(default_factory=list)
    unknown: list[PairStart] = Field(default_factory=list)
    looks: str | None = None
    """See :attr:`StartParity.looks`."""

    def sentence(self) -> str:
        """The figure in words, as report.md and report.html say it."""
        if self.rate is None:
            return "Start-state parity: no pair recorded its start (runs made before it)."
        unknown = f"; {len(self.unknown)} could not be compared" if self.unknown else ""
        screen = (
            "the same first screen"
            if self.looks is None
            else f"the same app in front ({self.looks}: first screens compared by their app)"
        )
        return (
            f"start-state parity {100 * self.rate:.0f}%: {self.same} of {self.compared} pairs "
            "started from the same observable state (settings, the watched rows and task "
            f"folders) and {screen} in both worlds{unknown}."
        )

    def rows(self) -> list[tuple[str, str, str]]:
        """One row per pair that did not start the same: (pair, what differed, first
        screen), each with its first differences and a count of the rest."""
        return [
            (
                f"{pair.label} · {pair.role} · r{pair.repeat}",
                _shown(pair.state) if pair.verdict == "different" else (pair.why or ""),
                _shown(pair.tree),
            )
            for pair in [*self.different, *self.unknown]
        ]

    @classmethod
    def of(cls, parity: StartParity) -> StartParitySummary:
        """The summary of ``parity``."""
        unknown = [pair for pair in parity.pairs if pair.verdict == "unknown"]
        return cls(
            compared=parity.compared,
            same=parity.same,
            rate=parity.rate,
            different=parity.different,
            unknown=unknown,
            looks=parity.looks,
        )


def _shown(items: Sequence[str]) -> str:
    if not items:
        return "—"
    more = f"; and {len(items) - SHOWN} more" if len(items) > SHOWN else ""
    return "; ".join(items[:SHOWN]) + more


def _volatile(name: str, globs: Sequence[str]) -> bool:
    return any(fnmatch.fnmatchcase(name, glob) for glob in globs)


def _changed(
    prefix: str, sim: Mapping[str, str], phone: Mapping[str, str], skip: Sequence[str] = ()
) -> list[str]:
    found = []
    for key in sorted(set(sim) | set(phone)):
        name = f"{prefix}{key}"
        if sim.get(key) != phone.get(key) and not _volatile(name, skip):
            found.append(f"{name}: sim {sim.get(key)!r}, phone {phone.get(key)!r}")
    return found


def state_differences(
    sim: ObservedState, phone: ObservedState, volatile: Iterable[str] = ()
) -> list[str]:
    """Where two observable states differ: settings by ``namespace.key`` (volatile keys
    aside), watched rows by ``uri/_id``, task-folder entries by path."""
    globs = (*volatile_settings(), *volatile)
    found: list[str] = []
    for ns in sorted(set(sim.settings) | set(phone.settings)):
        found += _changed(f"{ns}.", sim.settings.get(ns, {}), phone.settings.get(ns, {}), globs)
    for uri in sorted(set(sim.rows) | set(phone.rows)):
        old, new = sim.rows.get(uri, {}), phone.rows.get(uri, {})
        found += [
            f"{uri}/{row_id}: row differs"
            for row_id in sorted(set(old) | set(new))
            if old.get(row_id) != new.get(row_id)
        ]
    found += _changed("/sdcard/Download/", sim.files, phone.files)
    return found


def _node(node: UINode) -> tuple[object, ...]:
    return (
        node.class_name,
        node.text,
        node.content_desc,
        node.resource_id.partition(":")[2] or node.resource_id,  # the phone's package aside
        tuple(node.bounds_px),
        node.checked,
        node.selected,
        node.enabled,
    )


def _said(node: UINode) -> str:
    words = node.text or node.content_desc or node.resource_id or node.class_name
    return f"{words!r} at {list(node.bounds_px)}"


def tree_differences(sim: Sequence[UINode], phone: Sequence[UINode]) -> list[str]:
    """Where two first screens differ, node by node (a node is its class, text,
    description, resource id, bounds and checked/selected/enabled state). A resource id is
    compared by its name: the package that owns a screen is the phone's own (a Redmi's home
    is ``com.miui.home``, AOSP's ``com.android.launcher3``), not a difference of state."""
    ours, theirs = [_node(n) for n in sim], [_node(n) for n in phone]
    found = []
    matcher = difflib.SequenceMatcher(a=ours, b=theirs, autojunk=False)
    for kind, a0, a1, b0, b1 in matcher.get_opcodes():
        if kind == "equal":
            continue
        left = ", ".join(_said(n) for n in sim[a0:a1]) or "nothing"
        right = ", ".join(_said(n) for n in phone[b0:b1]) or "nothing"
        found.append(f"sim shows {left}; phone shows {right}")
    return found


def _first_step(store: RunStore, record: EpisodeRecord) -> StepRecord | None:
    try:
        steps = store.read_steps(record.episode_id)
    except TrajectoryError:
        return None
    return steps[0] if steps else None


def _first_tree(store: RunStore, record: EpisodeRecord) -> list[UINode] | None:
    step = _first_step(store, record)
    if step is None or step.tree is None:
        return None
    path = store.episode_dir(record.episode_id) / step.tree
    if not path.is_file():
        return None
    return parse_hierarchy(path.read_text("utf-8")).nodes


def app_differences(sim: StepRecord, phone: StepRecord) -> list[str]:
    """Whether the first screens show the same app (the launcher when none is in front)."""
    apps = [step.observation.foreground.app or "the home screen" for step in (sim, phone)]
    return [] if apps[0] == apps[1] else [f"sim shows {apps[0]}; phone shows {apps[1]}"]


def _pair(
    store: RunStore, sim: EpisodeRecord | None, phone: EpisodeRecord | None, by_app: bool
) -> tuple[Literal["same", "different", "unknown"], list[str], list[str], str | None]:
    if sim is None or phone is None:
        return "unknown", [], [], "a cell of the pair has not run"
    if sim.start_state is None or phone.start_state is None:
        return (
            "unknown",
            [],
            [],
            "a cell did not record its start (an infra error, or a world that cannot observe it)",
        )
    state = state_differences(sim.start_state, phone.start_state)
    if by_app:
        steps = _first_step(store, sim), _first_step(store, phone)
        if steps[0] is None or steps[1] is None:
            return "unknown", state, [], "a cell saved no first screen"
        tree = app_differences(steps[0], steps[1])
    else:
        trees = _first_tree(store, sim), _first_tree(store, phone)
        if trees[0] is None or trees[1] is None:
            return "unknown", state, [], "a cell saved no first screen"
        tree = tree_differences(trees[0], trees[1])
    return ("different" if state or tree else "same"), state, tree, None


def start_parity(
    store: RunStore,
    pairs: Iterable[tuple[str, str, int, str, str]],
    looks: str | None = None,
) -> StartParity:
    """The start of every pair ``(label, role, repeat, sim episode id, phone episode id)``;
    ``looks``: how the phone's screens look other than the simulator's (first screens are
    then compared by the app in front), None when both draw the same."""
    done = store.completed()
    found = []
    for label, role, repeat, sim_id, phone_id in pairs:
        verdict, state, tree, why = _pair(
            store, done.get(sim_id), done.get(phone_id), looks is not None
        )
        found.append(
            PairStart(
                label=label,
                role=role,
                repeat=repeat,
                verdict=verdict,
                state=state,
                tree=tree,
                why=why,
            )
        )
    return StartParity(pairs=found, looks=looks)
