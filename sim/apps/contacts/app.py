"""The Contacts app (``com.android.contacts``): list, contact card, editor.

Actions (``data-action`` → handler, arguments are strings):

* list ``/``: ``open{id}`` a row; ``create`` the FAB; ``search`` (Enter in the search box).
* card ``/contact``: ``star{id}`` toggles favourite; ``edit{id}``; ``delete{id}`` opens the
  confirmation, ``delete_confirm{id}`` deletes; ``dialog_cancel`` closes any dialog.
* editor ``/edit``: ``save``; ``add_row{kind}`` (``phone``/``email``); ``pick_type{kind,
  index}`` opens the label picker, ``set_type{kind, index, type}`` picks one.

Back closes an open dialog first; leaving the editor discards its drafts; on the list with
a search typed, back clears the search.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import JsonValue

from sim.app import App, AppContext, Event, GalleryAction, GalleryScreen, Screen, on
from sim.apps.contacts import editor, screens
from sim.apps.contacts.model import (
    delete_contact,
    effective_contacts,
    get_contact,
    normalize_contact,
    put_contact,
    set_starred,
    validate,
)
from sim.apps.contacts.provider import contacts_provider
from sim.apps.contacts.state import ContactsState
from sim.providers.table import Provider
from sim.state import Route

__all__ = ["ContactsApp"]


class ContactsApp(App):
    """Android's Contacts: favourites, A–Z list with pinyin order, search, create/edit/delete."""

    id = "contacts"
    overlay_model = ContactsState
    SCREENS = {
        "/": Screen("list.html", screens.list_values),
        "/contact": Screen(
            "contact.html", screens.contact_values, ".quickcontact.QuickContactActivity"
        ),
        "/edit": Screen("edit.html", screens.editor_values, ".activities.ContactEditorActivity"),
    }

    # ---- data
    def initial_overlay(self) -> dict[str, Any]:
        """No changes yet; instance-created ids start at ``n001``."""
        return {"contacts": {}, "next_id": 1}

    def view(self, overlay: Mapping[str, Any]) -> dict[str, Any]:
        """``{"contacts": [...]}``: effective contacts, normalised, sorted by id."""
        return {"contacts": effective_contacts(self.world, overlay)}

    def providers(self) -> tuple[Provider, ...]:
        """ContactsContract's tables (:mod:`sim.apps.contacts.provider`)."""
        return (contacts_provider(),)

    # ---- screens
    def gallery_screens(self) -> tuple[GalleryScreen, ...]:
        """The list, a full contact card, its editor and the delete confirmation."""
        contact = {"id": "c013"}  # two phones, an email, a company and a title
        card: dict[str, JsonValue] = {**contact}  # as route params
        return (
            GalleryScreen(name="list", title="Contact list"),
            GalleryScreen(name="card", title="Contact card", path="/contact", params=card),
            GalleryScreen(
                name="editor",
                title="Contact editor",
                path="/contact",
                params=card,
                actions=(GalleryAction(action="edit", args=contact),),
            ),
            GalleryScreen(
                name="delete-dialog",
                title="Delete confirmation",
                path="/contact",
                params=card,
                actions=(GalleryAction(action="delete", args=contact),),
            ),
        )

    def on_back(self, ctx: AppContext) -> bool:
        """Close a dialog; discard editor drafts; clear an active search."""
        params = ctx.route.params
        if "dialog" in params:
            del params["dialog"]
            return True
        if ctx.route.path == "/edit":
            ctx.clear_fields(editor.EDIT_PREFIX)
            return False
        if ctx.route.path == "/" and ctx.field(screens.SEARCH_KEY):
            ctx.set_field(screens.SEARCH_KEY, "")
            _hide_keyboard(ctx)
            return True
        return False

    # ---- list
    @on("open")
    def open_contact(self, ctx: AppContext, event: Event) -> None:
        """Show a contact's card."""
        ctx.navigate("/contact", id=event.arg("id"))

    @on("create")
    def create(self, ctx: AppContext, event: Event) -> None:
        """Open an empty editor."""
        _start_editing(ctx, None)
        ctx.navigate("/edit")

    @on("search")
    def search(self, ctx: AppContext, event: Event) -> None:
        """Enter in the search box: the list already filters live, so just hide the keyboard."""
        _hide_keyboard(ctx)

    # ---- contact card
    @on("star")
    def star(self, ctx: AppContext, event: Event) -> None:
        """Toggle the contact's favourite star."""
        contact = get_contact(self.world, ctx.data, event.arg("id"))
        if contact is not None:
            set_starred(ctx.data, contact["id"], not contact["starred"], self.world)

    @on("edit")
    def edit(self, ctx: AppContext, event: Event) -> None:
        """Open the editor prefilled with the contact."""
        contact = get_contact(self.world, ctx.data, event.arg("id"))
        if contact is not None:
            _start_editing(ctx, contact)
            ctx.navigate("/edit", id=contact["id"])

    @on("delete")
    def delete(self, ctx: AppContext, event: Event) -> None:
        """Ask for confirmation before deleting."""
        ctx.route.params["dialog"] = {"name": "delete", "id": event.arg("id")}

    @on("delete_confirm")
    def delete_confirm(self, ctx: AppContext, event: Event) -> None:
        """Delete the contact and return to the list."""
        ctx.route.params.pop("dialog", None)
        if get_contact(self.world, ctx.data, event.arg("id")) is None:
            return
        delete_contact(ctx.data, event.arg("id"))
        ctx.toast(ctx.t("toast_deleted"))
        _leave_to(ctx, "/")

    @on("dialog_cancel")
    def dialog_cancel(self, ctx: AppContext, event: Event) -> None:
        """Close the open dialog without doing anything."""
        ctx.route.params.pop("dialog", None)

    # ---- editor
    @on("add_row")
    def add_row(self, ctx: AppContext, event: Event) -> None:
        """Add an empty phone or email box with the default label."""
        kind = event.arg("kind")
        index = editor.row_count(ctx.state.ui.fields, kind)
        ctx.set_field(editor.key(kind, index), "")
        ctx.set_field(editor.type_key(kind, index), editor.ROW_KINDS[kind][1][0])

    @on("pick_type")
    def pick_type(self, ctx: AppContext, event: Event) -> None:
        """Open the label picker (Mobile, Work, Home…) of one row."""
        ctx.route.params["dialog"] = {
            "name": "label",
            "row": event.arg("kind"),
            "index": int(event.arg("index")),
        }

    @on("set_type")
    def set_type(self, ctx: AppContext, event: Event) -> None:
        """Choose a row's label and close the picker."""
        kind, index = event.arg("kind"), int(event.arg("index"))
        ctx.set_field(editor.type_key(kind, index), event.arg("type"))
        ctx.route.params.pop("dialog", None)

    @on("save")
    def save(self, ctx: AppContext, event: Event) -> None:
        """Validate the drafts; show errors, or write the contact and show its card."""
        draft = editor.contact_from_fields(ctx.state.ui.fields)
        errors = validate(draft)
        if errors:
            ctx.route.params["errors"] = dict[str, JsonValue](errors)
            return
        existing = get_contact(self.world, ctx.data, str(ctx.route.params.get("id", "")))
        contact = {**(existing or {}), **draft, "id": existing["id"] if existing else ""}
        contact_id = contact["id"]
        if existing is None or normalize_contact(contact) != existing:
            contact_id = put_contact(ctx.data, contact)
        ctx.clear_fields(editor.EDIT_PREFIX)
        ctx.toast(ctx.t("toast_saved"))
        card = Route(path="/contact", params={"id": contact_id})
        if existing is not None and _below(ctx) == card:
            ctx.back()
        else:
            ctx.replace("/contact", id=contact_id)


def _start_editing(ctx: AppContext, contact: dict[str, Any] | None) -> None:
    """Replace any old drafts with the ones for ``contact`` (None: new contact)."""
    ctx.clear_fields(editor.EDIT_PREFIX)
    for field_key, value in editor.fields_for_contact(contact).items():
        ctx.set_field(field_key, value)


def _hide_keyboard(ctx: AppContext) -> None:
    ctx.state.ui.focus = None
    ctx.state.ui.keyboard_visible = False


def _below(ctx: AppContext) -> Route | None:
    """The route under the current one in this app's back stack."""
    task = ctx.os.task(ctx.app.id)
    return task.stack[-2] if task is not None and len(task.stack) > 1 else None


def _leave_to(ctx: AppContext, path: str) -> None:
    """Go back one screen, or replace the screen when it is the only one of the task."""
    if _below(ctx) is None:
        ctx.replace(path)
    else:
        ctx.back()
