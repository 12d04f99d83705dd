"""What each Messages screen shows: template values built from the state (pure, read-only).

Routes: ``/`` (the conversation list; params ``selected``: thread ids in selection mode,
``menu``: the overflow menu is open, ``dialog``: ``delete``), ``/thread`` (``id``: a thread,
or ``address``: a new conversation with no message yet), ``/new`` (pick a recipient) and
``/search``. Names come from the Contacts app (a number a contact has shows as that
contact's name), dates from the phone's clock.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sim.app import AppContext
from sim.apps.contacts.app import ContactsApp
from sim.apps.contacts.model import effective_contacts, same_number, search, sort_contacts
from sim.apps.messages import model
from sim.state import int_list_param, int_param

__all__ = [
    "COMPOSE_KEY",
    "SEARCH_KEY",
    "TO_KEY",
    "contacts",
    "display_name",
    "list_values",
    "new_values",
    "search_values",
    "thread_address",
    "thread_values",
    "typed_number",
]

COMPOSE_KEY = "messages.compose"
"""Draft key of the thread's compose box."""
TO_KEY = "messages.to"
"""Draft key of the new conversation's recipient box."""
SEARCH_KEY = "messages.search"
"""Draft key of the search box."""
_COLORS = ("#1a73e8", "#d93025", "#188038", "#e37400", "#9334e6", "#007b83", "#c5221f")
_NUMBER = re.compile(r"^\+?[\d\s()-]{3,}$")


def contacts(ctx: AppContext) -> Sequence[Mapping[str, Any]]:
    """The Contacts app's contacts (none when the phone has no Contacts app)."""
    overlay = ctx.state.apps.get("contacts") or {}
    return effective_contacts(ContactsApp().world, overlay)


def display_name(people: Sequence[Mapping[str, Any]], address: str) -> str | None:
    """The name of the contact who has this number, None when nobody has it."""
    for person in people:
        if any(same_number(p["number"], address) for p in person.get("phones", [])):
            return str(person["name"])
    return None


def typed_number(text: str) -> str | None:
    """``text`` as a phone number to send to (digits, spaces, ``+``, dashes), else None."""
    stripped = text.strip()
    return stripped if _NUMBER.fullmatch(stripped) and re.search(r"\d{3}", stripped) else None


def _avatar(name: str | None, thread_id: int) -> dict[str, str]:
    return {"letter": name[0].upper() if name else "", "color": _COLORS[thread_id % len(_COLORS)]}


def _day_label(ctx: AppContext, moment: datetime, *, long: bool) -> str:
    today = ctx.now().date()
    days = (today - moment.date()).days
    if days == 0:
        return ctx.t("today") if long else moment.strftime("%H:%M")
    if days == 1:
        return ctx.t("yesterday")
    month = ctx.t(f"month_{moment.month}")
    if long:
        return ctx.t("long_date", weekday=ctx.t(f"weekday_{moment.weekday()}"), month=month,
                     day=moment.day)  # fmt: skip
    return ctx.t("short_date", month=month, day=moment.day)


def _row(
    ctx: AppContext, people: Sequence[Mapping[str, Any]], c: Mapping[str, Any]
) -> dict[str, Any]:
    name = display_name(people, c["address"])
    moment = ctx.state.os.local_time(c["date"])
    return {
        "id": c["thread_id"], "name": name or c["address"], "snippet": c["snippet"],
        "when": _day_label(ctx, moment, long=False), "unread": c["unread"] > 0,
        "avatar": _avatar(name, c["thread_id"]),
    }  # fmt: skip


def _selected(ctx: AppContext) -> list[int]:
    return int_list_param(ctx.route.params.get("selected"))


