"""A circuit breaker for runs: stop when the same infrastructure failure ends episode after
episode, instead of failing every one left the same way.

A model server that died, or a phone that went away, turns each remaining episode into an
``infra_error`` after the policy's or the env's own retries; a run of hundreds of episodes
would spend minutes on each and end "complete" with nothing measured. :class:`InfraBreaker`
watches finished episodes in the order they finish and raises
:class:`~bridge.errors.InfraErrorsInARow` once ``limit`` of them in a row ended in infra
errors of one kind: the same side (``error_source``: env or policy) and the same exception
class. Any other outcome, or an infra error of another kind, starts the count again. Raised
from a run's ``on_episode_done`` callback (:meth:`InfraBreaker.watch`), it stops
:func:`bridge.runner.run_episodes` as any error does: the episodes in flight are cancelled
and left without a result, so rerunning the command runs exactly what did not finish.
"""

from __future__ import annotations

from collections.abc import Callable

from bridge.errors import InfraErrorsInARow
from bridge.failures import error_class
from bridge.records import EpisodeRecord

__all__ = ["InfraBreaker"]


class InfraBreaker:
    """Counts consecutive infra errors of one kind and stops the run at ``limit`` (0: never).

    ``what`` names the units in the message (``episodes``, or transfer-eval's ``cells``).
    """

    def __init__(self, limit: int, what: str = "episodes") -> None:
        """``limit``: how many infra errors of one kind in a row stop the run (0: none)."""
        if limit < 0:
            raise ValueError(f"limit must be 0 (never stop) or more, got {limit}")
        self.limit = limit
        self.what = what
        self._kind: tuple[str | None, str] | None = None
        self._count = 0

    def observe(self, record: EpisodeRecord) -> None:
        """Count a finished episode.

        Raises:
            InfraErrorsInARow: it is the ``limit``-th infra error of one kind in a row; the
                message is one line with the error's first line and how to go on.
        """
        if record.outcome != "infra_error":
            self._kind, self._count = None, 0
            return
        error = record.error or "an infra error"
        kind = (record.error_source, error_class(error))
        self._count = self._count + 1 if kind == self._kind else 1
        self._kind = kind
        if self.limit and self._count >= self.limit:
            first_line = error.strip().splitlines()[0] if error.strip() else error
            raise InfraErrorsInARow(
                f"stopped after {self._count} {self.what} in a row failed the same way "
                f"({first_line}); fix that and run the same command again: it runs only "
                f"the {self.what} that did not finish"
            )

    def watch(
        self, on_done: Callable[[EpisodeRecord], None] | None = None
    ) -> Callable[[EpisodeRecord], None]:
        """An ``on_episode_done`` callback that calls ``on_done`` (a progress bar), then
        counts the episode: a run given it stops at the ``limit``-th infra error in a row."""

        def done(record: EpisodeRecord) -> None:
            if on_done is not None:
                on_done(record)
            self.observe(record)

        return done
