"""Every template MobileGym can pose, in MobileGym: it starts as posed, its goal solves it,
and doing nothing fails — through :class:`~mobilegym.android_state.MobileGymAndroidState` and
our one judge (:mod:`bridge.judge`).

**Which.** Every template of the default registry that
:func:`mobilegym.poseable.mobilegym_refusal` lets pose at seed 0, computed at collection.

**Languages.** A template's English and Chinese specs differ only in the phone's language (the
first ensure operation), unless its parameters are words. So each template runs in one
language, alternating en/zh along the list — both ways of MobileGym's language switch, at half
the cost of running both — and in both when its two specs differ in anything else
(:func:`both_languages`, computed; none do at seed 0).

**Starts as posed.** The fresh MobileGym phone is twinned once into our simulator: its
settings and provider rows read by :func:`bridge.restore.read` and made to hold by
:func:`bridge.restore.put_back`, as ``transfer_eval.phone_twin`` twins a real phone. Each spec
is posed on MobileGym and on a copy of the twin, and the truths and the start's check lines
must read alike; the guards hold. Three kinds of value cannot be twinned and are compared as
far as they can be: what a phone *is* (its properties, Wi-Fi network and paired devices, which
no protocol writes: read at all), node identifiers (inodes: how many) and settings MobileGym
holds rescaled (the twin's value as MobileGym's key table holds it).

**Solved.** The goal is made to hold through the protocol: settings put
(:func:`tests.device.parity.satisfying_puts`), provider rows inserted, updated or deleted as
each check names them, the next alarm set as a Clock alarm row, folders made and paths
removed. Where Android's protocol has no verb — an SMS sent, a conversation read, a file moved
or copied keeping its node — it is done through MobileGym's own content resolver and file
system, as its Messages and Files apps do. Answers are the truth's first right form
(:func:`tests.device.parity.answer_forms`), and every right form must match and every wrong
one fail. The verdict is a clean success. **Undone**, judged right after posing: no success,
clean, no progress.

**Reset.** Loading MobileGym again costs ~1.5 s, more than a whole template, so the phone is
put back in the page: right after a fresh load its ``getState()`` is kept (its preference
log first written with its own values, so that a key written later can be written back), and
before each template every slice that differs is set back whole through ``__SIM__.setState``,
the conversations and files a template made deleted through MobileGym's own provider and file
system. Then the whole ``getState()`` (its clock aside) must equal the fresh one, or the phone
is wiped and loaded again (the preference keys it wrote joining the log): each template starts
on a fresh phone either way.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import pytest_asyncio
from pydantic import JsonValue

from bridge.android_contract import (
    ALARMS,
    CALENDARS,
    CONTACTS,
    DATA,
    EVENTS,
    NAME,
    PHONE,
    PHONE_TYPE_MOBILE,
    RAW_CONTACTS,
    REMINDERS,
)
from bridge.android_state import TASK_FILES_ROOT, BindValue
from bridge.judge import StartRecord, answer_checks, judge, pose, read_checks
from bridge.restore import put_back, read
from bridge.schema import AnswerValue, CheckResult
from bridge.spec.alarms import NextAlarmCheck
from bridge.spec.base import Truths, number, resolve
from bridge.spec.calendar import EnsureCalendar
from bridge.spec.files import PathCheck, bind_path, check_path, folder_tree
from bridge.spec.props import PropFact
from bridge.spec.radios import BondedFact, WifiFact
from bridge.spec.rows import RowsCheck, bind_truths, check_rows, read_rows
from bridge.spec.settings import PutSetting
from bridge.taskspec import TaskSpec, Truth
from mobilegym.android_state import MobileGymAndroidState
from mobilegym.android_state.settings import KEYS, Held, NotHeld, follower_globs
from mobilegym.page import MobileGymPage
from mobilegym.poseable import mobilegym_refusal
from mobilegym.world import MobileGym
from sim.android_state import SimAndroidState
from sim.phone import Phone
from sim.simulator import installed_apps
from sim.state import InstanceState
from sim.tasks.registry import default_registry
from tests.device.parity import answer_forms, differences, satisfying_puts

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

REGISTRY = default_registry()
SEED = 0
LANGS = ("en", "zh")


def bound(task_id: str, lang: str) -> TaskSpec:
    """The spec the registry binds for ``task_id`` at :data:`SEED` in ``lang``."""
    spec = REGISTRY.instantiate(task_id, SEED, lang).spec
    assert spec is not None, task_id
    return spec


def poseable() -> list[str]:
    """The templates MobileGym can pose at :data:`SEED` (English), in registry order."""
    return [t for t in REGISTRY.ids() if mobilegym_refusal(bound(t, "en")) is None]


def _without_language(spec: TaskSpec) -> str:
    kept = [op for op in spec.ensure if not (isinstance(op, PutSetting) and "locale" in op.key)]
    return spec.model_copy(update={"ensure": kept}).model_dump_json()


def both_languages(task_id: str) -> bool:
    """Whether the English and Chinese specs differ in more than the phone's language."""
    return _without_language(bound(task_id, "en")) != _without_language(bound(task_id, "zh"))


