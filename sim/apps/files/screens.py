"""What the Files screens show: a folder's entries sorted as chosen, sizes and dates as
DocumentsUI prints them, breadcrumbs, and the values each template renders."""

from __future__ import annotations

import posixpath
from typing import Any

from sim import storage as sdcard
from sim.app import AppContext
from sim.state import int_list_param
from sim.storage import Node

__all__ = [
    "DOWNLOADS",
    "FIELD_KEY",
    "IMAGE_EXTENSIONS",
    "SORTS",
    "crumbs",
    "entries",
    "file_size",
    "folder_values",
    "modified",
    "picker_values",
    "roots_values",
    "sort_key",
    "viewable",
    "viewer_values",
]

DOWNLOADS = f"{sdcard.ROOT}/Download"
"""Where the app opens (DocumentsUI's Downloads root)."""
FIELD_KEY = "files.name"
"""The field of the rename and new-folder dialogs."""
SORTS = ("name_asc", "name_desc", "date_desc", "date_asc", "size_desc", "size_asc")
"""The sort orders of the Sort by dialog, in its order."""
IMAGE_EXTENSIONS = (".jpg", ".jpeg", ".png", ".gif", ".webp", ".heic")
TEXT_EXTENSIONS = (".txt", ".md", ".csv", ".log")
"""Files a tap opens in the text viewer (others need an app the phone may not have)."""


def sort_key(ctx: AppContext) -> str:
    """The chosen sort order (kept by the app, as DocumentsUI keeps it)."""
    chosen = ctx.data.get("sort", "name_asc")
    return chosen if chosen in SORTS else "name_asc"


def _ordered(nodes: list[Node], sort: str) -> list[Node]:
    field, direction = sort.split("_")
    by_name = sorted(nodes, key=lambda n: (n.name.casefold(), n.name))
    if field == "name":
        ordered = by_name if direction == "asc" else list(reversed(by_name))
    else:
        attribute = "mtime_ms" if field == "date" else "size"
        ordered = sorted(by_name, key=lambda n: getattr(n, attribute), reverse=direction == "desc")
    if field == "size":
        return ordered  # folders have no size: among the files by name
    return [n for n in ordered if n.kind == "dir"] + [n for n in ordered if n.kind != "dir"]


def entries(ctx: AppContext, path: str) -> list[Node]:
    """The entries of the folder ``path`` in the chosen order, folders first (hidden files,
    whose names start with a dot, are not shown)."""
    node = sdcard.lookup(ctx.os.storage, path)
    if node is None or node.kind != "dir":
        return []
    shown = [n for n in sdcard.children(ctx.os.storage, node.id) if not n.name.startswith(".")]
    return _ordered(shown, sort_key(ctx))


def file_size(size: int) -> str:
    """Android's ``Formatter.formatShortFileSize``: ``340 B``, ``1.2 kB``, ``3.3 MB``."""
    if size < 1000:
        return f"{size} B"
    value, unit = float(size) / 1000, "kB"
    for bigger in ("MB", "GB"):
        if value < 999.5:
            break
        value, unit = value / 1000, bigger
    return f"{value:.0f} {unit}" if value >= 100 else f"{value:.1f} {unit}".replace(".0 ", " ")


def modified(ctx: AppContext, mtime_ms: int) -> str:
    """A modification time as the list shows it: the time today, else the day (and the
    year when it is not this one)."""
    moment, now = ctx.os.local_time(mtime_ms), ctx.now()
    if moment.date() == now.date():
        return moment.strftime("%H:%M")
    month = ctx.t("months").split(",")[moment.month - 1]
    if moment.year == now.year:
        return ctx.t("date_month", month=month, day=moment.day)
    return ctx.t("date_year", month=month, day=moment.day, year=moment.year)


def _title(ctx: AppContext, path: str) -> str:
    if path == sdcard.ROOT:
        return ctx.t("root_storage")
    if path == DOWNLOADS:
        return ctx.t("root_downloads")
    if path == f"{sdcard.ROOT}/Documents":
        return ctx.t("root_documents")
    return posixpath.basename(path)


def crumbs(ctx: AppContext, path: str, root: str) -> list[dict[str, str]]:
    """The breadcrumbs from the root the screen was opened at down to ``path``."""
    trail = [{"label": _title(ctx, root), "path": root}]
    if path != root and path.startswith(root + "/"):
        current = root
        for part in path[len(root) + 1 :].split("/"):
            current = f"{current}/{part}"
            trail.append({"label": part, "path": current})
    return trail


def _row(ctx: AppContext, node: Node, selected: list[int]) -> dict[str, Any]:
    if node.kind == "dir":
        count = len(sdcard.children(ctx.os.storage, node.id))
        summary = ctx.t("folder_summary", count=count, date=modified(ctx, node.mtime_ms))
    else:
        summary = ctx.t(
            "file_summary", size=file_size(node.size), date=modified(ctx, node.mtime_ms)
        )
    return {
        "id": node.id,
        "name": node.name,
        "summary": summary,
        "dir": node.kind == "dir",
        "selected": node.id in selected,
    }


def _type(ctx: AppContext, node: Node) -> str:
    if node.kind == "dir":
        return ctx.t("type_folder")
    ext = posixpath.splitext(node.name)[1].lstrip(".")
    return ctx.t("type_file", ext=ext.upper()) if ext else ctx.t("type_unknown")


