"""Training curves of a GRPO run: a CSV and a PNG drawn with opencv (no plotting library).

One row per iteration: ``iteration, mean_reward, train_success, eval_success, wall_s,
steps, infra_errors``. Row 0 is the initialization (its held-out evaluation only); empty
cells mean "not measured at this iteration".
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

import cv2
import numpy as np

__all__ = ["CURVE_COLUMNS", "CurvePoint", "draw_curve_png", "write_curve_csv"]

CURVE_COLUMNS = (
    "iteration",
    "mean_reward",
    "train_success",
    "eval_success",
    "wall_s",
    "steps",
    "infra_errors",
)
_SIZE = (900, 520)
_MARGIN = (70, 30, 40, 90)  # left, top, right, bottom
_SERIES = (  # column, BGR colour, label
    ("mean_reward", (200, 120, 30), "mean reward (train)"),
    ("train_success", (40, 140, 240), "success (train rollouts)"),
    ("eval_success", (60, 170, 60), "success (held-out, greedy)"),
)


class CurvePoint(Protocol):
    """What a curve row provides (``policies.grpo.CurveRow``, read-only)."""

    @property
    def iteration(self) -> int: ...
    @property
    def mean_reward(self) -> float | None: ...
    @property
    def train_success(self) -> float | None: ...
    @property
    def eval_success(self) -> float | None: ...
    @property
    def wall_s(self) -> float: ...
    @property
    def steps(self) -> int: ...
    @property
    def infra_errors(self) -> int: ...


def _cell(value: object) -> str:
    if value is None:
        return ""
    return f"{value:.4f}" if isinstance(value, float) else str(value)


def write_curve_csv(rows: Sequence[CurvePoint], path: str | Path) -> Path:
    """Write the curve as CSV with a header line; returns the path."""
    path = Path(path)
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(CURVE_COLUMNS)
        for row in rows:
            writer.writerow([_cell(getattr(row, column)) for column in CURVE_COLUMNS])
    return path


def _to_px(iteration: float, value: float, last: int) -> tuple[int, int]:
    width, height = _SIZE
    left, top, right, bottom = _MARGIN
    x = left + (width - left - right) * (iteration / max(last, 1))
    y = top + (height - top - bottom) * (1.0 - min(max(value, 0.0), 1.0))
    return round(x), round(y)


def _text(image: np.ndarray, text: str, at: tuple[int, int], scale: float = 0.45) -> None:
    cv2.putText(image, text, at, cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), 1, cv2.LINE_AA)


def _axes(image: np.ndarray, last: int, title: str) -> None:
    width, height = _SIZE
    left, top, right, bottom = _MARGIN
    grey, black = (210, 210, 210), (0, 0, 0)
    for tick in np.linspace(0.0, 1.0, 6):
        y = _to_px(0, tick, last)[1]
        cv2.line(image, (left, y), (width - right, y), grey, 1)
        _text(image, f"{tick:.1f}", (left - 45, y + 5))
    for it in sorted({0, last, *range(0, last + 1, max(1, last // 10))}):
        x = _to_px(it, 0.0, last)[0]
        _text(image, str(it), (x - 8, height - bottom + 20))
    cv2.rectangle(image, (left, top), (width - right, height - bottom), black, 1)
    _text(image, "iteration", (width // 2 - 40, height - bottom + 42), 0.5)
    _text(image, title, (left, top - 10), 0.5)


def _legend(image: np.ndarray) -> None:
    x, y = _MARGIN[0], _SIZE[1] - 20
    for _, colour, label in _SERIES:
        cv2.line(image, (x, y - 5), (x + 25, y - 5), colour, 3)
        _text(image, label, (x + 32, y))
        x += 40 + 9 * len(label)


def draw_curve_png(rows: Sequence[CurvePoint], path: str | Path, title: str = "GRPO") -> Path:
    """Draw the curve (values in [0, 1] against iterations) into a PNG; returns the path."""
    image = np.full((_SIZE[1], _SIZE[0], 3), 255, dtype=np.uint8)
    last = max((row.iteration for row in rows), default=1)
    _axes(image, last, title)
    for column, colour, _ in _SERIES:
        points = [
            _to_px(row.iteration, value, last)
            for row in rows
            if (value := getattr(row, column)) is not None
        ]
        if len(points) > 1:
            cv2.polylines(image, [np.array(points, dtype=np.int32)], False, colour, 2, cv2.LINE_AA)
        for point in points if column == "eval_success" else ():
            cv2.circle(image, point, 5, colour, -1, cv2.LINE_AA)
    _legend(image)
    ok, encoded = cv2.imencode(".png", image, [cv2.IMWRITE_PNG_COMPRESSION, 9])
    if not ok:
        raise ValueError("opencv could not encode the curve as PNG")
    path = Path(path)
    path.write_bytes(encoded.tobytes())
    return path
