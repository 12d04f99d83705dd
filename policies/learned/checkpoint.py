"""Checkpoints of the learned policy: a directory with ``weights.npy`` and ``config.json``.

Plain files any tool can read: the weight vector as a float64 ``.npy`` (no pickles) and a
JSON config with the feature version and sizes it was trained under, the seed and the
training metadata. Loading checks all of it and raises :class:`CheckpointError` naming the
path and what to do. Files are written to a temporary name and renamed, so a killed save
never leaves a half-written checkpoint.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError

from policies.errors import CheckpointError
from policies.learned.candidates import KINDS, trained_app_ids
from policies.learned.features import DENSE_NAMES, DIM, FEATURE_VERSION, HASH_DIM

__all__ = [
    "CONFIG_FILE",
    "WEIGHTS_FILE",
    "CheckpointConfig",
    "load_checkpoint",
    "save_checkpoint",
]

CONFIG_FILE = "config.json"
WEIGHTS_FILE = "weights.npy"
_RETRAIN = "train a new one with `mgb train --out DIR`"


class CheckpointConfig(BaseModel):
    """``config.json``: what the weights mean and where they came from."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    format: Literal["mgb-learned-policy"] = "mgb-learned-policy"
    feature_version: int = FEATURE_VERSION
    dim: int = DIM
    hash_dim: int = HASH_DIM
    kinds: list[str] = Field(default_factory=lambda: list(KINDS))
    dense_names: list[str] = Field(default_factory=lambda: list(DENSE_NAMES))
    apps: list[str] = Field(default_factory=lambda: list(trained_app_ids()))
    seed: int = 0
    training: dict[str, JsonValue] = Field(default_factory=dict)


def _write_atomic(path: Path, write: Callable[[BinaryIO], object]) -> None:
    temporary = path.with_name(f".{path.name}.tmp")
    with open(temporary, "wb") as handle:
        write(handle)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)


def save_checkpoint(path: str | Path, weights: np.ndarray, config: CheckpointConfig) -> Path:
    """Write ``weights`` and ``config`` into directory ``path`` (created if needed)."""
    directory = Path(path)
    if weights.shape != (config.dim,):
        raise CheckpointError(f"weights have shape {weights.shape}, config says ({config.dim},)")
    directory.mkdir(parents=True, exist_ok=True)
    data = np.ascontiguousarray(weights, dtype=np.float64)
    _write_atomic(directory / WEIGHTS_FILE, lambda h: np.save(h, data, allow_pickle=False))
    text = config.model_dump_json(indent=2) + "\n"
    _write_atomic(directory / CONFIG_FILE, lambda h: h.write(text.encode("utf-8")))
    return directory


def _read_config(directory: Path) -> CheckpointConfig:
    file = directory / CONFIG_FILE
    if not file.is_file():
        raise CheckpointError(f"checkpoint {directory}: {CONFIG_FILE} is missing; {_RETRAIN}")
    try:
        return CheckpointConfig.model_validate(json.loads(file.read_text(encoding="utf-8")))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CheckpointError(f"checkpoint {file} is not valid JSON ({exc}); {_RETRAIN}") from exc
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "(root)"
        raise CheckpointError(
            f"checkpoint {file} is not a learned-policy config: {where}: {first['msg']}"
        ) from exc


def _check_compatible(directory: Path, config: CheckpointConfig) -> None:
    if config.feature_version != FEATURE_VERSION:
        raise CheckpointError(
            f"checkpoint {directory} was trained with feature version {config.feature_version}"
            f" but this code computes version {FEATURE_VERSION}; {_RETRAIN}"
        )
    expected = (DIM, HASH_DIM, list(KINDS), list(DENSE_NAMES))
    actual = (config.dim, config.hash_dim, config.kinds, config.dense_names)
    if actual != expected:
        raise CheckpointError(
            f"checkpoint {directory} has feature layout dim={config.dim}, hash_dim="
            f"{config.hash_dim} that differs from this code's dim={DIM}, hash_dim={HASH_DIM} "
            f"(same version {FEATURE_VERSION}: the feature code changed without a version bump)"
        )


def _read_weights(directory: Path, dim: int) -> np.ndarray:
    file = directory / WEIGHTS_FILE
    if not file.is_file():
        raise CheckpointError(f"checkpoint {directory}: {WEIGHTS_FILE} is missing; {_RETRAIN}")
    try:
        weights = np.load(file, allow_pickle=False)
    except (OSError, ValueError, EOFError) as exc:
        raise CheckpointError(f"checkpoint {file} is not a readable .npy array ({exc})") from exc
    if weights.shape != (dim,) or weights.dtype.kind != "f":
        raise CheckpointError(
            f"checkpoint {file} holds a {weights.dtype} array of shape {weights.shape}; "
            f"expected float weights of shape ({dim},)"
        )
    if not np.all(np.isfinite(weights)):
        raise CheckpointError(f"checkpoint {file} has NaN or infinite weights; {_RETRAIN}")
    return weights.astype(np.float64)


def load_checkpoint(path: str | Path) -> tuple[np.ndarray, CheckpointConfig]:
    """Read and check the checkpoint in directory ``path``.

    Raises:
        CheckpointError: naming the path and what is wrong (missing directory or file,
            invalid JSON, another feature version, weights of the wrong shape or not finite).
    """
    directory = Path(path)
    if not directory.exists():
        raise CheckpointError(f"checkpoint directory {directory} does not exist; {_RETRAIN}")
    if not directory.is_dir():
        raise CheckpointError(
            f"checkpoint {directory} is a file; give the directory holding "
            f"{WEIGHTS_FILE} and {CONFIG_FILE}"
        )
    config = _read_config(directory)
    _check_compatible(directory, config)
    return _read_weights(directory, config.dim), config
