"""The Calendar app in Chromium, driven as an agent drives it: taps on nodes of the UI tree,
typing, scrolling, Back; its changes read back through ``content query``."""

from __future__ import annotations

from datetime import datetime

import pytest

from bridge.schema import (
    Action,
    KeyAction,
    Observation,
    OpenAppAction,
    Point,
    ScrollAction,
    SwipeAction,
    TapAction,
    Target,
    TypeAction,
    UINode,
)
from sim.android_state import SimAndroidState
from sim.apps.calendar.times import local_ms
from sim.env import SimEnv
from sim.simulator import Simulator

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.browser]

PKG = "com.android.calendar:id/"
EVENTS = "content://com.android.calendar/events"


def find(obs: Observation, **match: str) -> UINode:
    """The first node whose fields equal ``match`` (``rid`` is a resource id of the app)."""
    if "rid" in match:
        match["resource_id"] = PKG + match.pop("rid")
    for node in obs.ui:
        if all(getattr(node, k) == v for k, v in match.items()):
            return node
    shown = sorted({n.text or n.content_desc for n in obs.ui if n.text or n.content_desc})
    raise AssertionError(f"no node {match}; the screen shows {shown}")


def swipe(x1: float, x2: float) -> SwipeAction:
    """A horizontal swipe across the middle of the screen."""
    return SwipeAction(start=Point(x=x1, y=0.55), end=Point(x=x2, y=0.55))


def has(obs: Observation, **match: str) -> bool:
    try:
        find(obs, **match)
    except AssertionError:
        return False
    return True


class Driver:
    """One env and its last observation: tap by text, desc or id, type, press keys."""

    def __init__(self, env: SimEnv, obs: Observation) -> None:
        self.env, self.obs = env, obs

    async def do(self, action: Action) -> Observation:
        result = await self.env.step(action)
        assert result.error is None, result.error
        self.obs = result.observation
        return self.obs

    async def tap(self, **match: str) -> Observation:
        return await self.do(TapAction(target=Target.node(find(self.obs, **match).id)))

    async def type(self, text: str, **match: str) -> Observation:
        node = find(self.obs, **match)
        return await self.do(TypeAction(text=text, target=Target.node(node.id), clear=True))

    async def back(self) -> Observation:
        return await self.do(KeyAction(key="back"))

    async def query(self, projection: str, where: str) -> list[dict[str, str | None]]:
        state = SimAndroidState(self.env.sim.phone, self.env.instance.state)
        return await state.query(EVENTS, projection.split(":"), where)


async def open_calendar(sim: Simulator, lang: str = "en", clock: str = "24") -> Driver:
    env = await sim.env(screenshot=False)  # the tree is what these tests read
    system = env.instance.state.os.settings["system"]
    system["system_locales"] = "zh-CN" if lang == "zh" else "en-US"
    system["time_12_24"] = clock
    driver = Driver(env, await env.observe())
    await driver.do(OpenAppAction(app="calendar"))
    assert driver.obs.foreground.activity == "com.android.calendar.AllInOneActivity"
    return driver


async def test_views_navigation_and_scrolling(sim: Simulator) -> None:
    d = await open_calendar(sim)
    assert find(d.obs, rid="title").text == "May 2026"
    await d.tap(content_desc="12 May 2026, 3 events")
    titles = [n.text for n in d.obs.ui if n.resource_id == PKG + "event_title"]
    assert titles == ["团队周会", "Lunch with Alice", "Dentist"]
    assert find(d.obs, text="Day").selected
    await d.tap(content_desc="Next day")
    assert find(d.obs, rid="date_label").text == "Wednesday, May 13, 2026"
    assert has(d.obs, text="No events")
    await d.tap(text="Agenda")
    assert find(d.obs, rid="agenda_from").text == "From Wednesday, May 13, 2026"
    assert find(d.obs, rid="section_title").text == "Thu, May 14, 2026"  # the 13th is empty
    assert not has(d.obs, text="Dentist")
    await d.tap(content_desc="Today")
    assert find(d.obs, rid="section_title").text == "Today · Tue, May 12"
    assert not has(d.obs, text="Book club")
    for _ in range(6):
        if has(d.obs, text="Book club"):
            break
        await d.do(ScrollAction(direction="down", target=Target.node(find(d.obs, rid="list").id)))
    assert has(d.obs, text="Book club")  # the agenda scrolls on to late May
    await d.tap(text="Month")
    await d.tap(content_desc="Next month")
    assert find(d.obs, rid="date_label").text == "June 2026"
    await d.do(swipe(0.8, 0.2))  # the finger moves left: the next month comes in
    assert find(d.obs, rid="date_label").text == "July 2026"
    await d.do(swipe(0.2, 0.8))
    await d.do(swipe(0.2, 0.8))
    assert find(d.obs, rid="date_label").text == "May 2026"
    await d.tap(text="Day")
    await d.do(swipe(0.8, 0.2))
    assert find(d.obs, rid="date_label").text == "Wednesday, May 13, 2026"
    await d.env.close()


