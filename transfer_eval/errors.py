"""The exceptions of transfer evaluation, the console and training, under
:class:`bridge.errors.BridgeError`.

::

    BridgeError (bridge.errors)
     ├── SuiteError          a suite or split that cannot be found or read (also a ValueError)
     ├── NothingMeasured     every cell of a run was an infra error: nothing to report
     ├── CheckpointExists    training would overwrite a checkpoint nobody said to replace
     └── ConsoleError        an operation the console cannot do now (also a RuntimeError)
          └── ConsoleBusy    another operation (a step, a proposal) is still running
    ConsoleSetupError (ValueError)  a console option that cannot work, said before start

Each is a user's to fix, and the command line prints its message as one line.
"""

from __future__ import annotations

from bridge.errors import BridgeError

__all__ = [
    "CheckpointExists",
    "ConsoleBusy",
    "ConsoleError",
    "ConsoleSetupError",
    "NothingMeasured",
    "SuiteError",
]


class SuiteError(BridgeError, ValueError):
    """A suite that cannot be found or read; the message lists the shipped ones."""


class NothingMeasured(BridgeError, RuntimeError):
    """Every cell of the run was an infra error: there is nothing to report."""


class CheckpointExists(BridgeError):
    """A folder training would write already holds a checkpoint, and nobody said to replace
    it (or the initialization and the trained weights would share one folder)."""


class ConsoleSetupError(ValueError):
    """A console option that cannot work; the message names it and what to do."""


class ConsoleError(BridgeError, RuntimeError):
    """An operation the console cannot do now (no policy, the episode is over); the message
    says what to do instead."""


class ConsoleBusy(ConsoleError):
    """Another operation (a step, a proposal) is still running."""
