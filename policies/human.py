"""A person as a policy: each step they read the screen at the terminal and type an action.

:class:`HumanPolicy` is a bridge policy like any other, so a person's episodes are recorded,
judged and reported exactly as a model's (``mgb sim run --policy human``, ``mgb device run
--policy human``): a human baseline on the same tasks in both worlds. Like every policy it
sees only the :class:`~bridge.schema.Observation`, never simulator state.

Each step shows, compactly: the instruction, the step number, the app in front, the screen's
actionable elements numbered by their UI-tree id (text, content description or class; the
centre of their bounds in screen pixels; flags), and the path of the screenshot it wrote so
the person can open it. Then it reads one line (:data:`HELP`). A line that cannot be used (a
typo, an element not on screen, a point off it) is asked again with one line saying why: the
person is there, so this policy never returns an invalid step.

Ending an episode:
    * ``finish``, ``infeasible``, ``abort`` and ``answer`` are the person's decisions and are
      judged like a model's (``abort`` is giving up: a failure).
    * End of input (Ctrl-D, a closed stream) says nothing about the task, so it is not
      turned into an ``abort`` that would count as a failed attempt: it raises
      :class:`~bridge.errors.PolicyError`, which the runner records as ``infra_error``
      (``error_source`` ``policy``), kept out of success rates and played again when the run
      is resumed.
    * Ctrl-C is not caught: it stops the whole command as everywhere in the CLI (the episode
      is left without a result; running the same command again resumes it).

Input never blocks the event loop: a terminal or a pipe is read through the loop's reader
(``add_reader`` + ``os.read``: no thread stays blocked on the terminal after Ctrl-C, which
would hold up the exit); streams without a file descriptor (in-memory ones in tests) through
``asyncio.to_thread``. Both streams are constructor
arguments; by default stdin and stdout, and then stdin must be a terminal.
"""

from __future__ import annotations

import asyncio
import difflib
import json
import os
import sys
import tempfile
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import ClassVar, Literal, TextIO, get_args

from pydantic import ValidationError
from rich.console import Console
from rich.text import Text

from bridge.actions import KeyName, Point, Target, parse_action
from bridge.actuate import TargetError, placement
from bridge.app_catalog import app_catalog, normalize_app_name
from bridge.coords import Size, pixel_to_normalized
from bridge.errors import CoordinateError, PolicyError
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
    PolicyOutput,
    ScrollAction,
    SwipeAction,
    TapAction,
    TypeAction,
    UINode,
    UIStatus,
    WaitAction,
)
from bridge.uitree_text import render_text, short_id

__all__ = ["HELP", "INTERFACE_VERSION", "HumanPolicy", "LineReader", "UnusableLine",
           "actionable_lines", "parse_line"]  # fmt: skip

INTERFACE_VERSION = "1"
"""What the person is shown and may type; bumped when either changes (it moves a human
score as a prompt moves a model's, so the harness fingerprint records it)."""

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
_DIRECTIONS = ("up", "down", "left", "right")
_SWIPE = {"up": (0, 0.25, 0, -0.25), "down": (0, -0.25, 0, 0.25),
          "left": (0.25, 0, -0.25, 0), "right": (-0.25, 0, 0.25, 0)}  # fmt: skip
"""Finger path per direction, as offsets of start and end from the centre (region sizes)."""
_NOT_A_TTY = (
    "a person must be at this terminal, but stdin is not a terminal (nohup, a pipe, CI); "
    "run the command in an interactive shell"
)


class UnusableLine(ValueError):
    """A line that names no action this screen allows; the message says why."""


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


def _where(obs: Observation) -> str:
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


def _stroke(args: list[str], obs: Observation, verb: str) -> tuple[str, Target | None]:
    if not args or args[0].lower() not in _DIRECTIONS or len(args) > 2:
        raise UnusableLine(f"{verb} takes a direction ({', '.join(_DIRECTIONS)}) [and element N]")
    return args[0].lower(), (_target(args[1:], obs, verb) if len(args) == 2 else None)


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
    return ScrollAction(direction=direction, target=target)  # type: ignore[arg-type]


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
    given = {name.strip(): value.strip() for name, eq, value in pairs if eq}
    names = [field.name for field in fields]
    if len(given) != len(pairs) or not set(given) <= set(names):
        raise UnusableLine(f"this answer has fields {', '.join(names)}: answer a=...; b=...")
    return AnswerAction(fields=given)


