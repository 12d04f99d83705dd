"""The linear softmax model: probabilities, sampling, and gradients checked by finite
differences."""

from __future__ import annotations

import numpy as np
import pytest

from policies.learned.model import (
    entropy,
    entropy_grad,
    greedy,
    log_prob_grad,
    log_softmax,
    sample,
    softmax,
)


def _problem(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    phi = rng.normal(size=(7, 11))
    phi[:, 3] = 0.0  # a feature no candidate has
    weights = rng.normal(size=11)
    return phi, weights


def _numeric(f: object, weights: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    grad = np.zeros_like(weights)
    for i in range(weights.size):
        step = np.zeros_like(weights)
        step[i] = eps
        grad[i] = (f(weights + step) - f(weights - step)) / (2 * eps)  # type: ignore[operator]
    return grad


def test_softmax_is_stable_and_normalized() -> None:
    probs = softmax(np.array([1000.0, 1000.0, -1000.0]))
    assert probs == pytest.approx([0.5, 0.5, 0.0])
    assert np.exp(log_softmax(np.array([1.0, 2.0, 3.0]))).sum() == pytest.approx(1.0)


@pytest.mark.parametrize("index", [0, 3, 6])
def test_log_prob_gradient_matches_finite_differences(index: int) -> None:
    phi, weights = _problem()
    analytic = log_prob_grad(phi, softmax(phi @ weights), index)
    numeric = _numeric(lambda w: log_softmax(phi @ w)[index], weights)
    assert analytic == pytest.approx(numeric, abs=1e-6)
    assert analytic[3] == 0.0


def test_entropy_gradient_matches_finite_differences() -> None:
    phi, weights = _problem(1)
    analytic = entropy_grad(phi, softmax(phi @ weights))
    numeric = _numeric(lambda w: entropy(softmax(phi @ w)), weights)
    assert analytic == pytest.approx(numeric, abs=1e-6)


def test_entropy_of_uniform_and_certain_choices() -> None:
    assert entropy(np.full(4, 0.25)) == pytest.approx(np.log(4))
    assert entropy(np.array([1.0, 0.0])) == 0.0


def test_sampling_is_seeded_and_follows_the_probabilities() -> None:
    probs = np.array([0.1, 0.6, 0.3])
    draws = [sample(probs, np.random.default_rng(7)) for _ in range(3)]
    assert len(set(draws)) == 1  # same seed, same draw
    rng = np.random.default_rng(0)
    counts = np.bincount([sample(probs, rng) for _ in range(6000)], minlength=3) / 6000
    assert counts == pytest.approx(probs, abs=0.03)
    assert sample(np.array([0.0, 0.0, 1.0]), rng) == 2


def test_greedy_breaks_ties_by_the_first_index() -> None:
    assert greedy(np.array([0.2, 0.4, 0.4])) == 1
    assert greedy(np.full(5, 0.2)) == 0
