"""The exceptions of the policies, under :class:`bridge.errors.BridgeError`.

::

    BridgeError (bridge.errors)
     ├── PolicySpecError       a policy spec string that names nothing we can build
     ├── ReplaySourceError     a replay source (a run, an episode) that cannot be replayed
     └── PolicyError           the policy's infrastructure failed
          └── CheckpointError  a learned policy's checkpoint is missing, corrupt or foreign
    UnusableLine (ValueError)  a person's line at the terminal that names no action this
                               screen allows: asked again, never raised out of the policy
    NoLineReader (Exception)   the event loop cannot watch the person's input (Windows, a
                               regular file): lines are read on a thread instead

The VLM policies' own errors are in :mod:`policies.vlm.errors`.
"""

from __future__ import annotations

from bridge.errors import BridgeError, PolicyError

__all__ = [
    "CheckpointError",
    "NoLineReader",
    "PolicySpecError",
    "ReplaySourceError",
    "UnusableLine",
]


class ReplaySourceError(BridgeError, ValueError):
    """The run or episode to replay does not exist."""


class PolicySpecError(BridgeError, ValueError):
    """A policy spec that cannot be parsed, or whose policy cannot be built as written."""


class UnusableLine(ValueError):
    """A line that names no action this screen allows; the message says why."""


class CheckpointError(PolicyError, ValueError):
    """A checkpoint directory is missing, incomplete, corrupt or from other feature code."""


class NoLineReader(Exception):
    """The loop cannot watch this file descriptor (Windows, a regular file)."""
