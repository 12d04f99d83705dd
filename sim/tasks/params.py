"""Typed, seeded task parameters.

A template's parameters are a pydantic model (:class:`TaskParams`); a field drawn from the
seed carries its sampler in its metadata (``on: Annotated[bool, Boolean()]``), a field
without one is derived from the drawn ones and world data by the template. :func:`sample_params`
draws the sampled fields in declaration order from the task's own ``random.Random(seed)``, so
one seed always gives one instance.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict

__all__ = [
    "Boolean",
    "Choice",
    "Integer",
    "NoParams",
    "ParamSpec",
    "TaskParams",
    "WorldChoice",
    "sample_params",
    "sampled_fields",
]

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


class TaskParams(BaseModel):
    """Base of every template's parameters: typed, frozen, nothing unknown."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class NoParams(TaskParams):
    """The parameters of a template that has none."""


_SAMPLERS = (Boolean, Choice, Integer, WorldChoice)


def sampled_fields(model: type[TaskParams]) -> dict[str, ParamSpec]:
    """The fields of ``model`` drawn from the seed, with their samplers, in order."""
    found: dict[str, ParamSpec] = {}
    for name, info in model.model_fields.items():
        spec = next((m for m in info.metadata if isinstance(m, _SAMPLERS)), None)
        if spec is not None:
            found[name] = spec
    return found


def sample_params(model: type[TaskParams], seed: int, world: World) -> dict[str, Any]:
    """Draw every sampled field of ``model``, in declaration order, from
    ``random.Random(seed)``."""
    rng = random.Random(seed)
    return {name: spec.sample(rng, world) for name, spec in sampled_fields(model).items()}
