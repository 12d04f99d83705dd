"""Shell tests and formatted output: ``test`` / ``[ … ]`` and ``printf``.

``test`` knows the file tests a task's probes use (``-e -d -f -s -r -w``), string tests
(``-z -n = !=``), integer comparisons (``-eq -ne -lt -le -gt -ge``) and ``!``; exit 0 true,
1 false, 2 on a usage error, as toybox. ``printf`` expands ``%s %d %%`` and backslash
escapes, reusing the format while arguments remain.
"""

from __future__ import annotations

import re

from device.virtual import vfs
from device.virtual.shell_context import CommandContext, CommandFn

__all__ = ["COMMANDS", "evaluate"]

_INTEGER_OPS = {
    "-eq": int.__eq__,
    "-ne": int.__ne__,
    "-lt": int.__lt__,
    "-le": int.__le__,
    "-gt": int.__gt__,
    "-ge": int.__ge__,
}


def _file_test(ctx: CommandContext, op: str, operand: str) -> bool:
    found = vfs.stat(ctx.phone.files, vfs.normalize(operand, ctx.env.get("PWD", "/")))
    if found is None:
        return False
    return {
        "-e": True,
        "-d": found.is_dir,
        "-f": not found.is_dir,
        "-s": found.size > 0,
        "-r": True,
        "-w": True,
    }[op]


def evaluate(ctx: CommandContext, args: list[str]) -> bool:
    """The truth of a ``test`` expression.

    Raises:
        ValueError: the expression is malformed (exit status 2).
    """
    if args[:1] == ["!"]:
        return not evaluate(ctx, args[1:])
    if not args:
        return False
    if len(args) == 1:
        return args[0] != ""
    if len(args) == 2:
        op, operand = args
        if op in ("-e", "-d", "-f", "-s", "-r", "-w"):
            return _file_test(ctx, op, operand)
        if op in ("-z", "-n"):
            return (operand == "") == (op == "-z")
        raise ValueError(f"unknown operator {op}")
    if len(args) == 3:
        left, op, right = args
        if op in ("=", "=="):
            return left == right
        if op == "!=":
            return left != right
        if op in _INTEGER_OPS:
            try:
                return bool(_INTEGER_OPS[op](int(left), int(right)))
            except ValueError as exc:
                raise ValueError(f"not a number: {left} {right}") from exc
    raise ValueError("too many arguments")


async def test(ctx: CommandContext) -> int:
    """``test EXPR`` and ``[ EXPR ]``."""
    args = list(ctx.args)
    if ctx.name == "[":
        if args[-1:] != ["]"]:
            await ctx.eprintln("[: missing ]")
            return 2
        args = args[:-1]
    try:
        return 0 if evaluate(ctx, args) else 1
    except ValueError as exc:
        await ctx.eprintln(f"{ctx.name}: {exc}")
        return 2


_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", "r": "\r", "a": "\a", "0": "\0", "'": "'", '"': '"'}
_DIRECTIVE = re.compile(r"%(%|[-0-9.]*[sdibcxo])|\\(.)", re.DOTALL)


def _format_once(form: str, args: list[str]) -> tuple[str, int]:
    used = 0

    def expand(match: re.Match[str]) -> str:
        nonlocal used
        if match.group(2) is not None:
            return _ESCAPES.get(match.group(2), "\\" + match.group(2))
        spec = match.group(1)
        if spec == "%":
            return "%"
        value = args[used] if used < len(args) else ""
        used += 1
        if spec[-1] in "dixo":
            number = int(value or 0)
            return ("%" + spec).replace("i", "d") % number
        if spec[-1] == "b":
            return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(0)), value)
        if spec[-1] == "c":
            return value[:1]
        return ("%" + spec) % value

    return _DIRECTIVE.sub(expand, form), used


async def printf(ctx: CommandContext) -> int:
    """``printf FORMAT [ARG…]``."""
    if not ctx.args:
        return await ctx.usage("printf: Needs 1 argument")
    form, args = ctx.args[0], ctx.args[1:]
    try:
        text, used = _format_once(form, args)
        while used and args[used:]:
            args = args[used:]
            more, used = _format_once(form, args)
            text += more
    except (ValueError, TypeError) as exc:
        await ctx.eprintln(f"printf: {exc}")
        return 1
    await ctx.out(text)
    return 0


COMMANDS: dict[str, CommandFn] = {"test": test, "[": test, "printf": printf}
"""The test and formatting commands."""
