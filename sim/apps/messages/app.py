"""The Messages app (``com.android.messaging``): conversations, a thread, a new conversation
and search, over Telephony-shaped SMS state (:mod:`sim.apps.messages.model`).

Routes: see :mod:`sim.apps.messages.screens`. Actions (``data-action`` → handler,
``data-arg-*`` in brackets):

* list: ``open[id]`` (a row: opens the thread and marks it read; in selection mode it
  toggles the row), ``select[id]`` (long press: selection mode), ``mark_read``,
  ``mark_unread``, ``delete`` (asks) / ``delete_confirm`` (the selected threads),
  ``menu`` / ``mark_all_read`` (the overflow menu), ``start_chat`` (the FAB),
  ``open_search``, ``dialog_cancel``;
* new conversation: ``pick[address]`` (a suggested number, or the typed one), ``pick_typed``
  (Enter in the recipient box);
* thread: ``send`` (disabled while the text is blank), ``delete_thread`` (asks) /
  ``delete_thread_confirm``;
* search: ``open[id]``.

Back closes the menu or a dialog first, then leaves selection mode; leaving a thread drops
its unsent text. The app is the default SMS app: it writes the provider's rows itself
(``type`` 2 for what it sends, ``read`` as the user reads).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import JsonValue

from sim.app import App, AppContext, Event, GalleryAction, GalleryScreen, Screen, on
from sim.apps.messages import model, screens
from sim.apps.messages.provider import messages_providers
from sim.apps.messages.state import MessagesState
from sim.providers.table import Provider
from sim.state import int_list_param

__all__ = ["MessagesApp"]


class MessagesApp(App):
    """AOSP Messaging: the conversation list, threads, new conversations and search."""

    id = "messages"
    overlay_model = MessagesState
    SCREENS = {
        "/": Screen("list.html", screens.list_values),
        "/thread": Screen(
            "thread.html", screens.thread_values, ".ui.conversation.ConversationActivity"
        ),
        "/new": Screen("new.html", screens.new_values, ".ui.conversation.ConversationActivity"),
        "/search": Screen("search.html", screens.search_values),
    }

    # ---- data
    def initial_overlay(self) -> dict[str, Any]:
        """No changes yet (ids continue after the world's)."""
        return {"sms": {}, "threads": {}}

    def view(self, overlay: Mapping[str, Any]) -> dict[str, Any]:
        """``{"sms": [...]}``: every effective message row."""
        return {"sms": model.messages(self.world, overlay)}

    def providers(self) -> tuple[Provider, ...]:
        """Telephony's ``sms`` and ``mms-sms`` (:mod:`sim.apps.messages.provider`)."""
        return messages_providers()

    # ---- screens
    def gallery_screens(self) -> tuple[GalleryScreen, ...]:
        """The list, a thread with both directions, selection with the delete dialog, the
        overflow menu, a new conversation with a number typed, and search."""
        thread: dict[str, JsonValue] = {"id": 2}  # 张三: three messages, one sent
        return (
            GalleryScreen(name="list", title="Conversation list"),
            GalleryScreen(name="thread", title="Conversation", path="/thread", params=thread),
            GalleryScreen(
                name="thread-compose", title="Composing a reply", path="/thread",
                params={"id": 4}, fields={screens.COMPOSE_KEY: "Of course, see you at T3 ✈"},
            ),
            GalleryScreen(
                name="selection", title="Selection and delete dialog",
                actions=(GalleryAction(action="select", args={"id": "6"}),
                         GalleryAction(action="open", args={"id": "9"}),
                         GalleryAction(action="delete")),
            ),
            GalleryScreen(name="menu", title="Overflow menu",
                          actions=(GalleryAction(action="menu"),)),
            GalleryScreen(
                name="new", title="New conversation", path="/new",
                fields={screens.TO_KEY: "138"},
            ),
            GalleryScreen(
                name="search", title="Search", path="/search",
                fields={screens.SEARCH_KEY: "快件"},
            ),
        )  # fmt: skip

    def on_back(self, ctx: AppContext) -> bool:
        """Close the menu or a dialog, leave selection mode; drop drafts when leaving."""
        params = ctx.route.params
        for transient in ("menu", "dialog", "selected"):
            if params.pop(transient, None):
                return True
        if ctx.route.path == "/thread":
            ctx.clear_fields(screens.COMPOSE_KEY)
        elif ctx.route.path == "/new":
            ctx.clear_fields(screens.TO_KEY)
        elif ctx.route.path == "/search":
            ctx.clear_fields(screens.SEARCH_KEY)
        return False

    # ---- the list
    @staticmethod
    def _selection(ctx: AppContext) -> list[int]:
        return int_list_param(ctx.route.params.get("selected"))

    def _open_thread(self, ctx: AppContext, thread: int, *, replace: bool = False) -> None:
        model.set_read(self.world, ctx.data, [thread], True)
        (ctx.replace if replace else ctx.navigate)("/thread", id=thread)

    @on("open")
    def open_thread(self, ctx: AppContext, event: Event) -> None:
        """Open a conversation (marking it read), or toggle it in selection mode."""
        thread = int(event.arg("id"))
        selected = self._selection(ctx)
        if ctx.route.path == "/" and selected:
            selected = [t for t in selected if t != thread] if thread in selected else [
                *selected, thread]  # fmt: skip
            ctx.route.params["selected"] = list[JsonValue](selected)
            if not selected:
                ctx.route.params.pop("selected")
            return
        self._open_thread(ctx, thread)

    @on("select")
    def select(self, ctx: AppContext, event: Event) -> None:
        """Long press: start selection mode with this conversation (or toggle it)."""
        thread = int(event.arg("id"))
        selected = self._selection(ctx)
        if thread not in selected:
            ctx.route.params["selected"] = [*selected, thread]

    @on("mark_read")
    def mark_read(self, ctx: AppContext, event: Event) -> None:
        """Mark the selected conversations read and leave selection mode."""
        model.set_read(self.world, ctx.data, self._selection(ctx), True)
        ctx.route.params.pop("selected", None)

    @on("mark_unread")
    def mark_unread(self, ctx: AppContext, event: Event) -> None:
        """Mark the selected conversations unread (their latest received message)."""
        model.set_read(self.world, ctx.data, self._selection(ctx), False)
        ctx.route.params.pop("selected", None)

    @on("delete")
    def delete(self, ctx: AppContext, event: Event) -> None:
        """Ask before deleting the selected conversations."""
        if self._selection(ctx):
            ctx.route.params["dialog"] = "delete"

    @on("delete_confirm")
    def delete_confirm(self, ctx: AppContext, event: Event) -> None:
        """Delete the selected conversations."""
        selected = self._selection(ctx)
        model.delete_threads(self.world, ctx.data, selected)
        for transient in ("dialog", "selected"):
            ctx.route.params.pop(transient, None)
        many = len(selected) > 1
        ctx.toast(ctx.t("toast_deleted_many", n=len(selected)) if many else ctx.t(
            "toast_deleted_one"))  # fmt: skip

    @on("dialog_cancel")
    def dialog_cancel(self, ctx: AppContext, event: Event) -> None:
        """Close the open dialog or menu."""
        ctx.route.params.pop("dialog", None)
        ctx.route.params.pop("menu", None)

    @on("menu")
    def menu(self, ctx: AppContext, event: Event) -> None:
        """Open the overflow menu."""
        ctx.route.params["menu"] = True

    @on("mark_all_read")
    def mark_all_read(self, ctx: AppContext, event: Event) -> None:
        """Mark every conversation read."""
        ctx.route.params.pop("menu", None)
        threads = [c["thread_id"] for c in model.conversations(self.world, ctx.data)]
        model.set_read(self.world, ctx.data, threads, True)
        ctx.toast(ctx.t("toast_marked_read"))

    @on("start_chat")
    def start_chat(self, ctx: AppContext, event: Event) -> None:
        """The FAB: pick a recipient, keyboard up."""
        ctx.navigate("/new")
        ctx.focus(screens.TO_KEY, submit="pick_typed")

    @on("open_search")
    def open_search(self, ctx: AppContext, event: Event) -> None:
        """Open search with the keyboard up."""
        ctx.navigate("/search")
        ctx.focus(screens.SEARCH_KEY, submit="search")

    @on("search")
    def search(self, ctx: AppContext, event: Event) -> None:
        """Enter in the search box: results already show, so just hide the keyboard."""
        ctx.state.ui.keyboard_visible = False

    # ---- a new conversation
    def _to(self, ctx: AppContext, address: str) -> None:
        ctx.clear_fields(screens.TO_KEY)
        key = model.recipient_key(address)
        for conversation in model.conversations(self.world, ctx.data):
            if model.recipient_key(conversation["address"]) == key:
                self._open_thread(ctx, conversation["thread_id"], replace=True)
                break
        else:
            ctx.replace("/thread", address=address)
        ctx.focus(screens.COMPOSE_KEY)

    @on("pick")
    def pick(self, ctx: AppContext, event: Event) -> None:
        """A suggested recipient: its conversation, or a new one."""
        self._to(ctx, event.arg("address"))

    @on("pick_typed")
    def pick_typed(self, ctx: AppContext, event: Event) -> None:
        """Enter in the recipient box: the typed number, else the first suggestion."""
        values = screens.new_values(ctx)
        if values["number"]:
            self._to(ctx, values["number"])
        elif values["rows"]:
            self._to(ctx, values["rows"][0]["number"])

    # ---- a thread
    @on("send")
    def send(self, ctx: AppContext, event: Event) -> None:
        """Send the typed text to the thread's recipient (nothing when it is blank)."""
        body = ctx.field(screens.COMPOSE_KEY).strip()
        thread, address = screens.thread_address(ctx)
        if not body or address is None:
            return
        values = {"address": address, "body": body, "type": model.TYPE_SENT, "read": 1,
                  "date": ctx.state.os.clock_ms}  # fmt: skip
        row_id = model.add_message(self.world, ctx.data, values)
        ctx.set_field(screens.COMPOSE_KEY, "")
        if thread is None:
            new = model.get_message(self.world, ctx.data, row_id)
            ctx.route.params.pop("address", None)
            ctx.route.params["id"] = new["thread_id"] if new else None

    @on("delete_thread")
    def delete_thread(self, ctx: AppContext, event: Event) -> None:
        """Ask before deleting this conversation."""
        ctx.route.params["dialog"] = "delete"

    @on("delete_thread_confirm")
    def delete_thread_confirm(self, ctx: AppContext, event: Event) -> None:
        """Delete this conversation and go back to the list."""
        ctx.route.params.pop("dialog", None)
        thread, _ = screens.thread_address(ctx)
        if thread is not None:
            model.delete_threads(self.world, ctx.data, [thread])
        ctx.clear_fields(screens.COMPOSE_KEY)
        ctx.toast(ctx.t("toast_deleted_one"))
        ctx.back()
