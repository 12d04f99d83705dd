"""A "stranger phone": a phone whose world is not the simulator's.

Its user changed settings (Wi-Fi off, Bluetooth on, dark theme, a long timeout, vibrate, a
name of their own) and keeps other people: none of the simulator's contacts, some with the
same names but other numbers and companies, one name with a comma in its company. Every
change is made through the protocol, as on any phone, so the same function makes a
stranger of the virtual phone over adb and of one in memory.
"""

from __future__ import annotations

import asyncio

from bridge.android_contract import RAW_CONTACTS
from bridge.android_state import AndroidState
from bridge.judge import apply_op
from bridge.runner import run_episode
from bridge.spec.contacts import EnsureContact
from device.env import AndroidEnv
from device.virtual.attach import AttachedVirtualPhone
from policies.scripted import PlanPolicy
from sim.tasks.registry import default_registry
from tests.device.virtual_rig import env_config

__all__ = ["STRANGERS", "make_stranger", "sweep"]

USER_SETTINGS = (
    ("global", "wifi_on", "0"),
    ("global", "bluetooth_on", "1"),
    ("global", "mode_ringer", "1"),
    ("global", "device_name", "Mia's phone"),
    ("system", "screen_brightness", "200"),
    ("system", "screen_off_timeout", "600000"),
    ("secure", "ui_night_mode", "2"),
)
"""What this phone's user set for themselves."""

STRANGERS = (
    EnsureContact(name="张三", phones=["+86 135 1111 2222"], company="蓝鲸科技", starred=True),
    EnsureContact(name="Mia Wong", phones=["+852 6123 4567"], starred=True),
    EnsureContact(name="Kevin Brown", phones=["+1 212 555 0188"], company="Initech, Inc."),
    EnsureContact(name="Oskar Lind", phones=["+46 70 123 45 67"]),
)
"""The people on this phone (none of the simulator's contacts survive)."""


async def make_stranger(state: AndroidState) -> None:
    """Turn ``state``'s phone into the stranger phone."""
    for namespace, key, value in USER_SETTINGS:
        await state.put_setting(namespace, key, value)  # type: ignore[arg-type]
    await state.delete(RAW_CONTACTS, None)
    for person in STRANGERS:
        await apply_op(state, person)


async def sweep(phone: AttachedVirtualPhone, task_id: str, index: int, skin: str) -> None:
    """The ``index``-th episode of a sweep on one phone, never reset between tasks: the
    oracle of ``task_id`` (walking ``skin``'s screens, in Chinese at odd indices) solves its
    task through adb, cleanly; the phone is made a stranger before the first."""
    registry = default_registry()
    task = registry.instantiate(task_id, 0, "zh" if index % 2 else "en")
    oracle = registry.get(task_id).oracle_for(task, skin)
    async with AndroidEnv(env_config(phone)) as env:
        if index == 0:
            await env.open()
            await make_stranger(env.android_state)
        policy = PlanPolicy(oracle, name="scripted")
        record = await asyncio.wait_for(run_episode(policy, env, task, episode_id=task_id), 180)
    verdict = record.verdict
    assert verdict is not None, record.error
    failed = [check for check in verdict.checks if not check.passed]
    assert record.outcome == "success", (task.lang, record.termination, failed, record.error)
    assert verdict.clean is True, verdict.side_effects
    assert record.backend is not None and record.backend.kind == "virtual"
