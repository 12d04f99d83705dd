"""The rows surface: ``content query|insert|update|delete``, Android's ``content`` tool over
the simulator's providers.

Every authority the simulated phone declares is served (:mod:`sim.providers`: the settings
provider, ``com.android.contacts`` of the Contacts app, …) by the simulator's own engine,
the one :class:`sim.android_state.SimAndroidState` reads through, and every value is printed
by :func:`sim.providers.format_value`: the virtual phone and the simulator cannot disagree.

Output as ``Content.java`` prints it: ``Row: 0 col=val, col=val`` (NULL as ``NULL``) or
``No result found.``; ``insert``, ``update`` and ``delete`` print nothing. Argument errors
print the usage and ``[ERROR] …`` on stdout (exit 1); provider errors print ``Error while
accessing provider:AUTHORITY`` and the Java exception on stderr (exit 1).

Who writes matters: the shell's writes to the SMS providers are soft-rejected as Android
rejects them (its ``WRITE_SMS`` app-op is ``MODE_IGNORED``: nothing is written, nothing is
printed, exit 0; the provider's ``shell_writes``); root's (``su 0 content …``) are made.
"""

from __future__ import annotations

from typing import Any

from device.virtual.shell_context import ROOT_UID, CommandContext, CommandFn
from sim.providers import ContentResolver, ProviderError, format_value, split_uri

__all__ = ["COMMANDS", "where_argument"]

_USAGE = (
    "usage: adb shell content [subcommand] [options]\n\n"
    "usage: adb shell content insert --uri <URI> [--user <USER_ID>] --bind <BINDING> "
    "[--bind <BINDING>...]\n"
    "usage: adb shell content update --uri <URI> [--user <USER_ID>] [--where <WHERE>] "
    "--bind <BINDING> [--bind <BINDING>...]\n"
    "usage: adb shell content delete --uri <URI> [--user <USER_ID>] [--where <WHERE>]\n"
    "usage: adb shell content query --uri <URI> [--user <USER_ID>] [--projection "
    "<PROJECTION>] [--where <WHERE>] [--sort <SORT_ORDER>]\n"
)


def _bind(text: str) -> tuple[str, Any]:
    column, sep1, rest = text.partition(":")
    kind, sep2, value = rest.partition(":")
    if not (column and sep1 and sep2):
        raise ValueError(f"Binding not well formed: {text}")
    kind = kind.lower()
    if kind == "s":
        return column, value
    if kind == "b":
        return column, value.lower() == "true"
    if kind in ("i", "l"):
        return column, int(value)
    if kind in ("f", "d"):
        return column, float(value)
    if kind == "n":
        return column, None
    raise ValueError(f"Unsupported type: {kind}")


def _parse(args: list[str]) -> dict[str, Any]:
    """Content.java's argument rules; ValueError carries its message."""
    if not args or args[0] not in ("query", "insert", "update", "delete"):
        raise ValueError(f"Unsupported operation: {args[0] if args else None}")
    parsed: dict[str, Any] = {"op": args[0], "binds": {}}
    rest = args[1:]
    while rest:
        option = rest.pop(0)
        if option not in ("--uri", "--user", "--where", "--projection", "--sort", "--bind"):
            raise ValueError(f"Unsupported argument: {option}")
        if not rest or not rest[0] or rest[0].startswith("--"):
            raise ValueError(f"No value for argument: {option}")
        value = rest.pop(0)
        if option == "--bind":
            column, bound = _bind(value)
            parsed["binds"][column] = bound
        else:
            parsed[option[2:]] = value
    if "uri" not in parsed:
        raise ValueError("Content provider URI not specified. Did you specify --uri argument?")
    if parsed["op"] in ("insert", "update") and not parsed["binds"]:
        raise ValueError("Bindings not specified. Did you specify --bind argument(s)?")
    return parsed


async def content(ctx: CommandContext) -> int:
    """``content query|insert|update|delete --uri URI …``."""
    try:
        parsed = _parse(list(ctx.args))
    except ValueError as exc:
        await ctx.println(_USAGE, f"[ERROR] {exc}")
        return 1
    uri = str(parsed["uri"])
    try:
        await _execute(ctx, ContentResolver.of(ctx.phone.instance.phone), parsed, uri)
    except ProviderError as exc:
        await ctx.eprintln(
            f"Error while accessing provider:{split_uri(uri)[0]}",
            f"{exc.java_class}: {exc}",
            "\tat com.android.commands.content.Content$Command.execute(Content.java:502)",
        )
        return 1
    return 0


def where_argument(parsed: dict[str, Any]) -> str | None:
    """The ``--where`` of parsed arguments, as the provider receives it (one seam, so the
    parity tests can show that a virtual phone changing it is caught)."""
    where = parsed.get("where")
    return None if where is None else str(where)


async def _execute(
    ctx: CommandContext, resolver: ContentResolver, parsed: dict[str, Any], uri: str
) -> None:
    op, where, state = parsed["op"], where_argument(parsed), ctx.phone.instance.state
    if op == "query":
        projection = parsed["projection"].split(":") if parsed.get("projection") else None
        if projection is not None:
            projection = [column.strip() for column in projection]
        cursor = resolver.query(state, uri, projection, where, parsed.get("sort"))
        if not cursor.rows:
            await ctx.println("No result found.")
        for index, row in enumerate(cursor.rows):
            cells = zip(cursor.columns, row, strict=True)
            await ctx.println(
                f"Row: {index} " + ", ".join(f"{c}={format_value(v)}" for c, v in cells)
            )
        return
    if ctx.uid != ROOT_UID and not resolver.shell_may_write(uri):  # unknown: fails loudly
        return  # ContentProvider.Transport's soft rejection: no row, no output, exit 0
    if op == "insert":
        resolver.insert(state, uri, parsed["binds"])
    elif op == "update":
        resolver.update(state, uri, parsed["binds"], where)
    else:
        resolver.delete(state, uri, where)
    ctx.changed()


COMMANDS: dict[str, CommandFn] = {"content": content}
"""The content command."""
