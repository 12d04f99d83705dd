"""``am`` (start, force-stop, broadcast, kill) and ``monkey``, as Android 14 prints them.

``am start`` prints ``Starting: Intent { … }`` and reports failures on stderr with exit
status 0, exactly like ActivityManagerShellCommand (``Error type 3`` / ``Error: Activity
class {pkg/pkg.Act} does not exist.``). Startable: each app's LAUNCHER activity
(``-n pkg/.Act``, or ``-a MAIN -c LAUNCHER`` with a package, or ``monkey -p``), the
Settings pages by component or by their ``android.settings.*`` actions, and the launcher
(``-a MAIN -c HOME``). ``am broadcast`` is delivered to nobody (``result=0``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from device.virtual.adb_keyboard import deliver
from device.virtual.packages import component, lookup, short_component
from device.virtual.shell_context import CommandContext, CommandFn

__all__ = ["COMMANDS", "Intent", "parse_intent"]

FLAG_ACTIVITY_NEW_TASK = 0x10000000
FLAG_RECEIVER_FROM_SHELL = 0x00400000
_EXTRA_OPTIONS = {
    "--es",
    "-e",
    "--ez",
    "--ei",
    "--el",
    "--ef",
    "--ed",
    "--eu",
    "--ecn",
    "--eia",
    "--eial",
    "--ela",
    "--elal",
    "--efa",
    "--efal",
    "--esa",
    "--esal",
    "--edal",
    "--eda",
}
_VALUE_OPTIONS = {
    "--user",
    "--display",
    "--windowingMode",
    "--activityType",
    "--task",
    "-P",
    "--start-profiler",
    "--sampling",
    "--attach-agent",
    "-R",
    "--receiver-permission",
    "--attach-agent-bind",
    "--task-overlay-id",
}


@dataclass
class Intent:
    """The parts of an Android intent that ``am`` uses and prints."""

    action: str | None = None
    categories: list[str] = field(default_factory=list)
    data: str | None = None
    mime: str | None = None
    package: str | None = None
    component: tuple[str, str] | None = None
    flags: int = 0
    extras: bool = False
    options: set[str] = field(default_factory=set)

    def __str__(self) -> str:
        parts = []
        if self.action:
            parts.append(f"act={self.action}")
        if self.categories:
            parts.append(f"cat=[{','.join(self.categories)}]")
        if self.data:
            parts.append(f"dat={self.data}")
        if self.mime:
            parts.append(f"typ={self.mime}")
        if self.flags:
            parts.append(f"flg={self.flags:#x}")
        if self.package:
            parts.append(f"pkg={self.package}")
        if self.component:
            parts.append(f"cmp={short_component(*self.component)}")
        if self.extras:
            parts.append("(has extras)")
        return "Intent { " + " ".join(parts) + " }"


def _component(text: str) -> tuple[str, str]:
    package, _, cls = text.partition("/")
    return package, (package + cls if cls.startswith(".") else cls)


def parse_intent(args: list[str]) -> Intent:
    """An intent from ``am``'s options; ValueError names a bad or incomplete option."""
    intent, rest = Intent(), list(args)
    simple = {"-a": "action", "-d": "data", "-t": "mime", "-p": "package"}
    while rest:
        option = rest.pop(0)
        if option in simple or option in ("-c", "-n", "-f"):
            if not rest:
                raise ValueError(f"Error: No value for option {option}")
            value = rest.pop(0)
            if option in simple:
                setattr(intent, simple[option], value)
            elif option == "-c":
                intent.categories.append(value)
            elif option == "-n":
                intent.component = _component(value)
            else:
                intent.flags |= int(value, 0)
        elif option in _EXTRA_OPTIONS:
            if len(rest) < 2:
                raise ValueError(f"Error: No value for option {option}")
            del rest[:2]
            intent.extras = True
        elif option == "--esn":
            rest.pop(0)
            intent.extras = True
        elif option in _VALUE_OPTIONS:
            rest.pop(0)
        elif option.startswith("-"):
            intent.options.add(option)
        elif ":" in option:
            intent.data = option
        elif "/" in option:
            intent.component = _component(option)
        else:
            intent.package = option
    return intent


def _exported_route(ctx: CommandContext, package: str, activity: str) -> str | None:
    """The route an explicit intent for ``package``/``activity`` (full class name) opens,
    from the app's own exported screens (:meth:`~sim.app.App.exported_routes`); None if it
    exports none."""
    app = ctx.phone.sim.phone.package_app(package, ctx.phone.skin)
    short = activity.removeprefix(package) if activity.startswith(package + ".") else activity
    if app is None:
        return None
    return app.exported_routes(ctx.phone.instance.state.os.skin).get(short)


def _answering(ctx: CommandContext, action: str) -> tuple[str, str] | None:
    """(package, route) of the first installed app whose intent filters take ``action``."""
    for app in ctx.phone.sim.phone.apps.values():
        if action in app.INTENT_ACTIONS:
            return app.package_on(ctx.phone.skin), app.INTENT_ACTIONS[action]
    return None


