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

__all__ = ["RLLM_INSTALL", "MissingExtra", "TrainerError", "import_extra"]


class TrainerError(BridgeError):
    """A trainer adapter that cannot go on as asked; the message says what to pass instead."""


class MissingExtra(TrainerError, ImportError):
    """An optional framework is not installed; the message names the extra to install."""


RLLM_INSTALL = "pip install git+https://github.com/rllm-org/rllm (rLLM is not on PyPI)"
"""How to get rLLM, which has no release on PyPI and so no extra of ours."""


def import_extra(module: str, extra: str | None, framework: str, install: str = "") -> ModuleType:
    """``importlib.import_module(module)``, or :class:`MissingExtra` saying how to install it:
    ``pip install mobilegym-bridge[extra]``, or ``install`` for a framework with no extra.

    Raises:
        MissingExtra: ``module`` is not installed (its own ImportError is the cause).
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        how = f"pip install 'mobilegym-bridge[{extra}]'" if extra else install
        raise MissingExtra(
            f"{framework} is not installed ({exc}); install it with `{how}`"
        ) from exc