def _key(name: str) -> Action:
    if name not in _KEYS:
        raise UnusableLine(f"no key {name!r}; keys: {', '.join(_KEYS)}")
    return KeyAction(key=name)  # type: ignore[arg-type]


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


class _NoReader(Exception):
    """The loop cannot watch this file descriptor (Windows, a regular file)."""


class LineReader:
    """Lines of a text stream, read without blocking the event loop (see the module doc).
    One per stream (:meth:`of`): what it has buffered beyond a line belongs to the next
    policy that reads the stream (the next episode's)."""

    _shared: ClassVar[weakref.WeakKeyDictionary[TextIO, LineReader]] = weakref.WeakKeyDictionary()

    def __init__(self, stream: TextIO) -> None:
        """Read ``stream``: by its file descriptor when it has one, else in a thread."""
        self.stream = stream
        self.at_eof = False
        self._buffer = b""
        self._encoding = getattr(stream, "encoding", None) or "utf-8"
        try:
            self._fd: int | None = stream.fileno()
        except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is both
            self._fd = None

    @classmethod
    def of(cls, stream: TextIO) -> LineReader:
        """The reader of ``stream``, shared by every policy that reads it."""
        if stream not in cls._shared:
            cls._shared[stream] = cls(stream)
        return cls._shared[stream]

    async def readline(self) -> str | None:
        """The next line without its line end; None at the end of input."""
        if self.at_eof and not self._buffer:
            return None
        if self._fd is not None:
            try:
                return await self._fd_line(self._fd)
            except _NoReader:
                self._fd = None
        return await self._thread_line()

    async def _fd_line(self, fd: int) -> str | None:
        while b"\n" not in self._buffer and not self.at_eof:
            chunk = await self._chunk(fd)
            self.at_eof = not chunk
            self._buffer += chunk
        line, newline, self._buffer = self._buffer.partition(b"\n")
        if not line and not newline:
            return None
        return line.decode(self._encoding, errors="replace").rstrip("\r")

    async def _chunk(self, fd: int) -> bytes:
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[bytes] = loop.create_future()

        def readable() -> None:
            if not ready.done():
                try:
                    ready.set_result(os.read(fd, 65536))
                except BlockingIOError:
                    return
                except OSError as exc:
                    ready.set_exception(exc)

        try:
            loop.add_reader(fd, readable)
        except (NotImplementedError, OSError, ValueError) as exc:
            raise _NoReader from exc
        try:
            return await ready
        finally:
            loop.remove_reader(fd)

    async def _thread_line(self) -> str | None:
        text = await asyncio.to_thread(self.stream.readline)  # in-memory streams: at once
        self.at_eof = not text
        return text.rstrip("\r\n") if text else None


# --------------------------------------------------------------------------- the policy


