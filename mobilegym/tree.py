"""A UI tree for a MobileGym page, derived from its DOM in uiautomator's shape.

MobileGym has no UI tree of its own (its agents see screenshots only), so this is our
reading of the page: ``mobilegym/tree.js`` walks the DOM once in the page and returns one
JSON string; :func:`nodes_from_json` turns it into :class:`~bridge.schema.UINode`s. The env
marks such an observation as derived from the page; nothing here does.

**What a node says.**

- ``text``: the visible text (``innerText``) of an element with text of its own; the
  elements inside it add no text nodes. An input's value (bullets for a password).
- ``content_desc``: ``aria-label``, ``title``, an image's ``alt``, an SVG's ``<title>``;
  a button whose only child is such an icon takes its description. A clickable or
  long-clickable node that nothing names (no text, description or hint in it or below it:
  MobileGym's icon-only buttons) is named by its icon, the first one inside it that is laid
  out: a name the icon has (the attributes above), else the icon's own name, from an icon
  library's class (lucide's ``lucide-arrow-left``: "arrow left") or from the file its picture
  is drawn from (an ``<img>``'s ``src``, a CSS mask or background image:
  ``miuix_action_icon_back_light``). Only controls are named so: a picture that does nothing
  adds no node. What stays unnamed has no name in the page at all (icons drawn as bare SVG
  paths: Sms's send button, the keyboard's shift and delete keys; switches drawn as a track
  and a thumb).
- ``hint``: ``placeholder``. ``resource_id``: the element's ``id`` or ``data-trigger``
  (MobileGym's navigation ids), qualified as ``<package>:id/<name>`` as Android does.
- ``class_name``: EditText (inputs, textareas, contenteditable), CheckBox / RadioButton,
  Switch, Spinner (``select``), SeekBar (range), ImageView (``img``, ``svg``, ``canvas``,
  ``video``, ``role=img``), Button (``button``, ``a[href]``, ``role=button|link``;
  ImageButton when it shows no text), ScrollView / HorizontalScrollView, TextView,
  ViewGroup (a node with children), View; the root is a FrameLayout of the whole screen.

**Clickable** from React's own props (React 19 keeps them on the DOM property
``__reactProps$…``, not in attributes): ``onClick`` / ``onDoubleClick``; ``onPointerUp``,
``onTouchEnd`` or ``onMouseUp`` unless the element is a gesture surface (it also handles
move, wheel or scroll events, or sets ``touch-action``: the status-bar pull-down, the
gesture bar, the calendar's swipe area); ``onChange`` on an input. Also inputs, ``select``,
``a[href]``, a ``label`` of a control, ``role=tab|menuitem|option|switch|checkbox|radio|
link|button``, and MobileGym's ``data-trigger-type`` (``tap``, ``doubleTap``, ``back``). A
``button`` is clickable only when something answers it (its own handler, an ancestor's, or
a form it submits): MobileGym has dead ones (Clock's "more" button, ``onClick:
undefined``) that a tap does not move. **Long-clickable**: ``onContextMenu``,
``data-trigger-type=longPress``, or a press timer (``onPointerDown`` with
``onPointerLeave`` and no move handler: MobileGym's list rows). Nothing with
``pointer-events: none`` is either.

**Checked.** Inputs, ``role=switch|checkbox|radio`` with ``aria-checked``, ``aria-pressed``,
a ``label`` of a checkbox. MobileGym's own switches (Settings' preference rows, Clock's
alarms, Calendar, Sms, Contacts, Weather) carry no attribute at all: a pill-shaped track
(rounded, 1.4–2.8 times as wide as high) whose only child is a round thumb, moved to the
right when on (``justify-end`` or ``translate-x-5``). We read the geometry: checked when the
thumb's centre is right of the track's. In Settings the row is the clickable node and the
Switch inside it is checkable but not clickable, as in Android's Settings.

**Visible only.** Skipped: ``display: none`` (MobileGym keeps background apps mounted and
hides them so), ``opacity: 0`` subtrees, ``visibility: hidden`` elements, a zero ``clip``,
boxes under half a CSS pixel a side once clipped to the screen and to every clipping
ancestor (``overflow`` other than ``visible``; an absolute element escapes the overflow
between it and its containing block, a fixed one all but a transformed ancestor's).
Bounds are that visible part, in device pixels.

**Covered.** Hit tests at a node's centre and four inset corners (``elementsFromPoint``),
run only for nodes that a layer of another branch overlaps (an element out of flow, moved or
z-ordered, or inside one, that paints or handles pointer events), so the check stays cheap:

- *painted over* at every point (a background, an image or a backdrop filter of another
  branch lies above it, in no transparent subtree): it is no node of its own (what it holds
  that is seen stays). A scrim covers the page under a sheet; a transparent strip does not.
- *missed* at every point (the topmost element, which a tap goes to and bubbles up from, is
  outside the node): it is seen but not clickable. MobileGym's transparent gesture bar lies
  over the bottom 16 CSS px of every app, so a list row peeking out there is text at most.

**Compact.** An element is a node when it says something (text, description) or does
something (clickable, long-clickable, scrollable, editable, checkable), or holds two or more
nodes; otherwise its nodes go to its parent. A container that is a node's only child gives
it its children. A button whose children are plain text becomes one Button with that text,
as Android draws one; a clickable row keeps its TextView children (a LinearLayout on a
phone: the row is what a tap targets). Document order, so the same page gives the same tree.

Measured on a 2-core machine shared with other work (load 2–4): one call takes 17–25 ms
(median of 15) on the launcher and MobileGym's Settings, Contacts, Clock, Calendar, Sms and
FileManager home screens (29–150 nodes), 8–16 ms of it in the page; the rest is the round
trip and building the models. ``benchmarks/mobilegym_tree_taps.py`` taps every clickable
node of those screens.
"""

