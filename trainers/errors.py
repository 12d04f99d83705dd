"""Errors of the trainer adapters, under the common :class:`bridge.errors.BridgeError` root.

::

    BridgeError (bridge.errors)
     └── TrainerError          an adapter was set up or used wrongly (a missing task, a bad
          │                    dataset row, a reply sent to an episode that is over)
          └── MissingExtra     an optional framework (verl, rLLM, gem-llm, skyrl-gym) is not
                               installed; the message names the pip extra (ImportError)

Infrastructure failures are not exceptions here: an env that fails mid-episode
(:class:`~bridge.errors.EnvError`) or a model call that fails
(:class:`~bridge.errors.PolicyError`) ends the rollout with reward 0 and its
``infra_error`` flag set, as :mod:`bridge.runner` records it.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from bridge.errors import BridgeError

__all__ = ["MissingExtra", "TrainerError", "import_extra"]


class TrainerError(BridgeError):
    """A trainer adapter that cannot go on as asked; the message says what to pass instead."""


class MissingExtra(TrainerError, ImportError):
    """An optional framework is not installed; the message names the extra to install."""


def import_extra(module: str, extra: str, framework: str) -> ModuleType:
    """``importlib.import_module(module)``, or :class:`MissingExtra` naming the extra.

    Raises:
        MissingExtra: ``module`` is not installed (its own ImportError is the cause).
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingExtra(
            f"{framework} is not installed ({exc}); install it with "
            f"`pip install mobilegym-bridge[{extra}]`"
        ) from exc
