"""Whether MobileGym can pose and judge a task, computed from its bound spec alone.

:func:`mobilegym_refusal` walks every node of a :class:`~bridge.taskspec.TaskSpec` (the spec
is pydantic models all the way down) and asks the surface each node belongs to — the module
of ``bridge.spec`` that defines its class — whether MobileGym holds what the node reads or
writes. Each surface answers from its own capability, never from a list of tasks:

* settings — the key table (:func:`mobilegym.android_state.settings.settings_refusal`),
  values included: a value MobileGym cannot hold, or a goal value a rescaled key cannot read
  back, is refused;
* rows, contacts, calendar, sms — the synthesized provider tables
  (:func:`mobilegym.android_state.rows.rows_refusal`, asked for each URI the node names or
  its surface writes);
* props — the ``getprop`` map (:func:`mobilegym.android_state.props.prop_refusal`);
* clock — a time in another zone is refused when the two zones' gap changes during the year
  (daylight saving): MobileGym's Clock app holds one fixed UTC offset per city, so its world
  clock would contradict the truth on some days;
* ui — refused: its check is XPath over uiautomator trees (checkable options and their
  labels), and MobileGym has no tree of its own, only one derived from its page by our
  heuristics (:mod:`mobilegym.tree`), so what a screen offered would be our guess;
* files, alarms, radios, answers, truth references — held.

A spec's ``requires`` name what a *retail phone* cannot be made to hold. MobileGym's judge
writes its state directly, so a requirement is asked of the surface its fact names (settings
keys, provider URIs); a fact naming neither is held only when :data:`HELD_ANYWAY` says why,
and refused otherwise (an unknown need is never assumed met). Unknown node classes are
refused the same way.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta, timezone
from typing import cast
from zoneinfo import ZoneInfo

from pydantic import BaseModel

from bridge.android_contract import (
    CALENDARS,
    CONTACTS,
    DATA,
    EVENTS,
    RAW_CONTACTS,
    REMINDERS,
    SMS_INBOX,
)
from bridge.android_state import Namespace, printed
from bridge.phone_time import START_CLOCK_MS
from bridge.spec.base import TruthRef
from bridge.spec.clock import ZoneGapFact, ZoneTimeFact
from bridge.spec.props import PropFact
from bridge.spec.settings import PutSetting, SettingCheck, SettingFact
from bridge.taskspec import Requirement, TaskSpec
from mobilegym.android_state.props import prop_refusal
from mobilegym.android_state.rows import rows_refusal
from mobilegym.android_state.settings import settings_refusal

__all__ = ["HELD_ANYWAY", "mobilegym_refusal", "node_refusals"]

HELD_ANYWAY: dict[str, str] = {
    "a test number of the user's to send SMS to": (
        "MobileGym's messages reach no real number, so sending costs nothing"
    ),
}
"""Requirements whose fact names no setting or provider, with why MobileGym holds them."""

UI_REASON = (
    "its check is XPath over uiautomator trees (checkable options and their labels), and "
    "MobileGym has no UI tree of its own, only one derived from its page by our heuristics "
    "(mobilegym.tree), so what a screen offered would be our guess"
)
"""Why a check over the episode's UI trees is not judged in MobileGym."""

_SETTING = re.compile(r"\b(global|system|secure)\.(\w+)")
_URI = re.compile(r"content://[^\s,;)]+")
_PROVIDERS: dict[str, tuple[str, ...]] = {
    "contacts": (CONTACTS, RAW_CONTACTS, DATA),
    "calendar": (CALENDARS, EVENTS, REMINDERS),
    "sms": (SMS_INBOX,),
}
"""The provider URIs a surface without a ``uri`` field writes through."""


def _nodes(node: object) -> Iterator[BaseModel]:
    """Every pydantic model in ``node``, itself first, depth first."""
    if isinstance(node, BaseModel):
        yield node
        for name in type(node).model_fields:
            yield from _nodes(getattr(node, name))
    elif isinstance(node, (list, tuple)):
        for item in node:
            yield from _nodes(item)
    elif isinstance(node, dict):
        for item in node.values():
            yield from _nodes(item)


def _some(*reasons: str | None) -> list[str]:
    return [reason for reason in reasons if reason is not None]


def _settings(node: BaseModel) -> list[str]:
    if isinstance(node, PutSetting):
        return _some(settings_refusal(node.namespace, node.key, node.value))
    if not isinstance(node, (SettingCheck, SettingFact)):
        return []
    goal = node.value if isinstance(node, SettingCheck) and node.op in ("eq", "primary") else None
    if goal is None or isinstance(goal, TruthRef):
        return _some(settings_refusal(node.namespace, node.key))
    tolerance = node.tolerance if isinstance(node, SettingCheck) else 0.0
    return _some(settings_refusal(node.namespace, node.key, printed(goal), tolerance))


