"""Process and kernel commands, as toybox prints them: ``ps``, ``pidof``, ``uname``,
``toybox``.

* ``ps`` lists :func:`device.virtual.processes.all_processes`. Selection: none (this shell
  session's processes), ``-A``/``-e`` (all), ``-p PID,…``, ``-u``/``-U USER,…`` (name or
  uid). Columns: Android's default ``USER PID PPID VSZ RSS WCHAN ADDR S NAME``, ``-f``
  (``UID PID PPID C STIME TTY TIME CMD``, CMD the arguments), or ``-o FIELD[=TITLE],…``.
  Fields are one space apart; numbers are right-aligned and strings left-aligned to
  toybox's widths, and a left-aligned last field is not padded.
* ``pidof NAME…`` prints matching pids (by ``NAME`` or the base name of ``argv[0]``),
  newest first, space-separated; exit 1 when none.
* ``uname [-asnrvmop]`` prints the fields in toybox's order (``-a`` ends in ``Toybox``).
* ``toybox`` lists the toybox commands the phone has, wrapped as toybox does at 80 columns.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from functools import partial

from device.virtual import kernel
from device.virtual.processes import Process, all_processes, table
from device.virtual.shell_context import CommandContext, CommandFn

__all__ = ["COMMANDS"]

_UNAME_FIELDS = "snrvmo"
_Field = tuple[int, Callable[[Process], str]]
_FIELDS: dict[str, _Field] = {
    "PID": (5, lambda p: str(p.pid)),
    "PPID": (5, lambda p: str(p.ppid)),
    "USER": (-8, lambda p: p.user),
    "UID": (5, lambda p: str(p.uid)),
    "VSZ": (7, lambda p: str(p.vsz_kb)),
    "VSIZE": (7, lambda p: str(p.vsz_kb)),
    "RSS": (6, lambda p: str(p.rss_kb)),
    "WCHAN": (-6, lambda p: "0"),
    "ADDR": (12, lambda p: "0"),
    "S": (-1, lambda p: p.state),
    "NAME": (-27, lambda p: p.name),
    "COMM": (-27, lambda p: p.name),
    "CMD": (-15, lambda p: p.name),
    "ARGS": (-27, lambda p: _args(p)),
    "CMDLINE": (-27, lambda p: p.command_line),
    "COMMAND": (-27, lambda p: p.name),
    "TTY": (-8, lambda p: "?"),
    "TIME": (8, lambda p: "00:00:00"),
    "C": (1, lambda p: "0"),
    "STIME": (5, lambda p: "08:00"),
}
_DEFAULT = "USER:10,PID,PPID,VSZ:8,RSS,WCHAN:5,ADDR:16,S,NAME"
_FULL = "USER:8=UID,PID,PPID,C,STIME,TTY,TIME,ARGS=CMD"


def _args(process: Process) -> str:
    """``ARGS``: the command line minus the path of ``argv[0]``."""
    if not process.args:
        return process.name
    return " ".join([posixpath.basename(process.args[0]), *process.args[1:]])


def _columns(spec: str) -> list[tuple[str, str, int]] | str:
    """(field, title, width) of a ``-o`` list, or the bad field."""
    columns = []
    for item in spec.split(","):
        name, _, title = item.partition("=")
        name, _, size = name.partition(":")
        known = _FIELDS.get(name.upper())
        if known is None:
            return item
        width = known[0]
        if size.isdigit():
            width = int(size) if width > 0 else -int(size)
        columns.append((name.upper(), title or name.upper(), width))
    return columns


def _render(cells: list[str], columns: list[tuple[str, str, int]]) -> str:
    parts = []
    for index, (cell, (_, _, width)) in enumerate(zip(cells, columns, strict=True)):
        last = index == len(columns) - 1
        if width < 0:
            parts.append(cell if last else cell.ljust(-width))
        else:
            parts.append(cell.rjust(width))
    return " ".join(parts)


def _options(args: list[str]) -> dict[str, list[str]] | str:
    """Flags to their values (``-o``, ``-p``, ``-u`` take one), or the bad option."""
    found: dict[str, list[str]] = {}
    items = iter(args)
    for arg in items:
        if not arg.startswith("-") or len(arg) < 2:
            found.setdefault("p", []).append(arg)
            continue
        letters = arg[1:]
        for index, letter in enumerate(letters):
            if letter in "opuUO":
                value = letters[index + 1 :] or next(items, "")
                found.setdefault(letter, []).append(value)
                break
            if letter not in "AefwlTZMn":
                return arg
            found.setdefault(letter, [])
    return found


def _owned_by(users: set[str], process: Process) -> bool:
    return process.user in users or str(process.uid) in users


def _selected(ctx: CommandContext, options: dict[str, list[str]]) -> list[Process]:
    rows = all_processes(ctx.phone)
    if "A" in options or "e" in options:
        return rows
    wanted: list[Callable[[Process], bool]] = []
    if "p" in options:
        pids = {int(x) for v in options["p"] for x in v.split(",") if x.isdigit()}
        wanted.append(lambda p: p.pid in pids)
    for letter in ("u", "U"):
        if letter in options:
            users = {x for v in options[letter] for x in v.split(",")}
            wanted.append(partial(_owned_by, users))
    if wanted:
        return [p for p in rows if any(test(p) for test in wanted)]
    mine = table(ctx.phone).running.get(ctx.pid)
    session = mine.session if mine is not None else 0
    return [p for p in rows if session and p.session == session]


async def ps(ctx: CommandContext) -> int:
    """``ps [-A|-e] [-f] [-o FIELD,…] [-p PID,…] [-u USER,…]`` (see the module docstring)."""
    options = _options(list(ctx.args))
    if isinstance(options, str):
        return await ctx.usage(f"ps: Unknown option '{options}' (see \"ps --help\")")
    spec = ",".join(options["o"]) if "o" in options else (_FULL if "f" in options else _DEFAULT)
    columns = _columns(spec)
    if isinstance(columns, str):
        return await ctx.usage(f"ps: bad -o {columns}")
    me = table(ctx.phone).running.get(ctx.pid)
    if me is not None:
        me.state = "R"
    lines = [_render([title for _, title, _ in columns], columns)]
    for process in _selected(ctx, options):
        cells = [_FIELDS[name][1](process) for name, _, _ in columns]
        lines.append(_render(cells, columns))
    await ctx.println(*lines)
    return 0


async def pidof(ctx: CommandContext) -> int:
    """``pidof [-s] NAME…``: pids whose name or ``argv[0]`` matches, newest first."""
    single = "-s" in ctx.args
    names = {arg for arg in ctx.args if not arg.startswith("-")}
    rows = sorted(all_processes(ctx.phone), key=lambda p: p.pid, reverse=True)
    pids = [
        str(p.pid)
        for p in rows
        if p.pid != ctx.pid
        and (p.name in names or (p.args and posixpath.basename(p.args[0]) in names))
    ]
    if not pids:
        return 1
    await ctx.println(" ".join(pids[:1] if single else pids))
    return 0


async def uname(ctx: CommandContext) -> int:
    """``uname [-asnrvmop]``: fields in toybox's order; none given means ``-s``."""
    flags: set[str] = set()
    for arg in ctx.args:
        if not arg.startswith("-") or not set(arg[1:]) <= set("asnrvmop"):
            return await ctx.usage(f"uname: Unknown option '{arg}'")
        flags.update(arg[1:])
    if "a" in flags:
        flags.update(_UNAME_FIELDS)
    values = {
        "s": kernel.SYSTEM,
        "n": kernel.NODE_NAME,
        "r": kernel.RELEASE,
        "v": kernel.VERSION,
        "m": kernel.MACHINE,
        "o": "Toybox",
        "p": "unknown",
    }
    chosen = [letter for letter in _UNAME_FIELDS + "p" if letter in flags] or ["s"]
    await ctx.println(" ".join(values[letter] for letter in chosen))
    return 0


async def toybox(ctx: CommandContext) -> int:
    """``toybox`` alone: its commands, wrapped as toybox's ``toybox_main`` does (80 columns)."""
    if ctx.args and ctx.args[0] != "--long":
        await ctx.eprintln(f"toybox: Unknown command {ctx.args[0]}")
        return 1
    text, length = "", 0
    listed = ctx.phone.files.system_bin  # the shell's own listing (:mod:`.system_bin`)
    for name in sorted(name for name, target in listed.items() if target == "toybox"):
        shown = ("bin/" if ctx.args else "") + name
        text += shown
        length += len(shown) + 1
        if length > 80 - 15:
            length = 0
        text += " " if length else "\n"
    await ctx.out(text + "\n")
    return 0


COMMANDS: dict[str, CommandFn] = {
    "ps": ps,
    "pidof": pidof,
    "uname": uname,
    "toybox": toybox,
}
"""The process and kernel commands."""
