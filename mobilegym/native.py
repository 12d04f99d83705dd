"""MobileGym's own tasks in our harness: posed by their setup, judged by their judge.

::

    tasks = NativeTasks(Path("../mobilegym"))          # the root of the user's checkout
    posed = await tasks.pose("clock.ToggleAlarm", seed=7, lang="zh", page=page)
    ...                                                 # a policy acts on the page
    verdict = await tasks.judge(posed, page, answer=None)

Nothing of theirs is rewritten here. Listing reads their ``TaskRegistry``; posing runs their
``Controller.setup`` (``BaseTask.setup``: reset, warm the apps, ``_prepare``, sample, and
``_post_sample``) over :class:`~mobilegym.native_env.BenchEnv`, their env's surface on our
page; judging runs their ``Evaluator.evaluate`` in ``state`` mode (``check_goals`` and the
side-effect rules) and maps its ``JudgeResult`` (:mod:`mobilegym.native_verdict`).

**Seeds.** A task is seeded as their runner seeds it from ``--sample-seed SEED``
(``registry._instantiate``: ``SEED ^ crc32("<task id>:0")``), so ``pose(task, SEED)`` samples
what ``bench_env/run.py --task-id TASK --sample-seed SEED`` does.

**Languages.** Their ``templates`` list holds a task's instruction variants, Chinese and,
for about a quarter of the tasks, English; a template with no CJK character is English. We
pose the first template in the language asked (for ``zh`` that is their default,
``templates[0]``) and refuse a language the task has none in. Parameter values keep their
own rendering (a toggle reads 打开 / 关闭 in English templates too).

**Answers.** ``eval_mode="text"`` (ours): the agent's answer comes from our answer action and
is handed to their judge as their ``ANSWER`` text. ``eval_mode="grounded"`` (theirs): setup
injects their AnswerSheet app and the instruction gains their Chinese suffix asking to fill
it in; the judge then reads the sheet and ignores ``answer``.
"""

from __future__ import annotations

import builtins
import difflib
import re
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, JsonValue, PrivateAttr

from bridge.errors import BridgeError, EnvUsageError
from bridge.schema import Verdict
from mobilegym.errors import MobileGymFailed, NativeTaskError
from mobilegym.native_env import BenchEnv
from mobilegym.native_harness import Harness, fingerprint, load_harness
from mobilegym.native_verdict import json_value, verdict_from_judge
from mobilegym.page import MobileGymPage

__all__ = ["EvalMode", "Lang", "NativePosed", "NativeTaskInfo", "NativeTasks", "template_lang"]

Lang = Literal["en", "zh"]
EvalMode = Literal["text", "grounded"]

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def template_lang(template: str) -> Lang:
    """``zh`` when a template has a CJK ideograph, else ``en``."""
    return "zh" if _CJK.search(template) else "en"


class NativeTaskInfo(BaseModel):
    """One of MobileGym's task templates, as their registry lists it.

    ``max_steps`` is their runner's budget for it (the task's own, else by difficulty, plus
    15 for the AnswerSheet in grounded mode); ``splits`` the named splits of the checkout
    that list it (``test``, ``train``, ...).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    task_id: str
    suite: str
    apps: tuple[str, ...]
    level: str
    objective: str
    max_steps: int
    templates: dict[Lang, tuple[str, ...]]
    answers: bool
    splits: tuple[str, ...]


class NativePosed(BaseModel):
    """One of their tasks posed on a page: what a policy is told, and what their judge needs.

    A task that asks a question has ``answer_fields`` (their AnswerSheet fields: label,
    type, options, ...) and ``answer_question``, the question the sheet shows; ``query`` says
    its objective is only to answer. ``init_state`` and ``init_route`` are their judge's start
    (``JudgeInput.init_obs``), as their setup left the page. The task object their setup
    sampled stays with this record (not serialized): :meth:`NativeTasks.judge` judges with
    it, since a task's hooks may keep more than its parameters.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    task_id: str
    seed: int
    lang: Lang
    eval_mode: EvalMode
    level: str
    instruction: str
    max_steps: int
    params: dict[str, JsonValue]
    answer_question: str | None = None
    answer_fields: list[JsonValue] | None = None
    query: bool
    init_state: dict[str, JsonValue]
    init_route: dict[str, JsonValue]
    _task: Any = PrivateAttr(default=None)

    def bench_task(self) -> Any:
        """Their sampled task instance (``bench_env`` is untyped: ``Any``).

        Raises:
            EnvUsageError: this record was not made by :meth:`NativeTasks.pose` in this
                process (a copy read back from JSON has no task).
        """
        if self._task is None:
            raise EnvUsageError(
                f"{self.task_id}: judge the NativePosed that pose() returned in this process"
            )
        return self._task


