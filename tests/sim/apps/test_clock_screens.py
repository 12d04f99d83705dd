"""The Clock app in Chromium, driven as an agent drives it: taps on nodes of the UI tree,
typing, long presses, Back; its changes read back from the app's state and the phone's
next alarm (how the screens look is the gallery's job: ``mgb sim gallery``)."""

from __future__ import annotations

import pytest

from bridge.schema import (
    Action,
    KeyAction,
    LongPressAction,
    Observation,
    OpenAppAction,
    TapAction,
    Target,
    TypeAction,
    UINode,
)
from sim.android_state import SimAndroidState
from sim.env import SimEnv
from sim.simulator import Simulator
from sim.state import DEFAULT_CLOCK_MS

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.browser]

PKG = "com.android.deskclock:id/"


def find(obs: Observation, **match: str) -> UINode:
    """The first node whose fields equal ``match`` (``rid`` is a resource id of the app)."""
    if "rid" in match:
        match["resource_id"] = PKG + match.pop("rid")
    for node in obs.ui:
        if all(getattr(node, k) == v for k, v in match.items()):
            return node
    shown = sorted({n.text or n.content_desc for n in obs.ui if n.text or n.content_desc})
    raise AssertionError(f"no node {match}; the screen shows {shown}")


def texts(obs: Observation, rid: str) -> list[str]:
    """Texts of the app's nodes with resource id ``rid``, top to bottom."""
    return [n.text for n in obs.ui if n.resource_id == PKG + rid]


def has(obs: Observation, **match: str) -> bool:
    try:
        find(obs, **match)
    except AssertionError:
        return False
    return True


class Driver:
    """One env and its last observation: tap by text, desc or id, type, press keys."""

    def __init__(self, env: SimEnv, obs: Observation, lang: str) -> None:
        self.env, self.obs, self.lang = env, obs, lang

    async def do(self, action: Action) -> Observation:
        result = await self.env.step(action)
        assert result.error is None, result.error
        self.obs = result.observation
        return self.obs

    async def tap(self, **match: str) -> Observation:
        return await self.do(TapAction(target=Target.node(find(self.obs, **match).id)))

    async def long_press(self, **match: str) -> Observation:
        return await self.do(LongPressAction(target=Target.node(find(self.obs, **match).id)))

    async def type(self, text: str, **match: str) -> Observation:
        node = find(self.obs, **match)
        return await self.do(TypeAction(text=text, target=Target.node(node.id), clear=True))

    async def back(self) -> Observation:
        return await self.do(KeyAction(key="back"))

    @property
    def clock(self) -> dict:
        return self.env.sim.phone.apps["clock"].view(self.env.instance.state.apps.get("clock", {}))


async def open_clock(sim: Simulator, lang: str = "en") -> Driver:
    env = await sim.env(screenshot=False)  # how the screens look: mgb sim gallery
    system = env.instance.state.os.settings["system"]
    system["system_locales"] = "zh-CN" if lang == "zh" else "en-US"
    driver = Driver(env, await env.observe(), lang)
    await driver.do(OpenAppAction(app="clock"))
    assert driver.obs.foreground.activity == "com.android.deskclock.DeskClock"
    return driver


async def test_alarms_add_repeat_label_toggle_delete(sim: Simulator) -> None:
    d = await open_clock(sim)
    assert texts(d.obs, "digital_clock") == ["06:30", "07:45", "09:00", "13:30", "22:30"]
    await d.tap(content_desc="Add alarm")
    assert find(d.obs, rid="input_hour").focused
    await d.type("7", rid="input_hour")
    await d.type("05", rid="input_minute")
    await d.tap(text="OK")
    assert texts(d.obs, "digital_clock") == ["06:30", "07:05", "07:45", "09:00", "13:30", "22:30"]
    new = next(a for a in d.clock["alarms"] if (a["hour"], a["minute"]) == (7, 5))
    assert new["enabled"] and new["days"] == []
    state = SimAndroidState(d.env.sim.phone, d.env.instance.state)
    assert await state.next_alarm() == DEFAULT_CLOCK_MS + 13 * 3600_000  # still today's 22:30
    # the new row is open: repeat on Monday and Wednesday, then a label
    await d.tap(content_desc="Monday")
    await d.tap(content_desc="Wednesday")
    assert find(d.obs, content_desc="Monday").checked
    await d.tap(text="Add label")
    await d.type("晨练 run", rid="label_input")
    await d.tap(text="OK")
    row = next(a for a in d.clock["alarms"] if a["id"] == new["id"])
    assert (row["days"], row["label"]) == ([0, 2], "晨练 run")
    assert "Mon, Wed" in texts(d.obs, "days_of_week") and "晨练 run" in texts(d.obs, "label")
    # edit its time; toggle it off
    await d.tap(content_desc="07:05 alarm", rid="digital_clock")
    await d.type("8", rid="input_hour")
    await d.type("15", rid="input_minute")
    await d.tap(text="OK")
    await d.tap(content_desc="08:15 alarm", rid="onoff")
    assert not find(d.obs, content_desc="08:15 alarm", rid="onoff").checked
    assert not next(a for a in d.clock["alarms"] if a["id"] == new["id"])["enabled"]
    # delete with the snackbar's Undo, then for good
    await d.tap(rid="delete")
    assert find(d.obs, rid="snackbar_text").text == "Alarm deleted"
    assert "08:15" not in texts(d.obs, "digital_clock")
    await d.tap(text="Undo")
    assert "08:15" in texts(d.obs, "digital_clock")
    await d.tap(content_desc="08:15 alarm", rid="onoff")  # back on
    await d.tap(text="Mon, Wed")  # opens the row
    await d.tap(rid="delete")
    await d.tap(text="Alarm")  # another action: the snackbar goes, the deletion stays
    assert not has(d.obs, rid="snackbar") and "08:15" not in texts(d.obs, "digital_clock")