def _info(ctx: AppContext, node: Node) -> list[dict[str, str]]:
    size = (
        ctx.t("info_items", count=len(sdcard.children(ctx.os.storage, node.id)))
        if node.kind == "dir"
        else f"{file_size(node.size)} ({node.size} B)"
    )
    moment = ctx.os.local_time(node.mtime_ms).strftime("%Y-%m-%d %H:%M")
    parent = posixpath.dirname(sdcard.path_of(ctx.os.storage, node))
    return [
        {"label": ctx.t("info_name"), "value": node.name, "rid": "info_name"},
        {"label": ctx.t("info_type"), "value": _type(ctx, node), "rid": "info_type"},
        {"label": ctx.t("info_size"), "value": size, "rid": "info_size"},
        {"label": ctx.t("info_modified"), "value": moment, "rid": "info_modified"},
        {"label": ctx.t("info_path"), "value": parent, "rid": "info_path"},
    ]


def _images(ctx: AppContext) -> list[Node]:
    tree = ctx.os.storage
    found = [
        n
        for n in sdcard.walk(tree, tree.node(1))
        if n.kind == "file" and n.name.lower().endswith(IMAGE_EXTENSIONS)
    ]
    return sorted(found, key=lambda n: -n.mtime_ms)


def folder_values(ctx: AppContext) -> dict[str, Any]:
    """Values of ``folder.html``: the folder (or the Images category) and what is open."""
    params = ctx.route.params
    path, root = str(params.get("dir", DOWNLOADS)), str(params.get("root", DOWNLOADS))
    selected = int_list_param(params.get("selected"))
    images = params.get("category") == "images"
    nodes = _images(ctx) if images else entries(ctx, path)
    dialog = params.get("dialog")
    values: dict[str, Any] = {
        "title": ctx.t("root_images") if images else _title(ctx, path),
        "crumbs": [] if images else crumbs(ctx, path, root),
        "rows": [_row(ctx, node, selected) for node in nodes],
        "selected": selected,
        "dialog": dialog,
        "sort": sort_key(ctx),
        "sorts": SORTS,
        "scroll_key": f"files.list?{'images' if images else path}",
        "images": images,
        "error": params.get("error"),
        "field_key": FIELD_KEY,
        "field": ctx.field(FIELD_KEY),
        "focused": ctx.state.ui.focus == FIELD_KEY,
    }
    picked = [ctx.os.storage.nodes[i] for i in selected if i in ctx.os.storage.nodes]
    if dialog == "info" and picked:
        values["info"] = _info(ctx, picked[0])
    if dialog == "delete":
        values["delete_message"] = (
            ctx.t("delete_one", name=picked[0].name)
            if len(picked) == 1
            else ctx.t("delete_many", count=len(picked))
        )
    return values


def picker_values(ctx: AppContext) -> dict[str, Any]:
    """Values of ``picker.html``: the folder being browsed for a copy or a move."""
    params = ctx.route.params
    path, root = str(params["dir"]), str(params.get("root", DOWNLOADS))
    rows = [
        {"id": n.id, "name": n.name, "dir": n.kind == "dir", "summary": modified(ctx, n.mtime_ms)}
        for n in entries(ctx, path)
    ]
    copying = params.get("op") == "copy"
    return {
        "title": ctx.t("copy_title" if copying else "move_title"),
        "here": ctx.t("copy_here" if copying else "move_here"),
        "crumbs": crumbs(ctx, path, root),
        "rows": rows,
        "scroll_key": f"files.pick?{path}",
    }


def roots_values(ctx: AppContext) -> dict[str, Any]:
    """Values of ``roots.html``: the roots DocumentsUI's drawer lists."""
    return {
        "roots": [
            {
                "id": "downloads",
                "label": ctx.t("root_downloads"),
                "icon": "filter",
                "summary": None,
            },
            {"id": "images", "label": ctx.t("root_images"), "icon": "square", "summary": None},
            {"id": "documents", "label": ctx.t("root_documents"), "icon": "sheet", "summary": None},
            {
                "id": "storage",
                "label": ctx.t("root_storage"),
                "icon": "phone",
                "summary": ctx.t("root_summary_storage", free="87.3 GB"),
            },
        ]
    }


def viewable(node: Node) -> bool:
    """Whether a tap opens ``node`` in the text viewer: a text file whose text is kept."""
    return (
        node.kind == "file"
        and node.name.lower().endswith(TEXT_EXTENSIONS)
        and sdcard.content(node) is not None
    )


def viewer_values(ctx: AppContext) -> dict[str, Any]:
    """Values of ``viewer.html``: the opened file's name, its size and date (as its row in
    the folder says them) and its text."""
    node = ctx.os.storage.nodes.get(int(str(ctx.route.params.get("id", 0))))
    data = sdcard.content(node) if node is not None else None
    summary = ""
    if node is not None:
        date = modified(ctx, node.mtime_ms)
        summary = ctx.t("file_summary", size=file_size(node.size), date=date)
    return {
        "title": node.name if node is not None else "",
        "summary": summary,
        "text": (data or b"").decode("utf-8", errors="replace"),
        "scroll_key": f"files.view?{ctx.route.params.get('id')}",
    }
