"""The Files app (``com.android.documentsui``, AOSP DocumentsUI) over the instance's
``/sdcard`` tree (:mod:`sim.storage`): what it shows is what ``adb shell ls`` shows.

Routes: ``/`` a folder (params ``dir``, ``root`` — where its breadcrumbs start —,
``selected`` node ids, ``dialog``, ``error``; ``category=images`` for the Images root),
``/roots`` the roots drawer, ``/pick`` the folder picker of Copy to / Move to (``op``,
``ids``, ``dir``), ``/view`` a text file opened (``id``; the text viewer a phone opens a
``.txt`` in). Actions (``data-action`` → handler, ``data-arg-*`` in brackets):

* folder: ``open[id]`` (a folder opens, a text file is viewed; in selection mode a tap
  toggles), ``select[id]``
  (long press), ``crumb[path]``, ``roots``, ``menu``, ``sort_dialog``, ``sort[order]``,
  ``new_folder``, ``create_ok``, ``select_all``, ``clear_selection``, ``rename``,
  ``rename_ok``, ``delete``, ``delete_ok``, ``info``, ``copy_to``, ``move_to``,
  ``dialog_cancel``;
* roots: ``root[id]`` (downloads, images, documents, storage);
* picker: ``pick_open[id]``, ``pick_crumb[path]``, ``pick_here``, ``pick_cancel``.

Back closes a dialog or the menu, then clears a selection, then goes up a folder (never
above the root the screen was opened at), then leaves the app.
"""

from __future__ import annotations

import posixpath

from pydantic import JsonValue

from sim import storage as sdcard
from sim.app import App, AppContext, Event, GalleryAction, GalleryScreen, Screen, on
from sim.apps.files import screens
from sim.apps.files.screens import DOWNLOADS, FIELD_KEY
from sim.apps.files.state import FilesState
from sim.state import int_list_param

__all__ = ["FilesApp"]

_ROOTS = {"downloads": DOWNLOADS, "documents": f"{sdcard.ROOT}/Documents", "storage": sdcard.ROOT}


def _selected(ctx: AppContext) -> list[int]:
    return int_list_param(ctx.route.params.get("selected"))


def _path(ctx: AppContext) -> str:
    return str(ctx.route.params.get("dir", DOWNLOADS))


def _name_error(ctx: AppContext, name: str, folder: str, keep: str | None = None) -> str | None:
    """Why ``name`` cannot be given in ``folder`` (None: it can)."""
    if not name.strip():
        return ctx.t("error_empty")
    if "/" in name or name in (".", ".."):
        return ctx.t("error_slash")
    if name != keep and sdcard.lookup(ctx.os.storage, f"{folder}/{name}") is not None:
        return ctx.t("error_exists", name=name)
    return None


def _free_name(ctx: AppContext, folder: str, name: str) -> str:
    """``name``, or ``stem (1).ext`` … when the folder has one (as DocumentsUI copies)."""
    stem, ext = posixpath.splitext(name)
    candidate, n = name, 0
    while sdcard.lookup(ctx.os.storage, f"{folder}/{candidate}") is not None:
        n += 1
        candidate = f"{stem} ({n}){ext}"
    return candidate


