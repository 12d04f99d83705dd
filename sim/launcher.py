"""The home screen's layout, as pure functions of the installed apps: workspace pages of a
fixed grid, and the all-apps drawer (A–Z, searchable).

Everything here takes a list of :class:`LauncherEntry` (an app's id, its label in the UI
language, icon, colour and the other names it answers to), so a test can lay out any number
of made-up apps without a phone, a browser or ``bridge/apps.json``.

* **Workspace.** Every page is one :class:`Grid` (chosen from the screen size by
  :func:`grid_for_screen`: 4 x 5 on a 1080x2400 phone); apps fill it row by row in
  installation order (``bridge/apps.json`` order), page after page. Page 1 also holds the
  clock widget, in a band above the grid that later pages leave empty, so an icon's cell is
  the same on every page.
* **Drawer.** Every launcher app, A–Z by its label: Latin labels by their letters ignoring
  case and accents, Chinese ones by pinyin among them, anything else after ``Z``. A query
  keeps the apps whose label or other names match (:func:`matches`), in the same order.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sim.app import App
from sim.collation import fold, is_han, letter_order, pinyin_matches, syllables

__all__ = [
    "APP_COLORS",
    "DEFAULT_GRID",
    "Grid",
    "LauncherEntry",
    "LauncherView",
    "collation_key",
    "drawer_apps",
    "grid_for_screen",
    "launcher_entries",
    "launcher_view",
    "matches",
    "page_count",
    "page_of",
    "workspace_pages",
]

APP_COLORS = ("#3b7dd8", "#2e9e6a", "#d9822b", "#8e5bd0", "#d04a5b", "#2a9bb0", "#6b7a8f")
"""Icon backgrounds, given out in installation order."""

# The launcher's geometry in dp (CSS pixels), as sim/static/phone.css draws it.
_BARS_DP = 28 + 44
"""Status bar and navigation bar."""
_BAND_DP = 155
"""The band above the grid that holds the clock widget on page 1."""
_INDICATOR_DP = 36
"""The page indicator under the grid."""
_CELL_DP = (90, 95)
"""An icon cell's width, and its height with the gap to the next row."""


@dataclass(frozen=True)
class Grid:
    """The workspace grid: icon columns and rows of every page."""

    columns: int
    rows: int

    @property
    def per_page(self) -> int:
        """Icons on one page."""
        return self.columns * self.rows


def grid_for_screen(width_dp: float, height_dp: float) -> Grid:
    """The grid for a screen of ``width_dp`` x ``height_dp``: 4 columns below 400 dp of
    width, else 5 (as Launcher3's device profiles do), and as many rows as fit between the
    clock band and the page indicator, 3 to 6."""
    columns = 4 if width_dp < 400 else 5
    free = height_dp - _BARS_DP - _BAND_DP - _INDICATOR_DP
    rows = min(6, max(3, math.floor(free / _CELL_DP[1])))
    return Grid(columns=columns, rows=rows)


DEFAULT_GRID = grid_for_screen(360, 800)
"""The grid of the default screen (1080x2400 at 480 dpi: 360x800 dp): 4 x 5."""


@dataclass(frozen=True)
class LauncherEntry:
    """One app as the launcher shows it."""

    id: str
    label: str
    """The name under the icon, in the UI language."""
    color: str = APP_COLORS[0]
    icon: str = ""
    """The icon's SVG markup (trusted: it comes from the app's package)."""
    aliases: tuple[str, ...] = ()
    """Other names the drawer's search finds it by (other languages' names, aliases)."""


def launcher_entries(apps: Iterable[App], lang: str) -> list[LauncherEntry]:
    """The entries of the installed ``apps`` (installation order) in ``lang``; an app with a
    true ``hidden`` attribute has none, but still uses up its colour."""
    entries = []
    for index, app in enumerate(apps):
        if getattr(app, "hidden", False):
            continue
        identity = app.identity
        label = app.label(lang)
        names = [*identity.names.values(), *identity.aliases]
        entries.append(
            LauncherEntry(
                id=app.id,
                label=label,
                color=APP_COLORS[index % len(APP_COLORS)],
                icon=app.icon_svg(),
                aliases=tuple(dict.fromkeys(n for n in names if n != label)),
            )
        )
    return entries