def list_values(ctx: AppContext) -> dict[str, Any]:
    """The conversation list: rows newest first, selection mode, menu, delete dialog."""
    people = contacts(ctx)
    selected = _selected(ctx)
    rows = [_row(ctx, people, c) for c in model.conversations(ctx.world, ctx.data)]
    for row in rows:
        row["selected"] = row["id"] in selected
    dialog = ctx.route.params.get("dialog")
    title = None
    if dialog == "delete":
        many = len(selected) > 1
        title = ctx.t("delete_title_many", n=len(selected)) if many else ctx.t("delete_title_one")
    return {"rows": rows, "selected": selected, "menu": bool(ctx.route.params.get("menu")),
            "dialog_title": title}  # fmt: skip


def thread_address(ctx: AppContext) -> tuple[int | None, str | None]:
    """The route's thread id (None for a new conversation) and its recipient's address."""
    params = ctx.route.params
    if params.get("id") is not None:
        thread = int_param(params["id"])
        rows = model.thread_messages(ctx.world, ctx.data, thread)
        return thread, (rows[-1]["address"] if rows else None)
    address = params.get("address")
    return None, (str(address) if address else None)


def thread_values(ctx: AppContext) -> dict[str, Any]:
    """One conversation: bubbles under date headers, the compose bar, the delete dialog."""
    thread, address = thread_address(ctx)
    if address is None:
        return {"missing": True}
    name = display_name(contacts(ctx), address)
    rows = model.thread_messages(ctx.world, ctx.data, thread) if thread is not None else []
    days: list[dict[str, Any]] = []
    for row in rows:
        moment = ctx.state.os.local_time(row["date"])
        label = _day_label(ctx, moment, long=True)
        if not days or days[-1]["label"] != label:
            days.append({"label": label, "bubbles": []})
        days[-1]["bubbles"].append(
            {"id": row["_id"], "body": row["body"], "time": moment.strftime("%H:%M"),
             "sent": row["type"] == model.TYPE_SENT}
        )  # fmt: skip
    draft = ctx.field(COMPOSE_KEY)
    return {
        "missing": False, "title": name or address, "subtitle": address if name else None,
        "days": days, "draft": draft, "can_send": bool(draft.strip()),
        "compose_focused": ctx.state.ui.focus == COMPOSE_KEY, "compose_key": COMPOSE_KEY,
        "dialog": ctx.route.params.get("dialog"), "thread": thread,
    }  # fmt: skip


def new_values(ctx: AppContext) -> dict[str, Any]:
    """Pick a recipient: the typed number first, then matching contacts' numbers."""
    query = ctx.field(TO_KEY)
    people = contacts(ctx)
    found = search(people, query) if query.strip() else sort_contacts(people)
    rows = [
        {"name": person["name"], "number": phone["number"]}
        for person in found
        for phone in person.get("phones", [])
    ]
    number = typed_number(query)
    return {
        "key": TO_KEY, "query": query, "focused": ctx.state.ui.focus == TO_KEY,
        "send_to": ctx.t("send_to", number=number) if number else None, "number": number,
        "rows": rows, "empty": ctx.t("no_match") if query.strip() and not rows else None,
    }  # fmt: skip


def search_values(ctx: AppContext) -> dict[str, Any]:
    """Messages whose text, or whose sender's name, has the query; newest first."""
    query = ctx.field(SEARCH_KEY).strip()
    rows: list[dict[str, Any]] = []
    if query:
        people = contacts(ctx)
        folded = query.casefold()
        for row in sorted(model.messages(ctx.world, ctx.data), key=lambda r: -r["date"]):
            name = display_name(people, row["address"]) or row["address"]
            if folded in row["body"].casefold() or folded in name.casefold():
                moment = ctx.state.os.local_time(row["date"])
                rows.append({"thread": row["thread_id"], "name": name, "body": row["body"],
                             "when": _day_label(ctx, moment, long=False)})  # fmt: skip
    return {
        "key": SEARCH_KEY, "query": ctx.field(SEARCH_KEY),
        "focused": ctx.state.ui.focus == SEARCH_KEY, "rows": rows,
        "count": ctx.t("found_count", n=len(rows)),
        "empty": ctx.t("no_results") if query and not rows else None,
    }  # fmt: skip