class FilesApp(App):
    """AOSP's Files (DocumentsUI); see the module docstring."""

    id = "files"
    overlay_model = FilesState
    SCREENS = {
        "/": Screen("folder.html", screens.folder_values),
        "/roots": Screen("roots.html", screens.roots_values),
        "/pick": Screen("picker.html", screens.picker_values, ".picker.PickActivity"),
        "/view": Screen("viewer.html", screens.viewer_values, ".viewer.TextViewActivity"),
    }

    def gallery_screens(self) -> tuple[GalleryScreen, ...]:
        """Downloads, a long folder, the roots, a text file viewed, selection with its menu,
        the dialogs (rename with an error, new folder, delete, sort, info), the move picker
        and an empty folder."""
        minutes = sdcard.lookup(sdcard.default_storage(), f"{DOWNLOADS}/会议纪要-0506.docx")
        photo = {"id": str(minutes.id if minutes else 0)}
        reading = sdcard.lookup(
            sdcard.default_storage(), f"{sdcard.ROOT}/Documents/Reading list.txt"
        )

        def folder(
            name: str, title: str, *actions: GalleryAction, **params: JsonValue
        ) -> GalleryScreen:
            return GalleryScreen(name=name, title=title, params=dict(params), actions=actions)

        pick = GalleryAction(action="select", args=photo)
        return (
            folder("downloads", "Downloads"),
            folder("camera", "Camera folder", dir=f"{sdcard.ROOT}/DCIM/Camera", root=sdcard.ROOT),
            GalleryScreen(name="roots", title="Roots", path="/roots"),
            GalleryScreen(
                name="viewer",
                title="Text viewer",
                path="/view",
                params={"id": reading.id if reading else 0},
            ),
            folder("images", "Images", category="images"),
            folder("selection", "Selection", pick),
            folder("menu", "Selection menu", pick, GalleryAction(action="menu")),
            folder("rename", "Rename dialog", pick, GalleryAction(action="rename")),
            folder(
                "name-error",
                "Name error",
                GalleryAction(action="new_folder"),
                GalleryAction(action="create_ok"),
            ),
            folder("new-folder", "New folder dialog", GalleryAction(action="new_folder")),
            folder("delete", "Delete dialog", pick, GalleryAction(action="delete")),
            folder("sort", "Sort dialog", GalleryAction(action="sort_dialog")),
            folder("info", "File info", pick, GalleryAction(action="info")),
            folder("move", "Move to picker", pick, GalleryAction(action="move_to")),
            folder("empty", "Empty folder", dir=f"{sdcard.ROOT}/Movies", root=sdcard.ROOT),
            folder(
                "nested",
                "Nested folder",
                dir=f"{sdcard.ROOT}/Documents/家庭",
                root=f"{sdcard.ROOT}/Documents",
            ),
        )

    def on_back(self, ctx: AppContext) -> bool:
        """A dialog, then the selection, then up a folder; at the root the app leaves."""
        params = ctx.route.params
        if ctx.route.path != "/":
            return False
        if params.pop("dialog", None) is not None:
            params.pop("error", None)
            ctx.focus(None)
            return True
        if params.get("selected"):
            params["selected"] = []
            return True
        path, root = _path(ctx), str(params.get("root", DOWNLOADS))
        if path != root and path.startswith(root + "/"):
            params["dir"] = posixpath.dirname(path)
            return True
        return False

    # ---- browsing
    @on("open")
    def open(self, ctx: AppContext, event: Event) -> None:
        """Open a folder, or view a text file; in selection mode toggle the item instead."""
        node_id = int(event.arg("id"))
        if _selected(ctx):
            self._toggle(ctx, node_id)
            return
        node = ctx.os.storage.nodes.get(node_id)
        if node is not None and node.kind == "dir":
            ctx.route.params["dir"] = sdcard.path_of(ctx.os.storage, node)
        elif node is not None and screens.viewable(node):
            ctx.navigate("/view", id=node_id)

    @on("crumb")
    def crumb(self, ctx: AppContext, event: Event) -> None:
        """A breadcrumb: that folder."""
        ctx.route.params.update(dir=event.arg("path"), selected=[])

    @on("roots")
    def roots(self, ctx: AppContext, event: Event) -> None:
        """The roots drawer."""
        ctx.navigate("/roots")

    @on("root")
    def root(self, ctx: AppContext, event: Event) -> None:
        """A root: its folder (or the Images category) replaces the screen below."""
        which = event.arg("root")
        ctx.back()
        if which == "images":
            ctx.replace("/", category="images")
        else:
            ctx.replace("/", dir=_ROOTS[which], root=_ROOTS[which])

    @on("menu")
    def menu(self, ctx: AppContext, event: Event) -> None:
        """The overflow menu."""
        ctx.route.params["dialog"] = "menu"

    @on("dialog_cancel")
    def dialog_cancel(self, ctx: AppContext, event: Event) -> None:
        """Close a dialog or the menu."""
        ctx.route.params.pop("dialog", None)
        ctx.route.params.pop("error", None)
        ctx.focus(None)

    @on("sort_dialog")
    def sort_dialog(self, ctx: AppContext, event: Event) -> None:
        """The Sort by dialog."""
        ctx.route.params["dialog"] = "sort"

    @on("sort")
    def sort(self, ctx: AppContext, event: Event) -> None:
        """Pick a sort order (kept for every folder)."""
        if event.arg("order") in screens.SORTS:
            ctx.data["sort"] = event.arg("order")
        ctx.route.params.pop("dialog", None)

    # ---- selection
    def _toggle(self, ctx: AppContext, node_id: int) -> None:
        chosen = _selected(ctx)
        ctx.route.params["selected"] = (
            [i for i in chosen if i != node_id] if node_id in chosen else [*chosen, node_id]
        )

    @on("select")
    def select(self, ctx: AppContext, event: Event) -> None:
        """Long press: select the item (or unselect it)."""
        self._toggle(ctx, int(event.arg("id")))

    @on("select_all")
    def select_all(self, ctx: AppContext, event: Event) -> None:
        """Select every item of the folder."""
        ctx.route.params.pop("dialog", None)
        ctx.route.params["selected"] = [n.id for n in screens.entries(ctx, _path(ctx))]

    @on("clear_selection")
    def clear_selection(self, ctx: AppContext, event: Event) -> None:
        """Leave selection mode."""
        ctx.route.params["selected"] = []

    # ---- dialogs over the selection or the folder
    def _name_dialog(self, ctx: AppContext, dialog: str, value: str, submit: str) -> None:
        ctx.route.params.update(dialog=dialog)
        ctx.route.params.pop("error", None)
        ctx.set_field(FIELD_KEY, value)
        ctx.focus(FIELD_KEY, submit=submit)

    @on("new_folder")
    def new_folder(self, ctx: AppContext, event: Event) -> None:
        """The New folder dialog."""
        self._name_dialog(ctx, "mkdir", "", "create_ok")

    @on("create_ok")
    def create_ok(self, ctx: AppContext, event: Event) -> None:
        """Create the folder, or say why the name cannot be used."""
        name, folder = ctx.field(FIELD_KEY).strip(), _path(ctx)
        error = _name_error(ctx, name, folder)
        if error is not None:
            ctx.route.params["error"] = error
            return
        sdcard.make_dir(ctx.os.storage, f"{folder}/{name}", ctx.os.clock_ms)
        self._close(ctx)

    @on("rename")
    def rename(self, ctx: AppContext, event: Event) -> None:
        """The Rename dialog over the one selected item."""
        chosen = _selected(ctx)
        node = ctx.os.storage.nodes.get(chosen[0]) if len(chosen) == 1 else None
        if node is not None:
            self._name_dialog(ctx, "rename", node.name, "rename_ok")

    @on("rename_ok")
    def rename_ok(self, ctx: AppContext, event: Event) -> None:
        """Rename (the file keeps its inode), or say why the name cannot be used."""
        chosen = _selected(ctx)
        node = ctx.os.storage.nodes.get(chosen[0]) if chosen else None
        if node is None:
            return
        name, folder = ctx.field(FIELD_KEY).strip(), _path(ctx)
        folder = posixpath.dirname(sdcard.path_of(ctx.os.storage, node))
        error = _name_error(ctx, name, folder, keep=node.name)
        if error is not None:
            ctx.route.params["error"] = error
            return
        if name != node.name:
            source = sdcard.path_of(ctx.os.storage, node)
            sdcard.move(ctx.os.storage, source, f"{folder}/{name}", ctx.os.clock_ms)
        self._close(ctx)

    def _close(self, ctx: AppContext) -> None:
        for key in ("dialog", "error"):
            ctx.route.params.pop(key, None)
        ctx.route.params["selected"] = []
        ctx.clear_fields(FIELD_KEY)
        ctx.focus(None)

    @on("delete")
    def delete(self, ctx: AppContext, event: Event) -> None:
        """Ask before deleting the selection."""
        if _selected(ctx):
            ctx.route.params["dialog"] = "delete"

    @on("delete_ok")
    def delete_ok(self, ctx: AppContext, event: Event) -> None:
        """Delete the selected items (folders with everything in them)."""
        tree, chosen = ctx.os.storage, _selected(ctx)
        for node_id in chosen:
            if node_id in tree.nodes:
                sdcard.remove(tree, sdcard.path_of(tree, tree.node(node_id)), recursive=True)
        self._close(ctx)
        ctx.toast(ctx.t("toast_deleted", count=len(chosen)))

    @on("info")
    def info(self, ctx: AppContext, event: Event) -> None:
        """The details of the one selected item."""
        if len(_selected(ctx)) == 1:
            ctx.route.params["dialog"] = "info"

    # ---- copy to / move to
    @on("copy_to")
    def copy_to(self, ctx: AppContext, event: Event) -> None:
        """Pick a folder to copy the selection to."""
        self._pick(ctx, "copy")

    @on("move_to")
    def move_to(self, ctx: AppContext, event: Event) -> None:
        """Pick a folder to move the selection to."""
        self._pick(ctx, "move")

    def _pick(self, ctx: AppContext, op: str) -> None:
        chosen = _selected(ctx)
        if not chosen:
            return
        ctx.route.params.pop("dialog", None)
        root = str(ctx.route.params.get("root", DOWNLOADS))
        ctx.navigate("/pick", op=op, ids=chosen, dir=_path(ctx), root=root)

    @on("pick_open")
    def pick_open(self, ctx: AppContext, event: Event) -> None:
        """Browse into a folder in the picker."""
        node = ctx.os.storage.nodes.get(int(event.arg("id")))
        if node is not None and node.kind == "dir":
            ctx.route.params["dir"] = sdcard.path_of(ctx.os.storage, node)

    @on("pick_crumb")
    def pick_crumb(self, ctx: AppContext, event: Event) -> None:
        """A breadcrumb of the picker."""
        ctx.route.params["dir"] = event.arg("path")

    @on("pick_cancel")
    def pick_cancel(self, ctx: AppContext, event: Event) -> None:
        """Leave the picker, the selection kept."""
        ctx.back()

    @on("pick_here")
    def pick_here(self, ctx: AppContext, event: Event) -> None:
        """Copy or move the selection into the folder shown, then back to the folder."""
        params, tree = ctx.route.params, ctx.os.storage
        target, op = str(params["dir"]), str(params["op"])
        ids = [i for i in int_list_param(params.get("ids")) if i in tree.nodes]
        sources = [sdcard.path_of(tree, tree.node(i)) for i in ids]
        if any(target == s or target.startswith(s + "/") for s in sources):
            ctx.toast(ctx.t("toast_into_itself"))
            return
        if op == "move" and all(posixpath.dirname(s) == target for s in sources):
            ctx.toast(ctx.t("toast_same_folder"))
            return
        for source in sources:
            name = _free_name(ctx, target, posixpath.basename(source))
            if op == "copy":
                sdcard.copy(tree, source, f"{target}/{name}", ctx.os.clock_ms, recursive=True)
            else:
                sdcard.move(tree, source, f"{target}/{name}", ctx.os.clock_ms)
        ctx.back()
        ctx.route.params["selected"] = []
        key = "toast_copied" if op == "copy" else "toast_moved"
        ctx.toast(ctx.t(key, count=len(sources)))
