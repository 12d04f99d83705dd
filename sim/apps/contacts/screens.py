"""What each Contacts screen shows: template values built from the state (pure, read-only).

Routes: ``/`` (list with search and favourites), ``/contact`` (``id``: the contact card),
``/edit`` (``id`` or nothing for a new contact). Open dialogs and editor errors live in the
route's params (UI state), never in the overlay.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sim.app import AppContext
from sim.apps.contacts import editor
from sim.apps.contacts.model import (
    effective_contacts,
    get_contact,
    group_by_letter,
    search,
    sort_contacts,
)

__all__ = ["SEARCH_KEY", "contact_values", "editor_values", "list_values", "type_label"]

SEARCH_KEY = "contacts.search"
"""Draft key of the list's search box."""


def type_label(ctx: AppContext, kind: str, type_: str) -> str:
    """The shown label of a phone/email type (``mobile`` → ``Mobile``/``手机``)."""
    strings = ctx.app.strings(ctx.lang)
    return strings.get(f"{kind}_type_{type_}") or strings[f"{kind}_type_other"]


def _row(contact: Mapping[str, Any]) -> dict[str, str]:
    return {"id": contact["id"], "name": contact["name"]}


def list_values(ctx: AppContext) -> dict[str, Any]:
    """The contact list: favourites then A–Z and ``#`` groups, or search results."""
    query = ctx.field(SEARCH_KEY)
    contacts = effective_contacts(ctx.world, ctx.data)
    if query.strip():
        found = [_row(c) for c in search(contacts, query)]
        sections = [{"title": ctx.t("found_count", n=len(found)), "rows": found}] if found else []
    else:
        favorites = [_row(c) for c in sort_contacts(contacts) if c["starred"]]
        sections = [{"title": ctx.t("favorites"), "rows": favorites}] if favorites else []
        sections += [
            {"title": letter, "rows": [_row(c) for c in group]}
            for letter, group in group_by_letter(contacts)
        ]
    return dict(
        search_key=SEARCH_KEY,
        query=query,
        search_focused=ctx.state.ui.focus == SEARCH_KEY,
        sections=sections,
        empty_text=ctx.t("no_results" if query.strip() else "no_contacts"),
    )


def _topbar_actions(ctx: AppContext, contact: dict[str, Any]) -> list[dict[str, Any]]:
    args = {"id": contact["id"]}
    star = "remove_favorite" if contact["starred"] else "add_favorite"
    return [
        {
            "icon": "star",
            "desc": ctx.t(star),
            "action": "star",
            "args": args,
            "rid": "menu_star",
            "filled": bool(contact["starred"]),
        },
        {"icon": "edit", "desc": ctx.t("edit"), "action": "edit", "args": args, "rid": "menu_edit"},
        {
            "icon": "delete",
            "desc": ctx.t("delete"),
            "action": "delete",
            "args": args,
            "rid": "menu_delete",
        },
    ]


def contact_values(ctx: AppContext) -> dict[str, Any]:
    """The contact card: phones, emails, organisation, note; the delete confirmation."""
    contact = get_contact(ctx.world, ctx.data, str(ctx.route.params.get("id", "")))
    if contact is None:
        return {"contact": None, "actions": [], "dialog": None}
    phones = [
        {"value": p["number"], "label": type_label(ctx, "phone", p["type"])}
        for p in contact["phones"]
    ]
    emails = [
        {"value": e["address"], "label": type_label(ctx, "email", e["type"])}
        for e in contact["emails"]
    ]
    dialog = ctx.route.params.get("dialog")
    return dict(
        contact=contact,
        phones=phones,
        emails=emails,
        actions=_topbar_actions(ctx, contact),
        dialog=dialog.get("name") if isinstance(dialog, dict) else None,
    )


def _editor_rows(ctx: AppContext, kind: str, errors: dict[str, Any]) -> list[dict[str, Any]]:
    fields = ctx.state.ui.fields
    rows = []
    for index in range(editor.row_count(fields, kind)):
        field_key = editor.key(kind, index)
        type_ = fields.get(editor.type_key(kind, index)) or editor.ROW_KINDS[kind][1][0]
        rows.append(
            {
                "key": field_key,
                "index": index,
                "value": ctx.field(field_key),
                "focused": ctx.state.ui.focus == field_key,
                "error": errors.get(f"{kind}.{index}"),
                "label": type_label(ctx, kind, type_),
            }
        )
    return rows


def _label_dialog(ctx: AppContext, dialog: Any) -> dict[str, Any] | None:
    """The label picker of one phone/email row, if it is open."""
    if not isinstance(dialog, dict) or dialog.get("name") != "label":
        return None
    kind, index = str(dialog["row"]), int(dialog["index"])
    current = ctx.field(editor.type_key(kind, index)) or editor.ROW_KINDS[kind][1][0]
    options = [
        {
            "label": type_label(ctx, kind, type_),
            "checked": type_ == current,
            "args": {"kind": kind, "index": index, "type": type_},
        }
        for type_ in editor.ROW_KINDS[kind][1]
    ]
    return {"options": options}


def editor_values(ctx: AppContext) -> dict[str, Any]:
    """The editor: name, phones, emails, company, title, note; inline errors; label picker."""
    errors = ctx.route.params.get("errors")
    errors = errors if isinstance(errors, dict) else {}
    scalars = {
        name: {
            "key": editor.key(name),
            "value": ctx.field(editor.key(name)),
            "focused": ctx.state.ui.focus == editor.key(name),
            "error": errors.get(name),
        }
        for name in editor.SCALAR_FIELDS
    }
    return dict(
        title=ctx.t("title_edit" if ctx.route.params.get("id") else "title_new"),
        fields=scalars,
        phones=_editor_rows(ctx, "phone", errors),
        emails=_editor_rows(ctx, "email", errors),
        label_dialog=_label_dialog(ctx, ctx.route.params.get("dialog")),
    )
