"""The ``human`` policy: a scripted person at an in-memory terminal solves a real simulator
task through the runner and is recorded like any policy; bad lines are asked again, the end
of input ends the episode unscored; the spec, its refusals and one episode at a time."""

from __future__ import annotations

import asyncio
import io
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from bridge.actions import (
    AnswerAction,
    DoubleTapAction,
    FinishAction,
    KeyAction,
    LongPressAction,
    OpenAppAction,
    ScrollAction,
    SwipeAction,
    TapAction,
    Target,
    TypeAction,
    WaitAction,
)
from bridge.runner import EpisodeJob, run_episode, run_episodes
from bridge.schema import (
    AnswerField,
    BackendInfo,
    Observation,
    PolicyContext,
    ScreenSpec,
    UINode,
)
from bridge.trajectory import RunManifest, RunStore
from policies.errors import PolicySpecError
from policies.human import HumanPolicy, LineReader, UnusableLine, actionable_lines, parse_line
from policies.registry import HumanSpec, load, parse_spec, preflight, valid_forms
from sim.simulator import Simulator
from tests.bridge.toy_env import BUTTON, CounterEnv, counter_task
from transfer_eval.commands import mgb_app, transfer_eval_app
from transfer_eval.policy_factory import policy_fingerprint, tree_xml
from transfer_eval.sim_run import SimRunConfig

Move = str | Callable[[str], str]
"""A line the person types, or how they pick it from the screen they were shown."""


class Person:
    """Someone at the terminal: reads what the policy printed, types the next line; the
    input ends (EOF) when they have nothing more to type."""

    def __init__(self, screen: io.StringIO, moves: list[Move]) -> None:
        self.screen, self.moves = screen, list(moves)
        self.typed: list[str] = []

    def readline(self) -> str:
        if not self.moves:
            return ""
        move = self.moves.pop(0)
        text = self.screen.getvalue()
        line = move(text[text.rfind("── step") :]) if callable(move) else move
        self.typed.append(line)
        return line + "\n"


def element(label: str) -> Callable[[str], str]:
    """``tap N`` for the listed element whose label starts with ``label``."""

    def pick(screen: str) -> str:
        found = re.search(rf'^\[(\d+)\] \S+ "{re.escape(label)}[" ·]', screen, re.MULTILINE)
        assert found is not None, f"no {label!r} listed on:\n{screen}"
        return f"tap {found.group(1)}"

    return pick


# --------------------------------------------------------------------------- end to end


@pytest.mark.browser
@pytest.mark.asyncio(loop_scope="module")
async def test_a_person_solves_a_settings_task_recorded_as_policy_human(
    sim: Simulator, tmp_path: Path
) -> None:
    task = sim.tasks.instantiate("settings/SetWifi-v1", 0, "en")  # L1: Wi-Fi off
    screen = io.StringIO()
    moves: list[Move] = ["opn settings", element("Settings"), element("Wi-Fi"),
                         element("Wi-Fi"), "finish"]  # fmt: skip
    person = Person(screen, moves)
    store = RunStore.create(tmp_path / "run", RunManifest(config={"policy": "human"}))
    job = EpisodeJob(
        episode_id="wifi",
        task=task,
        make_env=sim.env,
        make_policy=lambda: HumanPolicy(person, screen, frames_dir=tmp_path / "shots"),
    )
    [record] = await run_episodes([job], store=store, tree_xml=tree_xml)
    assert (record.outcome, record.termination, record.policy) == ("success", "finish", "human")
    assert record.steps == 4 and record.invalid_steps == 0  # the typo was asked again
    assert store.completed()["wifi"].policy == "human"
    steps = store.read_steps("wifi")
    assert [s.output.raw_text for s in steps] == person.typed[1:]
    assert isinstance(steps[0].output.action, TapAction) and steps[0].tree is not None
    shown = screen.getvalue()
    assert "Turn off Wi-Fi." in shown and "can't do that: unknown command 'opn'" in shown
    assert shown.count("can't do that") == 1
    shot = re.search(r"screenshot: (\S+)", shown)
    assert shot is not None and Path(shot.group(1)).read_bytes()[:2] == b"\xff\xd8"


# --------------------------------------------------------------------------- the terminal


@pytest.mark.asyncio
async def test_bad_lines_are_asked_again_with_one_line_each() -> None:
    screen = io.StringIO()
    bad = ["tap 99", "tap 5000 10", "tapp 2", "swipe sideways", "open clok", "type", "wait x"]
    person = Person(screen, [*bad, "", "help", "tree", f"tap {BUTTON}", "tap 54 174", "finish"])
    policy = HumanPolicy(person, screen)
    record = await run_episode(policy, CounterEnv(), counter_task(2), episode_id="toy")
    assert (record.outcome, record.steps, record.invalid_steps) == ("success", 3, 0)
    complaints = [line for line in screen.getvalue().splitlines() if "can't do that" in line]
    assert len(complaints) == len(bad)
    assert "did you mean 'tap'" in complaints[2] and "did you mean 'clock'" in complaints[4]
    assert "x=5000 is outside" in complaints[1]
    assert "tap N | tap X Y" in screen.getvalue()  # help
    assert '[2] Button "+" @(54,174) clickable' in screen.getvalue()


