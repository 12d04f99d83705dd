"""The replay policy: re-issues the actions of a recorded episode, in order, open-loop.

Replay is how a trajectory recorded in one world is played in the other (a simulator episode
on the phone, or back), and how a run is reproduced. It ignores what it is shown: the k-th
call to ``act`` returns the k-th replayable recorded action, with the recorded thought.

Decisions:
    * **Element targets become points.** Element ids are positions in one world's UI tree and
      mean nothing in another, so a recorded ``element`` target is replayed as the centre of
      that element's bounds in the *recorded* observation, normalized by the recorded screen
      size. Point targets, swipes and all other actions are re-issued unchanged.
    * **Invalid recorded steps are skipped**: steps the runner marked invalid (no action),
      and actions whose element is not in the recorded tree (the original env rejected them
      too), so there is no point to replay. :attr:`ReplayPolicy.skipped` says which and why.
    * **When the recording ends, the policy finishes** with status ``abort`` (the recording
      has nothing more to do; it cannot claim success). A recorded ``finish`` or ``answer``
      is replayed as such, so a complete recording ends on its own terms.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from pathlib import Path

from bridge.actions import Action, Point, Target
from bridge.records import StepRecord
from bridge.schema import FinishAction, Observation, PolicyContext, PolicyOutput
from bridge.trajectory import RunStore
from policies.errors import ReplaySourceError

__all__ = ["ReplayPolicy", "replayable"]


def _element_as_point(action: Action, observation: Observation) -> Action | None:
    """``action`` with an element target replaced by the centre of that element, normalized;
    None when the element is not in the recorded tree."""
    target: Target | None = getattr(action, "target", None)
    if target is None or target.element is None:
        return action
    node = observation.node(target.element)
    if node is None or node.area_px == 0:
        return None
    x_px, y_px = node.center_px
    x = min(max(x_px / observation.screen.width_px, 0.0), 1.0)
    y = min(max(y_px / observation.screen.height_px, 0.0), 1.0)
    return action.model_copy(update={"target": Target(point=Point(x=x, y=y))})


def replayable(records: Sequence[StepRecord]) -> tuple[list[PolicyOutput], list[str]]:
    """The outputs to replay from step ``records``, and why each skipped step was skipped."""
    outputs: list[PolicyOutput] = []
    skipped: list[str] = []
    for record in records:
        action = record.output.action
        if record.invalid or action is None:
            skipped.append(f"step {record.step}: invalid ({record.output.error})")
            continue
        converted = _element_as_point(action, record.observation)
        if converted is None:
            target: Target | None = getattr(action, "target", None)
            element = target.element if target is not None else None
            skipped.append(f"step {record.step}: element {element} is not in the recorded tree")
            continue
        outputs.append(PolicyOutput(action=converted, thought=record.output.thought))
    return outputs, skipped


class ReplayPolicy:
    """A Policy that re-issues recorded outputs in order, then finishes.

    Build it with :meth:`from_run`, or directly from outputs (e.g. in tests).
    """

    def __init__(
        self, outputs: Sequence[PolicyOutput], *, name: str, skipped: Sequence[str] = ()
    ) -> None:
        if any(output.action is None for output in outputs):
            raise ValueError("every replayed output needs an action")
        self._outputs = list(outputs)
        self._name = name
        self._next = 0
        self.skipped: list[str] = list(skipped)
        """Recorded steps left out, each with its reason."""

    @classmethod
    def from_run(cls, run: str | Path, episode: str, *, name: str | None = None) -> ReplayPolicy:
        """Replay episode ``episode`` of run directory ``run`` (complete or cut off).

        Raises:
            ReplaySourceError: the run directory or the episode does not exist.
            bridge.errors.TrajectoryError: the recording is corrupt.
        """
        store = _open_run(Path(run))
        steps_file = store.episode_dir(episode) / "steps.jsonl"
        if not steps_file.is_file():
            raise ReplaySourceError(_missing_episode(store, episode))
        outputs, skipped = replayable(store.read_steps(episode))
        return cls(outputs, name=name or f"replay:{run}/{episode}", skipped=skipped)

    @property
    def name(self) -> str:
        """The spec string that recreates this policy."""
        return self._name

    @property
    def outputs(self) -> list[PolicyOutput]:
        """The outputs this policy re-issues, in order."""
        return list(self._outputs)

    async def reset(self, instruction: str, context: PolicyContext) -> None:
        """Start again from the first recorded action."""
        self._next = 0

    async def act(self, observation: Observation) -> PolicyOutput:
        """The next recorded output, whatever ``observation`` shows; then ``finish``."""
        if self._next >= len(self._outputs):
            message = "the recorded episode has no more actions"
            return PolicyOutput(action=FinishAction(status="abort", message=message))
        output = self._outputs[self._next]
        self._next += 1
        return output


def _open_run(run: Path) -> RunStore:
    if not (run / "manifest.json").is_file():
        raise ReplaySourceError(
            f"{run} is not a run directory (no manifest.json); give the directory that "
            "`mgb sim run --out` or transfer-eval wrote"
        )
    return RunStore.open(run)


def _missing_episode(store: RunStore, episode: str) -> str:
    episodes_dir = store.root / "episodes"
    known = sorted(
        {*store.completed(), *(p.name for p in episodes_dir.iterdir() if p.is_dir())}
        if episodes_dir.is_dir()
        else set(store.completed())
    )
    near = difflib.get_close_matches(episode, known, n=3, cutoff=0.5)
    hint = f"; did you mean {', '.join(map(repr, near))}?" if near else ""
    listing = ", ".join(known[:10]) + (", ..." if len(known) > 10 else "") or "none"
    return f"run {store.root} has no recorded episode {episode!r}{hint} (episodes: {listing})"
