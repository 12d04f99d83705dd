"""Our task templates solved on MobileGym's own screens: one per app MobileGym has.

Each plan is what an agent would do through the protocol: open the app, find nodes in the
derived UI tree by their text or description (never by a fixed point), tap, type, fling, and
then our judge gives the verdict. Every template is first judged untouched, right after its
reset, and must fail there: the plan is what makes it pass. Target values (a contact's name,
an alarm's time, a folder's name) come from the task instance, never from the seed's values.

The labels are the ones MobileGym's English UI shows (``Bluetooth``, ``Favorite``, ``New
folder``), some of them Chinese there (the Calendar's ``搜索日程`` search and ``删除`` delete),
and names the derived tree gives icon-only buttons. The plans find nothing by position but
Sms's send button, which nothing in the page names: it is the button after the message field.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
import pytest_asyncio

from bridge.records import TaskInstance
from bridge.schema import (
    Action,
    Observation,
    OpenAppAction,
    Point,
    SwipeAction,
    TapAction,
    Target,
    TypeAction,
    UINode,
    WaitAction,
)
from mobilegym.env import MobileGymEnv
from mobilegym.poseable import mobilegym_refusal
from mobilegym.world import MobileGym
from sim.tasks.registry import default_registry

pytestmark = pytest.mark.browser

SEED = 0
APPS = {"settings", "contacts", "calendar", "clock", "files", "messages"}
"""The apps of ours MobileGym has (its Settings, Contacts, Calendar, Clock, FileManager, Sms)."""

MAX_FLINGS = 4
"""Flings a plan makes to bring a list row into view before it gives up."""
MAX_WAITS = 6
"""``wait`` steps a plan takes for an app to finish its work before it gives up."""
WAIT_S = 0.5
"""How long one ``wait`` step lets the app work."""


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def env(gym: MobileGym) -> AsyncIterator[MobileGymEnv]:
    """The module's one phone; it observes without screenshots (plans read the tree)."""
    async with await gym.env(screenshot=False) as made:
        yield made


def instance(task_id: str) -> TaskInstance:
    """The template at the module's seed, in English."""
    return default_registry().instantiate(task_id, SEED, "en")


def param(task: TaskInstance, key: str) -> str:
    """A string parameter of the instance (a name, a time, a text to type)."""
    value = task.params[key]
    assert isinstance(value, str), (key, value)
    return value


