"""What a person at the terminal is shown and may type: the screen as numbered lines, and
one typed line read into an action of the contract (:mod:`policies.human` asks).

A line is read against the observation the person saw: ``tap 3`` is element 3's centre,
``tap 540 1200`` a screen pixel, ``open Settings`` an app by any of its names. A line that
names nothing this screen allows is an :class:`UnusableLine` whose message says why.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable
from typing import Literal, TypeGuard, get_args

from pydantic import ValidationError

from bridge.actions import AnswerValue, KeyName, Point, Target, parse_action
from bridge.actuate import placement
from bridge.app_catalog import app_catalog, normalize_app_name
from bridge.coords import Size, pixel_to_normalized
from bridge.errors import CoordinateError, TargetError
from bridge.schema import (
    Action,
    AnswerAction,
    DoubleTapAction,
    FinishAction,
    KeyAction,
    LongPressAction,
    Observation,
    OpenAppAction,
    PolicyContext,
    ScrollAction,
    SwipeAction,
    TapAction,
    TypeAction,
    UINode,
    WaitAction,
)
from bridge.uitree_text import short_id
from policies.errors import UnusableLine

__all__ = ["HELP", "Local", "actionable_lines", "parse_line", "where"]

HELP = """\
tap N | tap X Y          tap element N (its centre) or the screen pixel X Y
double N | double X Y    double tap;   long N | long X Y: long press
swipe up|down|left|right [N]   the finger moves that way, across element N or the screen
scroll up|down|left|right [N]  reveal content that way (down shows what is below)
type TEXT                type into the focused field (no Enter; send `enter` after it)
back | home | enter | recents | key NAME     press a key
open APP                 open an app (settings, contacts, clock, ...)
answer TEXT              answer the task's question (several fields: answer a=1; b=2)
finish [NOTE] | infeasible [NOTE] | abort [NOTE]   done / cannot be done / give up
wait [SECONDS]           let the screen change
{"type": "tap", ...}     any action as the contract's JSON
tree | help              the whole UI tree as text | this list
Ctrl-D ends your input (the episode is not scored); Ctrl-C stops the whole run."""

Local = Literal["help", "tree"]
"""Lines answered at the terminal without a step."""
_KEYS: tuple[str, ...] = get_args(KeyName)
_Direction = Literal["up", "down", "left", "right"]
_DIRECTIONS: tuple[str, ...] = get_args(_Direction)
_SWIPE = {"up": (0, 0.25, 0, -0.25), "down": (0, -0.25, 0, 0.25),
          "left": (0.25, 0, -0.25, 0), "right": (-0.25, 0, 0.25, 0)}  # fmt: skip
"""Finger path per direction, as offsets of start and end from the centre (region sizes)."""


# --------------------------------------------------------------------------- the screen


def _acts(node: UINode) -> bool:
    flags = (node.clickable, node.long_clickable, node.editable, node.scrollable, node.checkable)
    return any(flags)


def _on_screen(node: UINode, obs: Observation) -> bool:
    x, y = node.center_px
    inside = 0 <= x < obs.screen.width_px and 0 <= y < obs.screen.height_px
    return node.visible and node.area_px > 0 and inside


def _inner_words(nodes: list[UINode], acting: set[int]) -> dict[int, list[str]]:
    """The texts under each actionable node that has none of its own (a row's title)."""
    words: dict[int, list[str]] = {node_id: [] for node_id in acting}
    for node in nodes:
        word = node.text or node.content_desc
        if not word or node.id in acting:
            continue
        parent = node.parent
        while parent is not None and parent not in acting:
            parent = nodes[parent].parent
        if parent is not None:
            words[parent].append(" ".join(word.split()))
    return words


def _flags(node: UINode) -> list[str]:
    names = ("clickable", "long_clickable", "editable", "scrollable", "focused", "password")
    flags = [name.replace("_", "-") for name in names if getattr(node, name)]
    flags += [("on" if node.checked else "off")] if node.checkable else []
    return flags if node.enabled else [*flags, "disabled"]


def actionable_lines(observation: Observation, max_text: int = 50) -> list[str]:
    """One line per actionable node on screen, numbered by its id: ``[5] LinearLayout
    "Wi-Fi · HomeNet-5G" @(540,342) clickable`` (its own text or description, else the
    texts inside it, else its resource id; the centre in screen pixels; flags)."""
    nodes = observation.ui
    acting = {node.id for node in nodes if _acts(node) and _on_screen(node, observation)}
    inner = _inner_words(nodes, acting)
    lines = []
    for node in nodes:
        if node.id not in acting:
            continue
        label = node.text or node.content_desc or node.hint or " · ".join(inner[node.id])
        rid = short_id(node.resource_id)
        shown = [f'"{_clip(label, max_text)}"'] if label else [f"#{rid}"] if rid else []
        x, y = node.center_px
        kind = node.class_name.rpartition(".")[2] or "node"
        centre = f"@({x:.0f},{y:.0f})"
        lines.append(" ".join([f"[{node.id}]", kind, *shown, centre, *_flags(node)]))
    return lines


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def where(obs: Observation) -> str:
    """One line: the app in front (and its package), the keyboard, the screen size."""
    front = obs.foreground
    package = front.package or "unknown package"
    app = f"app {front.app} ({package})" if front.app else package
    keyboard = "keyboard shown" if obs.keyboard_visible else "keyboard hidden"
    size = f"screen {obs.screen.width_px}x{obs.screen.height_px} px"
    return " · ".join([app, keyboard, size])


# --------------------------------------------------------------------------- reading a line


def _target(args: list[str], obs: Observation, verb: str) -> Target:
    """``N`` (an element id) or ``X Y`` (screen pixels)."""
    try:
        if len(args) == 1:
            return Target.node(int(args[0]))
        if len(args) == 2:
            x, y = (round(float(value)) for value in args)
            size = Size(obs.screen.width_px, obs.screen.height_px)
            return Target.at(*pixel_to_normalized(x, y, size))
    except CoordinateError as exc:
        raise UnusableLine(f"{exc}; X Y are screen pixels, as the @(x,y) centres") from None
    except ValueError:  # not numbers; a negative id
        pass
    raise UnusableLine(f"{verb} takes an element number or X Y pixels, e.g. {verb} 5")


def _is_direction(word: str) -> TypeGuard[_Direction]:
    return word in _DIRECTIONS


def _stroke(args: list[str], obs: Observation, verb: str) -> tuple[_Direction, Target | None]:
    direction = args[0].lower() if args else ""
    if not _is_direction(direction) or len(args) > 2:
        raise UnusableLine(f"{verb} takes a direction ({', '.join(_DIRECTIONS)}) [and element N]")
    return direction, (_target(args[1:], obs, verb) if len(args) == 2 else None)


def _swipe(args: list[str], obs: Observation) -> Action:
    direction, target = _stroke(args, obs, "swipe")
    left, top, right, bottom = 0.0, 0.0, 1.0, 1.0
    if target is not None and target.element is not None:
        node = obs.node(target.element)
        if node is None:
            raise UnusableLine(f"no element {target.element} on this screen")
        w, h = obs.screen.width_px, obs.screen.height_px
        left, top, right, bottom = (node.bounds_px[0] / w, node.bounds_px[1] / h,
                                    node.bounds_px[2] / w, node.bounds_px[3] / h)  # fmt: skip
    cx, cy, width, height = (left + right) / 2, (top + bottom) / 2, right - left, bottom - top
    sx, sy, ex, ey = _SWIPE[direction]

    def point(dx: float, dy: float) -> Point:
        return Point(x=min(1.0, max(0.0, cx + dx * width)), y=min(1.0, max(0.0, cy + dy * height)))

    return SwipeAction(start=point(sx, sy), end=point(ex, ey))


def _scroll(args: list[str], obs: Observation) -> Action:
    direction, target = _stroke(args, obs, "scroll")
    return ScrollAction(direction=direction, target=target)


def _open(rest: str) -> Action:
    known = [app for app in app_catalog().ids() if app != "launcher"]
    app = app_catalog().names().get(normalize_app_name(rest))
    if app in known:
        return OpenAppAction(app=app)
    near = difflib.get_close_matches(rest.lower(), known, n=1)
    hint = f"did you mean {near[0]!r}? " if near else ""
    raise UnusableLine(f"no app {rest!r}; {hint}apps: {', '.join(known)}")


def _answer(rest: str, context: PolicyContext) -> Action:
    fields = context.answer_fields
    if rest.startswith("{"):
        return AnswerAction.model_validate({"fields": json.loads(rest)})
    if not fields:
        raise UnusableLine("this task asks no question; `finish` ends it")
    if len(fields) == 1:
        return AnswerAction(fields={fields[0].name: rest})
    pairs = [part.partition("=") for part in rest.split(";")]
    given: dict[str, AnswerValue] = {name.strip(): value.strip() for name, eq, value in pairs if eq}
    names = [field.name for field in fields]
    if len(given) != len(pairs) or not set(given) <= set(names):
        raise UnusableLine(f"this answer has fields {', '.join(names)}: answer a=...; b=...")
    return AnswerAction(fields=given)


def _is_key(name: str) -> TypeGuard[KeyName]:
    return name in _KEYS


def _key(name: str) -> Action:
    if not _is_key(name):
        raise UnusableLine(f"no key {name!r}; keys: {', '.join(_KEYS)}")
    return KeyAction(key=name)


def _needs(rest: str, verb: str, example: str) -> str:
    if not rest:
        raise UnusableLine(f"{verb} needs {example}")
    return rest


_Parser = Callable[[str, list[str], Observation, PolicyContext], Action]
_COMMANDS: dict[str, _Parser] = {
    "tap": lambda _r, a, o, _c: TapAction(target=_target(a, o, "tap")),
    "double": lambda _r, a, o, _c: DoubleTapAction(target=_target(a, o, "double")),
    "long": lambda _r, a, o, _c: LongPressAction(target=_target(a, o, "long")),
    "swipe": lambda _r, a, o, _c: _swipe(a, o),
    "scroll": lambda _r, a, o, _c: _scroll(a, o),
    "type": lambda r, _a, _o, _c: TypeAction(text=_needs(r, "type", "the text: type hello")),
    "key": lambda r, _a, _o, _c: _key(r.lower()),
    "open": lambda r, _a, _o, _c: _open(_needs(r, "open", "an app: open settings")),
    "answer": lambda r, _a, _o, c: _answer(_needs(r, "answer", "the answer: answer 3"), c),
    "finish": lambda r, _a, _o, _c: FinishAction(status="success", message=r or None),
    "infeasible": lambda r, _a, _o, _c: FinishAction(status="infeasible", message=r or None),
    "abort": lambda r, _a, _o, _c: FinishAction(status="abort", message=r or None),
    "wait": lambda r, _a, _o, _c: WaitAction(seconds=float(r)) if r else WaitAction(),
    "back": lambda _r, _a, _o, _c: KeyAction(key="back"),
    "home": lambda _r, _a, _o, _c: KeyAction(key="home"),
    "enter": lambda _r, _a, _o, _c: KeyAction(key="enter"),
    "recents": lambda _r, _a, _o, _c: KeyAction(key="recents"),
}


def parse_line(
    line: str, observation: Observation, context: PolicyContext
) -> Action | Local | None:
    """The action a typed line names on ``observation``; ``help``/``tree`` for lines the
    terminal answers; None for an empty line.

    Raises:
        UnusableLine: the line names no action, or one this screen cannot take (an element
            not in its tree, a point off it); the message says why in one line.
    """
    text = line.strip()
    if not text:
        return None
    verb, *more = text.split(None, 1)
    verb, rest = verb.lower(), (more[0].strip() if more else "")
    if verb in ("help", "?", "tree"):
        return "tree" if verb == "tree" else "help"
    try:
        if text.startswith("{"):
            action = parse_action(text)
        elif verb in _COMMANDS:
            action = _COMMANDS[verb](rest, rest.split(), observation, context)
        else:
            near = difflib.get_close_matches(verb, [*_COMMANDS, "help", "tree"], n=1)
            hint = f"; did you mean {near[0]!r}?" if near else ""
            raise UnusableLine(f"unknown command {verb!r}{hint} (help lists them)")
        placement(action, observation)  # an element not on screen fails here, not as a step
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise UnusableLine(f"{where + ': ' if where else ''}{first['msg']}") from None
    except UnusableLine:
        raise
    except (TargetError, CoordinateError, json.JSONDecodeError) as exc:
        raise UnusableLine(str(exc)) from None
    except ValueError as exc:  # float("soon"), int("x") inside a command
        raise UnusableLine(f"{verb}: {exc}") from None
    return action


# --------------------------------------------------------------------------- input
