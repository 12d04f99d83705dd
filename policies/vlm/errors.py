"""Errors of the VLM policies.

::

    BridgeError (bridge.errors)
     ├── PolicyError        the endpoint failed after every retry: the episode ends as
     │                      ``infra_error`` (raised by client.py, base.py)
     └── VLMConfigError     a spec names an unknown adapter or option, or a bad option value
          │                 (raised when the policy is built, before any episode)
          └── RecordingError  a recording of replies that cannot be read or replayed
    ActionError (ValueError)  model output that cannot become an action: caught by the
                              adapter, its message becomes the invalid step's reason

Unparseable model output is neither: it becomes ``PolicyOutput(action=None, error=...)``.
An adapter that crashes on an output is a bug of ours and propagates unchanged: it stops
the run with its traceback (hiding it as ``infra_error`` would drop the cell silently).
"""

from __future__ import annotations

from bridge.errors import BridgeError, PolicyError

__all__ = ["ActionError", "PolicyError", "RecordingError", "VLMConfigError"]


class VLMConfigError(BridgeError, ValueError):
    """A VLM policy spec or option that cannot be used; the message lists what can."""


class RecordingError(VLMConfigError):
    """A recording that is absent, unreadable, or cannot be written; the message says
    which file and what to do."""


class ActionError(ValueError):
    """Model output that cannot become an action; the message is the invalid step's reason."""
