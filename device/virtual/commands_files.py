"""File and text commands over the phone's files: ``ls``, ``cat``, ``rm``, ``mkdir``,
``touch``, ``md5sum`` and the pipe filters ``grep``, ``head``, ``tail``, ``wc``.

Messages follow toybox (``ls: /x: No such file or directory``, exit 1). ``md5sum`` prints
``<32 hex>  <path>``: uiautomator2 compares it with the md5 of its ``u2.jar`` to decide
whether to push the jar again.
"""

from __future__ import annotations

import hashlib
import re

from device.virtual import vfs
from device.virtual.shell_context import CommandContext, CommandFn

__all__ = ["COMMANDS"]


def _split_options(args: list[str]) -> tuple[set[str], list[str]]:
    """Single-letter flags (``-rf`` → ``{"r", "f"}``) and operands."""
    flags: set[str] = set()
    operands: list[str] = []
    for index, arg in enumerate(args):
        if arg == "--":
            operands += args[index + 1 :]
            break
        if arg.startswith("-") and len(arg) > 1 and not operands:
            flags.update(arg[1:])
        else:
            operands.append(arg)
    return flags, operands


def _path(ctx: CommandContext, operand: str) -> str:
    return vfs.normalize(operand, ctx.env.get("PWD", "/"))


async def ls(ctx: CommandContext) -> int:
    """``ls [-l] [-a] [-d] [PATH…]``: one name per line (stdout is not a terminal)."""
    flags, operands = _split_options(ctx.args)
    status = 0
    files = ctx.phone.files
    for operand in operands or ["."]:
        path = _path(ctx, operand)
        found = vfs.stat(files, path)
        if found is None:
            await ctx.eprintln(f"ls: {operand}: No such file or directory")
            status = 1
            continue
        if not found.is_dir or "d" in flags:
            entries = {operand: found}
        else:
            entries = vfs.list_dir(files, path)
            if "a" in flags:
                entries = {".": found, "..": vfs.Stat(vfs.DIR_MODE, 4096), **entries}
        if len(operands) > 1 and found.is_dir and "d" not in flags:
            await ctx.println(f"{operand}:")
        await ctx.println(*(_ls_line(name, st, "l" in flags) for name, st in entries.items()))
    return status


def _ls_line(name: str, st: vfs.Stat, long: bool) -> str:
    if not long:
        return name
    kind = "d" if st.is_dir else "-"
    return f"{kind}rw-rw---- 1 u0_a150 media_rw {st.size:>8} 2026-05-12 09:30 {name}"


async def cat(ctx: CommandContext) -> int:
    """``cat [FILE…]`` (stdin when no file is given)."""
    _, operands = _split_options(ctx.args)
    if not operands:
        await ctx.out(ctx.stdin or b"")
        return 0
    status = 0
    for operand in operands:
        try:
            await ctx.out(vfs.read_file(ctx.phone.files, _path(ctx, operand)))
        except vfs.FsError as exc:
            await ctx.eprintln(f"cat: {operand}: {exc}")
            status = 1
    return status


async def rm(ctx: CommandContext) -> int:
    """``rm [-f] [-r] PATH…``."""
    flags, operands = _split_options(ctx.args)
    if not operands and "f" not in flags:
        return await ctx.usage("rm: Needs 1 argument")
    status = 0
    for operand in operands:
        try:
            vfs.remove(ctx.phone.files, _path(ctx, operand), recursive=bool(flags & {"r", "R"}))
        except vfs.FsError as exc:
            if "f" in flags and str(exc) == "No such file or directory":
                continue
            await ctx.eprintln(f"rm: {operand}: {exc}")
            status = 1
    return status


async def mkdir(ctx: CommandContext) -> int:
    """``mkdir [-p] DIR…``."""
    flags, operands = _split_options(ctx.args)
    if not operands:
        return await ctx.usage("mkdir: Needs 1 argument")
    status = 0
    for operand in operands:
        try:
            vfs.make_dir(ctx.phone.files, _path(ctx, operand), parents="p" in flags)
        except vfs.FsError as exc:
            await ctx.eprintln(f"mkdir: '{operand}': {exc}")
            status = 1
    return status


async def touch(ctx: CommandContext) -> int:
    """``touch FILE…``: create empty files."""
    _, operands = _split_options(ctx.args)
    status = 0
    for operand in operands:
        path = _path(ctx, operand)
        if vfs.stat(ctx.phone.files, path) is not None:
            continue
        try:
            vfs.write_file(ctx.phone.files, path, b"")
        except vfs.FsError as exc:
            await ctx.eprintln(f"touch: '{operand}': {exc}")
            status = 1
    return status


