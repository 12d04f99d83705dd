"""A verl agent loop: one phone episode per sample, generated through verl's LLM servers.

Written against verl 0.7.1 (``verl.experimental.agent_loop``): an ``AgentLoopBase``
subclass registered with ``@register``, whose ``async run(sampling_params, **kwargs)``
returns an ``AgentLoopOutput``. verl needs torch, so it is imported only when the class is
built (:func:`make_agent_loop`, or the first access of
``trainers.verl_loop.MobileGymAgentLoop``, which is what verl's Hydra ``_target_`` does in
its Ray workers); without verl that raises :class:`~trainers.errors.MissingExtra` naming
``pip install mobilegym-bridge[verl]``.

Per sample, :meth:`run` poses the row's task (:func:`dataset_row` builds rows) in a fresh
env from the configured factory and plays it with :func:`trainers.rollout.rollout`. Each
turn's prompt is the VLM adapter's messages, tokenized with verl's ``apply_chat_template``
(the processor's when there is one, screenshots as images), generated with
``self.server_manager.generate`` (one sticky ``request_id`` per episode) and decoded with
verl's tokenizer.

The returned sequence:
    * **merged** when every turn's prompt extends the previous turn's prompt and reply
      token for token (an adapter that replays the conversation): the first prompt, then
      each reply (mask 1) and the tokens the next turn added (mask 0), as verl's own
      multi-turn loops build it;
    * **last turn** otherwise (adapters that rebuild the prompt each turn, e.g. qwen3vl's
      history as text): that turn's prompt and reply; every turn's ids are in
      ``extra_fields["turns"]`` for recipes that train per step (MobileGym-RL's per-step
      GRPO).

``reward_score`` is the shaped reward (``mgb train``'s); an infra error gives 0 and sets
``extra_fields["infra_error"]`` (drop those samples rather than learn from them).

Configure it in verl's agent loop YAML (``actor_rollout_ref.rollout.agent.
agent_loop_config_path``)::

    - name: mobilegym_bridge
      _target_: trainers.verl_loop.MobileGymAgentLoop
      env_factory: my_project.envs:make_env   # async () -> bridge Env, e.g. pool.env
      adapter: qwen3vl
"""

from __future__ import annotations

import base64
import io
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bridge.records import TaskInstance
from bridge.sync import EnvFactory
from policies.vlm.messages import ChatMessage, ImagePart
from trainers.errors import TrainerError, import_extra
from trainers.factories import load_factory
from trainers.rollout import RolloutOutcome, make_adapter, message_dicts, rollout
from trainers.rows import task_from_row, task_row

__all__ = [
    "AGENT_NAME",
    "TokenSequence",
    "TokenTurn",
    "dataset_row",
    "make_agent_loop",
    "merge_turns",
]

AGENT_NAME = "mobilegym_bridge"
"""The agent loop name :func:`make_agent_loop` registers by default (a row's
``agent_name``)."""

_VERL = "verl.experimental.agent_loop.agent_loop"
_CLASS = "MobileGymAgentLoop"


def dataset_row(
    task: TaskInstance, *, index: int = 0, agent_name: str = AGENT_NAME
) -> dict[str, Any]:
    """A verl dataset row for ``task``: ``prompt`` (the instruction as one user message,
    which verl's dataset needs; the loop builds its own prompts), ``agent_name``, and
    ``extra_info`` with ``index`` and the task (:func:`trainers.rows.task_row`)."""
    return {
        "data_source": AGENT_NAME,
        "prompt": [{"role": "user", "content": task.instruction}],
        "agent_name": agent_name,
        "extra_info": {"index": index, **task_row(task)},
    }


@dataclass(frozen=True)
class TokenTurn:
    """One generation: its prompt ids, reply ids and logprobs, and the prompt's images."""

    prompt_ids: list[int]
    response_ids: list[int]
    logprobs: list[float] | None
    images: list[Any] = field(default_factory=list)


@dataclass(frozen=True)
class TokenSequence:
    """The token sequence an episode is trained on (see the module docstring)."""

    prompt_ids: list[int]
    response_ids: list[int]
    response_mask: list[int]
    logprobs: list[float] | None
    images: list[Any]
    kind: str


