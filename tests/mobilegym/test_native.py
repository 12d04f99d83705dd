"""MobileGym's own tasks in our harness, against the checkout beside the repository.

Side by side with the same seed: their ``MobileGymEnv`` (their driver, its own context and
page) and our page under :class:`~mobilegym.native.NativeTasks`. Each task is posed on both,
judged before anything is done (both fail, with the same check lines), solved by the same
effect on both, and judged again (both succeed, with the same check lines). The effects:
taps on the screen (``clock.ToggleAlarm``), their own golden driver from their live tests
(``clock.AddAlarm``), and a state patch (``calendar.ChangeDefaultReminder``).

Their ``MobileGymEnv`` launches Playwright's downloaded Chromium when it is given no browser,
and this machine has none (only Debian's ``chromium``; nothing can be downloaded), so it runs
in its shared-browser mode on a second Chromium of its own that we launch
(:func:`bridge.browser.launch_chromium`): their code still makes its context and page.
"""

from __future__ import annotations

import asyncio
import importlib
import os
import shutil
import subprocess
import sys
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import pytest_asyncio

from bridge.browser import launch_chromium
from bridge.env_checker import check_env
from bridge.errors import EnvUsageError
from bridge.schema import AnswerAction, AnswerValue, Verdict
from mobilegym.errors import MobileGymFailed, MobileGymSourceError, NativeTaskError
from mobilegym.native import Lang, NativePosed, NativeTasks, template_lang
from mobilegym.native_env import NativeEnv, unposed_instance
from mobilegym.native_harness import EXTRA, Harness, fingerprint
from mobilegym.native_verdict import JUDGE_NOTE, answer_fields, answer_text, verdict_from_judge
from mobilegym.page import CSS_SIZE, MobileGymPage
from mobilegym.world import MobileGym
from tests.mobilegym.conftest import SHARED_DIST

CHECKOUT = Path(os.environ.get("MOBILEGYM_CHECKOUT") or SHARED_DIST.parent)
NO_CHECKOUT = (
    "no MobileGym checkout: set MOBILEGYM_CHECKOUT to the root of one (looked for "
    f"{CHECKOUT / 'bench_env'})"
)


# --------------------------------------------------------------------------- no browser


def _result(**fields: Any) -> SimpleNamespace:
    made: dict[str, Any] = {
        "success": False,
        "clean": True,
        "progress": 0.0,
        "issues": [],
        "warnings": [],
        "judge_error": None,
    }
    return SimpleNamespace(**{**made, **fields})


def test_their_judge_result_maps_to_a_verdict_keeping_each_check() -> None:
    result = _result(
        success=False,
        clean=False,
        progress=0.5,
        issues=[
            {"field": "alarms[id=a2].enabled", "expected": False, "actual": False, "passed": True},
            {"field": "answer", "expected": (1, 2), "actual": "3", "passed": False, "reason": "r"},
        ],
        warnings=[{"field": "apps.clock.alarms[id=a1].note", "before": "x", "after": "y"}],
    )
    verdict = verdict_from_judge(result, "clock.X", query=True)
    assert (verdict.success, verdict.clean, verdict.progress, verdict.kind) == (
        False,
        False,
        0.5,
        "answer",
    )
    assert [(c.name, c.expected, c.actual, c.passed) for c in verdict.checks] == [
        ("alarms[id=a2].enabled", False, False, True),
        ("answer", [1, 2], "3", False),
    ]
    assert all(c.evidence and c.evidence.startswith(JUDGE_NOTE) for c in verdict.checks)
    assert verdict.checks[1].evidence == f"{JUDGE_NOTE} (clock.X): r"
    assert verdict.side_effects == ["apps.clock.alarms[id=a1].note"]


def test_their_fallback_issue_and_a_judge_error() -> None:
    fallback = verdict_from_judge(
        _result(issues=[{"reason": "Goal not achieved"}]), "clock.X", query=False
    )
    assert [(c.name, c.passed) for c in fallback.checks] == [("goal", False)]
    assert verdict_from_judge(_result(success=True, progress=1.0), "clock.X", query=False).success
    with pytest.raises(MobileGymFailed, match=r"judge of clock\.X failed: boom"):
        verdict_from_judge(_result(judge_error="boom"), "clock.X", query=False)


