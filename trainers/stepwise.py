"""A rollout driven from outside, one model reply at a time (GEM- and SkyRL-style envs).

Text-env frameworks own the generation loop: they call ``step(reply)`` with the model's
raw reply and expect the next prompt back. :class:`StepwiseRollout` turns
:meth:`trainers.rollout.EpisodeDriver.play` inside out rather than writing a second
episode loop: the rollout runs as a task on the caller's event loop, and its model call
hands each prompt out and waits until :meth:`StepwiseRollout.reply` brings the reply.
Invalid replies, ``max_steps``, infra errors and the reward are therefore exactly those of
:func:`trainers.rollout.rollout`.
"""

from __future__ import annotations

import asyncio
from typing import Any

from bridge.records import TaskInstance
from bridge.sync import EnvFactory
from policies.vlm.adapter import Adapter
from policies.vlm.messages import ChatMessage
from trainers.errors import TrainerError
from trainers.rollout import EpisodeDriver, RolloutOutcome, Turn

__all__ = ["StepwiseRollout"]


class StepwiseRollout:
    """One episode whose model replies are supplied by the caller.

    :meth:`start` and :meth:`reply` return the next prompt (the adapter's messages), or the
    :class:`~trainers.rollout.RolloutOutcome` once the episode is over. Use it from one
    event loop; :meth:`cancel` abandons an unfinished episode (its env is closed).
    """

    def __init__(
        self,
        make_env: EnvFactory,
        task: TaskInstance,
        adapter: Adapter,
        *,
        episode_id: str = "rollout",
        step_timeout_s: float = 120.0,
    ) -> None:
        self._driver = EpisodeDriver(self._ask, adapter)
        self._play = (make_env, task, episode_id, step_timeout_s)
        self._prompt: asyncio.Future[list[ChatMessage]] | None = None
        self._reply: asyncio.Future[str] | None = None
        self._task: asyncio.Task[RolloutOutcome] | None = None
        self.outcome: RolloutOutcome | None = None
        """The outcome, once the episode is over."""

    @property
    def waiting(self) -> bool:
        """Whether a prompt is out and the episode waits for its reply."""
        return self._reply is not None and not self._reply.done()

    def turns(self) -> list[Turn]:
        """The turns taken so far (the last one's reading included once it was sent)."""
        return self._driver.turns()

    async def start(self) -> list[ChatMessage] | RolloutOutcome:
        """Start the episode (make and reset the env) and return its first prompt.

        Raises:
            TrainerError: it was started before.
        """
        if self._task is not None:
            raise TrainerError("this StepwiseRollout was started already; make a new one")
        make_env, task, episode_id, step_timeout_s = self._play
        self._prompt = asyncio.get_running_loop().create_future()
        play = self._driver.play(
            make_env, task, episode_id=episode_id, step_timeout_s=step_timeout_s
        )
        self._task = asyncio.ensure_future(play)
        return await self._next()

    async def reply(self, text: str) -> list[ChatMessage] | RolloutOutcome:
        """Send the model's reply to the last prompt; the next prompt or the outcome.

        Raises:
            TrainerError: no prompt is waiting (not started, or the episode is over).
        """
        reply = self._reply
        if reply is None or reply.done():
            raise TrainerError("no prompt waits for a reply: start the episode, or it is over")
        self._prompt = asyncio.get_running_loop().create_future()
        reply.set_result(text)
        return await self._next()

    async def cancel(self) -> None:
        """Abandon the episode if it is still running; its env is closed."""
        task = self._task
        if task is not None and not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    async def _ask(self, messages: list[ChatMessage]) -> str:
        """The driver's model call: hand the prompt out, wait for :meth:`reply`."""
        if self._prompt is None or self._prompt.done():
            raise RuntimeError("a prompt was asked for while the previous one is unanswered")
        self._reply = asyncio.get_running_loop().create_future()
        self._prompt.set_result(messages)
        return await self._reply

    async def _next(self) -> list[ChatMessage] | RolloutOutcome:
        prompt, task = self._prompt, self._task
        assert prompt is not None and task is not None
        either: set[asyncio.Future[Any]] = {prompt, task}
        await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
        if prompt.done():
            return prompt.result()
        prompt.cancel()
        self.outcome = task.result()  # a bug in the episode propagates from here
        return self.outcome
