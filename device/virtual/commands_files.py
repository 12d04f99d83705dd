"""File and text commands over the phone's files (:mod:`device.virtual.vfs`): ``ls``,
``stat``, ``cat``, ``rm``, ``mkdir``, ``touch``, ``mv``, ``cp``, ``md5sum``, the pipe filters
``grep``, ``head``, ``tail``, ``wc``, and ``test``/``[``/``printf``
(:mod:`device.virtual.commands_posix`).

Messages follow toybox (``ls: /x: No such file or directory``, exit 1). ``md5sum`` prints
``<32 hex>  <path>``: uiautomator2 compares it with the md5 of its ``u2.jar`` to decide
whether to push the jar again.
"""

from __future__ import annotations

import hashlib
import posixpath
import re
import stat as stat_module
from datetime import datetime, timedelta, timezone

from device.virtual import commands_posix, vfs
from device.virtual.shell_context import CommandContext, CommandFn
from sim.state import SIM_UTC_OFFSET_HOURS

__all__ = ["COMMANDS", "parse_touch_date"]


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


def _local(ctx: CommandContext, ms: int) -> datetime:
    return ctx.phone.instance.state.os.local_time(ms)


_TYPE_LETTERS = {stat_module.S_IFDIR: "d", stat_module.S_IFLNK: "l", stat_module.S_IFCHR: "c"}
_NAMES = {0: "root", 1000: "system", 1023: "media_rw", 2000: "shell"}


def _mode_text(st: vfs.Stat) -> str:
    """``ls -l``'s ``drwxr-x--x``; FUSE's ``/sdcard`` directories carry the setgid bit."""
    if st.uid == vfs.SDCARD_UID:
        return "drwxrws--x" if st.is_dir else "-rw-rw----"
    letter = _TYPE_LETTERS.get(stat_module.S_IFMT(st.mode), "-")
    bits = "".join(
        char if st.mode & (1 << (8 - index)) else "-" for index, char in enumerate("rwxrwxrwx")
    )
    return letter + bits


def _owner(uid: int) -> str:
    return _NAMES.get(uid, f"u0_a{uid - 10000}" if uid >= 10000 else str(uid))


def _ls_lines(ctx: CommandContext, entries: dict[str, vfs.Stat]) -> list[str]:
    """toybox ``ls -l``: mode, links, owner, group, size, ``YYYY-MM-DD HH:MM``, name;
    columns padded to the widest entry."""
    sizes = {name: str(st.size) for name, st in entries.items()}
    links = {name: "2" if st.is_dir else "1" for name, st in entries.items()}
    size_w = max((len(v) for v in sizes.values()), default=1)
    link_w = max((len(v) for v in links.values()), default=1)
    owner_w = max((len(_owner(st.uid)) for st in entries.values()), default=1)
    group_w = max((len(_owner(st.gid)) for st in entries.values()), default=1)
    return [
        f"{_mode_text(st)} {links[name]:>{link_w}} {_owner(st.uid):<{owner_w}} "
        f"{_owner(st.gid):<{group_w}} {sizes[name]:>{size_w}} "
        f"{_local(ctx, st.mtime_ms):%Y-%m-%d %H:%M} {name}" + (f" -> {st.link}" if st.link else "")
        for name, st in entries.items()
    ]