def test_a_template_is_english_unless_it_has_a_cjk_ideograph() -> None:
    assert template_lang("Set an alarm for {time}") == "en"
    assert template_lang("帮我设一个{time}的闹钟") == "zh"


def test_a_folder_without_bench_env_is_refused_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(MobileGymSourceError, match="no bench_env/ here") as caught:
        NativeTasks(tmp_path)
    assert "\n" not in str(caught.value)


def test_missing_python_needs_name_the_extra(tmp_path: Path) -> None:
    """In a fresh interpreter (bench_env is one module tree per process): a checkout whose
    bench_env imports a package that is not installed."""
    (tmp_path / "bench_env").mkdir()
    (tmp_path / "bench_env" / "__init__.py").write_text("import opencc_not_installed_here\n")
    code = (
        "import sys; from pathlib import Path; from mobilegym.native import NativeTasks\n"
        "try:\n    NativeTasks(Path(sys.argv[1]))\n"
        "except Exception as exc:\n    print(type(exc).__name__, exc)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, check=True
    )
    assert done.stdout.startswith("MobileGymSourceError ")
    assert "opencc_not_installed_here" in done.stdout and EXTRA in done.stdout
    assert done.stdout.count("\n") == 1


# --------------------------------------------------------------------------- the checkout


@pytest.fixture(scope="module")
def native() -> NativeTasks:
    """Their tasks from the checkout, or a skip saying how to point at one."""
    if not (CHECKOUT / "bench_env" / "__init__.py").is_file():
        pytest.skip(NO_CHECKOUT)
    return NativeTasks(CHECKOUT)


def test_listing_finds_their_system_app_tasks(native: NativeTasks) -> None:
    infos = {info.task_id: info for info in native.list()}
    suites = {info.suite for info in infos.values()}
    assert {"clock", "calendar", "sms", "notes"} <= suites
    toggle = infos["clock.ToggleAlarm"]
    assert (toggle.level, toggle.max_steps, toggle.apps, "test" in toggle.splits) == (
        "L1",
        15,
        ("clock",),
        True,
    )
    assert set(toggle.templates) == {"zh"}
    assert infos["clock.AddAlarm"].templates["en"] == ("Set an alarm for {time}",)
    assert infos["clock.CountAlarms"].answers
    # the daily apps this checkout holds no data for do not load, and say why
    assert all("Error" in why for why in native.unloadable().values())


def test_an_unknown_task_or_language_is_refused_with_what_there_is(native: NativeTasks) -> None:
    with pytest.raises(NativeTaskError, match=r"did you mean clock\.ToggleAlarm"):
        native.instance("clock.ToggleAlarms", 0, "zh")
    with pytest.raises(NativeTaskError, match=r"no en instruction .* in zh"):
        native.instance("clock.ToggleAlarm", 0, "en")


def test_the_fingerprint_says_which_harness(native: NativeTasks) -> None:
    found = native.fingerprint()
    assert found["checkout"] == str(CHECKOUT.resolve())
    if CHECKOUT.resolve() == SHARED_DIST.parent.resolve():
        # the shared copy is no git checkout: its PROVENANCE.md names the commit, and
        # v0.1.0 has no bench_env/version.py
        assert (found["commit"], found["commit_from"], found["dirty"]) == (
            "093a329",
            "PROVENANCE.md",
            "unknown",
        )
        assert found["harness_version"] == "unknown"
    assert {"taskset_version", "sim_version", "data_version", "eval_mode"} <= set(found)


def _fingerprint_of(root: Path) -> dict[str, str]:
    """The fingerprint of a folder as a checkout (nothing of bench_env is read from it)."""
    fields = {name: None for name in Harness.__dataclass_fields__ if name != "root"}
    return fingerprint(Harness(root=root, **fields))  # type: ignore[arg-type]


