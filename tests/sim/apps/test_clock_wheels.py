"""HyperOS's Clock sets an alarm's time with wheels (sim/pickers/wheels.py): a drag turns a
wheel by the rows it travels, wrapping; a tap on a neighbour selects it; the alarm saved is
the one AOSP's typed dialog saves; the tree shows NumberPickers as a phone's dump does, in
both languages, and the virtual phone's own touches turn them. The wheels' arithmetic and the
oracle's taps on literal inputs first (no page); then one simulator for the module."""

from __future__ import annotations

from typing import Any

import pytest

from bridge.actions import Action, ScrollAction, SwipeAction
from bridge.plans import TapStep
from bridge.schema import Observation, OpenAppAction, Point, TapAction, Target, TypeAction, UINode
from bridge.uitree import parse_hierarchy
from device.virtual.perturb import Perturbations
from device.virtual.phone import VirtualPhone
from sim.apps.clock.plans import turn_wheel
from sim.env import SimEnv
from sim.pickers.time_picker import hour_key, minute_key
from sim.pickers.wheels import (
    HOME_PX,
    ROW_PX,
    WHEEL_PX,
    row_fraction,
    select_row,
    settle_wheels,
    shown_indices,
    wheel_key,
)
from sim.simulator import Simulator

SIM_PAGES = 1
"""One page is enough: the tests take turns (tests/conftest.py's `sim`)."""
PKG = "com.android.deskclock:id/"
PICKER = "android.widget.NumberPicker"
DPR = 3
"""Device pixels per CSS pixel of the simulator's screen (1080x2400 at 480 dpi)."""


def _words(lang: str, en: str, zh: str) -> str:
    return zh if lang == "zh" else en


# ---- on literal inputs


def _drafts(hour: str, minute: str) -> dict[str, str]:
    return {hour_key("clock"): hour, minute_key("clock"): minute}


def test_rows_travelled_turn_a_wheel_rounded_and_wrapping_until_settled() -> None:
    fields, state = _drafts("22", "58"), {"kind": "time", "pm": False}
    scroll = {wheel_key("clock", "hour"): HOME_PX + 3 * ROW_PX - 20,  # 2.6 rows: 3
              wheel_key("clock", "minute"): HOME_PX + 2 * ROW_PX + 20}  # 2.4 rows: 2  # fmt: skip
    assert shown_indices(state, fields, scroll, "clock", True) == {"hour": 1, "minute": 0}
    settle_wheels(state, fields, scroll, "clock", True)
    assert fields == _drafts("01", "00") and set(scroll.values()) == {HOME_PX}
    select_row(state, fields, scroll, "clock", True, "minute", 59)
    assert fields == _drafts("01", "59")


def test_a_12_hour_clock_has_an_am_pm_wheel_that_stops_at_its_ends() -> None:
    fields, state = _drafts("11", "05"), {"kind": "time", "pm": False}
    scroll = {wheel_key("clock", name): HOME_PX for name in ("hour", "minute", "am_pm")}
    scroll[wheel_key("clock", "am_pm")] += 5 * ROW_PX  # past PM: it stays on PM
    scroll[wheel_key("clock", "hour")] += ROW_PX  # 11 → 12
    settle_wheels(state, fields, scroll, "clock", False)
    assert fields == _drafts("12", "05") and state["pm"] is True


def test_aosps_dialog_is_left_as_typed() -> None:
    fields, state, scroll = _drafts("7x", "05"), {"kind": "time", "pm": False}, {}
    settle_wheels(state, fields, scroll, "clock", True)  # no wheels: nothing to fold
    assert fields == _drafts("7x", "05") and scroll == {}


def test_the_oracle_turns_the_short_way_and_checks_the_target() -> None:
    on = turn_wheel("minute", 55, 4, "en")  # 9 rows on, through 00
    assert [tap.on.desc for tap in on] == [f"Minute {m:02d}" for m in (55, 57, 59, 1, 3, 4)]
    assert [tap.at for tap in on][-2:] == [(0.5, row_fraction(1)), (0.5, row_fraction(0))]
    back = turn_wheel("hour", 9, 5, "zh")  # 4 rows back
    assert [(tap.on.desc, tap.at) for tap in back] == [
        ("09时", (0.5, row_fraction(-2))), ("07时", (0.5, row_fraction(-2))),
        ("05时", (0.5, row_fraction(0)))]  # fmt: skip


