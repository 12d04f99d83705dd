"""Side-by-side replays: one policy's episode in the simulator next to the same task on the
phone, step by step, with the action drawn on each frame, the thought, and the checks.

Each world's pane shows, under its frame, the action as a person reads it, the thought and
the raw reply, as the episode page does (:mod:`transfer_eval.step_view`). Pages are static
HTML next to the run's episodes (frames and UI trees are linked, not copied: a frame opens
full size on a click, each step links its UI XML); a page links back to the report and to
the other policy's page of the same task. The checks of both worlds are one table, a row
per check name, since both worlds judge the same bound spec with the same judge (a check
only one world reports would show as a row with one side empty). ``--mp4`` renders the
same pairing into a video with opencv (or, for a single-world run, one episode).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from pydantic import BaseModel, ConfigDict

from bridge.records import EpisodeRecord, StepRecord
from bridge.schema import CheckResult, ExecutedAction
from bridge.trajectory import RunStore
from transfer_eval.pages import page_template
from transfer_eval.step_view import (
    MARK_DARK,
    MARK_LIGHT,
    Marks,
    StepWords,
    action_overlay,
    step_words,
)

__all__ = ["ReplayLinks", "Side", "episode_video", "replay_page", "replay_video"]


class ReplayLinks(BaseModel):
    """Where a replay page links: its report, and the other policy's page of the task."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    role: str
    """This page's policy (``base`` or ``trained``)."""
    report: str = "../report.html"
    other_role: str | None = None
    other: str | None = None
    """The other policy's page, relative to this one (None when it never ran)."""
    other_policy: str | None = None
    """The other policy's spec."""


class Side:
    """One world's episode as the replay shows it (absent when it never ran)."""

    def __init__(
        self, store: RunStore, record: EpisodeRecord | None, steps: list[StepRecord]
    ) -> None:
        self.store = store
        self.record = record
        self.steps = steps

    def frame_href(self, step: StepRecord, base: Path) -> str | None:
        """The frame's path relative to the page directory ``base``."""
        return self._href(step.frame, base)

    def tree_href(self, step: StepRecord, base: Path) -> str | None:
        """The step's UI XML (``trees/NNNN.xml``) relative to the page directory ``base``."""
        return self._href(step.tree, base)

    def _href(self, name: str | None, base: Path) -> str | None:
        if self.record is None or name is None:
            return None
        path = self.store.episode_dir(self.record.episode_id) / name
        return Path(_relative(path, base)).as_posix()


def _relative(path: Path, base: Path) -> str:
    return os.path.relpath(path, base)


@dataclass(frozen=True)
class _Pane:
    """One world's step ``index`` (``step`` None: the episode was over by then)."""

    index: int
    step: StepRecord | None = None
    frame: str | None = None
    tree: str | None = None
    marks: Marks | None = None
    words: StepWords | None = None


@dataclass(frozen=True)
class _Cell:
    """One world's result of a check, its values as JSON."""

    passed: bool
    actual: str
    expected: str


@dataclass(frozen=True)
class _Missing:
    """Why a world has no checks: ``error`` None when it never ran."""

    world: str
    error: str | None


def _pane(side: Side, index: int, base: Path) -> _Pane:
    if index >= len(side.steps):
        return _Pane(index)
    step = side.steps[index]
    policy = side.record.policy if side.record is not None else "unknown"
    return _Pane(
        index,
        step,
        side.frame_href(step, base),
        side.tree_href(step, base),
        action_overlay(step),
        step_words(step, policy),
    )


def _keyed(record: EpisodeRecord | None) -> dict[tuple[str, int], CheckResult]:
    """A verdict's checks by (name, occurrence), so repeated names still line up."""
    seen: dict[str, int] = {}
    keyed = {}
    for check in record.verdict.checks if record and record.verdict else []:
        keyed[(check.name, seen.get(check.name, 0))] = check
        seen[check.name] = seen.get(check.name, 0) + 1
    return keyed


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def _cell(check: CheckResult | None) -> _Cell | None:
    if check is None:
        return None
    return _Cell(check.passed, _json(check.actual), _json(check.expected))


def _missing(world: str, record: EpisodeRecord | None) -> list[_Missing]:
    if record is None:
        return [_Missing(world, None)]
    if record.verdict is None:
        return [_Missing(world, record.error or "no verdict")]
    return []


def _check_rows(
    sim: EpisodeRecord | None, device: EpisodeRecord | None
) -> list[tuple[str, _Cell | None, _Cell | None]]:
    """Both worlds' checks, a row per check name."""
    left, right = _keyed(sim), _keyed(device)
    keys = list(dict.fromkeys([*left, *right]))
    return [(name, _cell(left.get((name, n))), _cell(right.get((name, n)))) for name, n in keys]


def _gain_title(record: EpisodeRecord | None) -> str:
    """How the page names the world the gain was made in: ``Simulator`` or ``MobileGym``
    (from the episode's own backend)."""
    if record is not None and record.backend is not None and record.backend.kind == "mobilegym":
        return "MobileGym"
    return "Simulator"


