"""Env factories named in a framework's config, for adapters that run in other processes.

verl builds its agent loops inside Ray workers from a YAML config, and SkyRL its envs from
an ``env_config``: there the env factory can only be named, as ``"package.module:name"``.
The name is resolved in the worker, so a client pool (``scaleout.pool``) or a simulator is
reached from whatever process runs the rollout.
"""

from __future__ import annotations

import importlib

from bridge.sync import EnvFactory
from trainers.errors import TrainerError

__all__ = ["load_factory"]


def load_factory(factory: EnvFactory | str | None) -> EnvFactory:
    """``factory`` itself, or the object ``"package.module:name"`` names.

    Raises:
        TrainerError: no factory, a malformed name, one that does not import, or not a
            callable.
    """
    if factory is None:
        raise TrainerError(
            "no env factory configured: set env_factory to 'package.module:name' of an "
            "async function returning a bridge Env (e.g. one that awaits pool.env())"
        )
    if not isinstance(factory, str):
        return factory
    module_name, _, attr = factory.partition(":")
    if not module_name or not attr:
        raise TrainerError(f"env_factory {factory!r} is not 'package.module:name'")
    try:
        target: object = importlib.import_module(module_name)
        for part in attr.split("."):
            target = getattr(target, part)
    except (ImportError, AttributeError) as exc:
        raise TrainerError(f"env_factory {factory!r} does not resolve: {exc}") from exc
    if not callable(target):
        raise TrainerError(f"env_factory {factory!r} names a {type(target).__name__}")
    return target