# ---- in Chromium


async def _clock(sim: Simulator, skin: str, lang: str = "en") -> tuple[SimEnv, Observation]:
    """An env on a fresh phone in ``skin`` and ``lang`` showing the Clock's alarms."""
    env = await sim.env(screenshot=False, skin=skin)
    state = env.fresh_state(0)
    state.os.settings["system"]["system_locales"] = _words(lang, "en-US", "zh-CN")
    env.instance.state = state
    env.instance.changed()
    await env.observe()
    return env, await _do(env, OpenAppAction(app="clock"))


async def _do(env: SimEnv, action: Action) -> Observation:
    result = await env.step(action)
    assert result.error is None, result.error
    return result.observation


def _node(nodes: list[UINode], **match: str) -> UINode:
    for node in nodes:
        if all(getattr(node, key) == value for key, value in match.items()):
            return node
    raise AssertionError(f"no node {match}: {[n.content_desc or n.text for n in nodes]}")


def _wheel(nodes: list[UINode], name: str) -> UINode:
    return _node(nodes, class_name=PICKER, resource_id=PKG + name)


def _rows(nodes: list[UINode], wheel: UINode) -> list[str]:
    return [n.text for n in nodes if n.parent == wheel.id]


async def _tap(env: SimEnv, obs: Observation, **match: str) -> Observation:
    return await _do(env, TapAction(target=Target.node(_node(obs.ui, **match).id)))


async def _drag(env: SimEnv, obs: Observation, wheel: str, rows: int) -> Observation:
    """Scroll ``wheel`` ``rows`` rows (positive: later values come up) with a held drag."""
    distance = abs(rows) * ROW_PX / WHEEL_PX
    target = Target.node(_wheel(obs.ui, wheel).id)
    action = ScrollAction(direction="down" if rows > 0 else "up", target=target, distance=distance)
    return await _do(env, action)


def _point(node: UINode, fraction: float, screen: tuple[int, int] = (1080, 2400)) -> Point:
    """The normalized point ``fraction`` down ``node``, across its middle."""
    left, top, right, bottom = node.bounds_px
    return Point(x=(left + right) / 2 / screen[0], y=(top + fraction * (bottom - top)) / screen[1])


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.browser
@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_drags_and_taps_turn_the_wheels_and_the_tick_saves(sim: Simulator, lang: str) -> None:
    env, obs = await _clock(sim, "hyperos", lang)
    obs = await _tap(env, obs, text="22:30")  # the 22:30 alarm's own page
    title = _node(obs.ui, resource_id=PKG + "action_bar_title").text
    assert title == _words(lang, "Edit alarm", "编辑闹钟")
    hour = _wheel(obs.ui, "hour")
    assert hour.scrollable and not obs.keyboard_visible
    assert hour.content_desc == _words(lang, "Hour 22", "22时")
    assert _rows(obs.ui, hour) == ["20", "21", "22", "23", "00"]
    obs = await _drag(env, obs, "hour", 3)  # 22 → 01, through 00
    assert _wheel(obs.ui, "hour").content_desc == _words(lang, "Hour 01", "01时")
    obs = await _drag(env, obs, "minute", -2)  # 30 → 28
    obs = await _tap(env, obs, text="26")  # the neighbour two rows up
    minute = _wheel(obs.ui, "minute")
    assert minute.content_desc == _words(lang, "Minute 26", "26分")
    assert _rows(obs.ui, minute) == ["24", "25", "26", "27", "28"]
    start = _point(minute, 0.5)  # a fast swipe of two rows glides as far again: 26 → 30
    end = Point(x=start.x, y=start.y - 2 * ROW_PX * DPR / 2400)
    obs = await _do(env, SwipeAction(start=start, end=end, duration_ms=100))
    assert _wheel(obs.ui, "minute").content_desc == _words(lang, "Minute 30", "30分")
    obs = await _tap(env, obs, resource_id=PKG + "button1")
    alarms = env.sim.phone.apps["clock"].view(env.instance.state.apps["clock"])["alarms"]
    assert (alarms[0]["hour"], alarms[0]["minute"]) == (1, 30)  # was 22:30: first now
    assert "01:30" in [n.text for n in obs.ui]
    assert not [key for key in env.instance.state.ui.scroll if ".picker." in key]
    await env.close()


