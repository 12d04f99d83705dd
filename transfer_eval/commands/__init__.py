"""Command lines: ``mgb`` (the toolkit) and ``transfer-eval`` (paired sim/real evaluation).

One thin module per command group (parse options, call a library function, render what it
returns); this package only assembles them behind the one error boundary
(:mod:`transfer_eval.commands.common`). ``python -m transfer_eval.commands`` is ``mgb``,
``python -m transfer_eval`` is ``transfer-eval``.
"""

from __future__ import annotations

import typer

from transfer_eval.commands.common import GuardedCommand, GuardedGroup
from transfer_eval.commands.console import console_command
from transfer_eval.commands.device import device_app
from transfer_eval.commands.mobilegym import mobilegym_app
from transfer_eval.commands.replay import replay_command
from transfer_eval.commands.sim import sim_app
from transfer_eval.commands.tools import (
    demo_command,
    gallery_command,
    inspect_command,
    schema_command,
)
from transfer_eval.commands.train import train_command
from transfer_eval.commands.transfer import transfer_eval_command
from transfer_eval.commands.vlm import vlm_app

__all__ = ["mgb_app", "transfer_eval_app"]

mgb_app = typer.Typer(
    cls=GuardedGroup,
    name="mgb",
    help="mobilegym-bridge: one mobile GUI agent, in the simulator and on a real phone.",
    no_args_is_help=True,
    add_completion=False,
)
mgb_app.add_typer(sim_app, name="sim")
mgb_app.add_typer(device_app, name="device")
mgb_app.add_typer(mobilegym_app, name="mobilegym")
mgb_app.add_typer(vlm_app, name="vlm")
mgb_app.command("train")(train_command)  # one command: its help shows no COMMAND
mgb_app.command("replay")(replay_command)
mgb_app.command("console")(console_command)
mgb_app.command("schema")(schema_command)
mgb_app.command("inspect")(inspect_command)
mgb_app.command("gallery")(gallery_command)
mgb_app.command("demo")(demo_command)

transfer_eval_app = typer.Typer(
    name="transfer-eval",
    help="Measure how much of a simulator gain carries over to a real phone.",
    add_completion=False,
)
transfer_eval_app.command("transfer-eval", cls=GuardedCommand)(transfer_eval_command)
