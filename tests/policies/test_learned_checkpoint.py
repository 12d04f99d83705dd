"""Checkpoints of the learned policy: round trip, and errors that name the path and the fix."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from bridge.errors import PolicyError
from policies.learned import DIM, FEATURE_VERSION, CheckpointError, LearnedPolicy
from policies.learned.checkpoint import (
    CONFIG_FILE,
    WEIGHTS_FILE,
    CheckpointConfig,
    load_checkpoint,
    save_checkpoint,
)

REPO = Path(__file__).resolve().parents[2]


def _saved(tmp_path: Path) -> Path:
    weights = np.random.default_rng(0).normal(size=DIM)
    policy = LearnedPolicy(weights, CheckpointConfig(seed=5))
    return policy.save(tmp_path / "ckpt", training={"iters": 3, "note": "测试"})


def test_round_trip_keeps_weights_config_and_metadata(tmp_path: Path) -> None:
    path = _saved(tmp_path)
    assert sorted(p.name for p in path.iterdir()) == [CONFIG_FILE, WEIGHTS_FILE]
    loaded = LearnedPolicy.load(path)
    expected = np.random.default_rng(0).normal(size=DIM)
    assert np.array_equal(loaded.weights, expected)
    assert loaded.config.seed == 5
    assert loaded.config.training == {"iters": 3, "note": "测试"}
    assert loaded.config.feature_version == FEATURE_VERSION
    assert loaded.name == f"learned:{path}"
    assert not loaded.sampling
    config = json.loads((path / CONFIG_FILE).read_text(encoding="utf-8"))
    assert config["format"] == "mgb-learned-policy" and config["dim"] == DIM


def test_the_weights_are_a_plain_npy_without_pickles(tmp_path: Path) -> None:
    path = _saved(tmp_path)
    array = np.load(path / WEIGHTS_FILE, allow_pickle=False)
    assert array.dtype == np.float64 and array.shape == (DIM,)


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda p: (p / CONFIG_FILE).unlink(), "config.json is missing; train a new one"),
        (lambda p: (p / WEIGHTS_FILE).unlink(), "weights.npy is missing"),
        (lambda p: (p / CONFIG_FILE).write_text("{not json"), "is not valid JSON"),
        (lambda p: (p / CONFIG_FILE).write_text('{"format": "other"}'), "format"),
        (lambda p: (p / CONFIG_FILE).write_text('{"feature_version": 0}'),
         "trained with feature version 0 but this code computes version"),
        (lambda p: (p / CONFIG_FILE).write_text('{"hash_dim": 8}'), "feature layout"),
        (lambda p: (p / WEIGHTS_FILE).write_bytes(b"garbage"), "not a readable .npy"),
        (lambda p: np.save(p / WEIGHTS_FILE, np.zeros(3)), r"shape \(3,\)"),
        (lambda p: np.save(p / WEIGHTS_FILE, np.full(DIM, np.nan)), "NaN or infinite"),
        (lambda p: np.save(p / WEIGHTS_FILE, np.zeros(DIM, dtype=np.int64)), "float weights"),
    ],
)  # fmt: skip
def test_broken_checkpoints_say_what_is_wrong(tmp_path: Path, damage: object, message: str) -> None:
    path = _saved(tmp_path)
    damage(path)  # type: ignore[operator]
    with pytest.raises(CheckpointError, match=message) as caught:
        LearnedPolicy.load(path)
    assert str(path) in str(caught.value)
    assert isinstance(caught.value, PolicyError)


def test_missing_and_file_paths(tmp_path: Path) -> None:
    with pytest.raises(CheckpointError, match=r"does not exist; train a new one with `mgb train"):
        load_checkpoint(tmp_path / "nowhere")
    file = tmp_path / "weights.npy"
    file.write_bytes(b"")
    with pytest.raises(CheckpointError, match="is a file; give the directory"):
        load_checkpoint(file)


def test_saving_refuses_mismatched_weights(tmp_path: Path) -> None:
    with pytest.raises(CheckpointError, match="shape"):
        save_checkpoint(tmp_path / "x", np.zeros(5), CheckpointConfig())
    with pytest.raises(ValueError, match="shape"):
        LearnedPolicy(np.zeros(5))


@pytest.mark.parametrize("name", ["base", "trained"])
def test_shipped_checkpoints_load(name: str) -> None:
    policy = LearnedPolicy.load(REPO / "checkpoints" / name)
    assert policy.weights.shape == (DIM,)
    assert policy.config.training