def cases() -> list[tuple[str, str]]:
    """(template, language): one language each, alternating, both where the specs differ."""
    found: list[tuple[str, str]] = []
    for index, task_id in enumerate(poseable()):
        langs = LANGS if both_languages(task_id) else (LANGS[index % 2],)
        found += [(task_id, lang) for lang in langs]
    return found


CASES = cases()

# ---------------------------------------------------------------- a fresh phone, in the page

_KEEP = """(keys) => {
  const device = window.__OS__.device;
  for (const key of keys) {
    const value = device.getPreference(key);
    if (value !== undefined) device.setPreference(key, value);
  }
  const s = window.__SIM__.getState();
  window.__mgbFresh = JSON.parse(JSON.stringify({os: s.os, apps: s.apps}));
}"""
_PUT_BACK = """async () => {
  const fresh = window.__mgbFresh, sim = window.__SIM__, now = sim.getState();
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  const kept = new Set(fresh.os.providers.sms.conversations.map((c) => c.id));
  for (const c of now.os.providers.sms.conversations)
    if (!kept.has(c.id)) window.__OS__.content.delete(`content://sms/conversations/${c.id}`);
  const paths = new Set(fresh.os.fileSystem.nodes.map((n) => n.path));
  const made = now.os.fileSystem.nodes.map((n) => n.path).filter((p) => !paths.has(p));
  for (const p of made.filter((p) => !made.some((q) => p.startsWith(q + '/'))))
    await window.__SIM_FS__.delete(p);
  const changed = (was, is, keys) =>
    Object.fromEntries(keys.filter((k) => !same(was[k], is[k])).map((k) => [k, was[k]]));
  const os = changed(fresh.os, now.os, ['settings', 'hardware', 'preferences', 'permissions']);
  const providers = changed(
    fresh.os.providers, now.os.providers, Object.keys(fresh.os.providers));
  if (Object.keys(providers).length) os.providers = providers;
  sim.setState({os, apps: changed(fresh.apps, now.apps, Object.keys(fresh.apps))}, {deep: false});
  const after = sim.getState(), left = [];
  const walk = (a, b, path) => {
    if (path === 'os.time' || left.length >= 10) return;
    if (a && b && typeof a === 'object' && typeof b === 'object') {
      for (const k of new Set([...Object.keys(a), ...Object.keys(b)]))
        walk(a[k], b[k], path ? `${path}.${k}` : k);
    } else if (!same(a, b)) left.push(path);
  };
  walk(fresh, JSON.parse(JSON.stringify({os: after.os, apps: after.apps})), '');
  return {left, now: window.__SIM_TIME__.now(), preferences: Object.keys(after.os.preferences)};
}"""
"""Put the phone back (module docstring); what still differs from the fresh ``getState()``."""