async def test_create_edit_and_delete_an_event(sim: Simulator) -> None:
    d = await open_calendar(sim)
    await d.tap(content_desc="New event")
    assert d.obs.foreground.activity == "com.android.calendar.event.EditEventActivity"
    await d.type("Interview", rid="title")
    await d.back()  # hide the keyboard
    await d.tap(rid="start_date")
    await d.tap(content_desc="Next month")
    await d.tap(content_desc="2 June 2026")
    assert find(d.obs, rid="date_picker_header_date").text == "Tue, Jun 2"
    await d.tap(text="OK")
    assert find(d.obs, rid="end_date").text == "Tue, Jun 2, 2026"  # the end moved along
    await d.tap(rid="start_time")
    assert find(d.obs, rid="input_hour").focused
    await d.type("14", rid="input_hour")
    await d.type("30", rid="input_minute")
    await d.tap(text="OK")
    assert (find(d.obs, rid="start_time").text, find(d.obs, rid="end_time").text) == (
        "14:30",
        "15:30",
    )
    await d.tap(rid="reminder")
    await d.tap(text="30 minutes before")
    await d.tap(text="Save")
    assert d.obs.foreground.activity == "com.android.calendar.AllInOneActivity"
    [row] = await d.query("_id:dtstart:dtend:hasAlarm", "deleted=0 AND title='Interview'")
    assert row["dtstart"] == str(local_ms(datetime(2026, 6, 2, 14, 30)))
    assert row["dtend"] == str(local_ms(datetime(2026, 6, 2, 15, 30))) and row["hasAlarm"] == "1"
    state = SimAndroidState(d.env.sim.phone, d.env.instance.state)
    reminders = await state.query(
        "content://com.android.calendar/reminders", ["minutes", "method"], f"event_id={row['_id']}"
    )
    assert reminders == [{"minutes": "30", "method": "1"}]
    await d.tap(content_desc="2 June 2026, 1 event")
    await d.tap(text="Interview")
    assert d.obs.foreground.activity == "com.android.calendar.EventInfoActivity"
    assert find(d.obs, rid="when_datetime").text == "Tuesday, June 2, 2026"
    await d.tap(content_desc="Edit")
    await d.type("Interview (2nd round)", rid="title")
    await d.tap(text="Save")
    assert find(d.obs, rid="title", text="Interview (2nd round)")
    assert await d.query("title", f"_id={row['_id']}") == [{"title": "Interview (2nd round)"}]
    await d.tap(content_desc="Delete")
    assert has(d.obs, text="This event will be deleted.")
    await d.tap(text="Delete")
    assert d.obs.foreground.activity == "com.android.calendar.AllInOneActivity"
    assert await d.query("_id", f"_id={row['_id']}") == []
    await d.env.close()


async def test_chinese_search_validation_discard_and_twelve_hour_picker(sim: Simulator) -> None:
    d = await open_calendar(sim, "zh", clock="12")
    assert find(d.obs, rid="title").text == "2026年5月" and has(d.obs, text="日程")
    await d.tap(content_desc="搜索")
    await d.do(TypeAction(text="项目"))  # search opens with the box focused
    assert has(d.obs, text="6 个结果") and find(d.obs, rid="title", text="团队周会")
    await d.type("xyz", resource_id="com.android.calendar:id/search_src_text")
    assert has(d.obs, text="无结果")
    await d.back()
    await d.back()
    await d.tap(content_desc="新建日程")
    assert find(d.obs, rid="start_time").text == "上午10:00"
    await d.tap(rid="end_time")
    assert [n.text for n in d.obs.ui if n.class_name == "android.widget.RadioButton"] == [
        "上午",
        "下午",
    ]
    await d.type("8", rid="input_hour")
    await d.tap(text="确定")
    assert find(d.obs, rid="end_time").text == "上午8:00"
    await d.tap(text="保存")
    assert find(d.obs, rid="error").text == "结束时间不能早于开始时间"
    await d.tap(rid="end_time")
    await d.tap(text="下午")
    await d.tap(text="确定")
    assert find(d.obs, rid="end_time").text == "下午8:00" and not has(d.obs, rid="error")
    await d.back()
    assert has(d.obs, text="要放弃更改吗？")
    await d.tap(text="放弃")
    assert d.obs.foreground.activity == "com.android.calendar.AllInOneActivity"
    assert await d.query("_id", "_id > 21") == []
    await d.env.close()
