"""A provider value as text, the way ``content query`` (``Content.java``) prints a cell.

The one printing of provider values: the virtual phone's ``content`` command prints it,
:class:`sim.android_state.SimAndroidState` returns it, so a judge reads the same text from
the simulator, the virtual phone and a real phone.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

__all__ = ["cell_text", "format_value", "java_double"]


def java_double(value: float) -> str:
    """``String.valueOf(double)``: ``0.85``, ``1.0``, ``1.0E7``, ``1.5E-5``, ``NaN``."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0 or 1e-3 <= abs(value) < 1e7:
        return repr(value)  # shortest round-trip digits, positional in this range
    sign, digits, exponent = Decimal(repr(value)).as_tuple()
    text = "".join(map(str, digits)).rstrip("0") or "0"
    power = len(digits) + int(exponent) - 1
    return f"{'-' if sign else ''}{text[0]}.{text[1:] or '0'}E{power}"


def format_value(value: Any) -> str:
    """A cell as Content.java prints it: ``NULL``, integers in decimal, floats as Java
    prints a double, text as is, blobs as ``BLOB``."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, float):
        return java_double(value)
    if isinstance(value, bytes | bytearray | memoryview):
        return "BLOB"
    return str(value)


def cell_text(value: Any) -> str | None:
    """A cell for :data:`bridge.android_state.Row`: :func:`format_value`, None for NULL."""
    return None if value is None else format_value(value)
