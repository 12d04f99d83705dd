"""Judging one spec in two worlds and saying where they differ (the parity tests' harness).

The simulator's world is :class:`~sim.android_state.SimAndroidState` on a fresh instance
state; the phone's is :class:`~device.android_state.AdbAndroidState` over the virtual
phone's shell run in memory (no adb server, no browser). Both sides start from the same
seed; every reading goes through the protocol, so a difference is a difference between the
two implementations — exactly what would skew retention.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from bridge.android_state import AndroidState
from bridge.judge import StartRecord, judge, pose, read_checks
from bridge.records import TaskInstance
from bridge.schema import AnswerValue
from bridge.spec.settings import SettingCheck
from bridge.taskspec import TaskSpec
from device.android_state import AdbAndroidState
from device.virtual.phone import VirtualPhone
from device.virtual.shell import Shell as PhoneShell
from sim.android_state import SimAndroidState
from sim.simulator import Simulator
from sim.state import InstanceState
from sim.tasks.registry import default_registry

__all__ = [
    "Worlds",
    "answer_forms",
    "differences",
    "satisfying_puts",
    "start_reading",
]


class _Captured:
    def __init__(self) -> None:
        self.data = bytearray()

    async def stdout(self, data: bytes) -> None:
        self.data += data

    async def stderr(self, data: bytes) -> None:
        self.data += data


class InMemoryShell:
    """An ``adb shell`` over the virtual phone's shell, in memory."""

    def __init__(self, phone: VirtualPhone) -> None:
        self.phone = phone
        self.commands: list[str] = []

    async def __call__(self, command: str) -> str:
        self.commands.append(command)
        io = _Captured()
        await PhoneShell(self.phone).run(command, io)
        return io.data.decode()


@dataclass
class Worlds:
    """The two implementations of one fresh phone (same seed)."""

    sim: SimAndroidState
    phone: AdbAndroidState
    virtual: VirtualPhone

    @classmethod
    def fresh(cls, simulator: Simulator, seed: int) -> Worlds:
        """A fresh simulated state and a fresh virtual phone, both with ``seed``."""
        virtual = VirtualPhone(simulator, simulator.create_instance(seed=seed), serial="VP0PARITY")
        return cls(
            sim=SimAndroidState(simulator.phone, InstanceState(seed=seed)),
            phone=AdbAndroidState(InMemoryShell(virtual), wait_s=0.0),
            virtual=virtual,
        )

    def both(self) -> Iterator[AndroidState]:
        """The simulator's side, then the phone's."""
        yield self.sim
        yield self.phone


def task(task_id: str, seed: int, lang: str) -> TaskInstance:
    """The task instance the registry binds for (``task_id``, ``seed``, ``lang``)."""
    return default_registry().instantiate(task_id, seed, lang)


async def start_reading(spec: TaskSpec, state: AndroidState) -> tuple[StartRecord, dict[str, Any]]:
    """Pose ``spec`` and read what the start holds: truths, observable state, the checks."""
    start = await pose_anyway(spec, state)
    checks = await read_checks(spec, state, start, trees=())
    reading = {"start": start.model_dump(mode="json"), "checks": [c.model_dump() for c in checks]}
    return start, reading


async def pose_anyway(spec: TaskSpec, state: AndroidState) -> StartRecord:
    """:func:`bridge.judge.pose`; a pre-satisfied start is a failure of the test itself."""
    return await pose(spec, state)


def differences(a: Any, b: Any, path: str = "") -> list[str]:
    """Where two JSON documents differ (``start.truths.count: 4 != 5``)."""
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        found: list[str] = []
        for key in sorted(set(a) | set(b), key=str):
            found += differences(a.get(key, "<absent>"), b.get(key, "<absent>"), f"{path}.{key}")
        return found
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b, strict=True))
                for d in differences(x, y, f"{path}[{i}]")]  # fmt: skip
    if json.dumps(a, sort_keys=True) != json.dumps(b, sort_keys=True):
        return [f"{path.lstrip('.')}: {a!r} != {b!r}"]
    return []


async def verdict_json(
    spec: TaskSpec,
    state: AndroidState,
    start: StartRecord,
    answer: Mapping[str, AnswerValue] | None,
) -> dict[str, Any]:
    """The verdict as JSON (without what only the simulator reports)."""
    verdict = await judge(spec, state, start, answer=answer)
    return verdict.model_dump(mode="json", exclude={"sim_side_effects"})


