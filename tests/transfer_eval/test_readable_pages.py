"""Readable episode and replay pages, from a run directory written by the bridge's
trajectory writer (no simulator): the model's raw reply next to the thought (escaped, line
breaks kept, folded when long, a note when there is none), every action in words rather
than contract JSON, and marks on the frame that stand out on a red icon and on white."""

from __future__ import annotations

import asyncio
import re
from functools import cache
from pathlib import Path

import cv2
import numpy as np
import pytest

from bridge.actions import Point, SwipeAction, TapAction, Target
from bridge.browser import launch_chromium
from bridge.records import EpisodeRecord, StepRecord
from bridge.schema import (
    Action,
    BackendInfo,
    CheckResult,
    ExecutedAction,
    FinishAction,
    Observation,
    PolicyOutput,
    Screenshot,
    ScreenSpec,
    StepResult,
    UINode,
    Verdict,
)
from bridge.trajectory import RunManifest, RunStore
from tests.bridge.toy_env import counter_task
from transfer_eval.episode_view import write_run_index
from transfer_eval.finalize import pairing, write_replay

LABEL = "toy.Counter-v1"
WIDTH, HEIGHT = 1080, 2400
SCREEN = ScreenSpec(width_px=WIDTH, height_px=HEIGHT)
RED = (50, 40, 220)  # BGR: a red app icon
WHITE = (255, 255, 255)
RED_TAP, WHITE_TAP = (540.0, 600.0), (540.0, 1800.0)
STROKE = ((800.0, 1000.0), (800.0, 300.0))  # a swipe up across the red half
SHORT_REPLY = "Thought: the <b>Clock</b> icon is red & round.\nAction: click(element=1)"
LONG_REPLY = "\n".join(f"line {n}: reasoning about the alarm list" for n in range(30))
NODES = [
    UINode(id=0, class_name="android.widget.FrameLayout", bounds_px=(0, 0, WIDTH, HEIGHT)),
    UINode(
        id=1,
        parent=0,
        class_name="android.widget.TextView",
        text="Clock",
        content_desc="Clock",
        clickable=True,
        bounds_px=(440, 500, 640, 700),
    ),
]


