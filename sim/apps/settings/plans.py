"""How Settings' oracle plans find their way, in every skin.

A plan names what it taps (``wifi_enable``, ``screen_timeout``), not how to get there: AOSP
puts the screen timeout under *Display*, HyperOS under *Lock screen › Sleep*. The way is read
off the screens themselves: :func:`layout` renders every page of the skin once and notes the
resource ids each shows and which row opens which page, and :class:`SettingsWalk` goes from
the page it is on to the nearest page that shows the next target (back first when it has to).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from html.parser import HTMLParser

from bridge.plans import KeyStep, OpenAppStep, PlanStep, Selector, TapStep
from sim.app import AppContext
from sim.apps.settings.app import SettingsApp
from sim.errors import SimError
from sim.render import TemplateRenderer
from sim.skins import plan_skin
from sim.state import AppTask, InstanceState, Route

__all__ = ["SWITCHES_AS_CHOICES", "Layout", "SettingsWalk", "layout", "settings_plan"]

SWITCHES_AS_CHOICES: Mapping[str, tuple[str, str]] = {"zen_mode": ("zen_off", "zen_priority")}
"""A switch that a skin shows as a page of choices instead (HyperOS's Do not disturb): the
rows meaning off and on there."""


@dataclass(frozen=True)
class Layout:
    """What each page of Settings shows in one skin: resource ids, and the rows that open
    another page."""

    rows: Mapping[str, frozenset[str]]
    entries: Mapping[str, Mapping[str, str]]

    def way(self, start: str, rid: str) -> list[tuple[str, str]] | None:
        """The rows to tap from ``start`` to the nearest page showing ``rid``, each with the
        page it opens (``[]`` when ``start`` shows it; None when no page below does)."""
        seen, queue = {start}, deque([(start, list[tuple[str, str]]())])
        while queue:
            page, way = queue.popleft()
            if rid in self.rows.get(page, ()):
                return way
            for entry, target in self.entries.get(page, {}).items():
                if target not in seen:
                    seen.add(target)
                    queue.append((target, [*way, (entry, target)]))
        return None


class _Attributes(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.rids: set[str] = set()
        self.opens: dict[str, str] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        rid = found.get("data-rid")
        if rid:
            self.rids.add(rid)
            page = found.get("data-arg-page")
            if found.get("data-action") == "open" and page:
                self.opens[rid] = page


@cache
def layout(skin: str) -> Layout:
    """Every page of Settings in ``skin``, rendered once on a fresh phone."""
    app = SettingsApp()
    renderer = TemplateRenderer([app])
    rows: dict[str, frozenset[str]] = {}
    entries: dict[str, dict[str, str]] = {}
    for path in app.screens(skin):
        state = InstanceState()
        state.os.skin = skin
        state.os.tasks = [AppTask(app=app.id, stack=[Route(path=path)])]
        state.os.foreground = app.id
        parsed = _Attributes()
        parsed.feed(app.render(AppContext(app, state, renderer.render)))
        rows[path], entries[path] = frozenset(parsed.rids), parsed.opens
    return Layout(rows, entries)


class SettingsWalk:
    """A plan through Settings in the skin being planned for (:func:`sim.skins.plan_skin`):
    it opens the app and keeps track of the page it is on."""

    def __init__(self) -> None:
        self.layout = layout(plan_skin())
        self.pages = ["/"]
        self.steps: list[PlanStep] = [OpenAppStep(app=SettingsApp.id)]

    def tap(self, rid: str, at: tuple[float, float] | None = None) -> SettingsWalk:
        """Go to the nearest page showing ``rid`` and tap it (at ``at`` inside it)."""
        self._reach(rid)
        self.steps.append(TapStep(on=Selector(resource_id=rid), at=at))
        opened = self.layout.entries.get(self.pages[-1], {}).get(rid)
        if opened is not None:
            self.pages.append(opened)
        return self

    def visit(self, rid: str) -> SettingsWalk:
        """Go to the nearest page showing ``rid`` without tapping it (to read it)."""
        self._reach(rid)
        return self

    def switch(self, rid: str, on: bool) -> SettingsWalk:
        """Turn the switch ``rid`` on or off from the other state: a tap where it is a
        switch, the choice that means it where the skin shows choices
        (:data:`SWITCHES_AS_CHOICES`)."""
        choices = SWITCHES_AS_CHOICES.get(rid)
        self._reach(rid)
        if choices is not None and rid in self.layout.entries.get(self.pages[-1], {}):
            return self.tap(rid).tap(choices[on])
        return self.tap(rid)

    def then(self, *steps: PlanStep) -> SettingsWalk:
        """Steps on the page the walk is on (pick a radio, note a row, answer)."""
        self.steps.extend(steps)
        return self

    def _reach(self, rid: str) -> None:
        while (way := self.layout.way(self.pages[-1], rid)) is None:
            if len(self.pages) == 1:
                skin = plan_skin()
                raise SimError(f"Settings in the {skin} skin shows no {rid!r} on any page")
            self.pages.pop()
            self.steps.append(KeyStep(key="back"))
        for entry, target in way:
            self.steps.append(TapStep(on=Selector(resource_id=entry)))
            self.pages.append(target)


def settings_plan(*rids: str) -> list[PlanStep]:
    """Open Settings and tap these resource ids in order, each reached where the skin being
    planned for shows it."""
    walk = SettingsWalk()
    for rid in rids:
        walk.tap(rid)
    return walk.steps