# ---- workspace


def page_count(apps: int, grid: Grid) -> int:
    """How many pages ``apps`` icons take (one at least: page 1 holds the clock)."""
    return max(1, math.ceil(apps / grid.per_page))


def workspace_pages(entries: Sequence[LauncherEntry], grid: Grid) -> list[list[LauncherEntry]]:
    """The icons of each page, row by row, in the order given."""
    size = grid.per_page
    return [list(entries[start : start + size]) for start in range(0, len(entries), size)] or [[]]


def page_of(entries: Sequence[LauncherEntry], grid: Grid, app_id: str) -> int:
    """The page (0-based) that shows ``app_id``; ``KeyError`` if no entry has that id."""
    for index, entry in enumerate(entries):
        if entry.id == app_id:
            return index // grid.per_page
    raise KeyError(f"no launcher entry {app_id!r}")


# ---- drawer: order and search


def _fold(text: str) -> str:
    """Case- and accent-free, single-spaced."""
    return " ".join(fold(text).split())


def collation_key(label: str) -> tuple[int, str, str]:
    """The drawer's order: labels starting with a letter A–Z (Chinese by pinyin among
    Latin), then the rest; ties by the label itself (:func:`sim.collation.letter_order`)."""
    return letter_order(" ".join(syllables(label)), label)


def _words(name: str) -> list[str]:
    """``name`` cut into folded words at spaces, punctuation and lower-to-upper case
    changes (``AnswerSheet`` is answer, sheet)."""
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name)
    return [word for word in re.split(r"[\W_]+", _fold(spaced)) if word]


def _name_matches(name: str, query: str) -> bool:
    """A Chinese query anywhere in the name; any other from the start of a word of it,
    spaces between its words or not (``answer sh``, ``answersh``, ``sheet``)."""
    if any(map(is_han, query)):
        return query in _fold(name)
    words = _words(name)
    compact = query.replace(" ", "")
    return any(
        " ".join(words[i:]).startswith(query) or "".join(words[i:]).startswith(compact)
        for i in range(len(words))
    )


def matches(entry: LauncherEntry, query: str) -> bool:
    """Whether the drawer's search for ``query`` finds ``entry``: by its label (a Chinese
    one by pinyin too) or by an alias; an empty query finds everything."""
    folded = _fold(query)
    if not folded:
        return True
    names = (entry.label, *entry.aliases)
    return any(_name_matches(n, folded) for n in names) or pinyin_matches(
        entry.label, folded.replace(" ", "")
    )


def drawer_apps(entries: Iterable[LauncherEntry], query: str = "") -> list[LauncherEntry]:
    """The drawer's apps for ``query``: the matching entries, A–Z."""
    found = [entry for entry in entries if matches(entry, query)]
    return sorted(found, key=lambda entry: (collation_key(entry.label), entry.id))


# ---- what the launcher shows


@dataclass(frozen=True)
class LauncherView:
    """What the home screen shows for one state: a workspace page, or the drawer."""

    grid: Grid
    page: int
    """The page shown (0-based), within ``page_count``."""
    page_count: int
    page_apps: list[LauncherEntry]
    drawer_open: bool
    query: str
    drawer_apps: list[LauncherEntry]
    """Empty when the drawer is closed."""
    dock: list[LauncherEntry]
    """The first row of page 1. A skin with a dock (HyperOS's hotseat) draws it there, on
    every page, and page 1's grid without it: the pages and what each holds stay the same."""


def launcher_view(
    entries: Sequence[LauncherEntry], grid: Grid, page: int, drawer_open: bool, query: str = ""
) -> LauncherView:
    """The view of ``entries`` on ``page`` (clamped to the pages there are), with the
    drawer open or not, filtered by ``query``."""
    pages = workspace_pages(entries, grid)
    shown = min(max(page, 0), len(pages) - 1)
    return LauncherView(
        grid=grid,
        page=shown,
        page_count=len(pages),
        page_apps=pages[shown],
        drawer_open=drawer_open,
        query=query,
        drawer_apps=drawer_apps(entries, query) if drawer_open else [],
        dock=pages[0][: grid.columns],
    )
