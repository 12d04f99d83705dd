"""``content query|insert|update|delete``: Android's ``content`` tool over two providers.

* ``com.android.contacts`` — :class:`device.virtual.provider.ContactsProvider`;
* ``settings`` (``content://settings/system|secure|global[/NAME]``, columns ``_id, name,
  value``) — the phone's settings, as AndroidWorld-style checks read them.

Output as ``Content.java`` prints it: ``Row: 0 col=val, col=val`` (NULL as ``NULL``) or
``No result found.``; ``insert``, ``update`` and ``delete`` print nothing. Argument errors
print the usage and ``[ERROR] …`` on stdout (exit 1); provider errors print ``Error while
accessing provider:AUTHORITY`` and the Java exception on stderr (exit 1).
"""

from __future__ import annotations

from typing import Any

from device.virtual.provider import ContactsProvider, ProviderError
from device.virtual.provider_query import QueryError, parse_sort, parse_where, project
from device.virtual.shell_context import CommandContext, CommandFn

__all__ = ["COMMANDS", "SettingsProvider", "format_value"]

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
_SETTINGS_COLUMNS = ("_id", "name", "value")


def format_value(value: Any) -> str:
    """A cell as Content.java prints it (``NULL``; floats as Java prints them)."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return str(int(value))
    return str(value)


class SettingsProvider:
    """``content://settings/NAMESPACE`` rows over ``phone.instance.state.os.settings``."""

    def __init__(self, phone: Any) -> None:
        self.phone = phone

    def _namespace(self, path: list[str]) -> tuple[dict[str, Any], str | None]:
        if not path or path[0] not in ("system", "secure", "global") or len(path) > 2:
            raise ProviderError(f"Invalid URI content://settings/{'/'.join(path)}")
        store = self.phone.instance.state.os.settings.setdefault(path[0], {})
        return store, (path[1] if len(path) == 2 else None)

    def _rows(self, path: list[str]) -> list[dict[str, Any]]:
        store, name = self._namespace(path)
        rows = [
            {"_id": i + 1, "name": key, "value": format_value(store[key])}
            for i, key in enumerate(sorted(store))
        ]
        return [row for row in rows if name is None or row["name"] == name]

    def _matching(self, path: list[str], where: str | None) -> list[dict[str, Any]]:
        try:
            predicate = parse_where(where, _SETTINGS_COLUMNS)
        except QueryError as exc:
            raise ProviderError(str(exc), "android.database.sqlite.SQLiteException") from exc
        return [row for row in self._rows(path) if predicate(row)]

    def query(
        self, path: list[str], projection: list[str] | None, where: str | None, sort: str | None
    ) -> list[list[tuple[str, Any]]]:
        """Rows of one settings namespace."""
        try:
            order = parse_sort(sort, _SETTINGS_COLUMNS)
            return project(self._matching(path, where), _SETTINGS_COLUMNS, projection, order)
        except QueryError as exc:
            raise ProviderError(str(exc), "android.database.sqlite.SQLiteException") from exc

    def insert(self, path: list[str], values: dict[str, Any]) -> int:
        """``--bind name:s:KEY --bind value:s:VALUE``."""
        self._namespace(path)
        if "name" not in values:
            raise ProviderError("name is required")
        self.phone.settings_put(path[0], str(values["name"]), format_value(values.get("value")))
        return 0

    def update(self, path: list[str], values: dict[str, Any], where: str | None) -> int:
        """Set ``value`` of the matching names."""
        rows = self._matching(path, where)
        for row in rows:
            self.phone.settings_put(path[0], row["name"], format_value(values.get("value")))
        return len(rows)

    def delete(self, path: list[str], where: str | None) -> int:
        """Remove the matching names."""
        store, _ = self._namespace(path)
        rows = self._matching(path, where)
        for row in rows:
            store.pop(row["name"], None)
        self.phone.instance.changed()
        return len(rows)


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
    authority, _, path_text = uri.removeprefix("content://").partition("/")
    path = [part for part in path_text.split("/") if part]
    try:
        provider = _provider(ctx, authority, uri)
        await _execute(ctx, provider, parsed, path)
    except ProviderError as exc:
        await ctx.eprintln(
            f"Error while accessing provider:{authority}",
            f"{exc.java_class}: {exc}",
            "\tat com.android.commands.content.Content$Command.execute(Content.java:502)",
        )
        return 1
    return 0


def _provider(ctx: CommandContext, authority: str, uri: str) -> Any:
    if not uri.startswith("content://"):
        raise ProviderError(f"Invalid URI: {uri}")
    if authority in ("com.android.contacts", "contacts"):
        return ContactsProvider(ctx.phone)
    if authority == "settings":
        return SettingsProvider(ctx.phone)
    raise ProviderError(f"Could not find provider: {authority}", "java.lang.IllegalStateException")


async def _execute(
    ctx: CommandContext, provider: Any, parsed: dict[str, Any], path: list[str]
) -> None:
    op, where = parsed["op"], parsed.get("where")
    if op == "insert":
        provider.insert(path, parsed["binds"])
    elif op == "update":
        provider.update(path, parsed["binds"], where)
    elif op == "delete":
        provider.delete(path, where)
    else:
        projection = parsed["projection"].split(":") if parsed.get("projection") else None
        if projection is not None:
            projection = [column.strip() for column in projection]
        rows = provider.query(path, projection, where, parsed.get("sort"))
        if not rows:
            await ctx.println("No result found.")
        for index, row in enumerate(rows):
            cells = ", ".join(f"{column}={format_value(value)}" for column, value in row)
            await ctx.println(f"Row: {index} {cells}")


COMMANDS: dict[str, CommandFn] = {"content": content}
"""The content command."""