@dataclass
class FreshPhone:
    """One MobileGym phone, put back to its fresh state before each template, and the
    simulator twin of that fresh state."""

    gym: MobileGym
    page: MobileGymPage
    state: MobileGymAndroidState
    twin: InstanceState
    logged: set[str] = field(
        default_factory=lambda: {h.preference for h in KEYS.values() if isinstance(h, Held)}
    )
    """Preference keys written with their own values before the fresh state is kept: every
    one our settings write, and those MobileGym wrote alongside (learned on a reload)."""
    sim_phone: Phone = field(default_factory=lambda: Phone(installed_apps()))
    reloads: list[list[str]] = field(default_factory=list)
    """What each reload was for: what putting back in the page left different."""

    async def keep_fresh(self) -> None:
        """Keep the phone's state now as the fresh one (see the module docstring)."""
        await self.page.call(_KEEP, sorted(self.logged))

    async def reset(self) -> None:
        """Put the phone back in the page, or wipe and load it when that leaves a difference."""
        found = await self.page.call(_PUT_BACK)
        if found["left"]:
            self.reloads.append(found["left"])
            self.logged.update(found["preferences"])
            await self.page.wipe()
            await self.page.load(self.gym.clock_ms)
            await self.keep_fresh()
        elif found["now"] != self.gym.clock_ms:
            await self.page.set_clock(self.gym.clock_ms)

    def sim(self) -> SimAndroidState:
        """A simulated phone holding what the fresh MobileGym phone holds."""
        return SimAndroidState(self.sim_phone, self.twin.model_copy(deep=True))


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def phone(gym: MobileGym) -> AsyncIterator[FreshPhone]:
    """A fresh MobileGym phone for the module, and its simulator twin."""
    page = await gym.page()
    try:
        state = MobileGymAndroidState(page, timezone=gym.timezone)
        fresh = FreshPhone(gym, page, state, twin=InstanceState(seed=SEED))
        await fresh.keep_fresh()
        held = await put_back(SimAndroidState(fresh.sim_phone, fresh.twin), await read(state))
        # Some rows cannot be twinned (a sent SMS cannot be delivered); every setting is.
        assert all("://" in item for item in held.not_restored), held.not_restored
        yield fresh
    finally:
        await page.close()


# ---------------------------------------------------------------- starts as posed


def _phone_own(truth: Truth) -> bool:
    """A truth of what the phone is (no protocol writes it, so no twin holds it)."""
    return any(isinstance(f, PropFact | WifiFact | BondedFact) for f in (truth.fact, *truth.also))


def _identifiers(truth: Truth) -> bool:
    return getattr(truth.fact, "field", None) == "inode"


def _held_as(line: CheckResult) -> JsonValue:
    """A settings line's value as MobileGym's key table holds it (other lines' as read)."""
    held = next((h for (ns, key), h in KEYS.items() if f"{ns}.{key}" == line.name), None)
    if not isinstance(held, Held) or not isinstance(line.actual, str):
        return line.actual
    value = held.codec.from_android(line.actual)
    return line.actual if isinstance(value, NotHeld) else held.codec.to_android(value)


def start_reading(
    spec: TaskSpec, start: StartRecord, lines: Iterable[CheckResult], *, twin: bool
) -> dict[str, Any]:
    """What a start reads, comparable between MobileGym and its twin (module docstring)."""
    truths: dict[str, Any] = {}
    for truth in spec.truths:
        values = start.truths[truth.name]
        truths[truth.name] = (
            bool(values) if _phone_own(truth) else len(values) if _identifiers(truth) else values
        )
    checks = [
        {
            "name": line.name,
            "passed": line.passed,
            "actual": _held_as(line) if twin else line.actual,
        }
        for line in lines
        if not line.name.startswith("answer.")
    ]
    return {"truths": truths, "checks": checks}


# ---------------------------------------------------------------- the goal, made to hold

_EQUALS = re.compile(r"^\s*(\w+)\s*=\s*('(?:[^']|'')*'|-?\d+)\s*$")
_NOT = re.compile(r"^\s*NOT\s+(\w+)\s*$", re.IGNORECASE)


def _conjuncts(where: str | None) -> list[str]:
    return re.split(r"\s+AND\s+", where, flags=re.IGNORECASE) if where else []


def equalities(where: str | None) -> dict[str, BindValue]:
    """The ``column=literal`` conjuncts of a (bound) ``where``."""
    found: dict[str, BindValue] = {}
    for part in _conjuncts(where):
        match = _EQUALS.match(part)
        if match:
            column, text = match.groups()
            found[column] = text[1:-1].replace("''", "'") if text[0] == "'" else int(text)
    return found


def flipped(where: str | None) -> dict[str, BindValue]:
    """The flags a row stops matching ``where`` by: ``NOT starred`` -> starred 1, ``read=0``
    -> read 1 (``deleted=0`` is Android's mark of a live row: such a row is deleted)."""
    found: dict[str, BindValue] = {}
    for part in _conjuncts(where):
        negated = _NOT.match(part)
        if negated:
            found[negated.group(1)] = 1
        for column, value in equalities(part).items():
            if value in (0, 1) and column != "deleted":
                found[column] = 1 - int(value)
    return found


def _value(rule: RowsCheck, truths: Truths) -> BindValue:
    value = resolve(rule.value, truths)[0]
    assert value is None or isinstance(value, str | int | float | bool), value
    return value