def _rows(node: BaseModel) -> list[str]:
    uri = getattr(node, "uri", None)
    return _some(rows_refusal(uri)) if isinstance(uri, str) else []


def _provider(surface: str) -> Callable[[BaseModel], list[str]]:
    def refusals(node: BaseModel) -> list[str]:
        return _some(*(rows_refusal(uri) for uri in _PROVIDERS[surface]))

    return refusals


_YEAR = datetime.fromtimestamp(START_CLOCK_MS / 1000, timezone.utc).year
"""The year whose days :func:`_steady_gap` samples: that of the worlds' start clock."""


def _offset(moment: datetime, zone: ZoneInfo) -> timedelta:
    offset = moment.astimezone(zone).utcoffset()
    assert offset is not None  # a ZoneInfo always has one
    return offset


def _steady_gap(a: str, b: str) -> bool:
    """Whether zones ``a`` and ``b`` are the same hours apart on every day of :data:`_YEAR`
    (neither keeps daylight saving, or both shift on the same days)."""
    za, zb = ZoneInfo(a), ZoneInfo(b)
    start = datetime(_YEAR, 1, 1, 12, tzinfo=timezone.utc)
    gaps: set[timedelta] = set()
    for day in range(366):
        moment = start + timedelta(days=day)
        gaps.add(_offset(moment, za) - _offset(moment, zb))
    return len(gaps) == 1


def _clock(node: BaseModel) -> list[str]:
    if isinstance(node, ZoneGapFact):
        zones = (node.ahead, node.behind)
    elif isinstance(node, ZoneTimeFact):
        zones = (node.source_zone, node.to)
    else:
        return []
    if _steady_gap(*zones):
        return []
    return [
        f"the hours between {zones[0]} and {zones[1]} change during the year (daylight "
        "saving), and MobileGym's Clock keeps one fixed UTC offset per city, so its world "
        "clock can contradict the truth"
    ]


def _props(node: BaseModel) -> list[str]:
    return _some(prop_refusal(node.key)) if isinstance(node, PropFact) else []


def _ui(node: BaseModel) -> list[str]:
    namespace, key = getattr(node, "namespace", None), getattr(node, "key", None)
    found = [f"{type(node).__name__}: {UI_REASON}"]
    if namespace is not None and key is not None:
        found += _some(settings_refusal(namespace, key))
    return found


def _held(node: BaseModel) -> list[str]:
    return []


_SURFACES: dict[str, Callable[[BaseModel], list[str]]] = {
    "settings": _settings,
    "rows": _rows,
    "contacts": _provider("contacts"),
    "calendar": _provider("calendar"),
    "sms": _provider("sms"),
    "props": _props,
    "clock": _clock,
    "ui": _ui,
    "files": _held,
    "alarms": _held,
    "radios": _held,
    "answers": _held,
    "base": _held,
}
"""Each surface module of ``bridge.spec`` and how it answers for one of its nodes."""


def _requirement(requirement: Requirement) -> list[str]:
    fact = requirement.fact
    keys = _SETTING.findall(fact)
    uris = _URI.findall(fact)
    if keys or uris:
        return _some(
            *(settings_refusal(cast(Namespace, ns), key) for ns, key in keys),
            *(rows_refusal(uri) for uri in uris),
        )
    if fact in HELD_ANYWAY:
        return []
    return [
        f"it needs {fact} ({requirement.reason}), which MobileGym's adapter has not been "
        "taught to hold"
    ]


def node_refusals(node: BaseModel) -> list[str]:
    """Why MobileGym cannot pose or judge one node of a spec ([] when it can)."""
    module = type(node).__module__
    if module == "bridge.taskspec":
        return _requirement(node) if isinstance(node, Requirement) else []
    surface = module.removeprefix("bridge.spec.")
    answer = _SURFACES.get(surface) if module.startswith("bridge.spec.") else None
    if answer is None:
        return [f"a {type(node).__name__} of {module}, a surface mobilegym.poseable does not know"]
    return answer(node)


def mobilegym_refusal(spec: TaskSpec) -> str | None:
    """Why MobileGym cannot pose and judge ``spec``, every reason once; None when it can."""
    reasons = [reason for node in _nodes(spec) for reason in node_refusals(node)]
    return "; ".join(dict.fromkeys(reasons)) or None
