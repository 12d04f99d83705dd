"""Command-line options more than one command takes, spelled and checked once: the virtual
phone's reality-gap knobs, the unattended guard, the adb server, integer lists; and the
names of the shipped suites and splits that help pages list.

Light to import (typer and the standard library only): help pages are drawn from these
types, so whatever they need comes from here, not from the modules that do the work.
"""

from __future__ import annotations

from importlib import resources
from typing import TYPE_CHECKING, Annotated, Literal

import typer

if TYPE_CHECKING:
    from transfer_eval.sim_source import SimSource

__all__ = [
    "AdbHost",
    "AdbPort",
    "AllowOption",
    "AnimationMs",
    "FontScale",
    "GuardMode",
    "GuardOption",
    "HostsOption",
    "HostsTokenOption",
    "InfraStreakOption",
    "LatencyMs",
    "PopupRate",
    "RayHostsOption",
    "RayOption",
    "optional_value",
    "parse_ints",
    "shipped",
    "sim_source",
]

GuardMode = Literal["off", "apps", "all"]
"""The values of ``--guard``: :data:`transfer_eval.guards.GuardMode`, spelled again here
because that module loads the guard and the schema (a test holds the two equal)."""

LatencyMs = Annotated[
    float, typer.Option(min=0, help="Virtual phone: delay before each input event lands.")
]
PopupRate = Annotated[
    float,
    typer.Option(min=0, max=1, help="Virtual phone: chance an input brings up a system dialog."),
]
AnimationMs = Annotated[
    float, typer.Option(min=0, help="Virtual phone: screen transitions take this long.")
]
FontScale = Annotated[
    float | None,
    typer.Option(min=0.5, max=2.0, help="Virtual phone: text this much larger than set."),
]

PhoneProfile = Annotated[
    str,
    typer.Option(
        "--profile",
        help="Virtual phone: the phone it plays, virtual (AOSP) or redmi_note_12_turbo "
        "(HyperOS's screens, a Redmi's packages and ways); what it holds and how tasks are "
        "judged stay the same.",
    ),
]

SkinOption = Annotated[
    str,
    typer.Option(
        help="How the simulated phone looks: aosp, or hyperos (Settings arranged and worded "
        "as on a Redmi, MIUI's look). The tasks and the judge are the same.",
    ),
]

InfraStreakOption = Annotated[
    int,
    typer.Option(
        "--infra-streak",
        help="Stop the run when this many episodes in a row end in the same infra error (a "
        "dead model server, a phone gone); 0 never stops. Rerunning the command runs only "
        "what did not finish.",
    ),
]

GuardOption = Annotated[
    GuardMode,
    typer.Option(
        help="End an episode that leaves the task's apps (apps), or that also touches "
        "something marked sending/calling/paying/deleting/installing (all).",
    ),
]
AllowOption = Annotated[
    list[str] | None,
    typer.Option(
        "--allow",
        metavar="APP",
        help="With --guard: one more app the run may use, as an app id (contacts) or a "
        "package (com.android.chrome); repeatable.",
    ),
]

AdbHost = Annotated[str, typer.Option("--adb-host", help="Host of the adb server.")]
AdbPort = Annotated[int, typer.Option("--adb-port", help="Port of the adb server.")]


def parse_ints(text: str, option: str = "--seeds") -> list[int]:
    """``"0,1, 2"`` as ``[0, 1, 2]``; anything else is the option's one-line error."""
    try:
        return [int(part) for part in text.split(",") if part.strip()]
    except ValueError as exc:
        raise typer.BadParameter(
            f"{text!r} is not a comma-separated list of integers", param_hint=option
        ) from exc


RayOption = Annotated[
    str | None,
    typer.Option(
        "--ray",
        metavar="[ADDRESS]",
        help="Simulator envs on a Ray cluster: --ray alone starts a local one; or auto, "
        "HOST:PORT, ray://HOST:PORT (needs the \\[ray] extra).",
    ),
]
RayHostsOption = Annotated[
    int | None,
    typer.Option(min=1, help="With --ray: simulator hosts to start (default: one per node)."),
]
HostsOption = Annotated[
    str | None,
    typer.Option(help="Simulator envs on these `mgb sim serve` servers (comma-separated URLs)."),
]
HostsTokenOption = Annotated[
    str | None, typer.Option(help="With --hosts: the servers' token.", envvar="MGB_HOSTS_TOKEN")
]

OPTIONAL_VALUES = {"--ray": "local"}
"""Options whose value may be left out, and the value they then take (``--ray`` alone)."""


def optional_value(args: list[str]) -> list[str]:
    """``args`` with the implied value of each option of :data:`OPTIONAL_VALUES` given
    alone (at the end, or before another option): Typer options always take a value."""
    out: list[str] = []
    for index, arg in enumerate(args):
        out.append(arg)
        if arg in OPTIONAL_VALUES:
            following = args[index + 1] if index + 1 < len(args) else None
            if following is None or following.startswith("-"):
                out.append(OPTIONAL_VALUES[arg])
    return out


def sim_source(
    ray: str | None, ray_hosts: int | None, hosts: str | None, token: str | None
) -> SimSource:
    """The :class:`SimSource` of the options, or one ``BadParameter`` line naming the problem."""
    from pydantic import ValidationError

    from transfer_eval.sim_source import SimSource

    urls = tuple(url.strip() for url in hosts.split(",") if url.strip()) if hosts else ()
    try:
        return SimSource(ray=ray, ray_hosts=ray_hosts, hosts=urls, token=token)
    except ValidationError as exc:
        message = exc.errors()[0]["msg"].removeprefix("Value error, ")
        raise typer.BadParameter(message, param_hint="--ray / --hosts") from None


def shipped(folder: str) -> list[str]:
    """The task sets shipped in ``transfer_eval/<folder>`` (``suites``, ``splits``), for help
    pages: :func:`transfer_eval.suites.suite_names` without importing that module (pydantic
    and the contract); a test holds the two equal."""
    entries = resources.files("transfer_eval").joinpath(folder).iterdir()
    return sorted(e.name.removesuffix(".json") for e in entries if e.name.endswith(".json"))