def _resolve(ctx: CommandContext, intent: Intent) -> tuple[str, str | None] | str:
    """(package, route or None) to start, or the error text to print."""
    if intent.component is not None:
        package, activity = intent.component
        info = lookup(ctx.phone, package)
        if info is not None and activity == info.launcher_activity:
            return package, None
        route = _exported_route(ctx, package, activity)
        if info is not None and route is not None:
            return package, route
        return (
            f"Error type 3\nError: Activity class {{{component(package, activity)}}} "
            "does not exist."
        )
    answered = _answering(ctx, intent.action) if intent.action else None
    if answered is not None:
        return answered
    main = intent.action in (None, "android.intent.action.MAIN")
    if main and "android.intent.category.HOME" in intent.categories:
        return ctx.phone.home.package, None
    info = lookup(ctx.phone, intent.package) if intent.package else None
    if main and info is not None and info.launcher_activity:
        return info.name, None
    intent.flags |= FLAG_ACTIVITY_NEW_TASK
    return f"Error: Activity not started, unable to resolve {intent}"


async def _start(ctx: CommandContext, args: list[str]) -> int:
    try:
        intent = parse_intent(args)
    except ValueError as exc:
        return await ctx.usage(str(exc))
    target = _resolve(ctx, intent) if intent.component or intent.action or intent.package else None
    if target is None:
        return await ctx.usage("Error: Intent does not match any activities: " + str(intent))
    await ctx.println(f"Starting: {intent}")
    if isinstance(target, str):
        await ctx.eprintln(target)
        return 0
    package, route = target
    if "-S" in intent.options:
        await ctx.phone.force_stop(package)
    await _launch(ctx, package, route)
    if "-W" in intent.options:
        focus = short_component(*ctx.phone.current_focus())
        await ctx.println(
            "Status: ok",
            "LaunchState: COLD",
            f"Activity: {focus}",
            "TotalTime: 0",
            "WaitTime: 0",
            "Complete",
        )
    return 0


async def _launch(ctx: CommandContext, package: str, route: str | None) -> None:
    phone, state = ctx.phone, ctx.phone.instance.state
    if package == phone.home.package:
        phone.instance.phone.home(state)
        ctx.changed()
        return
    if phone.current_focus()[0] == package and route is None:
        await ctx.eprintln(
            "Warning: Activity not started, its current task has been brought to the front"
        )
    await phone.start(package)
    app_id = phone.package_app(package)
    current = state.os.route
    if route is not None and app_id is not None and current is not None and current.path != route:
        phone.instance.phone.context(state, app_id).navigate(route)
        ctx.changed()


async def _broadcast(ctx: CommandContext, args: list[str]) -> int:
    try:
        intent = parse_intent(args)
    except ValueError as exc:
        return await ctx.usage(str(exc))
    intent.flags |= FLAG_RECEIVER_FROM_SHELL
    await ctx.println(f"Broadcasting: {intent}")
    result = await deliver(ctx.phone, intent.action, _string_extras(args))
    line = f"Broadcast completed: result={result.code if result else 0}"
    if result is not None and result.data is not None:
        line += f', data="{result.data}"'
    await ctx.println(line)
    return 0


def _string_extras(args: list[str]) -> dict[str, str]:
    """The ``--es``/``-e``/``--ei`` extras as text (what a receiver reads of them)."""
    extras, rest = {}, list(args)
    while rest:
        option = rest.pop(0)
        if option in _EXTRA_OPTIONS and len(rest) >= 2:
            key, value = rest.pop(0), rest.pop(0)
            if option in ("--es", "-e", "--ei"):
                extras[key] = value
    return extras


async def am(ctx: CommandContext) -> int:
    """``am start|start-activity|force-stop|kill|broadcast …``."""
    sub, rest = (ctx.args[0], ctx.args[1:]) if ctx.args else ("", [])
    if sub in ("start", "start-activity"):
        return await _start(ctx, rest)
    if sub == "force-stop" and rest:
        await ctx.phone.force_stop(rest[-1])
        return 0
    if sub in ("kill", "kill-all") or (sub == "stack" and rest[:1] == ["list"]):
        return 0
    if sub == "broadcast":
        return await _broadcast(ctx, rest)
    return await ctx.usage(f"Unknown command: {sub}" if sub else "usage: am [subcommand]")


async def monkey(ctx: CommandContext) -> int:
    """``monkey -p PKG [-c CATEGORY] COUNT``: launches the package (no random events)."""
    await ctx.println(*(f"  bash arg: {arg}" for arg in ctx.args))
    await ctx.println(f"args: [{', '.join(ctx.args)}]", *(f' arg: "{a}"' for a in ctx.args))
    packages, rest, count = [], list(ctx.args), 0
    while rest:
        arg = rest.pop(0)
        if arg in ("-p", "-c", "-s", "--throttle", "--pct-touch", "--pct-motion") and rest:
            value = rest.pop(0)
            if arg in ("-p", "-c"):
                await ctx.println(f'data="{value}"')
            if arg == "-p":
                packages.append(value)
        elif arg.isdigit():
            count = int(arg)
    infos = [lookup(ctx.phone, p) for p in packages]
    startable = [i for i in infos if i is not None and i.launcher_activity and i.app_id]
    if not startable:
        await ctx.eprintln("** No activities found to run, monkey aborted.")
        return 252
    await ctx.phone.start(startable[0].name)
    await ctx.println(
        f"Events injected: {count}",
        "## Network stats: elapsed time=12ms (0ms mobile, 0ms wifi, 12ms not connected)",
    )
    return 0


COMMANDS: dict[str, CommandFn] = {"am": am, "monkey": monkey}
"""The activity manager commands."""
