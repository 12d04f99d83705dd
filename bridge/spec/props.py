"""System properties, read as ``getprop`` prints them ("" counts as absent)."""

from __future__ import annotations

from typing import Literal

from pydantic import JsonValue

from bridge.android_state import AndroidState
from bridge.spec.base import FactNode, Truths

__all__ = ["PropFact"]


class PropFact(FactNode):
    """A system property (``getprop``); "" counts as absent."""

    source: Literal["prop"] = "prop"
    key: str

    async def read(self, state: AndroidState, truths: Truths) -> list[JsonValue]:
        """The property's value; nothing when it is unset."""
        prop = await state.getprop(self.key)
        return [prop] if prop else []
