"""The reality-gap command-line options of the virtual phone, shared by
``mgb device virtual start`` and ``transfer-eval`` so both spell and check them alike."""

from __future__ import annotations

from typing import Annotated

import typer

__all__ = ["AnimationMs", "FontScale", "LatencyMs", "PopupRate"]

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