def test_a_commit_is_read_from_git_or_a_provenance_note_and_never_guessed(
    tmp_path: Path,
) -> None:
    assert _fingerprint_of(tmp_path)["commit"] == "unknown"
    note = tmp_path / "PROVENANCE.md"
    note.write_text("Upstream: MobileGym, release v0.1.0, commit\n  `093a329` (a merge)\n")
    found = _fingerprint_of(tmp_path)
    assert (found["commit"], found["commit_from"], found["dirty"]) == (
        "093a329",
        "PROVENANCE.md",
        "unknown",
    )
    note.write_text("commit `093a329`, then commit `6cb0d5c`; commit messages say why\n")
    assert _fingerprint_of(tmp_path)["commit_from"] == "unknown"  # two named: no answer
    git = shutil.which("git")
    if git is None:
        return
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}  # fmt: skip
    for args in (["init", "-q"], ["add", "PROVENANCE.md"], ["commit", "-qm", "x"]):
        subprocess.run([git, "-C", str(tmp_path), *args], check=True, env=env)
    head = subprocess.run(
        [git, "-C", str(tmp_path), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    found = _fingerprint_of(tmp_path)
    assert (found["commit"], found["commit_from"], found["dirty"]) == (head, "git", "false")
    note.write_text("changed\n")
    assert _fingerprint_of(tmp_path)["dirty"] == "true"


def test_their_answer_fields_and_our_answer_as_their_text() -> None:
    fields = answer_fields(
        [
            {"type": "choice", "label": "更多的", "options": ["A更多", "B更多"]},
            {"type": "number", "label": "A数量"},
            {"type": "text", "label": "时间", "hint": "如：14:30", "matcher": "time"},
        ]
    )
    assert [(f.name, f.kind, f.label, f.choices) for f in fields] == [
        ("answer1", "choice", "更多的", ["A更多", "B更多"]),
        ("answer2", "number", "A数量", None),
        ("answer3", "text", "时间 (如：14:30)", None),
    ]
    assert [f.name for f in answer_fields([{"type": "number", "label": "n"}])] == ["answer"]
    given: dict[str, AnswerValue] = {"answer3": "09:30", "answer1": "A更多", "answer2": 3}
    assert answer_text(fields, given) == "A更多, 3, 09:30"  # field order, as their sheet's
    assert answer_text(fields, {"answer2": 3, "other": True}) == "3, True"
    assert answer_text(fields, None) is None


def test_a_copied_record_cannot_be_judged() -> None:
    copied = NativePosed.model_validate(
        {
            "task_id": "clock.X",
            "seed": 0,
            "lang": "zh",
            "eval_mode": "text",
            "level": "L1",
            "instruction": "x",
            "max_steps": 15,
            "params": {},
            "query": False,
            "init_state": {},
            "init_route": {},
        }
    )
    with pytest.raises(EnvUsageError, match="judge the NativePosed"):
        copied.bench_task()


# --------------------------------------------------------------------------- side by side


def _bench(name: str) -> Any:
    """A module of their harness (imported from the checkout the ``native`` fixture named)."""
    return importlib.import_module(name)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def ours(gym: MobileGym, native: NativeTasks) -> AsyncIterator[MobileGymPage]:
    """Our phone, reposed by each case (none without a checkout: ``native`` skips)."""
    page = await gym.page()
    try:
        yield page
    finally:
        await page.close()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def theirs(gym: MobileGym, native: NativeTasks) -> AsyncIterator[Any]:
    """Their ``MobileGymEnv`` on the same build, in a Chromium of its own."""
    gym_env = _bench("bench_env.env.mobile_gym")
    async with launch_chromium() as browser:
        env = gym_env.MobileGymEnv(
            url=gym.base_url, browser=browser, headless=True, delay_after_action=0, verbose=False
        )
        await env.start()
        try:
            yield env
        finally:
            await env.close()


async def _their_verdict(env: Any, task: Any, init_obs: Any) -> tuple[Any, Verdict]:
    """Their judge on their env, as their runner calls it at an episode's end."""
    runner = _bench("bench_env.runner.base")
    end = _bench("bench_env.env.base").Observation(
        route=await env.get_route(),
        state=await env.get_state(required_apps=list(task.apps)),
        step_idx=1,
    )
    run = runner.ExecutionResult(steps=0, trace=[], runtime_s=0.0, finished=True, truncated=False)
    result = await runner.Evaluator(judge_mode="state", eval_mode="text").evaluate(
        task, init_obs, end, run
    )
    return result, verdict_from_judge(result, task.id, query=task.objective == "query")


def _lines(verdict: Verdict) -> list[tuple[str, Any, Any, bool]]:
    return [(c.name, c.expected, c.actual, c.passed) for c in verdict.checks]


# ---- the same effect on both sides


async def _tap_the_alarm_switch(
    native: NativeTasks, env: Any, page: MobileGymPage, task: Any
) -> None:
    """Tap the switch of the task's alarm: their CLICK on their env, the same point through
    ``__SIM_INPUT__`` on ours."""
    box = await page.call(
        """(time) => {
          const row = [...document.querySelectorAll('button')]
            .find((b) => b.textContent.startsWith(time));
          const r = row.parentElement.querySelectorAll('button')[1].getBoundingClientRect();
          return [r.x + r.width / 2, r.y + r.height / 2];
        }""",
        task.p.time,
    )
    point = [round(box[0] / CSS_SIZE[0] * 1000), round(box[1] / CSS_SIZE[1] * 1000)]
    base = _bench("bench_env.env.base")
    await env.step(base.Action(base.ActionType.CLICK, {"point": point}))
    css = {"x": point[0] / 1000 * CSS_SIZE[0], "y": point[1] / 1000 * CSS_SIZE[1]}
    await page.call("(p) => { window.__SIM_INPUT__.tap(p.x, p.y); }", css)
    await page.settle(5.0)


async def _their_golden_add_alarm(
    native: NativeTasks, env: Any, page: MobileGymPage, task: Any
) -> None:
    """Their own driver of ``clock.AddAlarm`` (``bench_env/tests/clock/test_live.py``) on
    their env and on ours."""
    with warnings.catch_warnings():
        # their module marks itself `live`, a mark our pytest does not know
        warnings.simplefilter("ignore", pytest.PytestUnknownMarkWarning)
        drive = _bench("bench_env.tests.clock.test_live")._drive_add_alarm
    await drive(env, task)
    await drive(native.bench_env(page), task)


async def _patch_default_reminder(
    native: NativeTasks, env: Any, page: MobileGymPage, task: Any
) -> None:
    patch = {"apps": {"calendar": {"settings": {"defaultReminder": task.p.reminder}}}}
    await env.set_state(patch, deep=True, reload=False)
    await page.set_state(patch)


Effect = Callable[[NativeTasks, Any, MobileGymPage, Any], Awaitable[None]]

CASES: list[tuple[str, int, Lang, Effect]] = [
    ("clock.ToggleAlarm", 7, "zh", _tap_the_alarm_switch),
    ("clock.AddAlarm", 7, "en", _their_golden_add_alarm),
    ("calendar.ChangeDefaultReminder", 7, "zh", _patch_default_reminder),
]


@pytest.mark.browser
@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize(("task_id", "seed", "lang", "effect"), CASES, ids=[c[0] for c in CASES])
async def test_their_task_is_judged_alike_by_their_harness_and_ours(
    native: NativeTasks,
    ours: MobileGymPage,
    theirs: Any,
    task_id: str,
    seed: int,
    lang: Lang,
    effect: Effect,
) -> None:
    # their runner's own instance for --sample-seed SEED, asked in the same language
    task = native.instance(task_id, seed, lang)
    controller = _bench("bench_env.runner.base").Controller
    (their_start, _), posed = await asyncio.gather(
        controller.setup(theirs, task, eval_mode="text"),
        native.pose(task_id, seed, lang, ours),
    )
    assert posed.instruction == task.description
    assert posed.params == dict(task.params)
    assert posed.max_steps == next(i for i in native.list() if i.task_id == task_id).max_steps

    before, their_before = await _their_verdict(theirs, task, their_start)
    our_before = await native.judge(posed, ours, None)
    assert not before.success and not our_before.success
    assert our_before == their_before

    await effect(native, theirs, ours, task)
    after, their_after = await _their_verdict(theirs, task, their_start)
    our_after = await native.judge(posed, ours, None)
    assert after.success and after.clean, after.to_dict()
    assert our_after == their_after
    assert _lines(our_after) == [
        (i["field"], i["expected"], i["actual"], i["passed"]) for i in after.issues
    ]


@pytest.mark.browser
@pytest.mark.asyncio(loop_scope="module")
async def test_an_answer_reaches_their_judge_as_text_or_on_their_answer_sheet(
    native: NativeTasks, ours: MobileGymPage
) -> None:
    posed = await native.pose("clock.CountAlarms", 3, "zh", ours)
    assert posed.query and posed.answer_question == posed.instruction == "时钟里一共有几个闹钟"
    assert posed.answer_fields == [{"type": "number", "label": "闹钟数量"}]
    truth = str(len(posed.model_dump()["init_state"]["apps"]["clock"]["alarms"]))
    right = await native.judge(posed, ours, truth)
    assert right.success and right.kind == "answer"
    assert not (await native.judge(posed, ours, truth + "1")).success

    grounded = NativeTasks(CHECKOUT, eval_mode="grounded")
    posed = await grounded.pose("clock.CountAlarms", 3, "zh", ours)
    assert posed.instruction.startswith(posed.answer_question or "-")
    assert posed.instruction != posed.answer_question  # their request to fill the sheet in
    assert posed.max_steps == 15 + 15
    assert not (await grounded.judge(posed, ours, truth)).success  # the sheet holds it
    await ours.set_state({"apps": {"answer_sheet": {"answers": {"0": truth}, "submitted": True}}})
    assert (await grounded.judge(posed, ours, None)).success


@pytest.mark.browser
@pytest.mark.asyncio(loop_scope="module")
async def test_their_task_as_our_env_takes_an_answer_action_to_their_judge(
    gym: MobileGym, native: NativeTasks
) -> None:
    """``NativeEnv``: reset with the unposed task gives the sampled one; our answer action
    reaches their judge as text; a wrong one fails; their setup leaves the episode in the app."""
    unposed = unposed_instance(native.info("clock.CountAlarms"), 3, "zh")
    assert unposed.instruction == "时钟里一共有几个闹钟" and unposed.params == {}
    env = await NativeEnv.open(gym, native)
    try:
        first = await env.reset(unposed)
        task = env.task
        assert task is not None and task.task_id == "clock.CountAlarms" and task.level == "L3"
        assert [(f.name, f.kind, f.label) for f in task.answer_fields] == [
            ("answer", "number", "闹钟数量")
        ]
        assert first.step == 0 and first.foreground.package == "com.android.deskclock"
        assert env.start_state() is None
        [fork] = await env.fork(1)  # posed again by their setup: the same sampled instance
        try:
            assert isinstance(fork, NativeEnv) and fork.task == task
        finally:
            await fork.close()
        alarms = (await env.page.state())["apps"]["clock"]["alarms"]
        await env.step(AnswerAction(fields={"answer": len(alarms) + 1}))
        wrong = await env.verdict()
        assert not wrong.success and wrong.kind == "answer"
        await env.step(AnswerAction(fields={"answer": len(alarms)}))
        right = await env.verdict()
        assert right.success and (right.checks[0].evidence or "").startswith(JUDGE_NOTE)
    finally:
        await env.close()


@pytest.mark.browser
@pytest.mark.asyncio(loop_scope="module")
async def test_native_env_keeps_the_env_contract(gym: MobileGym, native: NativeTasks) -> None:
    task = unposed_instance(native.info("clock.ToggleAlarm"), 0, "zh")
    await check_env(lambda: NativeEnv.open(gym, native), task, name="NativeEnv")
