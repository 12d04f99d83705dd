"""What every command line shares: the console it prints on, the one-line error it exits
with, and the line for an option its config model refused (the option as the user typed it,
the value, what it takes — never pydantic's multi-line report)."""

from __future__ import annotations

from collections.abc import Mapping

import typer
from pydantic import ValidationError
from rich.console import Console

__all__ = ["console", "fail", "option_error"]

console = Console()
"""The console every command prints on."""


def fail(message: str, code: int = 1) -> typer.Exit:
    """Print ``error: message`` as one logical line (never wrapped into a box) and return
    the exit to raise: ``raise fail("...")``."""
    console.print(f"[red]error:[/] {message}", highlight=False, soft_wrap=True)
    return typer.Exit(code=code)


_OPTIONS = {"langs": "--lang", "tasks": "--task", "seeds": "--seeds", "out": "--out"}
"""Config fields whose option is not the field's name with dashes."""


def option_error(exc: ValidationError, options: Mapping[str, str] | None = None) -> str:
    """``--lang 'fr': Input should be 'en' or 'zh'`` for the first error of ``exc``.

    ``options`` maps more config field names to their options (``{"gap": "--popup-rate"}``).
    """
    first = exc.errors()[0]
    location = [part for part in first["loc"] if isinstance(part, str)]
    field = location[0] if location else ""
    names = {**_OPTIONS, **(options or {})}
    option = names.get(field) or ("--" + field.replace("_", "-") if field else "an option")
    message = str(first["msg"]).removeprefix("Value error, ")
    value = first.get("input")
    shown = f" {value!r}" if isinstance(value, str | int | float) and field else ""
    return f"{option}{shown}: {message}"