class Driver:
    """Drives one episode through ``MobileGymEnv.step`` and keeps the last observation.

    Lookups read the derived tree the policy would see; every action must be carried out
    without a step error.
    """

    def __init__(self, env: MobileGymEnv, task: TaskInstance, obs: Observation) -> None:
        self.env = env
        self.task = task
        self.obs = obs

    async def do(self, action: Action) -> Observation:
        """Step ``action``, which must be carried out (no step error)."""
        result = await self.env.step(action)
        assert result.error is None, (action, result.error)
        self.obs = result.observation
        return self.obs

    def find(self, match: Callable[[UINode], bool]) -> UINode | None:
        """The first node (document order) that ``match`` accepts, if any."""
        return next((n for n in self.obs.ui if match(n)), None)

    def node(
        self,
        *,
        text: str | None = None,
        desc: str | None = None,
        prefix: str | None = None,
        clickable: bool = False,
    ) -> UINode:
        """The first node whose text is ``text``, whose description is ``desc`` or whose text
        starts with ``prefix`` (a clickable one, with ``clickable``)."""

        def match(n: UINode) -> bool:
            named = n.text == text or n.content_desc == desc
            started = prefix is not None and n.text.startswith(prefix)
            return (named or started) and (n.clickable or not clickable)

        found = self.find(match)
        assert found is not None, f"no node {text or desc or prefix!r} on {self.screen()}"
        return found

    def screen(self) -> str:
        """What the screen says, for failure messages."""
        labels = [n.text or n.content_desc for n in self.obs.ui if n.text or n.content_desc]
        return f"{self.obs.foreground.app}: {labels[:40]}"

    def inside(self, outer: UINode) -> list[UINode]:
        """The nodes of ``outer``'s subtree, below it."""
        within = {outer.id}
        found: list[UINode] = []
        for n in self.obs.ui[outer.id + 1 :]:
            if n.parent in within:
                within.add(n.id)
                found.append(n)
        return found

    def parent(self, node: UINode) -> UINode:
        """``node``'s parent."""
        assert node.parent is not None, node
        return self.obs.ui[node.parent]

    async def tap(self, node: UINode) -> Observation:
        """Tap ``node`` (its centre, as the env resolves an element target)."""
        return await self.do(TapAction(target=Target.node(node.id)))

    async def type_into(self, field: UINode, text: str) -> Observation:
        """Focus ``field`` and type ``text``; the field then holds it."""
        assert field.editable, field
        await self.do(TypeAction(text=text, target=Target.node(field.id)))
        typed = self.find(lambda n: n.editable and n.text == text)
        assert typed is not None, f"{text!r} is not in a field: {self.screen()}"
        return self.obs

    async def wait_for(self, text: str) -> UINode:
        """The node with ``text``, letting the app work on its own (``wait`` steps, a few at
        most) until it shows: what an agent does while an app is busy."""
        for _ in range(MAX_WAITS):
            shown = self.find(lambda n: n.text == text)
            if shown is not None:
                return shown
            await self.do(WaitAction(seconds=WAIT_S))
        return self.node(text=text)

    async def reveal(self, prefix: str) -> UINode:
        """The node whose text starts with ``prefix``, flinging the screen's list up until it
        shows.

        The finger goes down in the list's margin, left of its rows: MobileGym's swipe never
        cancels a row's press timer (a phone does once the finger moves), so a stroke that
        starts on a long-clickable row (Clock's alarms, 450 ms) can select it when the page
        runs slow.
        """
        for _ in range(MAX_FLINGS):
            shown = self.find(lambda n: n.text.startswith(prefix))
            if shown is not None:
                return shown
            await self.do(self._fling())
        return self.node(prefix=prefix)

    def _fling(self) -> SwipeAction:
        scrollables = [n for n in self.obs.ui if n.scrollable]
        assert scrollables, f"nothing scrolls on {self.screen()}"
        lists = max(scrollables, key=lambda n: n.area_px)
        left, top, _, bottom = lists.bounds_px
        rows = [n.bounds_px[0] for n in self.inside(lists) if n.clickable or n.long_clickable]
        margin = min(rows, default=left)
        assert margin > left, f"the list has no margin left of its rows on {self.screen()}"
        width, height = self.obs.screen.width_px, self.obs.screen.height_px
        x = (left + margin) / 2 / width
        return SwipeAction(
            start=Point(x=x, y=(top + 0.75 * (bottom - top)) / height),
            end=Point(x=x, y=(top + 0.35 * (bottom - top)) / height),
            duration_ms=300,
        )


Plan = Callable[[Driver], Awaitable[None]]


async def set_bluetooth(d: Driver) -> None:
    """Settings → Bluetooth → its switch, from the other state to the one asked for."""
    on = d.task.params["on"]
    assert isinstance(on, bool)
    await d.do(OpenAppAction(app="settings"))
    await d.tap(d.node(text="Bluetooth"))
    toggle = _switch(d, d.obs.ui)  # the page's first row: Bluetooth on or off
    assert toggle.checked is (not on), toggle
    await d.tap(toggle)
    assert _switch(d, d.obs.ui).checked is on


async def star_contact(d: Driver) -> None:
    """Contacts tab → the contact → Favorite."""
    await d.do(OpenAppAction(app="contacts"))
    await d.tap(d.node(text="Contacts", clickable=True))
    await d.tap(await d.reveal(param(d.task, "name")))
    assert d.node(text=param(d.task, "name"))  # the contact's page
    await d.tap(d.node(desc="Favorite", clickable=True))


