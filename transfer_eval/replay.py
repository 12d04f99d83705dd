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

import html
import json
import os
from importlib import resources
from pathlib import Path
from string import Template

import cv2
import numpy as np
from pydantic import BaseModel, ConfigDict

from bridge.schema import Check, EpisodeRecord, ExecutedAction, StepRecord
from bridge.trajectory import RunStore
from transfer_eval.step_view import MARK_DARK, MARK_LIGHT, action_overlay, step_words

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


def _badge(record: EpisodeRecord | None) -> str:
    if record is None:
        return '<span class="badge missing">not run</span>'
    return f'<span class="badge {record.outcome}">{record.outcome}</span>'


def _files(frame: str | None, tree: str | None) -> str:
    links = [
        f'<a href="{html.escape(href)}" target="_blank">{what}</a>'
        for what, href in (("frame", frame), ("UI XML", tree))
        if href
    ]
    return f'<div class="files">{" · ".join(links)}</div>' if links else ""


def _pane(side: Side, index: int, base: Path) -> str:
    if index >= len(side.steps):
        return f'<div data-step="{index}" hidden><div class="ended">episode over</div></div>'
    step = side.steps[index]
    href = side.frame_href(step, base)
    image = (
        f'<a class="full" href="{html.escape(href)}" target="_blank" title="open full size">'
        f'<img src="{html.escape(href)}" alt="step {index}"></a>'
        if href
        else ""
    )
    return (
        f'<div data-step="{index}" hidden><div class="shot">{image}{action_overlay(step)}</div>'
        + _files(href, side.tree_href(step, base))
        + step_words(step, side.record.policy if side.record is not None else "unknown")
        + "</div>"
    )


def _keyed(record: EpisodeRecord | None) -> dict[tuple[str, int], Check]:
    """A verdict's checks by (name, occurrence), so repeated names still line up."""
    seen: dict[str, int] = {}
    keyed = {}
    for check in record.verdict.checks if record and record.verdict else []:
        keyed[(check.name, seen.get(check.name, 0))] = check
        seen[check.name] = seen.get(check.name, 0) + 1
    return keyed


def _json(value: object) -> str:
    return html.escape(json.dumps(value, ensure_ascii=False))


def _cell(check: Check | None) -> str:
    if check is None:
        return "<td class='none'>—</td>"
    verdict = "pass" if check.passed else "FAIL"
    return (
        f"<td><span class='{verdict.lower()}'>{verdict}</span> <span class='vals'>"
        f"{_json(check.actual)} <span class='exp'>(expected {_json(check.expected)})</span>"
        "</span></td>"
    )


def _no_verdict(name: str, record: EpisodeRecord | None) -> str:
    if record is None:
        return f"<div class='meta'>{html.escape(name)}: not run</div>"
    if record.verdict is None:
        why = record.error or "no verdict"
        return f"<div class='error'>{html.escape(name)}: {html.escape(why)}</div>"
    return ""


def _checks(sim: EpisodeRecord | None, device: EpisodeRecord | None, device_title: str) -> str:
    """One table of both worlds' checks, a row per check name."""
    left, right = _keyed(sim), _keyed(device)
    keys = list(dict.fromkeys([*left, *right]))
    rows = "".join(
        f"<tr><td>{html.escape(name)}</td>{_cell(left.get((name, n)))}"
        f"{_cell(right.get((name, n)))}</tr>"
        for name, n in keys
    )
    head = f"<tr><th>check</th><th>Simulator</th><th>{html.escape(device_title)}</th></tr>"
    table = f"<table class='checks'>{head}{rows}</table>" if keys else ""
    return table + _no_verdict("Simulator", sim) + _no_verdict(device_title, device)


def _nav(links: ReplayLinks | None, policy: str) -> str:
    if links is None:
        return ""
    parts = [
        f'<a href="{html.escape(links.report)}">← report</a>',
        f"<b>{html.escape(links.role)}</b> policy ({html.escape(policy)})",
    ]
    if links.other is not None and links.other_role is not None:
        spec = f" ({html.escape(links.other_policy)})" if links.other_policy else ""
        parts.append(
            f'<a href="{html.escape(links.other)}" id="other-policy">'
            f"the {html.escape(links.other_role)} policy{spec} on this task →</a>"
        )
    return '<nav class="links">' + " · ".join(parts) + "</nav>"


def replay_page(
    sim: Side, device: Side, base: Path, device_title: str, links: ReplayLinks | None = None
) -> str:
    """The page pairing ``sim`` and ``device`` (``base``: the directory the page goes in;
    ``links``: where it links, the report and the other policy's page)."""
    record = sim.record or device.record
    if record is None:
        raise ValueError("neither side of the replay has an episode")
    count = max(len(sim.steps), len(device.steps), 1)
    resources_dir = resources.files(__package__).joinpath("templates")
    return Template(resources_dir.joinpath("replay.html").read_text("utf-8")).substitute(
        title=html.escape(
            f"{record.task.task_id} (seed {record.task.seed}, {record.task.lang}) · {record.policy}"
        ),
        nav=_nav(links, record.policy),
        meta=html.escape(record.task.instruction),
        max_step=count - 1,
        sim_badge=_badge(sim.record),
        device_title=html.escape(device_title),
        device_badge=_badge(device.record),
        sim_steps="".join(_pane(sim, i, base) for i in range(count)),
        device_steps="".join(_pane(device, i, base) for i in range(count)),
        checks=_checks(sim.record, device.record, device_title),
        script=resources_dir.joinpath("replay.js").read_text("utf-8"),
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