@pytest.mark.asyncio
async def test_the_end_of_input_ends_the_episode_unscored() -> None:
    screen = io.StringIO()
    person = Person(screen, [f"tap {BUTTON}"])  # then EOF
    first = await run_episode(HumanPolicy(person, screen), CounterEnv(), counter_task(2),
                              episode_id="a")  # fmt: skip
    assert (first.outcome, first.error_source, first.steps) == ("infra_error", "policy", 1)
    assert first.error is not None and "input ended (EOF) at step 2" in first.error
    assert "not scored" in screen.getvalue()
    before = len(screen.getvalue())
    again = await run_episode(HumanPolicy(person, screen), CounterEnv(), counter_task(2),
                              episode_id="b")  # fmt: skip
    assert again.outcome == "infra_error" and again.steps == 0
    assert "── step" not in screen.getvalue()[before:]  # no screen shown to nobody


@pytest.mark.asyncio
async def test_a_terminal_or_pipe_is_read_by_the_loops_reader() -> None:
    read_fd, write_fd = os.pipe()
    with open(read_fd, encoding="utf-8") as stream:
        reader = LineReader(stream)
        os.write(write_fd, "type 你".encode())
        waiting = asyncio.ensure_future(reader.readline())
        for _ in range(1000):  # turns of the loop until the half line has been read
            await asyncio.sleep(0)
            if reader._buffer:
                break
        assert reader._buffer and not waiting.done()  # half a line is not a line
        os.write(write_fd, "好\r\nback\n".encode())
        assert await waiting == "type 你好"
        assert await reader.readline() == "back"
        pending = asyncio.ensure_future(reader.readline())
        await asyncio.sleep(0)
        pending.cancel()  # Ctrl-C while the prompt waits: nothing left watching the pipe
        with pytest.raises(asyncio.CancelledError):
            await pending
        os.write(write_fd, b"home")
        os.close(write_fd)
        assert await reader.readline() == "home"
        assert await reader.readline() is None and reader.at_eof


# --------------------------------------------------------------------------- reading a line

SCREEN = ScreenSpec(width_px=1000, height_px=2000)
NODES = [
    UINode(id=0, class_name="android.widget.FrameLayout", bounds_px=(0, 0, 1000, 2000)),
    UINode(id=1, parent=0, class_name="android.widget.LinearLayout", clickable=True,
           bounds_px=(0, 100, 1000, 300)),
    UINode(id=2, parent=1, class_name="android.widget.TextView", text="Wi-Fi",
           bounds_px=(100, 120, 600, 200)),
    UINode(id=3, parent=1, class_name="android.widget.Switch", checkable=True, checked=True,
           clickable=True, resource_id="android:id/switch_widget", bounds_px=(800, 150, 950, 250)),
    UINode(id=4, parent=0, class_name="android.widget.EditText", editable=True, focused=True,
           hint="Search", bounds_px=(0, 400, 1000, 500)),
    UINode(id=5, parent=0, class_name="androidx.recyclerview.widget.RecyclerView",
           scrollable=True, bounds_px=(0, 1000, 1000, 2000)),
    UINode(id=6, parent=0, class_name="android.widget.Button", text="Far", clickable=True,
           bounds_px=(0, 2100, 1000, 2200)),
]  # fmt: skip
OBS = Observation(step=0, screen=SCREEN, ui=NODES, backend=BackendInfo(kind="sim"))
ONE = PolicyContext(answer_fields=[AnswerField(name="count", kind="number")])
TWO = PolicyContext(answer_fields=[AnswerField(name="a", kind="text"),
                                   AnswerField(name="b", kind="text")])  # fmt: skip


def test_the_screen_lists_actionable_elements_with_their_inner_text() -> None:
    assert actionable_lines(OBS) == [
        '[1] LinearLayout "Wi-Fi" @(500,200) clickable',
        "[3] Switch #switch_widget @(875,200) clickable on",
        '[4] EditText "Search" @(500,450) editable focused',
        "[5] RecyclerView @(500,1500) scrollable",  # no words, no resource id
    ]  # [6] is below the screen


