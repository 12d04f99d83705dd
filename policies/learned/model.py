"""The linear softmax policy: ``logits = phi @ w`` over one observation's candidates.

Pure numpy and deterministic: sampling draws from a seeded :class:`numpy.random.Generator`
and the greedy choice breaks ties by the lowest index. The gradients here are what GRPO
needs: of the log-probability of a chosen candidate and of the entropy, both with respect to
the weights.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "entropy",
    "entropy_grad",
    "greedy",
    "log_prob_grad",
    "log_softmax",
    "sample",
    "softmax",
]


def log_softmax(logits: np.ndarray) -> np.ndarray:
    """``log(softmax(logits))``, computed stably."""
    shifted = logits - np.max(logits)
    return shifted - np.log(np.sum(np.exp(shifted)))


def softmax(logits: np.ndarray) -> np.ndarray:
    """Probabilities of a logit vector (they sum to 1)."""
    return np.exp(log_softmax(logits))


def sample(probs: np.ndarray, rng: np.random.Generator) -> int:
    """An index drawn from ``probs`` with ``rng`` (one uniform draw per call)."""
    cumulative = np.cumsum(probs)
    index = int(np.searchsorted(cumulative, rng.random() * cumulative[-1], side="right"))
    return min(index, len(probs) - 1)


def greedy(probs: np.ndarray) -> int:
    """The most probable index; ties go to the first."""
    return int(np.argmax(probs))


def log_prob_grad(phi: np.ndarray, probs: np.ndarray, index: int) -> np.ndarray:
    """d log pi(index) / d w  =  phi[index] - sum_c pi(c) phi[c]."""
    return phi[index] - probs @ phi


def entropy(probs: np.ndarray) -> float:
    """Shannon entropy of ``probs`` in nats."""
    positive = probs[probs > 0]
    return float(-np.sum(positive * np.log(positive)))


def entropy_grad(phi: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """d H / d w for ``H = -sum pi log pi`` with ``pi = softmax(phi @ w)``.

    ``dH/dz_c = -pi_c (log pi_c + H)``, chained through ``z = phi @ w``.
    """
    logs = np.log(np.clip(probs, 1e-300, None))
    d_logits = -probs * (logs + entropy(probs))
    return d_logits @ phi