_SEND = """([address, body, n]) => {
  const content = window.__OS__.content, digits = (s) => String(s || '').replace(/\\D+/g, '');
  const found = content.query('content://sms/conversations').items.find((c) =>
    c.phoneNumber === address || c.sender === address
    || (digits(address) && digits(c.phoneNumber) === digits(address)));
  const id = found ? found.id : String(content.insert('content://sms/conversations',
    {sender: address, phoneNumber: address})).split('/').pop();
  const now = new Date(window.__SIM_TIME__.now());
  const shown = [now.getHours(), now.getMinutes()].map((x) => String(x).padStart(2, '0'));
  content.insert(`content://sms/messages?conversationId=${encodeURIComponent(id)}`,
    {id: `msg_parity_${now.getTime()}_${n}`, content: body, timestamp: shown.join(':'),
     isOutgoing: true, status: 'sent'});
}"""
"""Send as MobileGym's Messages sends: into the recipient's conversation (opened when there is
none), the clock's minute shown."""
_MARK = """([addresses, unread]) => {
  const content = window.__OS__.content, digits = (s) => String(s || '').replace(/\\D+/g, '');
  const wanted = new Set(addresses.map(digits));
  for (const c of content.query('content://sms/conversations').items)
    if (wanted.has(digits(c.phoneNumber)) || addresses.includes(c.sender))
      content.update(`content://sms/conversations/${c.id}`, {isUnread: unread});
}"""
"""Mark conversations read or unread, as opening one (or its menu) in Messages does."""
_FS = "async ([how, a, b]) => { await window.__SIM_FS__[how](a, b); }"
"""Move or copy a file as MobileGym's Files does (a move keeps the node, so its inode)."""