from __future__ import annotations

import functools
import math
from importlib import resources

from pydantic import BaseModel, ConfigDict, ValidationError

from bridge.schema import UINode
from mobilegym.errors import MobileGymFailed
from mobilegym.page import MobileGymPage

__all__ = ["derived_tree", "nodes_from_json"]


class _RawNode(BaseModel):
    """One node as ``tree.js`` writes it: ``rect`` is in CSS pixels, already clipped."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: int
    parent: int | None
    index: int
    class_name: str
    text: str
    content_desc: str
    resource_id: str
    hint: str
    package: str
    checkable: bool
    checked: bool
    clickable: bool
    long_clickable: bool
    editable: bool
    focusable: bool
    focused: bool
    scrollable: bool
    enabled: bool
    selected: bool
    password: bool
    rect: tuple[float, float, float, float]


class _RawTree(BaseModel):
    """What ``tree.js`` returns: the page's pixel ratio, its viewport and the nodes."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    dpr: float
    viewport: tuple[float, float]
    nodes: list[_RawNode]


@functools.cache
def _script() -> str:
    return resources.files("mobilegym").joinpath("tree.js").read_text("utf-8")


async def derived_tree(page: MobileGymPage, package: str) -> list[UINode]:
    """The UI tree ``page`` shows now, derived from its DOM (see the module doc).

    Args:
        page: A loaded MobileGym page (settle it first: the tree is what is laid out now).
        package: The package every node carries (the app in front, or the launcher's).

    Raises:
        MobileGymFailed: the page could not be read or gave something that is no tree.
    """
    raw = await page.call(_script(), package)
    if not isinstance(raw, str):
        raise MobileGymFailed(f"the tree script returned {type(raw).__name__}, not JSON text")
    return nodes_from_json(raw)


def nodes_from_json(raw: str) -> list[UINode]:
    """:class:`UINode`s from ``tree.js``'s JSON: CSS pixels scaled by the page's pixel
    ratio, rounded half up and clipped to the screen; ids in document order, parents first.

    Raises:
        MobileGymFailed: not JSON of the expected shape, or ids and parents out of order.
    """
    try:
        tree = _RawTree.model_validate_json(raw)
    except ValidationError as exc:
        raise MobileGymFailed(f"the page's tree is malformed: {_first_line(exc)}") from exc
    screen = (_device(tree.viewport[0], tree.dpr), _device(tree.viewport[1], tree.dpr))
    for position, node in enumerate(tree.nodes):
        _check_order(position, node)
    return [_node(node, tree.dpr, screen) for node in tree.nodes]


def _check_order(position: int, node: _RawNode) -> None:
    if node.id != position:
        raise MobileGymFailed(f"the page's tree has node id {node.id} at position {position}")
    if (node.parent is None) != (position == 0):
        raise MobileGymFailed(f"the page's tree has {node.parent} as the parent of {node.id}")
    if node.parent is not None and not 0 <= node.parent < node.id:
        raise MobileGymFailed(f"node {node.id}'s parent {node.parent} is not an earlier node")


def _device(css: float, dpr: float) -> int:
    """CSS pixels to device pixels, rounded half up (as ``Math.round`` in the page)."""
    return math.floor(css * dpr + 0.5)


def _bounds(
    rect: tuple[float, float, float, float], dpr: float, screen: tuple[int, int]
) -> tuple[int, int, int, int]:
    width, height = screen
    left, top, right, bottom = (_device(v, dpr) for v in rect)
    return (
        min(max(left, 0), width),
        min(max(top, 0), height),
        min(max(right, 0), width),
        min(max(bottom, 0), height),
    )


def _node(raw: _RawNode, dpr: float, screen: tuple[int, int]) -> UINode:
    fields = dict(vars(raw))  # the validated fields, without model_dump's cost (4x here)
    rect = fields.pop("rect")
    return UINode(**fields, bounds_px=_bounds(rect, dpr, screen))


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
