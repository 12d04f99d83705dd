"""Side-by-side replays: one policy's episode in the simulator next to the same task on the
phone, step by step, with the action drawn on each frame, the thought, and the checks.

Pages are static HTML next to the run's episodes (frames are linked, not copied); ``--mp4``
renders the same pairing into a video with opencv (or, for a single-world run, one episode).
"""

from __future__ import annotations

import html
import json
import os
from importlib import resources
from pathlib import Path
from string import Template

import cv2
import numpy as np

from bridge.schema import EpisodeRecord, StepRecord
from bridge.trajectory import RunStore
from transfer_eval.episode_view import action_overlay

__all__ = ["Side", "episode_video", "replay_page", "replay_video"]


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
        if self.record is None or step.frame is None:
            return None
        path = self.store.episode_dir(self.record.episode_id) / step.frame
        return Path(_relative(path, base)).as_posix()


def _relative(path: Path, base: Path) -> str:
    return os.path.relpath(path, base)


def _badge(record: EpisodeRecord | None) -> str:
    if record is None:
        return '<span class="badge missing">not run</span>'
    return f'<span class="badge {record.outcome}">{record.outcome}</span>'


def _pane(side: Side, index: int, base: Path) -> str:
    if index >= len(side.steps):
        return f'<div data-step="{index}" hidden><div class="ended">episode over</div></div>'
    step = side.steps[index]
    href = side.frame_href(step, base)
    image = f'<img src="{html.escape(href)}" alt="step {index}">' if href else ""
    action = step.output.action
    text = action.model_dump_json(exclude_none=True) if action else "(invalid model output)"
    error = step.output.error or (step.result.error if step.result else None)
    return (
        f'<div data-step="{index}" hidden><div class="shot">{image}{action_overlay(step)}</div>'
        f'<div class="action">{html.escape(text)}</div>'
        f'<div class="thought">{html.escape(step.output.thought or "")}</div>'
        + (f'<div class="error">{html.escape(error)}</div>' if error else "")
        + "</div>"
    )


def _checks(record: EpisodeRecord | None) -> str:
    if record is None or record.verdict is None:
        return f"<div class='error'>{html.escape(record.error or '')}</div>" if record else ""
    rows = "".join(
        f"<tr><td>{html.escape(c.name)}</td>"
        f"<td>{html.escape(json.dumps(c.expected, ensure_ascii=False))}</td>"
        f"<td>{html.escape(json.dumps(c.actual, ensure_ascii=False))}</td>"
        f"<td class='{'pass' if c.passed else 'fail'}'>{'pass' if c.passed else 'FAIL'}</td></tr>"
        for c in record.verdict.checks
    )
    head = "<tr><th>check</th><th>expected</th><th>actual</th><th></th></tr>"
    return f"<table class='checks'>{head}{rows}</table>"


def replay_page(sim: Side, device: Side, base: Path, device_title: str) -> str:
    """The page pairing ``sim`` and ``device`` (``base``: the directory the page goes in)."""
    record = sim.record or device.record
    if record is None:
        raise ValueError("neither side of the replay has an episode")
    count = max(len(sim.steps), len(device.steps), 1)
    resources_dir = resources.files(__package__).joinpath("templates")
    return Template(resources_dir.joinpath("replay.html").read_text("utf-8")).substitute(
        title=html.escape(f"{record.task.task_id} · {record.policy}"),
        meta=html.escape(record.task.instruction),
        max_step=count - 1,
        sim_badge=_badge(sim.record),
        device_title=html.escape(device_title),
        device_badge=_badge(device.record),
        sim_steps="".join(_pane(sim, i, base) for i in range(count)),
        device_steps="".join(_pane(device, i, base) for i in range(count)),
        sim_checks=_checks(sim.record),
        device_checks=_checks(device.record),
        script=resources_dir.joinpath("replay.js").read_text("utf-8"),
    )


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
    result = step.result
    if result is not None and result.executed is not None and result.executed.point_px:
        x, y = result.executed.point_px
        cv2.circle(image, (int(x), int(y)), 60, (85, 45, 255), 14)
        if result.executed.end_point_px:
            ex, ey = result.executed.end_point_px
            cv2.arrowedLine(image, (int(x), int(y)), (int(ex), int(ey)), (85, 45, 255), 14)
    fitted = cv2.resize(image, (width, max(1, int(image.shape[0] * scale))))[:height]
    # on the canvas, not alone: opencv silently drops a frame of another size than the video's
    canvas[: fitted.shape[0]] = fitted
    return canvas


def _write_video(panes: list[tuple[str, Side]], out: Path, fps: float) -> Path:
    """An MP4 of ``panes`` (name, side) next to each other, one step per frame period."""
    count = max([1, *(len(side.steps) for _, side in panes)])
    size, header = (360, 800), 40
    shape = (size[0] * len(panes), size[1] + header)
    writer = cv2.VideoWriter(str(out), cv2.VideoWriter_fourcc(*"mp4v"), fps, shape)
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


_WORLD = {"sim": "simulator", "virtual": "virtual phone", "device": "phone"}


def episode_video(side: Side, out: Path, fps: float = 1.0) -> Path:
    """An MP4 of one episode alone (a run of ``mgb sim run``, ``mgb device run`` or
    ``mgb console``), drawn as one pane of :func:`replay_video`."""
    backend = side.record.backend if side.record else None
    return _write_video([(_WORLD[backend.kind] if backend else "episode", side)], out, fps)