async def ls(ctx: CommandContext) -> int:
    """``ls [-l] [-a] [-d] [-1] [PATH…]``: one name per line (stdout is not a terminal);
    ``-l`` in toybox's long format with a ``total`` line for a directory."""
    flags, operands = _split_options(ctx.args)
    status = 0
    for operand in operands or ["."]:
        path = _path(ctx, operand)
        found = vfs.stat(ctx.phone.files, path)
        if found is None:
            await ctx.eprintln(f"ls: {operand}: No such file or directory")
            status = 1
            continue
        listing = found.is_dir and "d" not in flags
        entries = vfs.list_dir(ctx.phone.files, path) if listing else {operand: found}
        if listing and "a" in flags:
            parent = vfs.stat(ctx.phone.files, posixpath.dirname(path)) or found
            entries = {".": found, "..": parent, **entries}
        if len(operands) > 1 and listing:
            await ctx.println(f"{operand}:")
        if "l" not in flags:
            await ctx.println(*entries)
            continue
        if listing:
            blocks = sum(-(-st.size // 4096) * 4 for st in entries.values())
            await ctx.println(f"total {blocks}")
        await ctx.println(*_ls_lines(ctx, entries))
    return status


_FILE_TYPES = {True: "directory", False: "regular file"}


def _stat_field(ctx: CommandContext, letter: str, operand: str, st: vfs.Stat) -> str:
    local = _local(ctx, st.mtime_ms)
    mode = st.mode & 0o7777
    fields = {
        "i": str(st.inode),
        "s": str(st.size),
        "Y": str(st.mtime_ms // 1000),
        "X": str(st.mtime_ms // 1000),
        "Z": str(st.mtime_ms // 1000),
        "n": operand,
        "N": f"'{operand}'",
        "F": _FILE_TYPES[st.is_dir] if st.is_dir or st.size else "regular empty file",
        "a": f"{mode:o}",
        "A": _mode_text(st),
        "f": f"{st.mode:x}",
        "h": "2" if st.is_dir else "1",
        "U": _owner(st.uid),
        "G": _owner(st.gid),
        "u": str(st.uid),
        "g": str(st.gid),
        "b": str(-(-st.size // 512)),
        "B": "512",
        "y": f"{local:%Y-%m-%d %H:%M:%S}.{st.mtime_ms % 1000 * 1_000_000:09d} {_zone(ctx)}",
    }
    fields["x"] = fields["z"] = fields["y"]
    return fields.get(letter, "?")


def _zone(ctx: CommandContext) -> str:
    hours = SIM_UTC_OFFSET_HOURS
    return f"{'+' if hours >= 0 else '-'}{abs(hours):02d}00"


def _stat_format(ctx: CommandContext, form: str, operand: str, st: vfs.Stat) -> str:
    return re.sub(
        r"%(.)",
        lambda m: "%" if m.group(1) == "%" else _stat_field(ctx, m.group(1), operand, st),
        form,
    )


_STAT_DEFAULT = (
    "  File: %N\n  Size: %s\t Blocks: %b\t IO Blocks: 4096\t%F\nDevice: fd00h/64768d\t "
    "Inode: %i\t Links: %h\nAccess: (0%a/%A)\tUid: (%u/%U)\tGid: (%g/%G)\n"
    "Access: %x\nModify: %y\nChange: %z"
)


async def stat(ctx: CommandContext) -> int:
    """``stat [-c FORMAT] FILE…`` (toybox's ``%i %s %Y %n %N %F %a %A %f %y …``)."""
    args, form = list(ctx.args), _STAT_DEFAULT
    if len(args) >= 2 and args[0] in ("-c", "--format"):
        form, args = args[1], args[2:]
    elif args[:1] and args[0].startswith("--format="):
        form, args = args[0].split("=", 1)[1], args[1:]
    _, operands = _split_options(args)
    if not operands:
        return await ctx.usage("stat: Needs 1 argument")
    status = 0
    for operand in operands:
        found = vfs.stat(ctx.phone.files, _path(ctx, operand))
        if found is None:
            await ctx.eprintln(f"stat: '{operand}': No such file or directory")
            status = 1
            continue
        await ctx.println(_stat_format(ctx, form, operand, found))
    return status


async def cat(ctx: CommandContext) -> int:
    """``cat [FILE…]`` (stdin when no file is given)."""
    _, operands = _split_options(ctx.args)
    if not operands or operands == ["-"]:
        await ctx.out(await ctx.read_stdin())
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


async def _move_or_copy(ctx: CommandContext, copying: bool) -> int:
    flags, operands = _split_options(ctx.args)
    if len(operands) < 2:
        return await ctx.usage(f"{ctx.name}: Needs 2 arguments")
    *sources, target = operands
    target_path = _path(ctx, target)
    if len(sources) > 1 and not vfs.is_dir(ctx.phone.files, target_path):
        await ctx.eprintln(f"{ctx.name}: '{target}' not directory")
        return 1
    status = 0
    for source in sources:
        source_path = _path(ctx, source)
        try:
            if copying:
                recursive = bool(flags & {"r", "R", "a"})
                vfs.copy(ctx.phone.files, source_path, target_path, recursive)
                if flags & {"p", "a"}:
                    found = vfs.stat(ctx.phone.files, source_path)
                    into = vfs.is_dir(ctx.phone.files, target_path) and not recursive
                    landed = posixpath.join(target_path, posixpath.basename(source_path))
                    if found is not None:
                        vfs.set_mtime(
                            ctx.phone.files,
                            landed if into else target_path,
                            found.mtime_ms,
                            create=False,
                        )
            else:
                vfs.move(ctx.phone.files, source_path, target_path)
        except vfs.FsError as exc:
            await ctx.eprintln(f"{ctx.name}: {'bad' if copying else ''} '{source}': {exc}")
            status = 1
    return status


async def mv(ctx: CommandContext) -> int:
    """``mv [-f] SOURCE… TARGET``: a rename or move keeps the inode."""
    return await _move_or_copy(ctx, copying=False)


async def cp(ctx: CommandContext) -> int:
    """``cp [-r] [-p] [-f] SOURCE… TARGET``: copies get new inodes and the clock's time."""
    return await _move_or_copy(ctx, copying=True)


_DATE_FORMATS = ("%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d")


def parse_touch_date(text: str) -> int:
    """Epoch ms of ``touch -d`` text: ``@SECONDS`` or a local ``YYYY-MM-DD[ HH:MM[:SS]]``
    (fractions of a second allowed) in the phone's zone.

    Raises:
        ValueError: toybox would not parse it either.
    """
    if text.startswith("@"):
        return int(float(text[1:]) * 1000)
    whole, _, fraction = text.strip().partition(".")
    for form in _DATE_FORMATS:
        try:
            moment = datetime.strptime(whole, form)
        except ValueError:
            continue
        zone = timezone(timedelta(hours=SIM_UTC_OFFSET_HOURS))
        ms = int(moment.replace(tzinfo=zone).timestamp()) * 1000
        return ms + (int((fraction + "000")[:3]) if fraction.isdigit() else 0)
    raise ValueError(text)


def _touch_options(args: list[str]) -> tuple[set[str], str | None, list[str]]:
    flags: set[str] = set()
    date: str | None = None
    operands: list[str] = []
    items = iter(args)
    for arg in items:
        if arg in ("-d", "-t", "-r"):
            date = next(items, None)
            flags.add(arg[1])
        elif arg.startswith("-") and len(arg) > 1 and not operands:
            flags.update(arg[1:])
        else:
            operands.append(arg)
    return flags, date, operands


async def touch(ctx: CommandContext) -> int:
    """``touch [-c] [-a|-m] [-d DATE] FILE…``: create empty files, set their time (now, or
    ``-d`` "YYYY-MM-DD HH:MM:SS" / ``@SECONDS`` in the phone's zone)."""
    flags, date, operands = _touch_options(ctx.args)
    ms = ctx.phone.instance.state.os.clock_ms
    if "d" in flags:
        try:
            ms = parse_touch_date(date or "")
        except ValueError:
            await ctx.eprintln(f"touch: bad '{date}'")
            return 1
    status = 0
    for operand in operands:
        path = _path(ctx, operand)
        try:
            if flags == {"a"} and vfs.stat(ctx.phone.files, path) is not None:
                continue  # only the access time, which the phone does not keep
            vfs.set_mtime(ctx.phone.files, path, ms, create="c" not in flags)
        except vfs.FsError as exc:
            if "c" in flags and str(exc) == "No such file or directory":
                continue
            await ctx.eprintln(f"touch: '{operand}': {exc}")
            status = 1
    return status


async def md5sum(ctx: CommandContext) -> int:
    """``md5sum FILE…`` (also ``toybox md5sum``)."""
    _, operands = _split_options(ctx.args)
    if not operands:
        await ctx.println(f"{hashlib.md5(await ctx.read_stdin()).hexdigest()}  -")
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


async def _input_bytes(ctx: CommandContext, operands: list[str], limit: int | None = None) -> bytes:
    """The operands' bytes (at most ``limit`` from a device such as ``/dev/zero``), else
    all of stdin."""
    if operands and operands != ["-"]:
        files = ctx.phone.files
        return b"".join(vfs.read_file(files, _path(ctx, o), limit) for o in operands)
    return await ctx.read_stdin()


async def _input_lines(ctx: CommandContext, operands: list[str]) -> list[str]:
    data = await _input_bytes(ctx, operands)
    return data.decode("utf-8", "replace").splitlines(keepends=True)


_CONTEXT_OPTION = re.compile(r"-([ABC])(\d*)")


def _context_options(args: list[str]) -> tuple[list[str], int, int]:
    """``-A N``, ``-B N``, ``-C N`` (or ``-A3``) taken out of grep's arguments: the rest,
    and how many lines to print before and after each match. ValueError for a count that
    is not a number."""
    rest: list[str] = []
    before = after = 0
    items = iter(args)
    for arg in items:
        found = _CONTEXT_OPTION.fullmatch(arg)
        if found is None:
            rest.append(arg)
            continue
        count = found.group(2) or next(items, "")
        if not count.isdigit():
            raise ValueError(f"invalid context length argument: {count!r}")
        option, lines = found.group(1), int(count)
        before = lines if option in "BC" else before
        after = lines if option in "AC" else after
    return rest, before, after


def _with_context(lines: list[str], hits: list[int], before: int, after: int) -> str:
    """The matched lines with their context, groups apart separated by ``--``."""
    shown: list[str] = []
    last = -1
    for index in hits:
        start, end = max(index - before, last + 1), min(index + after, len(lines) - 1)
        if shown and start > last + 1:
            shown.append("--\n")
        shown += [line if line.endswith("\n") else line + "\n" for line in lines[start : end + 1]]
        last = max(last, end)
    return "".join(shown)


async def grep(ctx: CommandContext) -> int:
    """``grep [-i] [-v] [-E|-F] [-q] [-c] [-o] [-A N] [-B N] [-C N] PATTERN [FILE…]``:
    status 1 when nothing matched."""
    try:
        args, before, after = _context_options(list(ctx.args))
    except ValueError as exc:
        await ctx.eprintln(f"grep: {exc}")
        return 2
    flags, operands = _split_options(args)
    if not operands:
        return await ctx.usage("usage: grep [-icloqsvEF] [-ABC NUM] PATTERN [FILE...]") + 1
    pattern, files = operands[0], operands[1:]
    if "F" in flags:
        pattern = re.escape(pattern)
    elif "E" not in flags:
        pattern = pattern.replace(r"\|", "|").replace(r"\(", "(").replace(r"\)", ")")
    try:
        regex = re.compile(pattern, re.IGNORECASE if "i" in flags else 0)
        lines = await _input_lines(ctx, files)
    except (re.error, vfs.FsError) as exc:
        await ctx.eprintln(f"grep: {exc}")
        return 2
    hits = [i for i, line in enumerate(lines) if bool(regex.search(line)) != ("v" in flags)]
    if "q" not in flags:
        if "c" in flags:
            await ctx.println(str(len(hits)))
        elif "o" in flags:
            await ctx.println(*(m.group() for i in hits for m in regex.finditer(lines[i])))
        else:
            await ctx.out(_with_context(lines, hits, before, after))
    return 0 if hits else 1


async def _head_tail(ctx: CommandContext, tail: bool) -> int:
    """``head``/``tail`` with ``-n N``, ``-N`` or ``-c BYTES``."""
    args, count, unit = list(ctx.args), 10, "n"
    if len(args) >= 2 and args[0] in ("-n", "-c") and args[1].lstrip("+").isdigit():
        count, unit, args = int(args[1].lstrip("+")), args[0][1], args[2:]
    elif args and args[0].startswith("-") and args[0][1:].isdigit():
        count, args = int(args[0][1:]), args[1:]
    try:
        data = await _input_bytes(ctx, args, count if unit == "c" and not tail else None)
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
        data = await _input_bytes(ctx, operands)
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
    "stat": stat,
    "mv": mv,
    "cp": cp,
    **commands_posix.COMMANDS,
    "md5sum": md5sum,
    "grep": grep,
    "head": head,
    "tail": tail,
    "wc": wc,
}
"""The file and text commands."""