async def delete_event(d: Driver) -> None:
    """Calendar search → the event → delete → confirm."""
    title = param(d.task, "target")
    await d.do(OpenAppAction(app="calendar"))
    await d.tap(d.node(desc="搜索日程", clickable=True))
    await d.type_into(_field(d), title)
    await d.tap(d.node(prefix=f"{title} ", clickable=True))  # a result: title, day, time
    assert d.node(text=title)  # the event's page
    await d.tap(d.node(desc="删除", clickable=True))
    await d.tap(d.node(text="删除", clickable=True))  # the dialog's button
    assert d.find(lambda n: n.text.startswith(title)) is None, d.screen()


async def disable_alarm(d: Driver) -> None:
    """Clock → the alarm's row (flung into view) → its switch off."""
    await d.do(OpenAppAction(app="clock"))
    alarm = await d.reveal(param(d.task, "at"))
    switch = _switch(d, d.inside(d.parent(alarm)))
    assert switch.checked, switch
    await d.tap(switch)
    assert not _switch(d, d.inside(d.parent(d.node(prefix=param(d.task, "at"))))).checked


async def create_folder(d: Driver) -> None:
    """Files → Download → the task's folder → New folder → its name → Create."""
    await d.do(OpenAppAction(app="files"))
    await d.tap(await d.reveal("Download"))
    await d.tap(d.node(text=param(d.task, "folder")))
    await d.tap(d.node(desc="New folder", clickable=True))
    await d.type_into(_field(d), param(d.task, "name"))
    await d.tap(d.node(text="Create", clickable=True))
    assert d.node(text=param(d.task, "name"))  # listed in the folder


async def reply_to_contact(d: Driver) -> None:
    """Messages → the contact's conversation → the reply → send (the unnamed button after
    the message field)."""
    await d.do(OpenAppAction(app="messages"))
    await d.tap(d.node(text=param(d.task, "name")))
    field = _field(d)
    await d.type_into(field, param(d.task, "reply"))
    bar = d.parent(d.node(text=param(d.task, "reply")))
    send = next(n for n in d.inside(bar) if n.clickable and n.enabled and n.index > field.index)
    await d.tap(send)
    sent = d.find(lambda n: n.text == param(d.task, "reply") and not n.editable)
    assert sent is not None, f"the reply is not in the conversation: {d.screen()}"
    await d.wait_for("Sent")  # Sms marks it sent on a timer: "Sending…" may show first


def _switch(d: Driver, nodes: list[UINode]) -> UINode:
    """The first Switch among ``nodes``."""
    switch = next((n for n in nodes if n.class_name == "android.widget.Switch"), None)
    assert switch is not None, f"no switch on {d.screen()}"
    return switch


def _field(d: Driver) -> UINode:
    """The screen's (first) text field."""
    field = d.find(lambda n: n.editable)
    assert field is not None, f"no text field on {d.screen()}"
    return field


PLANS: dict[str, Plan] = {
    "settings/SetBluetooth-v1": set_bluetooth,
    "contacts/StarContact-v1": star_contact,
    "calendar/DeleteEvent-v1": delete_event,
    "clock/DisableAlarm-v1": disable_alarm,
    "files/CreateFolder-v1": create_folder,
    "messages/ReplyToContact-v1": reply_to_contact,
}


def test_the_plans_cover_every_app_with_templates_mobilegym_poses() -> None:
    assert {task_id.split("/")[0] for task_id in PLANS} == APPS
    for task_id in PLANS:
        spec = instance(task_id).spec
        assert spec is not None and mobilegym_refusal(spec) is None, task_id


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("task_id", list(PLANS))
async def test_a_template_is_solved_on_mobilegyms_screens_and_fails_untouched(
    env: MobileGymEnv, task_id: str
) -> None:
    task = instance(task_id)
    obs = await env.reset(task)
    untouched = await env.verdict()
    assert not untouched.success, f"{task_id} passes untouched: {untouched.checks}"
    await PLANS[task_id](Driver(env, task, obs))
    verdict = await env.verdict()
    assert verdict.success, (verdict.checks, verdict.side_effects)