async def test_world_clocks_add_search_remove(sim: Simulator) -> None:
    d = await open_clock(sim)
    await d.tap(text="Clock")
    assert find(d.obs, rid="date").text == "Tue, May 12"
    assert texts(d.obs, "city_name") == ["London", "New York", "Tokyo"]
    assert texts(d.obs, "summary") == ["Today, −7 hrs", "Yesterday, −12 hrs", "Today, +1 hr"]
    await d.tap(content_desc="Add city")
    assert d.obs.foreground.activity == "com.android.deskclock.worldclock.CitySelectionActivity"
    await d.type("syd", rid="search_src_text")
    assert texts(d.obs, "title") == ["Add city", "Sydney"]
    await d.tap(text="Sydney")
    assert find(d.obs, rid="checkbox").checked
    await d.back()
    await d.back()
    assert texts(d.obs, "city_name") == ["London", "New York", "Tokyo", "Sydney"]
    assert texts(d.obs, "summary")[-1] == "Today, +2 hrs"  # AEST, no DST in May
    await d.long_press(text="New York")
    assert find(d.obs, rid="alertTitle").text == "Remove New York?"
    await d.tap(text="Remove")
    assert d.clock["cities"] == ["london", "tokyo", "sydney"]


async def test_timer_and_stopwatch(sim: Simulator) -> None:
    d = await open_clock(sim)
    await d.tap(text="Timer")
    for digit in "130":
        await d.tap(rid=f"timer_setup_digit_{digit}")
    assert texts(d.obs, "seconds") == ["30s"] and texts(d.obs, "minutes") == ["01m"]
    await d.tap(text="Start")
    left = find(d.obs, rid="timer_time_text").text
    await d.tap(text="Pause")
    paused = find(d.obs, rid="timer_time_text").text
    assert left >= paused and paused < "01:30"
    await d.tap(text="Reset")
    assert find(d.obs, rid="timer_time_text").text == "01:30"
    await d.tap(text="Stopwatch")
    assert find(d.obs, rid="stopwatch_time_text").text == "00:00.00"
    await d.tap(text="Start")
    await d.tap(text="Lap")
    await d.tap(text="Pause")
    shown = find(d.obs, rid="stopwatch_time_text").text
    assert shown > "00:00.00" and texts(d.obs, "lap_number") == ["Lap 1"]
    await d.tap(text="Reset")
    assert find(d.obs, rid="stopwatch_time_text").text == "00:00.00"


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_main_screens_in_both_languages(sim: Simulator, lang: str) -> None:
    d = await open_clock(sim, lang)
    zh = lang == "zh"
    assert texts(d.obs, "days_of_week")[0] == ("工作日" if zh else "Weekdays")
    await d.tap(text="Weekend run", rid="label")  # opens the row
    assert has(d.obs, content_desc="星期六" if zh else "Saturday")
    await d.tap(rid="edit_label")
    await d.tap(text="取消" if zh else "Cancel")
    await d.tap(content_desc="添加闹钟" if zh else "Add alarm")
    await d.tap(text="取消" if zh else "Cancel")
    await d.tap(text="时钟" if zh else "Clock")
    cities = ["伦敦", "纽约", "东京"] if zh else ["London", "New York", "Tokyo"]
    assert texts(d.obs, "city_name") == cities
    if zh:
        assert texts(d.obs, "summary")[1] == "昨天，−12小时"
    await d.tap(content_desc="添加城市" if zh else "Add city")
    await d.back()
    await d.tap(text="计时器" if zh else "Timer")
    await d.tap(rid="timer_setup_digit_5")
    await d.tap(text="秒表" if zh else "Stopwatch")
    await d.tap(text="开始" if zh else "Start")
    await d.tap(text="计次" if zh else "Lap")
