"""Command-line options more than one command takes, spelled and checked once: the virtual
phone's reality-gap knobs, the unattended guard, the adb server, integer lists."""

from __future__ import annotations

from typing import Annotated

import typer

from transfer_eval.guards import GuardMode

__all__ = [
    "AdbHost",
    "AdbPort",
    "AllowOption",
    "AnimationMs",
    "FontScale",
    "GuardOption",
    "LatencyMs",
    "PopupRate",
    "parse_ints",
]

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
