"""Exceptions of the MobileGym world, under the common :class:`bridge.errors.BridgeError` root.

::

    BridgeError (bridge.errors)
     └── MobileGymError
          ├── MobileGymSourceError  ``mobilegym:URL|PATH`` names no usable build, or a
          │                         checkout has no usable ``bench_env`` (bad input: said
          │                         before any work starts)
          ├── NativeTaskError       one of MobileGym's own tasks that cannot be run as asked:
          │                         no such task, no instruction in that language (bad input)
          └── MobileGymFailed       the build did not load, a page crashed or a call into its
                                    runtime failed (also an EnvError: the episode ends as
                                    ``infra_error``)
"""

from __future__ import annotations

from bridge.errors import BridgeError, EnvError

__all__ = ["MobileGymError", "MobileGymFailed", "MobileGymSourceError", "NativeTaskError"]


class MobileGymError(BridgeError):
    """Root of the MobileGym world's exceptions."""


class MobileGymSourceError(MobileGymError, ValueError):
    """``mobilegym:URL|PATH`` names no usable build; the message says what to point at."""


class NativeTaskError(MobileGymError, ValueError):
    """One of MobileGym's own tasks cannot be run as asked (no such task in the checkout,
    no instruction in that language, a suite that did not load); the message says which."""


class MobileGymFailed(MobileGymError, EnvError):
    """The build did not load, its page crashed, or a call into its runtime failed."""
