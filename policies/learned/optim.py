"""Optimizers for the learned policy's weight vector: Adam (the default) and plain SGD.

Both *ascend*: GRPO maximizes the expected shaped reward. Adam moves every weight with a
gradient by about the learning rate, whatever the gradient's size, which makes rarely
active features learn fast (and also amplifies their noise); SGD moves each weight in
proportion to its gradient.
"""

from __future__ import annotations

import numpy as np

__all__ = ["SGD", "Adam"]


class SGD:
    """Plain gradient ascent: ``w + lr * grad`` (rarely seen features move little)."""

    def __init__(self, size: int, lr: float) -> None:
        self.lr = lr

    def step(self, weights: np.ndarray, grad: np.ndarray) -> np.ndarray:
        """New weights (a new array) after one step up ``grad``."""
        return weights + self.lr * grad


class Adam:
    """Adam for gradient *ascent* on one weight vector (Kingma & Ba, bias-corrected)."""

    def __init__(self, size: int, lr: float, betas: tuple[float, float] = (0.9, 0.999)) -> None:
        self.lr = lr
        self.beta1, self.beta2 = betas
        self.m = np.zeros(size)
        self.v = np.zeros(size)
        self.t = 0

    def step(self, weights: np.ndarray, grad: np.ndarray) -> np.ndarray:
        """New weights (a new array) after one step up ``grad``."""
        self.t += 1
        self.m = self.beta1 * self.m + (1 - self.beta1) * grad
        self.v = self.beta2 * self.v + (1 - self.beta2) * grad * grad
        m_hat = self.m / (1 - self.beta1**self.t)
        v_hat = self.v / (1 - self.beta2**self.t)
        return weights + self.lr * m_hat / (np.sqrt(v_hat) + 1e-8)