def satisfying_puts(spec: TaskSpec) -> list[tuple[str, str, str]]:
    """(namespace, key, value) writes that meet the spec's setting checks (literal values)."""
    puts = []
    for check in spec.checks:
        if not isinstance(check, SettingCheck) or not isinstance(check.value, str | int | float):
            if isinstance(check, SettingCheck) and check.op in ("zero", "nonzero"):
                puts.append((check.namespace, check.key, "1" if check.op == "nonzero" else "0"))
            continue
        value = check.value
        text = str(int(value)) if isinstance(value, bool) else str(value)
        if check.op != "ne":
            puts.append((check.namespace, check.key, text))
    return puts


def _full_width(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


def _time_forms(text: str) -> tuple[list[Any], list[Any]]:
    """A clock time (``HH:MM``) as people write it, and times one hour or 15 minutes off."""
    moment = datetime.strptime(text, "%H:%M")
    hour, minute = moment.hour, moment.minute
    twelve, half = (hour % 12) or 12, ("pm", "下午") if hour >= 12 else ("am", "上午")
    right = [text, f"{hour}:{minute:02d}", f"{twelve}:{minute:02d} {half[0].upper()}",
             f"{half[1]}{twelve}点{minute:02d}分", _full_width(text)]  # fmt: skip
    hour_off = (moment + timedelta(hours=1)).strftime("%H:%M")
    wrong = [hour_off, (moment + timedelta(minutes=15)).strftime("%H:%M"), ""]
    return right, wrong


def _date_forms(text: str) -> tuple[list[Any], list[Any]]:
    """A date (ISO) as people write it, and the days around it."""
    day = date.fromisoformat(text)
    month = day.strftime("%B")
    right = [text, f"{month} {day.day}, {day.year}", f"{day.year}年{day.month}月{day.day}日",
             f"{day.month}/{day.day}/{day.year}", f"{day.day} {month[:3]} {day.year}"]  # fmt: skip
    wrong = [(day + timedelta(days=1)).isoformat(), (day - timedelta(days=7)).isoformat(), ""]
    return right, wrong


def answer_forms(match: str, truth: Any) -> tuple[list[Any], list[Any]]:
    """(answers that must match, answers that must not) for a truth, as models write them."""
    text = str(truth)
    if match == "number":
        n = int(float(text))
        right = [n, str(n), f"{n} contacts", f"{n}个", _full_width(str(n)), f"{n}.0"]
        wrong = [n + 1, f"not {n}", f"{n} or {n + 1}", f"{n}–{n + 1}", f"{n}-{n + 1}", ""]
        return right, wrong
    if match == "phone":
        digits = "".join(ch for ch in text if ch.isdigit())
        national = digits[2:] if text.startswith("+86") else digits
        spaced = f"00{digits[:2]} {digits[2:5]} {digits[5:9]} {digits[9:]}"
        right = [text, national, _full_width(text)] + ([spaced] if text.startswith("+") else [])
        last = str((int(digits[-1]) + 1) % 10)
        wrong = [text[:-1] + last, national[-7:], national[:-1], f"not {text}"]
        return right, wrong
    if match == "version":
        return [text, f"Android {text}", f"{text}.0"], [str(int(text.split(".")[0]) + 1), "x"]
    if match == "time":
        return _time_forms(text)
    if match == "date":
        return _date_forms(text)
    right = [text, text.upper(), text.lower(), _full_width(text), f"  {text} "]
    wrong = [text[:-1] if len(text) > 1 else text + "x", f"{text} 2", ""]
    return right, wrong


async def phone_verdict(
    simulator: Simulator,
    task: TaskInstance,
    end: InstanceState,
    answer: Mapping[str, AnswerValue] | None,
    trees: list[str],
    base: InstanceState | None = None,
) -> dict[str, Any]:
    """The verdict the virtual phone's shell gives for a simulator episode's end state: the
    task posed on a virtual phone holding ``base`` (the phone the episode started from; a
    fresh one when None), then the end state put in place."""
    assert task.spec is not None
    virtual = VirtualPhone(simulator, simulator.create_instance(seed=task.seed), serial="VP0END")
    if base is not None:
        virtual.instance.state = base.model_copy(deep=True)
    try:
        state = AdbAndroidState(InMemoryShell(virtual), wait_s=0.0)
        start = await pose(task.spec, state)
        virtual.instance.state = end.model_copy(deep=True)
        verdict = await judge(task.spec, state, start, answer=answer, trees=trees)
    finally:
        simulator.drop_instance(virtual.instance.id)
    return verdict.model_dump(mode="json", exclude={"sim_side_effects"})