def merge_turns(turns: Sequence[TokenTurn]) -> TokenSequence:
    """The episode's sequence: the turns merged when each prompt extends the last prompt
    and reply, else the last turn alone.

    Raises:
        TrainerError: there are no turns.
    """
    if not turns:
        raise TrainerError("an episode without a generation has no sequence")
    first, last = turns[0], turns[-1]
    response, mask = list(first.response_ids), [1] * len(first.response_ids)
    logprobs = list(first.logprobs) if first.logprobs is not None else None
    seen = first.prompt_ids + first.response_ids
    for turn in turns[1:]:
        if turn.prompt_ids[: len(seen)] != seen:
            return TokenSequence(
                last.prompt_ids, last.response_ids, [1] * len(last.response_ids),
                last.logprobs, last.images, "last_turn",
            )  # fmt: skip
        added = turn.prompt_ids[len(seen) :]
        response += added + turn.response_ids
        mask += [0] * len(added) + [1] * len(turn.response_ids)
        if logprobs is not None and turn.logprobs is not None:
            logprobs += [0.0] * len(added) + list(turn.logprobs)
        else:
            logprobs = None
        seen = turn.prompt_ids + turn.response_ids
    return TokenSequence(first.prompt_ids, response, mask, logprobs, last.images, "merged")


def _image_inputs(
    messages: list[ChatMessage], has_processor: bool
) -> tuple[list[dict[str, Any]], list[Any]]:
    """The messages as a processor's chat template takes them (``{"type": "image"}``
    parts) and the decoded screenshots, in order."""
    dicts = message_dicts(messages)
    urls = [
        part.image_url.url
        for message in messages
        if isinstance(message.content, list)
        for part in message.content
        if isinstance(part, ImagePart)
    ]
    if not urls:
        return dicts, []
    if not has_processor:
        raise TrainerError(
            "the prompt holds a screenshot but verl gave the loop no processor (a text "
            "model): use envs without screenshots and a text adapter (generic)"
        )
    for message in dicts:
        content = message["content"]
        if isinstance(content, list):
            message["content"] = [
                {"type": "image"} if part.get("type") == "image_url" else part for part in content
            ]
    return dicts, [_decode_image(url) for url in urls]


def _decode_image(url: str) -> Any:
    from PIL import Image  # verl's own dependency, present wherever verl is

    _, _, payload = url.partition(",")
    image = Image.open(io.BytesIO(base64.b64decode(payload)))
    return image.convert("RGB")


