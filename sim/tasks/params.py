"""Typed, seeded task parameters.

A template declares its parameters as specs; :func:`sample_params` draws them in order from
the task's own ``random.Random(seed)``, so one seed always gives one instance.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["Boolean", "Choice", "Integer", "ParamSpec", "WorldChoice", "sample_params"]

World = Mapping[str, Mapping[str, Any]]
"""World data by app id."""


@dataclass(frozen=True)
class Boolean:
    """True or False."""

    kind: str = "bool"

    def sample(self, rng: random.Random, world: World) -> bool:
        """Draw a value."""
        return rng.random() < 0.5


@dataclass(frozen=True)
class Choice:
    """One of a fixed list of values."""

    options: Sequence[Any]
    kind: str = "choice"

    def sample(self, rng: random.Random, world: World) -> Any:
        """Draw a value."""
        if not self.options:
            raise ValueError("a Choice needs at least one option")
        return self.options[rng.randrange(len(self.options))]


@dataclass(frozen=True)
class Integer:
    """An integer in [low, high]."""

    low: int
    high: int
    kind: str = "int"

    def sample(self, rng: random.Random, world: World) -> int:
        """Draw a value."""
        return rng.randint(self.low, self.high)


@dataclass(frozen=True)
class WorldChoice:
    """One of the values ``options(world)`` lists (e.g. a contact from world data)."""

    options: Callable[[World], Sequence[Any]]
    kind: str = "world"

    def sample(self, rng: random.Random, world: World) -> Any:
        """Draw a value."""
        values = list(self.options(world))
        if not values:
            raise ValueError("the world offers no value for this parameter")
        return values[rng.randrange(len(values))]


ParamSpec = Boolean | Choice | Integer | WorldChoice


def sample_params(specs: Mapping[str, ParamSpec], seed: int, world: World) -> dict[str, Any]:
    """Draw every parameter, in declaration order, from ``random.Random(seed)``."""
    rng = random.Random(seed)
    return {name: spec.sample(rng, world) for name, spec in specs.items()}