@dataclass
class Goal:
    """Makes a spec's goal hold on MobileGym (module docstring), check by check: a check
    that holds already is left alone, a guard is never acted on."""

    spec: TaskSpec
    state: MobileGymAndroidState
    truths: Truths

    async def apply(self) -> dict[str, AnswerValue] | None:
        """Make every goal check hold; the right answer to each field (None: no fields)."""
        for namespace, key, value in satisfying_puts(self.spec):
            await self.state.put_setting(namespace, key, value)  # type: ignore[arg-type]
        for check in self.spec.checks:
            if isinstance(check, NextAlarmCheck):
                await self._alarm_at(int(str(self.truths[check.value.truth][0])))
        paths = [c for c in self.spec.checks if isinstance(c, PathCheck) and not c.guard]
        for path in sorted(
            paths, key=lambda c: ("dir", "file", "exists", "absent").index(c.expect)
        ):
            if not (await check_path(self.state, path, self.truths)).passed:
                await self._path(path)
        rows = [c for c in self.spec.checks if isinstance(c, RowsCheck) and not c.guard]
        for rule in sorted(rows, key=lambda c: (c.expect != "count", c.uri in (DATA, REMINDERS))):
            if not (await check_rows(self.state, rule, self.truths)).passed:
                await self._rows(rule)
        if not self.spec.answers:
            return None
        return {
            rule.field: answer_forms(rule.match, self.truths[rule.truth][0])[0][0]
            for rule in self.spec.answers
        }

    async def _alarm_at(self, ring_ms: int) -> None:
        _, zone = await self.state.now()
        ring = datetime.fromtimestamp(ring_ms / 1000, ZoneInfo(zone))
        values = {"hour": ring.hour, "minutes": ring.minute, "enabled": 1, "daysofweek": 0}
        await self.state.insert(ALARMS, values)

    # ---- files
    async def _path(self, rule: PathCheck) -> None:
        path = bind_path(rule.path, self.truths)
        full = f"{TASK_FILES_ROOT}/{path}"
        if rule.expect == "dir":
            await self.state.make_dir(full)
        elif rule.expect == "absent":
            await self.state.remove(full)
        else:
            inodes = [str(v) for v in self.truths[rule.inode.truth]] if rule.inode else []
            source = await self._source(path, inodes)
            how = "move" if inodes else "copy"
            await self.state.page.call(_FS, [how, f"{TASK_FILES_ROOT}/{source}", full])

    async def _source(self, path: str, inodes: list[str]) -> str:
        """The file of the task's folder to move (its inode is a truth) or copy (its name is
        the copy's)."""
        tree = await folder_tree(self.state, path.split("/", 1)[0])
        name = path.rsplit("/", 1)[-1]
        for found, entry in tree.items():
            kind, *_, inode = entry.split()
            if kind == "file" and (inode in inodes if inodes else found.endswith(f"/{name}")):
                return found
        raise AssertionError(f"no file in {path.split('/', 1)[0]} to move or copy to {path}")

    # ---- rows
    async def _ids(self, rule: RowsCheck) -> str:
        rows = await read_rows(self.state, rule.uri, ["_id"], rule.where, rule.within, self.truths)
        return ",".join(str(row["_id"]) for row in rows)

    async def _rows(self, rule: RowsCheck) -> None:
        if rule.uri.startswith(("content://sms", "content://mms-sms")):
            await self._sms(rule)
        elif rule.expect == "count" and number(_value(rule, self.truths)) == 0:
            where = f"_id IN ({await self._ids(rule)})"
            flags = flipped(bind_truths(rule.where, self.truths))
            if flags:
                await self.state.update(rule.uri, flags, where)
            else:
                await self.state.delete(rule.uri, where)
        elif rule.expect == "count" or not await self._ids(rule):
            await self._create(rule)
        else:
            where = f"_id IN ({await self._ids(rule)})"
            await self.state.update(rule.uri, {rule.column: _value(rule, self.truths)}, where)

    def _wanted(self, uri: str, where: str | None) -> dict[str, BindValue]:
        """What the checks on the same rows want: their where's equalities and values."""
        values = {k: v for k, v in equalities(where).items() if k != "deleted"}
        same = [c for c in self.spec.checks if isinstance(c, RowsCheck) and c.uri == uri]
        for check in same:
            if check.where == where and check.expect != "count":
                values[check.column] = _value(check, self.truths)
        return values

    async def _create(self, rule: RowsCheck) -> None:
        values = self._wanted(rule.uri, rule.where)
        if rule.uri == CONTACTS:
            await self._contact(str(values["display_name"]))
        elif rule.uri == EVENTS:
            await self._event(values)
        elif rule.uri == REMINDERS and rule.within is not None:
            within = rule.within
            events = await read_rows(
                self.state, within.uri, ["_id"], within.where, None, self.truths
            )
            for event in events:
                reminder = {"event_id": int(str(event["_id"])), rule.column: values[rule.column]}
                await self.state.insert(REMINDERS, reminder)
        elif rule.uri == ALARMS:
            await self.state.insert(ALARMS, {"enabled": 1, "daysofweek": 0, **values})
        else:
            raise AssertionError(f"{rule.name}: no way to make rows of {rule.uri} hold")

    async def _contact(self, name: str) -> None:
        """A contact named ``name`` with what the data checks on it want (a row per kind)."""
        details: dict[str, dict[str, BindValue]] = {}
        for check in self.spec.checks:
            if not isinstance(check, RowsCheck) or check.uri != DATA:
                continue
            said = equalities(check.where)
            if said.pop("display_name", None) == name:
                detail = details.setdefault(str(said.pop("mimetype")), {})
                detail.update({**said, check.column: _value(check, self.truths)})
        await self.state.insert(RAW_CONTACTS, {"account_type": None, "account_name": None})
        raw = max(int(str(row["_id"])) for row in await self.state.query(RAW_CONTACTS, ["_id"]))
        await self.state.insert(DATA, {"raw_contact_id": raw, "mimetype": NAME, "data1": name})
        for kind, detail in details.items():
            typed: dict[str, BindValue] = {"data2": PHONE_TYPE_MOBILE} if kind == PHONE else {}
            row: dict[str, BindValue] = {"raw_contact_id": raw, "mimetype": kind}
            await self.state.insert(DATA, {**row, **typed, **detail})

    async def _event(self, values: dict[str, BindValue]) -> None:
        """An event in the task's calendar (the phone's first without one), an hour long
        unless a check says when it ends."""
        accounts = [op.account for op in self.spec.ensure if isinstance(op, EnsureCalendar)]
        where = f"account_name='{accounts[0]}'" if accounts else None
        calendar = (await self.state.query(CALENDARS, ["_id"], where, "_id"))[0]["_id"]
        _, zone = await self.state.now()
        event: dict[str, BindValue] = {
            "calendar_id": int(str(calendar)),
            "dtend": int(str(values["dtstart"])) + 3_600_000,
            "eventTimezone": "UTC" if values.get("allDay") == 1 else zone,
            **values,
        }
        await self.state.insert(EVENTS, event)

    async def _sms(self, rule: RowsCheck) -> None:
        """SMS as Messages sends and reads them (the protocol has no verb for either);
        deleted through the protocol."""
        page = self.state.page
        where = bind_truths(rule.where, self.truths)
        if "/sent" in rule.uri:
            for n, (address, body) in enumerate(self._sent()):
                await page.call(_SEND, [address, body, n])
        elif rule.column == "read" or "read" in flipped(where):
            unread = rule.column == "read" and _value(rule, self.truths) in (0, "0")
            rows = await self.state.query(rule.uri, ["address"], where)
            await page.call(_MARK, [sorted({str(r["address"]) for r in rows}), unread])
        else:
            await self.state.delete_sms(str(where))

    def _sent(self) -> list[tuple[str, str]]:
        """(recipient, text) of every SMS the checks on sent SMS want."""
        addresses: list[str] = []
        bodies: list[str] = []
        for check in self.spec.checks:
            if isinstance(check, RowsCheck) and "/sent" in check.uri:
                said = equalities(bind_truths(check.where, self.truths))
                bodies += [str(said["body"])] if "body" in said else []
                (addresses if check.column == "address" else bodies).append(
                    str(_value(check, self.truths))
                )
        return [(a, b) for a in dict.fromkeys(addresses) for b in dict.fromkeys(bodies or ["OK"])]