async def _turn(env: SimEnv, obs: Observation, tap: TapStep) -> Observation:
    """A tap of the oracle's, as its scripted policy makes it."""
    node = tap.on.find(obs.ui)
    assert node is not None and tap.at is not None, tap
    return await _do(env, TapAction(target=Target(point=_point(node, tap.at[1]))))


async def _add(sim: Simulator, skin: str, hour: int, minute: int) -> dict[str, Any]:
    """Add an alarm in ``skin``, its time typed or its wheels turned; the Clock's data."""
    env, obs = await _clock(sim, skin)
    obs = await _tap(env, obs, content_desc="Add alarm")
    if skin == "aosp":
        for rid, value in (("input_hour", hour), ("input_minute", minute)):
            box = Target.node(_node(obs.ui, resource_id=PKG + rid).id)
            obs = await _do(env, TypeAction(text=f"{value:02d}", target=box, clear=True))
    else:
        for name, value in (("hour", hour), ("minute", minute)):
            shown = int(_wheel(obs.ui, name).content_desc[-2:])
            for tap in turn_wheel(name, shown, value, "en"):
                obs = await _turn(env, obs, tap)
    await _tap(env, obs, resource_id=PKG + "button1")
    view = env.sim.phone.apps["clock"].view(env.instance.state.apps["clock"])
    await env.close()
    return view


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.browser
async def test_the_alarm_saved_is_the_one_aosps_dialog_saves(sim: Simulator) -> None:
    typed, turned = await _add(sim, "aosp", 7, 5), await _add(sim, "hyperos", 7, 5)
    assert turned == typed
    assert any((a["hour"], a["minute"], a["enabled"]) == (7, 5, True) for a in typed["alarms"])


async def _dump(phone: VirtualPhone) -> list[UINode]:
    return list(parse_hierarchy(await phone.hierarchy_xml()).nodes)


def _centre(node: UINode) -> tuple[float, float]:
    left, top, right, bottom = node.bounds_px
    return (left + right) / 2, (top + bottom) / 2


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.browser
@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_a_virtual_redmis_dump_and_touches_see_number_pickers(
    sim: Simulator, lang: str
) -> None:
    redmi = Perturbations(profile="redmi_note_12_turbo")
    phone = VirtualPhone(sim, sim.create_instance(seed=0), perturbations=redmi)
    phone.make_ready()
    state = phone.instance.state
    state.os.settings["system"]["system_locales"] = _words(lang, "en-US", "zh-CN")
    sim.phone.launch(state, "clock")
    phone.instance.changed()
    fab = _node(await _dump(phone), content_desc=_words(lang, "Add alarm", "添加闹钟"))
    await phone.tap(*_centre(fab))  # `input tap`
    nodes = await _dump(phone)
    wheels = [n for n in nodes if n.class_name == PICKER]
    assert [(w.resource_id, w.content_desc, w.scrollable) for w in wheels] == [
        (PKG + "hour", _words(lang, "Hour 09", "09时"), True),
        (PKG + "minute", _words(lang, "Minute 30", "30分"), True)]  # fmt: skip
    assert [n.class_name for n in nodes if n.parent == wheels[1].id] == [
        "android.widget.TextView"
    ] * 5
    assert _rows(nodes, wheels[1]) == ["28", "29", "30", "31", "32"]
    x, y = _centre(wheels[1])
    rows = 2 * ROW_PX * DPR
    await phone.stroke([(x, y), (x, y - rows), (x, y - rows)], 600)  # `input swipe`, held
    assert _wheel(await _dump(phone), "minute").content_desc == _words(lang, "Minute 32", "32分")
    assert state.ui.fields[minute_key("clock")] == "30"  # the drafts: folded at the next tap
    await phone.tap(*_centre(_node(await _dump(phone), resource_id=PKG + "button1")))
    alarms = sim.phone.apps["clock"].view(state.apps["clock"])["alarms"]
    assert (9, 32) in [(a["hour"], a["minute"]) for a in alarms]