class HumanPolicy:
    """A person at a terminal decides every step (see the module docstring)."""

    def __init__(
        self,
        input: TextIO | None = None,
        output: TextIO | None = None,
        *,
        frames_dir: Path | None = None,
        name: str = "human",
    ) -> None:
        """``input``/``output``: the person's streams (default stdin/stdout, and stdin must
        then be a terminal); ``frames_dir``: where screenshots go (default a new temporary
        folder per episode's policy)."""
        self._input, self._output = input, output
        self._frames_dir = frames_dir
        self._name = name
        self._instruction = ""
        self._context = PolicyContext()
        self._console: Console | None = None

    @property
    def name(self) -> str:
        """``human``."""
        return self._name

    async def preflight(self) -> None:
        """Refuse before a run when nobody can answer: stdin is not a terminal."""
        if self._input is None and not _stdin_is_a_tty():
            raise PolicyError(_NOT_A_TTY)

    async def reset(self, instruction: str, context: PolicyContext) -> None:
        """Start on a new task: say so at the terminal."""
        self._instruction, self._context = instruction, context
        task = context.task_id or "a task"
        self._show(
            Text(
                f"\nnew episode: {task} ({context.lang}), at most "
                f"{context.max_steps} steps; `help` lists the commands",
                style="bold",
            )
        )

    async def act(self, observation: Observation) -> PolicyOutput:
        """Show the screen, then read lines until one names an action this screen takes.

        Raises:
            PolicyError: the input ended (EOF) or cannot be read, or nobody is at the
                terminal; the episode is then an ``infra_error`` and is not scored.
        """
        await self.preflight()
        reader = LineReader.of(self._input or sys.stdin)
        if reader.at_eof:
            raise PolicyError(
                f"the person's input had ended before step {observation.step + 1}: the "
                "episode is not scored; run the same command again to play it"
            )
        self._render(observation, await self._save(observation))
        while True:
            self._show(Text(f"step {observation.step + 1} › ", style="bold cyan"), end="")
            try:
                line = await reader.readline()
            except OSError as exc:
                raise PolicyError(f"cannot read the person's input: {exc}") from exc
            if line is None:
                self._show(Text("\ninput ended: this episode is not scored", style="yellow"))
                raise PolicyError(
                    f"the person's input ended (EOF) at step {observation.step + 1}: the "
                    "episode is not scored; run the same command again to play it"
                )
            try:
                decided = parse_line(line, observation, self._context)
            except UnusableLine as exc:
                self._show(Text(f"can't do that: {exc}", style="red"))
                continue
            if decided == "help":
                self._show(Text(HELP))
            elif decided == "tree":
                self._show(Text(render_text(observation.ui) or "(no UI tree)"))
            elif decided is not None:
                return PolicyOutput(action=decided, raw_text=line.strip())

    # ---- the terminal
    def _show(self, text: Text, end: str = "\n") -> None:
        if self._console is None:
            self._console = Console(file=self._output or sys.stdout, highlight=False,
                                    markup=False, emoji=False, soft_wrap=True)  # fmt: skip
        self._console.print(text, end=end)

    def _render(self, obs: Observation, shot: Path | None) -> None:
        total = self._context.max_steps
        self._show(Text(f"── step {obs.step + 1} of at most {total} " + "─" * 24, style="dim"))
        self._show(Text(self._instruction, style="bold"))
        self._show(Text(_where(obs), style="dim"))
        self._show(Text(f"screenshot: {shot}" if shot else "screenshot: none in this world"))
        if obs.last_action_error:
            self._show(Text(f"last action: {obs.last_action_error}", style="red"))
        if obs.ui_status is not UIStatus.OK:
            self._show(Text(f"no UI tree ({obs.ui_status.value}): tap X Y on the screenshot",
                            style="yellow"))  # fmt: skip
        for line in actionable_lines(obs):
            self._show(Text(line))
        for field in self._context.answer_fields:
            choices = f" one of {', '.join(field.choices)}" if field.choices else ""
            label = f" ({field.label})" if field.label else ""
            self._show(Text(f"answer field {field.name}: {field.kind}{choices}{label}",
                            style="cyan"))  # fmt: skip

    async def _save(self, obs: Observation) -> Path | None:
        """Write the screenshot where the person can open it."""
        shot = obs.screenshot
        if shot is None:
            return None
        if self._frames_dir is None:
            self._frames_dir = Path(tempfile.mkdtemp(prefix="mgb-human-"))
        suffix = "jpg" if shot.format == "jpeg" else shot.format
        path = self._frames_dir / f"step-{obs.step + 1:03d}.{suffix}"
        await asyncio.to_thread(_write, path, shot.data)
        return path


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def _stdin_is_a_tty() -> bool:
    stdin = sys.stdin
    try:
        return stdin is not None and stdin.isatty()
    except (AttributeError, ValueError):  # replaced by something without isatty, or closed
        return False