async def md5sum(ctx: CommandContext) -> int:
    """``md5sum FILE…`` (also ``toybox md5sum``)."""
    _, operands = _split_options(ctx.args)
    if not operands:
        await ctx.println(f"{hashlib.md5(ctx.stdin or b'').hexdigest()}  -")
        return 0
    status = 0
    for operand in operands:
        try:
            data = vfs.read_file(ctx.phone.files, _path(ctx, operand))
        except vfs.FsError as exc:
            await ctx.eprintln(f"md5sum: {operand}: {exc}")
            status = 1
            continue
        await ctx.println(f"{hashlib.md5(data).hexdigest()}  {operand}")
    return status


def _input_bytes(ctx: CommandContext, operands: list[str]) -> bytes:
    if operands:
        return b"".join(vfs.read_file(ctx.phone.files, _path(ctx, o)) for o in operands)
    return ctx.stdin or b""


def _input_lines(ctx: CommandContext, operands: list[str]) -> list[str]:
    data = _input_bytes(ctx, operands)
    return data.decode("utf-8", "replace").splitlines(keepends=True)


async def grep(ctx: CommandContext) -> int:
    """``grep [-i] [-v] [-E|-F] [-q] [-c] [-o] PATTERN [FILE…]``: status 1 when nothing matched."""
    flags, operands = _split_options(ctx.args)
    if not operands:
        return await ctx.usage("usage: grep [-icloqsvEF] PATTERN [FILE...]") + 1
    pattern, files = operands[0], operands[1:]
    if "F" in flags:
        pattern = re.escape(pattern)
    elif "E" not in flags:
        pattern = pattern.replace(r"\|", "|").replace(r"\(", "(").replace(r"\)", ")")
    try:
        regex = re.compile(pattern, re.IGNORECASE if "i" in flags else 0)
        lines = _input_lines(ctx, files)
    except (re.error, vfs.FsError) as exc:
        await ctx.eprintln(f"grep: {exc}")
        return 2
    matched = [line for line in lines if bool(regex.search(line)) != ("v" in flags)]
    if "q" not in flags:
        if "c" in flags:
            await ctx.println(str(len(matched)))
        elif "o" in flags:
            await ctx.println(*(m.group() for line in matched for m in regex.finditer(line)))
        else:
            await ctx.out("".join(line if line.endswith("\n") else line + "\n" for line in matched))
    return 0 if matched else 1


async def _head_tail(ctx: CommandContext, tail: bool) -> int:
    """``head``/``tail`` with ``-n N``, ``-N`` or ``-c BYTES``."""
    args, count, unit = list(ctx.args), 10, "n"
    if len(args) >= 2 and args[0] in ("-n", "-c") and args[1].lstrip("+").isdigit():
        count, unit, args = int(args[1].lstrip("+")), args[0][1], args[2:]
    elif args and args[0].startswith("-") and args[0][1:].isdigit():
        count, args = int(args[0][1:]), args[1:]
    try:
        data = _input_bytes(ctx, args)
    except vfs.FsError as exc:
        await ctx.eprintln(f"{ctx.name}: {exc}")
        return 1
    if unit == "c":
        await ctx.out((data[-count:] if count else b"") if tail else data[:count])
        return 0
    lines = data.splitlines(keepends=True)
    await ctx.out(b"".join((lines[-count:] if count else []) if tail else lines[:count]))
    return 0


async def head(ctx: CommandContext) -> int:
    """``head [-n N] [FILE]``."""
    return await _head_tail(ctx, tail=False)


async def tail(ctx: CommandContext) -> int:
    """``tail [-n N] [FILE]``."""
    return await _head_tail(ctx, tail=True)


async def wc(ctx: CommandContext) -> int:
    """``wc [-l] [-w] [-c]`` of stdin or files (bytes, so binary input counts right)."""
    flags, operands = _split_options(ctx.args)
    try:
        data = _input_bytes(ctx, operands)
    except vfs.FsError as exc:
        await ctx.eprintln(f"wc: {exc}")
        return 1
    counts = {"l": data.count(b"\n"), "w": len(data.split()), "c": len(data)}
    chosen = [key for key in "lwc" if key in flags] or ["l", "w", "c"]
    await ctx.println(" ".join(str(counts[key]) for key in chosen))
    return 0


COMMANDS: dict[str, CommandFn] = {
    "ls": ls,
    "cat": cat,
    "rm": rm,
    "mkdir": mkdir,
    "touch": touch,
    "md5sum": md5sum,
    "grep": grep,
    "head": head,
    "tail": tail,
    "wc": wc,
}
"""The file and text commands."""