@cache
def _frame() -> Screenshot:
    """A red top half (the icon) over a white bottom half (a list on a white page)."""
    image = np.full((HEIGHT, WIDTH, 3), WHITE, np.uint8)
    image[: HEIGHT // 2] = RED
    ok, data = cv2.imencode(".png", image)
    assert ok
    return Screenshot(format="png", width=WIDTH, height=HEIGHT, data=data.tobytes())


def _observation(step: int) -> Observation:
    backend = BackendInfo(kind="sim")
    return Observation(step=step, screenshot=_frame(), screen=SCREEN, ui=NODES, backend=backend)


def _step(
    index: int, action: Action, raw: str | None, executed: ExecutedAction | None
) -> StepRecord:
    seen = _observation(index)
    return StepRecord(
        step=index,
        observation=seen,
        output=PolicyOutput(action=action, thought=f"thought {index}", raw_text=raw),
        result=StepResult(observation=seen, executed=executed),
    )


def _steps(with_replies: bool) -> list[StepRecord]:
    tap = TapAction(target=Target.node(1))
    point = TapAction(target=Target.at(0.5005005005005005, 0.75))
    swipe = SwipeAction(
        start=Point(x=800 / WIDTH, y=1000 / HEIGHT), end=Point(x=800 / WIDTH, y=0.125)
    )
    finish = FinishAction(message="alarm set")
    replies = [SHORT_REPLY, LONG_REPLY, "", "done"] if with_replies else [None] * 4
    return [
        _step(0, tap, replies[0], ExecutedAction(action=tap, point_px=RED_TAP, element=NODES[1])),
        _step(1, point, replies[1], ExecutedAction(action=point, point_px=WHITE_TAP)),
        _step(
            2,
            swipe,
            replies[2],
            ExecutedAction(action=swipe, point_px=STROKE[0], end_point_px=STROKE[1]),
        ),
        _step(3, finish, replies[3], ExecutedAction(action=finish)),
    ]


READABLE = [
    'tap "Clock"',
    "tap at (0.50, 0.75)",
    "swipe up from (0.74, 0.42) to (0.74, 0.12)",
    "finish (success): alarm set",
]


def _episode(store: RunStore, episode_id: str, policy: str, world: str) -> None:
    writer = store.begin_episode(episode_id)
    steps = _steps(with_replies=policy.startswith("vlm"))
    for record in steps:
        writer.write_step(record)
    check = CheckResult(name="alarm", expected=1, actual=1, passed=True)
    writer.finish(
        EpisodeRecord(
            episode_id=episode_id,
            task=counter_task(1),
            policy=policy,
            backend=BackendInfo(kind="sim" if world == "sim" else "virtual"),
            outcome="success",
            verdict=Verdict.from_checks([check]),
            steps=len(steps),
            termination="finish",
        )
    )


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> RunStore:
    """A transfer-eval-shaped run: a VLM-like trained policy and a scripted base policy, in
    both worlds, each episode the same four steps on a red-over-white frame."""
    root = tmp_path_factory.mktemp("readable") / "run"
    store = RunStore.create(root, RunManifest(config={"suite": "s"}))
    for role, policy in (("trained", "vlm:fake"), ("base", "scripted")):
        for world in ("sim", "real"):
            _episode(store, f"{LABEL}__{role}__{world}__r0", policy, world)
    write_run_index(store)
    return store


def _replay(store: RunStore, role: str) -> Path:
    sim, real = pairing(store, store.completed(), LABEL, role)
    return write_replay(store, sim, real, LABEL, role, "Virtual phone")


def _episode_page(store: RunStore, role: str) -> Path:
    return store.episode_dir(f"{LABEL}__{role}__sim__r0") / "index.html"


def _labels(page: str) -> list[str]:
    return re.findall(r"<div class='action'[^>]*>([^<]*)</div>", page)


@pytest.mark.parametrize("which", ["episode", "replay"])
def test_the_raw_reply_is_shown_escaped_with_its_line_breaks(run: RunStore, which: str) -> None:
    path = _episode_page(run, "trained") if which == "episode" else _replay(run, "trained")
    page = path.read_text(encoding="utf-8")
    short = (
        "<details class='raw' open><summary>raw reply</summary><pre>Thought: the "
        "&lt;b&gt;Clock&lt;/b&gt; icon is red &amp; round.\nAction: click(element=1)</pre>"
    )
    assert short in page and "<b>Clock</b>" not in page
    # the long one starts folded, saying how long it is
    assert "<details class='raw'><summary>raw reply · 30 lines, " in page
    assert "line 29: reasoning about the alarm list</pre>" in page
    assert "<div class='raw none'>the raw reply was empty</div>" in page
    # next to the thought: the reply follows the thought of the same step
    assert page.index("thought 0") < page.index("Thought: the &lt;b&gt;") < page.index("thought 1")


@pytest.mark.parametrize("which", ["episode", "replay"])
def test_a_policy_without_replies_says_so(run: RunStore, which: str) -> None:
    path = _episode_page(run, "base") if which == "episode" else _replay(run, "base")
    page = path.read_text(encoding="utf-8")
    panes = 1 if which == "episode" else 2
    assert page.count("<div class='raw none'>no raw reply (scripted policy)</div>") == 4 * panes
    assert "<details class='raw'" not in page


@pytest.mark.parametrize("which", ["episode", "replay"])
def test_actions_read_as_words_with_the_contract_json_only_on_hover(
    run: RunStore, which: str
) -> None:
    path = _episode_page(run, "trained") if which == "episode" else _replay(run, "trained")
    page = path.read_text(encoding="utf-8")
    panes = 1 if which == "episode" else 2
    escaped = [label.replace('"', "&#34;") for label in READABLE]
    assert _labels(page) == escaped * panes  # the replay lists the simulator's steps first
    words = re.sub(r'title="[^"]*"', "", page)
    assert "{&#34;type&#34;" not in words and "0.5005005005005005" not in words
    # the contract form is still there for whoever needs it: the label's tooltip
    tooltip = "{&#34;type&#34;:&#34;tap&#34;,&#34;target&#34;:{&#34;element&#34;:1}}"
    assert f"<div class='action' title=\"{tooltip}\">tap &#34;Clock&#34;</div>" in page


def _luminance(pixel: np.ndarray) -> float:
    blue, green, red = (float(v) for v in pixel)
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def _dark_light_dark(values: list[float]) -> bool:
    """Whether a dark run, then a light one, then a dark one occur in this order."""
    wanted, seen = ["dark", "light", "dark"], []
    for value in values:
        kind = "dark" if value < 60 else "light" if value > 200 else None
        if kind is not None and (not seen or seen[-1] != kind):
            seen.append(kind)
    return any(seen[i : i + 3] == wanted for i in range(len(seen)))


class Mapped:
    """Maps screen pixels of a frame to pixels of a page screenshot, through the marks' SVG
    box (scaled to fit, centred, like the SVG itself) and the device scale factor."""

    def __init__(self, box: dict[str, float], scale: float) -> None:
        self.fit = min(box["width"] / WIDTH, box["height"] / HEIGHT)
        self.left = box["x"] + (box["width"] - WIDTH * self.fit) / 2
        self.top = box["y"] + (box["height"] - HEIGHT * self.fit) / 2
        self.scale = scale

    def pixel(self, image: np.ndarray, x: float, y: float) -> np.ndarray:
        column = round((self.left + x * self.fit) * self.scale)
        row = round((self.top + y * self.fit) * self.scale)
        return image[row, column]


def _across(
    image: np.ndarray, mapped: Mapped, start: tuple[float, float], dx: float, dy: float
) -> list[float]:
    """Luminances along a line of the frame from ``start``, one sample per screen pixel."""
    x, y = start
    return [_luminance(mapped.pixel(image, x + dx * t, y + dy * t)) for t in range(120)]


async def _look(
    page_path: Path, marks: str, steps: list[int], advance: bool
) -> list[tuple[np.ndarray, Mapped]]:
    """For each step, a screenshot of ``page_path`` (device scale 2) with the marks' box
    (``advance``: the replay's arrow key brings the next step)."""
    async with launch_chromium() as browser:
        page = await browser.new_page(
            viewport={"width": 1200, "height": 1000}, device_scale_factor=2
        )
        await page.goto(page_path.as_uri())
        looks = []
        for step in steps:
            if advance and step > 0:
                await page.keyboard.press("ArrowRight")
            svg = page.locator(marks.format(step=step)).first
            await svg.scroll_into_view_if_needed()
            box = await svg.bounding_box()
            assert box is not None
            shot = np.frombuffer(await page.screenshot(), np.uint8)
            looks.append((cv2.imdecode(shot, cv2.IMREAD_COLOR), Mapped(box, 2.0)))
        return looks


@pytest.mark.browser
@pytest.mark.parametrize("which", ["episode", "replay"])
def test_the_marks_have_a_dark_and_a_light_ring_on_red_and_on_white(
    run: RunStore, which: str
) -> None:
    if which == "episode":
        path, marks = _episode_page(run, "trained"), ".step:nth-child({step}) svg.marks"
        red_tap, white_tap, swipe = asyncio.run(_look(path, marks, [1, 2, 3], advance=False))
    else:
        path, marks = _replay(run, "trained"), "[data-step='{step}']:not([hidden]) svg.marks"
        red_tap, white_tap, swipe = asyncio.run(_look(path, marks, [0, 1, 2], advance=True))
    for (image, where), centre, background in (
        (red_tap, RED_TAP, "red"),
        (white_tap, WHITE_TAP, "white"),
    ):
        # outwards from the ring's inside to beyond it: dark halo, light ring, dark halo
        ring = _across(image, where, (centre[0] + 30, centre[1]), 1, 0)
        assert _dark_light_dark(ring), (which, background, [round(v) for v in ring])
        far = where.pixel(image, centre[0] + 200, centre[1])
        assert far[2] > 180 and (far[1] < 90 if background == "red" else far[1] > 240), far
    image, where = swipe
    x, y = STROKE[0][0] - 60, (STROKE[0][1] + STROKE[1][1]) / 2
    shaft = _across(image, where, (x, y), 1, 0)
    assert _dark_light_dark(shaft), [round(v) for v in shaft]
    assert where.pixel(image, x - 50, y)[2] > 180  # the red behind it
