"""An env conformance checker, in the spirit of Gymnasium's ``check_env``.

:func:`check_env` drives a fresh env through one short life — misuse before reset, reset,
a step the agent got wrong, a harmless step, two verdicts, snapshot/restore/fork when the
env is forkable, a second reset, close twice, misuse after close — and checks what every
world must do the same way: step numbering, observation types and ``ui_status``, step errors
mirrored in ``last_action_error``, timings that add up, misuse refused with
:class:`~bridge.errors.EnvUsageError`. Every env we ship passes it in ``make test``; an env
someone else writes should too.

:func:`policy_view` is what a policy may depend on in an observation (the UI nodes' text,
content-desc, resource id, class, flags and bounds; foreground app, package and activity;
keyboard; ``ui_status``; step; the error) — not the backend, screenshot bytes or timings.
Two worlds that agree on it give a policy the same experience.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from bridge.env import Env, ForkableEnv
from bridge.errors import EnvCheckError, EnvUsageError
from bridge.records import TaskInstance
from bridge.schema import (
    Action,
    Observation,
    StepResult,
    TapAction,
    Target,
    UIStatus,
    Verdict,
    WaitAction,
)

__all__ = ["check_env", "policy_view"]

_NODE_FIELDS = (
    "text", "content_desc", "resource_id", "class_name", "bounds_px", "checkable", "checked",
    "clickable", "long_clickable", "editable", "focusable", "focused", "scrollable", "enabled",
    "selected", "password",
)  # fmt: skip


def policy_view(observation: Observation) -> dict[str, Any]:
    """The parts of ``observation`` a policy may depend on, as plain data."""
    fg = observation.foreground
    return {
        "step": observation.step,
        "ui_status": observation.ui_status.value,
        "foreground": {"app": fg.app, "package": fg.package, "activity": fg.activity},
        "keyboard_visible": observation.keyboard_visible,
        "last_action_error": observation.last_action_error,
        "ui": [{name: getattr(node, name) for name in _NODE_FIELDS} for node in observation.ui],
    }


class _Findings:
    def __init__(self, name: str) -> None:
        self.name = name
        self.problems: list[str] = []

    def expect(self, condition: bool, problem: str) -> None:
        if not condition:
            self.problems.append(problem)

    async def refuses(self, call: Callable[[], Awaitable[object]], what: str) -> None:
        try:
            await call()
        except EnvUsageError:
            return
        except Exception as exc:  # any other outcome is the finding
            self.problems.append(f"{what} raised {type(exc).__name__}: {exc} (not EnvUsageError)")
            return
        self.problems.append(f"{what} was accepted; it must raise EnvUsageError")

    def raise_if_any(self) -> None:
        if self.problems:
            listed = "\n".join(f"  - {problem}" for problem in self.problems)
            raise EnvCheckError(f"{self.name} does not conform:\n{listed}")


def _observation(found: _Findings, obs: object, where: str, step: int) -> Observation | None:
    if not isinstance(obs, Observation):
        found.expect(False, f"{where} returned {type(obs).__name__}, not Observation")
        return None
    found.expect(obs.step == step, f"{where}: observation step {obs.step}, expected {step}")
    found.expect(isinstance(obs.ui_status, UIStatus), f"{where}: ui_status is not a UIStatus")
    ids = [node.id for node in obs.ui]
    found.expect(ids == list(range(len(ids))), f"{where}: UI node ids are not 0..n-1 in order")
    width, height = obs.screen.width_px, obs.screen.height_px
    for node in obs.ui:
        if node.parent is not None and not 0 <= node.parent < node.id:
            found.expect(False, f"{where}: node {node.id}'s parent {node.parent} is not before it")
        left, top, right, bottom = node.bounds_px
        inside = 0 <= left <= right <= width and 0 <= top <= bottom <= height
        found.expect(inside, f"{where}: node {node.id} bounds {node.bounds_px} off the screen")
    if obs.ui_status is UIStatus.OK:
        found.expect(bool(obs.ui), f"{where}: ui_status ok but the tree is empty")
    return obs


def _step(
    found: _Findings, result: object, action: Action, where: str, step: int
) -> StepResult | None:
    if not isinstance(result, StepResult):
        found.expect(False, f"{where} returned {type(result).__name__}, not StepResult")
        return None
    _observation(found, result.observation, where, step)
    found.expect(
        result.error == result.observation.last_action_error,
        f"{where}: error {result.error!r} but last_action_error "
        f"{result.observation.last_action_error!r}",
    )
    if result.executed is not None:
        found.expect(result.executed.action == action, f"{where}: executed another action")
    t = result.timings
    parts = t.act_ms + t.settle_ms + t.observe_ms
    found.expect(parts <= t.total_ms * 1.01 + 1.0, f"{where}: timings add up to more than total")
    return result


async def check_env(
    make_env: Callable[[], Awaitable[Env]], task: TaskInstance, *, name: str = "env"
) -> None:
    """Check that envs made by ``make_env`` keep the contract on ``task``.

    Raises:
        EnvCheckError: listing every problem found.
    """
    found = _Findings(name)
    env = await make_env()
    try:
        await _check_life(found, env, task)
    finally:
        await env.close()
    found.raise_if_any()


async def _check_life(found: _Findings, env: Env, task: TaskInstance) -> None:
    wait = WaitAction(seconds=0.1)
    await found.refuses(lambda: env.step(wait), "step before reset")
    await found.refuses(env.verdict, "verdict before reset")
    first = _observation(found, await env.reset(task), "reset", 0)
    if first is None:
        return
    wrong = TapAction(target=Target.node(len(first.ui) + 1000))
    missed = _step(found, await env.step(wrong), wrong, "a tap on a missing element", 1)
    if missed is not None:
        found.expect(missed.error is not None, "a tap on a missing element gave no step error")
    waited = _step(found, await env.step(wait), wait, "a wait", 2)
    if waited is not None:
        found.expect(waited.error is None, f"a wait gave the error {waited.error!r}")
    verdicts = [await env.verdict(), await env.verdict()]
    for verdict in verdicts:
        found.expect(isinstance(verdict, Verdict), "verdict() did not return a Verdict")
    if all(isinstance(v, Verdict) for v in verdicts):
        found.expect(verdicts[0] == verdicts[1], "judging twice gave two verdicts")
    if isinstance(env, ForkableEnv) and waited is not None:
        await _check_fork(found, env, waited.observation)
    again = _observation(found, await env.reset(task), "a second reset", 0)
    if again is not None:
        found.expect(again.last_action_error is None, "a reset kept the last step's error")
    await env.close()
    await env.close()
    await found.refuses(lambda: env.step(wait), "step after close")
    await found.refuses(env.verdict, "verdict after close")
    await found.refuses(lambda: env.reset(task), "reset after close")


async def _check_fork(found: _Findings, env: ForkableEnv, shown: Observation) -> None:
    snapshot = await env.snapshot()
    found.expect(isinstance(snapshot, bytes), "snapshot() did not return bytes")
    restored = await env.restore(snapshot)
    # the error belongs to the step that showed the screen, not to the screen
    view = {**policy_view(shown), "last_action_error": None}
    restored_view = {**policy_view(restored), "last_action_error": None}
    found.expect(restored_view == view, "restore(snapshot()) shows another screen")
    forks = await env.fork(1)
    try:
        found.expect(len(forks) == 1, f"fork(1) gave {len(forks)} envs")
        for fork in forks:
            found.expect(await fork.snapshot() == snapshot, "a fork starts from another state")
    finally:
        for fork in forks:
            await fork.close()
