"""Initial weights: uniform (zeros) or a weak, documented reading prior.

The *reading prior* is what a base model brings before any RL: it prefers to tap what
the instruction names (word and character overlap between the instruction and a node's
texts) and to answer with values whose row matches the question, and nothing else: it has
no notion of which app to open, when a task is done, or which moves undo each other. GRPO
has to learn those from rewards.
"""

from __future__ import annotations

import numpy as np

from policies.learned.candidates import KINDS
from policies.learned.features import DENSE_NAMES, DIM

__all__ = ["INITS", "PRIOR_WEIGHTS", "initial_weights"]

PRIOR_WEIGHTS: dict[tuple[str, str], float] = {
    ("tap", "prec"): 1.0,
    ("tap", "recall"): 1.0,
    ("tap", "gram"): 1.0,
    ("answer", "value_ctx"): 2.0,
    ("finish", "goal_visible"): 2.0,
    ("finish", "launcher"): -2.0,
}
"""(kind, dense feature) -> weight of the reading prior."""

INITS = ("prior", "zeros")
"""Names of the built-in initializations."""


def initial_weights(name: str) -> np.ndarray:
    """The weights of a built-in initialization (``prior`` or ``zeros``)."""
    weights = np.zeros(DIM)
    if name == "zeros":
        return weights
    if name != "prior":
        raise ValueError(f"unknown initialization {name!r}; use one of {', '.join(INITS)}")
    for (kind, feature), value in PRIOR_WEIGHTS.items():
        weights[KINDS.index(kind) * len(DENSE_NAMES) + DENSE_NAMES.index(feature)] = value
    return weights
