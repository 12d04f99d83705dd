"""Adapter for Step-GUI (StepFun; notes in docs/vlm_adapters.md).

Step-GUI is trained on the same output distribution as GELab-Zero: ``<THINK>`` reasoning,
then tab-separated ``explain:…\\taction:CLICK\\tpoint:x,y\\tsummary:…`` fields on a 0–1000
grid (:mod:`policies.vlm.gelab`), and the same summary-carrying prompt. This adapter is that
one under Step-GUI's name. There is no default model id: the spec's ``#MODEL`` or the one
model the server lists is used.
"""

from __future__ import annotations

from policies.vlm.gelab import GELabAdapter

__all__ = ["StepGUIAdapter"]

PARSER_VERSION = "2026-12-02"
"""Bump when this adapter reads replies differently: it is in every run's harness
fingerprint, and a resumed run must parse as it began."""


class StepGUIAdapter(GELabAdapter):
    """Step-GUI: GELab-Zero's prompt and grammar."""

    name = "stepgui"
    default_model = None