# ---------------------------------------------------------------- the tests


def _answer_forms_hold(spec: TaskSpec, start: StartRecord) -> None:
    """Every right form of each answer matches its truth, every wrong one fails."""
    for rule in spec.answers:
        right, wrong = answer_forms(rule.match, start.truths[rule.truth][0])
        one = spec.model_copy(update={"answers": [rule]})
        for form, should in [(f, True) for f in right] + [(f, False) for f in wrong]:
            [line] = answer_checks(one, start, {rule.field: form})
            assert line.passed is should, (rule.field, form, line)


async def test_the_cases_are_every_poseable_template_in_both_languages() -> None:
    templates = poseable()
    assert 0 < len(templates) < len(REGISTRY.ids())  # some are refused, with their reason
    assert sorted({task_id for task_id, _ in CASES}) == sorted(templates)
    for lang in LANGS:  # each language's switch is run, about half the time each
        assert len([1 for _, said in CASES if said == lang]) >= len(templates) // 2


@pytest.mark.parametrize(("task_id", "lang"), CASES)
async def test_a_template_starts_as_posed_is_solved_by_its_goal_and_fails_undone(
    phone: FreshPhone, task_id: str, lang: str
) -> None:
    spec = bound(task_id, lang)
    assert mobilegym_refusal(spec) is None
    await phone.reset()
    start = await pose(spec, phone.state)
    volatile = follower_globs(spec.expected.settings)
    undone = await judge(spec, phone.state, start, volatile=volatile)
    # It starts as posed: as the simulator twin of this phone starts; the guards hold.
    assert start.unobservable is None, start.unobservable
    twin = phone.sim()
    twin_start = await pose(spec, twin)
    twin_lines = await read_checks(spec, twin, twin_start, trees=())
    found = differences(
        start_reading(spec, start, undone.checks, twin=False),
        start_reading(spec, twin_start, twin_lines, twin=True),
    )
    assert not found, found
    assert all(line.passed for line in undone.checks if line.guard), undone.checks
    # Doing nothing fails, with no credit and no side effect.
    assert not undone.success and undone.clean is True and undone.progress == 0.0, undone
    _answer_forms_hold(spec, start)
    # The goal made to hold solves it, cleanly.
    answer = await Goal(spec, phone.state, start.truths).apply()
    solved = await judge(spec, phone.state, start, answer=answer, volatile=volatile)
    assert solved.success and solved.clean, (solved.checks, solved.side_effects)


async def test_a_reset_gives_back_the_fresh_phone_in_the_page(phone: FreshPhone) -> None:
    """Settings, contacts, events, alarms, SMS and task folders changed by several templates
    in a row are put back in the page, nothing left to load again for. (The first round may
    reload once, to learn a preference key MobileGym wrote alongside; the second may not.)"""
    changing = [
        ("settings/SetAirplaneMode-v1", "zh"),
        ("crossapp/ReplyWithContactNumber-v1", "en"),
        ("crossapp/FolderForEventDate-v1", "zh"),
        ("clock/AddLabelledRepeatingAlarm-v1", "en"),
    ]
    for _ in range(2):
        await phone.reset()
        for task_id, lang in changing:
            spec = bound(task_id, lang)
            start = await pose(spec, phone.state)
            await Goal(spec, phone.state, start.truths).apply()
    found = await phone.page.call(_PUT_BACK)
    assert found["left"] == [] and found["now"] == phone.gym.clock_ms
    assert await phone.state.query(CONTACTS, ["_id"], "display_name='Alice Johnson'") == []