class _EpisodeLoop:
    """The agent loop's behaviour; :func:`make_agent_loop` puts it on verl's
    ``AgentLoopBase`` (whose ``server_manager``, ``tokenizer``, ``processor``,
    ``rollout_config`` and ``apply_chat_template`` it uses).

    Options from the agent loop YAML: ``env_factory`` (``"pkg.mod:name"`` of an async
    factory, or the factory), ``adapter`` (a name), ``adapter_options``, ``max_steps``,
    ``step_timeout_s``.
    """

    _verl: Any = None
    """The verl agent loop module the class was built on (for ``AgentLoopOutput``)."""
    # set by AgentLoopBase.__init__ (annotations only: the mixin must not shadow them)
    server_manager: Any
    tokenizer: Any
    processor: Any
    rollout_config: Any

    if TYPE_CHECKING:

        async def apply_chat_template(
            self, messages: list[dict[str, Any]], images: list[Any] | None = None
        ) -> list[int]:
            """AgentLoopBase's: the prompt token ids of ``messages``."""
            ...

    def __init__(
        self,
        *args: Any,
        env_factory: EnvFactory | str | None = None,
        adapter: str = "qwen3vl",
        adapter_options: Mapping[str, object] | None = None,
        max_steps: int | None = None,
        step_timeout_s: float = 120.0,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)  # AgentLoopBase's: trainer_config, server_manager, …
        self.env_factory = load_factory(env_factory)
        self.adapter = make_adapter(adapter, dict(adapter_options or {}))
        self.max_steps, self.step_timeout_s = max_steps, step_timeout_s

    async def run(self, sampling_params: dict[str, Any], **kwargs: Any) -> Any:
        """Play the row's task; its sequence, ``reward_score`` and flags (see the module)."""
        task = task_from_row(kwargs)
        turns: list[TokenTurn] = []
        request_id, spent = uuid.uuid4().hex, [0.0]

        async def model(messages: list[ChatMessage]) -> str:
            started = time.perf_counter()
            text = await self._generate(messages, sampling_params, request_id, turns)
            spent[0] += time.perf_counter() - started
            return text

        outcome = await rollout(
            self.env_factory,
            task,
            model,
            self.adapter,
            max_steps=self.max_steps,
            step_timeout_s=self.step_timeout_s,
            episode_id=request_id,
        )
        return await self._output(outcome, turns, kwargs, spent[0])

    async def _generate(
        self,
        messages: list[ChatMessage],
        sampling_params: dict[str, Any],
        request_id: str,
        turns: list[TokenTurn],
    ) -> str:
        """One turn: tokenize the adapter's messages, generate, record, decode."""
        dicts, images = _image_inputs(messages, self.processor is not None)
        prompt_ids = await self.apply_chat_template(dicts, images=images or None)
        output = await self.server_manager.generate(
            request_id=request_id,
            prompt_ids=prompt_ids,
            sampling_params=sampling_params,
            image_data=images or None,
        )
        ids = list(output.token_ids)
        turns.append(TokenTurn(list(prompt_ids), ids, output.log_probs, images))
        return self.tokenizer.decode(ids, skip_special_tokens=True)

    async def _output(
        self,
        outcome: RolloutOutcome,
        turns: list[TokenTurn],
        row: Mapping[str, Any],
        generate_s: float,
    ) -> Any:
        """The ``AgentLoopOutput`` of an episode."""
        if turns:
            seq = merge_turns(turns)
        else:  # the env failed before the first generation: the row's own prompt
            ids = await self.apply_chat_template(list(row.get("raw_prompt") or []))
            seq = TokenSequence(list(ids), [], [], None, [], "none")
        limit = self.rollout_config.response_length
        return self._verl.AgentLoopOutput(
            prompt_ids=seq.prompt_ids,
            response_ids=seq.response_ids[:limit],
            response_mask=seq.response_mask[:limit],
            response_logprobs=None if seq.logprobs is None else seq.logprobs[:limit],
            multi_modal_data={"images": seq.images} if seq.images else {},
            reward_score=outcome.reward,
            num_turns=2 * len(turns),
            metrics={"generate_sequences": generate_s, "num_preempted": -1},
            extra_fields=_extra_fields(outcome, turns, seq.kind),
        )


def _extra_fields(outcome: RolloutOutcome, turns: list[TokenTurn], kind: str) -> dict[str, Any]:
    verdict = outcome.verdict
    return {
        "infra_error": outcome.infra_error,
        "error": outcome.error,
        "success": outcome.success,
        "progress": verdict.progress if verdict is not None else 0.0,
        "termination": outcome.record.termination,
        "task_id": outcome.record.task.task_id,
        "sequence": kind,
        "turns": [
            {"prompt_ids": t.prompt_ids, "response_ids": t.response_ids, "logprobs": t.logprobs}
            for t in turns
        ],
        "turn_scores": [],  # the keys verl's own loops always set
        "tool_rewards": [],
    }


def make_agent_loop(name: str = AGENT_NAME) -> type:
    """The agent loop class, built on verl's ``AgentLoopBase`` and registered as ``name``
    with verl's ``@register`` (its Hydra target: ``trainers.verl_loop.MobileGymAgentLoop``).

    Raises:
        MissingExtra: verl is not installed (``pip install mobilegym-bridge[verl]``).
    """
    verl = import_extra(_VERL, "verl", "verl")
    namespace = {"__module__": __name__, "__qualname__": _CLASS, "__doc__": _EpisodeLoop.__doc__,
                 "_verl": verl}  # fmt: skip
    cls = type(_CLASS, (_EpisodeLoop, verl.AgentLoopBase), namespace)
    return verl.register(name)(cls)


def __getattr__(name: str) -> Any:
    """``trainers.verl_loop.MobileGymAgentLoop``: built (and registered) on first use."""
    if name != _CLASS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    cls = make_agent_loop()
    globals()[_CLASS] = cls
    return cls
