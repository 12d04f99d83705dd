"""``LearnedPolicy``: the linear softmax policy behind the bridge Policy protocol.

At each step it builds the candidate actions from the observation, scores them with
``phi @ w`` and takes the most probable one (greedy, for evaluation) or samples one with a
seeded generator (for GRPO rollouts). It keeps only what a phone agent could: the
instruction, the answer fields, and its own past moves and screens. With ``record=True``
each decision leaves a :class:`StepTrace` (the gradients GRPO needs) in :attr:`trace`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bridge.schema import Observation, PolicyContext, PolicyOutput
from policies.learned.candidates import Candidate, build_candidates
from policies.learned.checkpoint import CheckpointConfig, load_checkpoint, save_checkpoint
from policies.learned.features import (
    DIM,
    History,
    Instruction,
    dense_value,
    featurize,
    screen_signature,
)
from policies.learned.model import entropy, entropy_grad, greedy, log_prob_grad, sample, softmax

__all__ = ["Decision", "LearnedPolicy", "StepTrace"]


@dataclass(frozen=True)
class Decision:
    """One choice: the candidates, their features and probabilities, the index taken."""

    candidates: list[Candidate]
    phi: np.ndarray
    probs: np.ndarray
    index: int

    @property
    def chosen(self) -> Candidate:
        """The candidate taken."""
        return self.candidates[self.index]


@dataclass(frozen=True)
class StepTrace:
    """What a policy-gradient update needs from one step, computed when it was taken."""

    log_prob: float
    log_prob_grad: np.ndarray
    entropy: float
    entropy_grad: np.ndarray


class LearnedPolicy:
    """A bridge ``Policy`` scoring candidate actions with a linear model.

    Args:
        weights: The weight vector (``DIM`` floats); zeros (uniform choice) when None. The
            array is used as given, not copied: a trainer may update it between episodes.
        config: The checkpoint config (apps to open, provenance); defaults when None.
        path: Where the weights came from; part of :attr:`name`.
        sample: Sample actions (training) instead of taking the most probable (evaluation).
        seed: Seed of the sampling generator.
        record: Keep a :class:`StepTrace` per decision in :attr:`trace`.
    """

    def __init__(
        self,
        weights: np.ndarray | None = None,
        config: CheckpointConfig | None = None,
        *,
        path: str | Path | None = None,
        sample: bool = False,
        seed: int = 0,
        record: bool = False,
    ) -> None:
        self.weights = np.zeros(DIM) if weights is None else weights
        if self.weights.shape != (DIM,):
            raise ValueError(f"weights must have shape ({DIM},), got {self.weights.shape}")
        self.config = config or CheckpointConfig()
        self.path = None if path is None else str(path)
        self.sampling = sample
        self.rng = np.random.default_rng(seed)
        self.record = record
        self.trace: list[StepTrace] = []
        self._instruction = Instruction.of("", 1)
        self._context = PolicyContext()
        self._history = History()

    @property
    def name(self) -> str:
        """``learned:<checkpoint path>`` (``learned:<memory>`` for unsaved weights)."""
        return f"learned:{self.path or '<memory>'}"

    @classmethod
    def load(cls, path: str | Path, *, sample: bool = False, seed: int = 0) -> LearnedPolicy:
        """The policy stored in checkpoint directory ``path`` (greedy unless ``sample``).

        Raises:
            CheckpointError: the checkpoint is missing, incomplete or incompatible.
        """
        weights, config = load_checkpoint(path)
        return cls(weights, config, path=path, sample=sample, seed=seed)

    def save(self, path: str | Path, training: dict[str, object] | None = None) -> Path:
        """Write this policy's weights and config (with ``training`` metadata) to ``path``."""
        config = self.config
        if training is not None:
            config = config.model_copy(update={"training": training})
        CheckpointConfig.model_validate(config.model_dump())  # metadata must be JSON
        return save_checkpoint(path, self.weights, config)

    async def reset(self, instruction: str, context: PolicyContext) -> None:
        """Start a new episode on ``instruction``; forget the previous one."""
        self._instruction = Instruction.of(instruction, context.max_steps)
        self._context = context
        self._history = History()
        self.trace = []

    async def act(self, observation: Observation) -> PolicyOutput:
        """Choose the next action for ``observation``."""
        decision = self.decide(observation)
        chosen = decision.chosen
        thought = (
            f"{chosen.kind} {chosen.detail}".strip()
            + f" (p={decision.probs[decision.index]:.2f} of {len(decision.candidates)})"
        )
        return PolicyOutput(action=chosen.action, thought=thought)

    def decide(self, observation: Observation) -> Decision:
        """Score every candidate on ``observation``, pick one, and remember the move."""
        self._history.see(screen_signature(observation))
        candidates = build_candidates(
            observation,
            self._instruction.text,
            self._context.answer_fields,
            self.config.apps,
        )
        phi = featurize(observation, candidates, self._instruction, self._history)
        probs = softmax(phi @ self.weights)
        index = sample(probs, self.rng) if self.sampling else greedy(probs)
        decision = Decision(candidates, phi, probs, index)
        if self.record:
            self.trace.append(_trace(decision))
        toggled = decision.chosen.kind == "tap" and dense_value(phi[index], "tap", "toward") > 0
        self._history.record(decision.chosen, toggled)
        return decision


def _trace(decision: Decision) -> StepTrace:
    probs, phi = decision.probs, decision.phi
    return StepTrace(
        log_prob=float(np.log(max(probs[decision.index], 1e-300))),
        log_prob_grad=log_prob_grad(phi, probs, decision.index),
        entropy=entropy(probs),
        entropy_grad=entropy_grad(phi, probs),
    )