@pytest.mark.parametrize(
    ("line", "action"),
    [
        ("tap 1", TapAction(target=Target.node(1))),
        ("  TAP   3 ", TapAction(target=Target.node(3))),
        ("tap 499 999", TapAction(target=Target.at(0.4995, 0.49975))),
        ("long 1", LongPressAction(target=Target.node(1))),
        ("swipe up", SwipeAction(start={"x": 0.5, "y": 0.75}, end={"x": 0.5, "y": 0.25})),
        ("swipe left 5", SwipeAction(start={"x": 0.75, "y": 0.75}, end={"x": 0.25, "y": 0.75})),
        ("scroll down 5", ScrollAction(direction="down", target=Target.node(5))),
        ("type  我的 Wi-Fi", TypeAction(text="我的 Wi-Fi")),
        ("back", KeyAction(key="back")),
        ("key volume_up", KeyAction(key="volume_up")),
        ("open 设置", OpenAppAction(app="settings")),
        ("open Contacts", OpenAppAction(app="contacts")),
        ("wait 2.5", WaitAction(seconds=2.5)),
        ("finish", FinishAction()),
        ("abort stuck on a dialog", FinishAction(status="abort", message="stuck on a dialog")),
        ("infeasible", FinishAction(status="infeasible")),
        (
            '{"type": "double_tap", "target": {"element": 1}}',
            DoubleTapAction(target=Target.node(1)),
        ),
        ("answer 3 contacts", AnswerAction(fields={"count": "3 contacts"})),
    ],
)
def test_lines_name_the_contracts_actions(line: str, action: object) -> None:
    assert parse_line(line, OBS, ONE) == action


def test_several_answer_fields_are_named() -> None:
    assert parse_line("answer a=x y; b = 2", OBS, TWO) == AnswerAction(
        fields={"a": "x y", "b": "2"}
    )
    assert parse_line('answer {"a": 1, "b": true}', OBS, TWO) == AnswerAction(
        fields={"a": 1, "b": True}
    )
    assert parse_line("help", OBS, TWO) == "help" and parse_line("   ", OBS, TWO) is None


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("tap 6", "off the"),  # listed in the tree, but below the screen
        ("tap 7", "not in the UI tree"),
        ("tap -1 5", "x=-1 is outside"),
        ("tap one", "element number or X Y"),
        ("swipe", "direction"),
        ("scroll down 1 2", "direction"),
        ("type", "type needs the text"),
        ("key launch", "no key 'launch'"),
        ("open Photoshop", "no app 'Photoshop'"),
        ("answer 3", "asks no question"),
        ("wait 99", "less than or equal to 60"),
        ('{"type": "tap"}', "target"),
        ('{"type": "tap", ', "JSON"),
        ("fnish", "did you mean 'finish'"),
    ],
)
def test_unusable_lines_say_why_in_one_line(line: str, why: str) -> None:
    with pytest.raises(UnusableLine, match=re.escape(why)) as caught:
        parse_line(line, OBS, PolicyContext())
    assert "\n" not in str(caught.value)


# --------------------------------------------------------------------------- the spec


def test_the_human_spec_parses_builds_and_is_fingerprinted() -> None:
    assert parse_spec(" human ") == HumanSpec() and str(HumanSpec()) == "human"
    assert HumanSpec().attended and not parse_spec("scripted").attended
    assert "human" in valid_forms()
    policy = load("human")
    assert isinstance(policy, HumanPolicy) and policy.name == "human"
    found = policy_fingerprint("human")
    assert (found["spec"], found["kind"]) == ("human", "human") and "vlm" not in found
    assert found["human"] == {"interface": "policies.human@1", "adapter": None}
    with pytest.raises(PolicySpecError, match="takes no arguments"):
        parse_spec("human:alice")


@pytest.mark.parametrize("typo", ["humna", "Human", "humans", "person", "huamn:x"])
def test_typos_of_human_suggest_it(typo: str) -> None:
    with pytest.raises(PolicySpecError, match="did you mean 'human'"):
        parse_spec(typo)


@pytest.mark.asyncio
async def test_no_terminal_is_refused_up_front_unless_streams_are_given(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("tap 1\n"))
    with pytest.raises(PolicySpecError, match="a person must be at this terminal") as caught:
        await preflight("human")
    assert "\n" not in str(caught.value)
    await HumanPolicy(io.StringIO(), io.StringIO()).preflight()  # injected: fine


def test_a_person_plays_one_episode_at_a_time(tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="one episode at a time: concurrency must be 1"):
        SimRunConfig(tasks=["settings/SetWifi-v1"], policy="human", out=tmp_path, concurrency=2)
    SimRunConfig(tasks=["settings/SetWifi-v1"], policy="human", out=tmp_path, concurrency=1)
    runner = CliRunner()
    args = ["sim", "run", "--task", "settings/SetWifi-v1", "--out", str(tmp_path / "r"),
            "--policy", "human"]  # fmt: skip
    result = runner.invoke(mgb_app, args, env={"COLUMNS": "300"})
    assert "a person plays one episode at a time, so --concurrency is 1" in result.output
    assert result.output.count("one episode at a time") == 1
    assert result.exit_code == 2 and "a person must be at this terminal" in result.output
    refused = runner.invoke(transfer_eval_app, ["--base", "human", "--out", str(tmp_path / "t")])
    assert refused.exit_code == 2 and "a person plays one at a time" in refused.output
    assert not (tmp_path / "t").exists()  # refused before any work