def replay_page(
    sim: Side, device: Side, base: Path, device_title: str, links: ReplayLinks | None = None
) -> str:
    """The page pairing ``sim`` and ``device`` (``base``: the directory the page goes in;
    ``links``: where it links, the report and the other policy's page)."""
    record = sim.record or device.record
    if record is None:
        raise ValueError("neither side of the replay has an episode")
    count = max(len(sim.steps), len(device.steps), 1)
    sim_title = _gain_title(sim.record)
    return page_template("replay.html").render(
        title=f"{record.task.task_id} (seed {record.task.seed}, {record.task.lang})"
        f" · {record.policy}",
        links=links,
        policy=record.policy,
        instruction=record.task.instruction,
        max_step=count - 1,
        worlds=[
            (sim_title, sim.record, [_pane(sim, i, base) for i in range(count)]),
            (device_title, device.record, [_pane(device, i, base) for i in range(count)]),
        ],
        sim_title=sim_title,
        device_title=device_title,
        checks=_check_rows(sim.record, device.record),
        missing=[*_missing(sim_title, sim.record), *_missing(device_title, device.record)],
    )


def _bgr(colour: str) -> tuple[int, int, int]:
    red, green, blue = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return blue, green, red


def _draw_marks(image: np.ndarray, executed: ExecutedAction) -> None:
    """The page's marks on a video frame: a ring (an arrow for a stroke) drawn dark under
    light, so it shows on any background, and a dot where the finger went down."""
    if executed.point_px is None:
        return
    unit = image.shape[1] / 1080
    start = (int(executed.point_px[0]), int(executed.point_px[1]))
    for colour, width in ((MARK_DARK, 36), (MARK_LIGHT, 16)):
        thickness = max(1, int(width * unit))
        if executed.end_point_px is not None:
            end = (int(executed.end_point_px[0]), int(executed.end_point_px[1]))
            cv2.arrowedLine(image, start, end, _bgr(colour), thickness, tipLength=0.2)
        else:
            cv2.circle(image, start, int(64 * unit), _bgr(colour), thickness)
    cv2.circle(image, start, int(20 * unit), _bgr(MARK_DARK), -1)
    cv2.circle(image, start, int(13 * unit), _bgr(MARK_LIGHT), -1)


def _frame(side: Side, index: int, size: tuple[int, int]) -> np.ndarray:
    width, height = size
    canvas = np.full((height, width, 3), 235, np.uint8)
    if side.record is None or index >= len(side.steps) or side.steps[index].frame is None:
        return canvas
    step = side.steps[index]
    path = side.store.episode_dir(side.record.episode_id) / str(step.frame)
    image = cv2.imread(str(path))
    if image is None:
        return canvas
    scale = width / image.shape[1]
    if step.result is not None and step.result.executed is not None:
        _draw_marks(image, step.result.executed)
    fitted = cv2.resize(image, (width, max(1, int(image.shape[0] * scale))))[:height]
    # on the canvas, not alone: opencv silently drops a frame of another size than the video's
    canvas[: fitted.shape[0]] = fitted
    return canvas


def _write_video(panes: list[tuple[str, Side]], out: Path, fps: float) -> Path:
    """An MP4 of ``panes`` (name, side) next to each other, one step per frame period."""
    count = max([1, *(len(side.steps) for _, side in panes)])
    size, header = (360, 800), 40
    shape = (size[0] * len(panes), size[1] + header)
    writer = cv2.VideoWriter(str(out), cv2.VideoWriter.fourcc(*"mp4v"), fps, shape)
    if not writer.isOpened():
        raise OSError(f"opencv cannot write an MP4 to {out}; check the directory exists")
    try:
        for index in range(count):
            band = np.full((header, shape[0], 3), 255, np.uint8)
            for column, (name, _side) in enumerate(panes):
                text = f"{name}  step {index}"
                origin = (column * size[0] + 12, 27)
                cv2.putText(band, text, origin, cv2.FONT_HERSHEY_SIMPLEX, 0.65, (30, 30, 30), 2)
            frames = np.hstack([_frame(side, index, size) for _, side in panes])
            writer.write(np.vstack([band, frames]))
    finally:
        writer.release()
    return out


def replay_video(sim: Side, device: Side, out: Path, fps: float = 1.0) -> Path:
    """An MP4 of the two episodes side by side, one step per frame period, under a header
    naming the world and the step (the action is drawn on each frame as on the page)."""
    return _write_video([("simulator", sim), ("phone", device)], out, fps)


_WORLD = {
    "sim": "simulator",
    "virtual": "virtual phone",
    "device": "phone",
    "mobilegym": "MobileGym",
}


def episode_video(side: Side, out: Path, fps: float = 1.0) -> Path:
    """An MP4 of one episode alone (a run of ``mgb sim run``, ``mgb device run`` or
    ``mgb console``), drawn as one pane of :func:`replay_video`."""
    backend = side.record.backend if side.record else None
    return _write_video([(_WORLD[backend.kind] if backend else "episode", side)], out, fps)