class NativeTasks:
    """MobileGym's own tasks from one checkout of theirs.

    Args:
        checkout: The root of a MobileGym checkout (the folder holding ``bench_env/``).
        eval_mode: How answers reach their judge (see the module doc); ``text`` by default.

    Raises:
        MobileGymSourceError: no ``bench_env/`` there, or its Python needs are missing (the
            message names the extra to install).
    """

    def __init__(self, checkout: Path, *, eval_mode: EvalMode = "text") -> None:
        self.eval_mode: EvalMode = eval_mode
        self._harness: Harness = load_harness(checkout)
        self._config: Any = self._harness.runner_config(
            agent="mobilegym-bridge", model_name="mobilegym-bridge", eval_mode=eval_mode
        )

    @property
    def root(self) -> Path:
        """The checkout's root (the folder holding ``bench_env/``), resolved."""
        return self._harness.root

    # ---- listing
    @cached_property
    def _catalog(self) -> tuple[dict[str, Any], dict[str, str]]:
        """Every task class by id, and the suites that would not load, with why."""
        registry = self._harness.registry
        classes: dict[str, Any] = {}
        broken: dict[str, str] = {}
        for suite in registry.list_suites(include_generated=False):
            try:
                names = registry.list_tasks(suite)
            # Their suite modules run code at import (reading app data): one whose data the
            # checkout lacks raises whatever that code raises.
            except Exception as exc:
                broken[suite] = f"{type(exc).__name__}: {exc}"
                continue
            for name in names:
                classes[f"{suite}.{name}"] = registry.get(suite, name)
        return classes, broken

    @cached_property
    def _splits(self) -> dict[str, frozenset[str]]:
        harness = self._harness
        return {name: frozenset(harness.resolve_split(name)) for name in harness.split_names()}

    def _info(self, task_id: str, cls: Any) -> NativeTaskInfo:
        templates: dict[Lang, builtins.list[str]] = {}
        for template in cls.templates:
            templates.setdefault(template_lang(template), []).append(template)
        return NativeTaskInfo(
            task_id=task_id,
            suite=cls._suite,
            apps=tuple(cls.apps),
            level=cls.difficulty,
            objective=cls.objective,
            max_steps=self._config.get_max_steps(cls),
            templates={lang: tuple(found) for lang, found in templates.items()},
            answers=bool(cls.answer_fields),
            splits=tuple(name for name, ids in self._splits.items() if task_id in ids),
        )

    def list(self) -> builtins.list[NativeTaskInfo]:
        """Every task of the checkout's suites that load (see :meth:`unloadable`), by id."""
        classes, _ = self._catalog
        return [self._info(task_id, cls) for task_id, cls in sorted(classes.items())]

    def unloadable(self) -> dict[str, str]:
        """Suites of the checkout that did not load, with the error (a daily app whose data
        the checkout lacks, for instance): their tasks are not listed."""
        return dict(self._catalog[1])

    def info(self, task_id: str) -> NativeTaskInfo:
        """What their registry says of one task.

        Raises:
            NativeTaskError: no such task in the checkout (the nearest ids are named), or its
                suite did not load.
        """
        return self._info(task_id, self._class(task_id))

    def _class(self, task_id: str) -> Any:
        classes, broken = self._catalog
        if task_id in classes:
            return classes[task_id]
        suite = task_id.split(".", 1)[0]
        if suite in broken:
            raise NativeTaskError(
                f"{task_id}: suite {suite} of this checkout did not load ({broken[suite]})"
            )
        near = difflib.get_close_matches(task_id, classes, n=3, cutoff=0.5)
        suites = sorted({known.split(".", 1)[0] for known in classes})
        hint = (
            f"; did you mean {', '.join(near)}?"
            if near
            else f" (ids are SUITE.Task; its suites are {', '.join(suites)})"
        )
        raise NativeTaskError(f"MobileGym has no task {task_id!r}{hint}")

    # ---- posing
    def bench_env(self, page: MobileGymPage, clock_ms: int | None = None) -> BenchEnv:
        """Their env's surface over ``page`` (:class:`~mobilegym.native_env.BenchEnv`): what
        their setup and judge run on, and what their own drivers and golden plans can;
        ``clock_ms`` is where its reset stands the clock (else where the page's stands)."""
        return BenchEnv(page, self._harness, clock_ms=clock_ms)

    def instance(self, task_id: str, seed: int, lang: Lang) -> Any:
        """Their task instance, not yet set up, as :meth:`pose` makes it: seeded as their
        runner seeds it from ``--sample-seed`` and set to its first template in ``lang``
        (``bench_env`` is untyped: ``Any``). For running their own env beside ours.

        Raises:
            NativeTaskError: no such task, or none of its instructions is in ``lang``.
        """
        cls = self._class(task_id)
        index = next(
            (i for i, template in enumerate(cls.templates) if template_lang(template) == lang),
            None,
        )
        if index is None:
            offered = sorted({template_lang(template) for template in cls.templates})
            raise NativeTaskError(
                f"{task_id} has no {lang} instruction (its templates are in {', '.join(offered)})"
            )
        made = self._harness.instantiate([cls], 1, seed)
        if not made:
            raise NativeTaskError(f"{task_id} declares no instance (sample_max 0)")
        task = made[0]
        task._template_index = index
        return task

    async def pose(
        self,
        task_id: str,
        seed: int,
        lang: Lang,
        page: MobileGymPage,
        *,
        clock_ms: int | None = None,
    ) -> NativePosed:
        """Pose their task on ``page`` with their own setup, seeded as their runner seeds it,
        the page's clock standing at ``clock_ms`` (else where it stands now; a page not yet
        loaded needs it).

        Raises:
            NativeTaskError: no such task in the checkout (the nearest are named), or
                none of its instructions is in ``lang``.
            MobileGymFailed: their setup failed (a page call, a sampler finding no data).
        """
        task = self.instance(task_id, seed, lang)
        env = self.bench_env(page, clock_ms)
        try:
            init_obs, _ = await self._harness.controller.setup(env, task, eval_mode=self.eval_mode)
        except BridgeError:
            raise
        # Their setup is untyped code (samplers, hooks, Playwright calls of their own):
        # whatever it raises is their setup failing on this page.
        except Exception as exc:
            raise MobileGymFailed(
                f"MobileGym's setup of {task_id} failed: {type(exc).__name__}: {exc}"
            ) from exc
        question = await self._question(task, env) if task.answer_fields else None
        return self._posed(task, seed, lang, init_obs, question)

    async def _question(self, task: Any, env: BenchEnv) -> str:
        if self.eval_mode == "grounded":
            # their setup wrote the question into the AnswerSheet before it suffixed the
            # instruction with the request to fill the sheet in
            state = await env.get_state(required_apps=["answer_sheet"])
            return str(state["apps"]["answer_sheet"]["question"])
        return str(task._resolve_answer_question() or task.description)

    def _posed(
        self, task: Any, seed: int, lang: Lang, init_obs: Any, question: str | None
    ) -> NativePosed:
        fields = task._resolve_answer_fields() if task.answer_fields else None
        posed = NativePosed(
            task_id=task.id,
            seed=seed,
            lang=lang,
            eval_mode=self.eval_mode,
            level=task.difficulty,
            instruction=task.description,
            max_steps=self._config.get_max_steps(task),
            params={key: json_value(value) for key, value in task.params.items()},
            answer_question=question,
            answer_fields=[json_value(field) for field in fields] if fields else None,
            query=task.objective == "query",
            init_state=init_obs.state,
            init_route=init_obs.route or {},
        )
        posed._task = task
        return posed

    # ---- judging
    async def judge(self, posed: NativePosed, page: MobileGymPage, answer: str | None) -> Verdict:
        """Their verdict on ``page`` now: their ``Evaluator`` in state mode, over the start
        ``posed`` holds and the page's state and route now, with ``answer`` as the agent's
        ``ANSWER`` text (ignored in grounded mode, where their AnswerSheet holds it).

        Raises:
            MobileGymFailed: their judge failed (it raised, or reported a ``judge_error``).
        """
        task = posed.bench_task()
        harness = self._harness
        env = self.bench_env(page)
        end = harness.observation(
            route=await env.get_route(),
            state=await env.get_state(required_apps=list(task.apps) or None),
            step_idx=1,
        )
        start = harness.observation(route=dict(posed.init_route), state=posed.init_state)
        run = harness.execution_result(
            steps=0, trace=[], runtime_s=0.0, finished=True, truncated=False, agent_answer=answer
        )
        evaluator = harness.evaluator(judge_mode="state", eval_mode=posed.eval_mode)
        try:
            result = await evaluator.evaluate(task, start, end, run)
        except Exception as exc:  # their judge is untyped code; see pose()
            raise MobileGymFailed(
                f"MobileGym's judge of {posed.task_id} failed: {type(exc).__name__}: {exc}"
            ) from exc
        return verdict_from_judge(result, posed.task_id, query=posed.query)

    # ---- provenance
    def fingerprint(self) -> dict[str, str]:
        """Which harness poses and judges (:func:`mobilegym.native_harness.fingerprint`),
        and in which answer mode."""
        return {**fingerprint(self._harness), "eval_mode": self.eval_mode}
