"""An app is a folder: a throwaway app written into a temporary directory, named by
``MGB_EXTRA_APPS`` (bridge/app_catalog.py), is found, posed, solved by its oracle and judged
in the simulator and on the virtual phone, and its wrong plan fails in both — with nothing of
the repository touched.

The app, Shelf, lists two books with a "read" switch each. Its folder holds one screen (a
Jinja template), one provider table on the surface every app already has
(``content://com.example.shelf/books``: ``content query`` and ``content update``), one
template with its oracle and wrong plan, and its identity in the directory's ``apps.json``.
The episodes run in a subprocess, where the variable is set before anything loads.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bridge.app_catalog import EXTRA_APPS_ENV

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]
TASK_ID = "shelf/MarkRead-v1"

SHELF = {
    "__init__.py": '''"""Shelf: books with a read switch (a throwaway app)."""

from sim.apps.shelf.app import ShelfApp

__all__ = ["ShelfApp"]
''',
    "app.py": '''"""The Shelf app: one screen, one switch per book."""

from __future__ import annotations

from typing import Any

from sim.app import App, AppContext, Event, on
from sim.apps.shelf.provider import books, set_read, shelf_provider
from sim.providers.table import Provider


class ShelfApp(App):
    """Books from world data; which are read is the overlay's."""

    id = "shelf"

    def initial_overlay(self) -> dict[str, Any]:
        return {"read": {}}

    def render(self, ctx: AppContext) -> str:
        return ctx.render("books.html", books=books(ctx.world, ctx.data))

    @on("toggle")
    def toggle(self, ctx: AppContext, event: Event) -> None:
        book = int(event.arg("book"))
        shown = {b["_id"]: b["read"] for b in books(ctx.world, ctx.data)}
        set_read(ctx.data, book, not shown[book])

    def providers(self) -> tuple[Provider, ...]:
        return (shelf_provider(),)
''',
    "provider.py": '''"""``content://com.example.shelf/books``: ``_id, title, read``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sim.providers.table import Column, Provider, ProviderContext, ProviderTable, Values

BOOKS = "content://com.example.shelf/books"


def books(world: Mapping[str, Any], overlay: Mapping[str, Any]) -> list[dict[str, Any]]:
    read = overlay.get("read", {})
    return [
        {"_id": b["id"], "title": b["title"], "read": int(read.get(str(b["id"]), b["read"]))}
        for b in world["books"]
    ]


def set_read(overlay: dict[str, Any], book: int, read: bool) -> None:
    overlay.setdefault("read", {})[str(book)] = read


def _rows(ctx: ProviderContext) -> list[dict[str, Any]]:
    return books(ctx.world("shelf"), ctx.overlay("shelf"))


def _update(ctx: ProviderContext, rows: list[Mapping[str, Any]], values: Values) -> None:
    for row in rows:
        set_read(ctx.writable_overlay("shelf"), row["_id"], bool(values["read"]))


def shelf_provider() -> Provider:
    table = ProviderTable(
        name="books",
        columns=(Column("_id", "INTEGER"), Column("title"), Column("read", "INTEGER")),
        rows=_rows,
        update=_update,
    )
    return Provider(authority="com.example.shelf", tables=(table,))
''',
    "tasks.py": '''"""Shelf's template: mark a book read."""

from __future__ import annotations

from typing import Annotated, Any

from bridge.plans import FinishStep, OpenAppStep, Plan, Selector, TapStep
from bridge.spec.rows import RowsCheck, RowsSelector, UpdateRows, WatchedRows
from bridge.taskspec import CheckRule, EnsureOp
from sim.apps.shelf.provider import BOOKS
from sim.tasks.base import TaskTemplate, WrongPlan
from sim.tasks.params import Choice, TaskParams

TITLES = ("Dune", "Emma")


class Book(TaskParams):
    title: Annotated[str, Choice(TITLES)]


def _where(title: str) -> str:
    return f"title='{title}'"


def _tap(title: str) -> Plan:
    return [OpenAppStep(app="shelf"), TapStep(on=Selector(text=title)), FinishStep()]


class MarkRead(TaskTemplate[Book]):
    id = "shelf/MarkRead-v1"
    apps = ("shelf",)
    level = "L1"
    kind = "operate"
    instructions = {"en": "Mark {title} as read.", "zh": "把《{title}》标为已读。"}
    Params = Book
    watch = (WatchedRows(uri=BOOKS, projection=["_id", "title", "read"]),)

    def ensure(self, p: Book) -> list[EnsureOp]:
        return [UpdateRows(uri=BOOKS, where=_where(p.title), values={"read": 0})]

    def goal(self, p: Book) -> list[CheckRule]:
        return [RowsCheck(name="read", uri=BOOKS, where=_where(p.title), column="read",
                          expect="all", value=1)]

    def expected_rows(self, p: Book) -> list[RowsSelector]:
        return [RowsSelector(uri=BOOKS, where=_where(p.title))]

    def oracle(self, p: Book, lang: str) -> Plan:
        return _tap(p.title)


def _other_book(p: dict[str, Any], lang: str, world: Any) -> Plan:
    return _tap(next(title for title in TITLES if title != p["title"]))


TEMPLATES = (MarkRead(),)
WRONG: dict[str, WrongPlan] = {"shelf/MarkRead-v1": _other_book}
''',
    "world.json": json.dumps(
        {
            "books": [
                {"id": 1, "title": "Dune", "read": False},
                {"id": 2, "title": "Emma", "read": False},
            ]
        }
    ),
    "strings.json": json.dumps({"en": {"title": "Shelf"}, "zh": {"title": "书架"}}),
    "icon.svg": '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24">'
    '<rect x="4" y="3" width="16" height="18"/></svg>',
    "templates/books.html": """{% import "widgets.html" as w %}
{{ w.topbar(t("title"), back=False) }}
{% call w.scroll("shelf.books") %}
{% for book in books %}
{{ w.switch_item(book.title, book.read, "toggle", {"book": book._id}) }}
{% endfor %}
{% endcall %}
""",
}

IDENTITY = {
    "apps": [
        {
            "id": "shelf",
            "names": {"en": "Shelf", "zh": "书架"},
            "packages": {"aosp": "com.example.shelf"},
            "activity": ".ShelfActivity",
            "simulated": True,
            "everyday": False,
        }
    ]
}

EPISODES = """
import asyncio, json, sys, tempfile
from pathlib import Path

from bridge.runner import run_episode
from device.env import AndroidEnv
from device.virtual.attach import attach_virtual_phone
from policies.scripted import PlanPolicy
from sim.discovery import scan_wrong_plans
from sim.simulator import SimConfig, Simulator
from sim.tasks.registry import default_registry
from tests.device.virtual_rig import env_config

TASK_ID = sys.argv[1]


def outcome(record):
    verdict = record.verdict
    return {"outcome": record.outcome, "error": record.error,
            "success": bool(verdict and verdict.success), "clean": bool(verdict and verdict.clean),
            "evidence": [c.evidence or "" for c in (verdict.checks if verdict else [])],
            "restored": record.restoration.restored if record.restoration else []}


async def main(attached):
    report = {"listed": TASK_ID in default_registry().ids()}
    wrong = scan_wrong_plans()[TASK_ID]
    async with Simulator(SimConfig(pages=1)) as sim:
        template = sim.tasks.get(TASK_ID)
        for lang in ("en", "zh"):
            task = sim.tasks.instantiate(TASK_ID, 0, lang)
            plans = {"oracle": template.oracle_for(task),
                     "wrong": wrong(task.params, task.lang, sim.tasks.world)}
            for name, plan in plans.items():
                env = await sim.env(screenshot=False)
                try:
                    record = await run_episode(PlanPolicy(plan), env, task, episode_id=name)
                finally:
                    await env.close()
                report[f"sim.{lang}.{name}"] = outcome(record)
                phone = AndroidEnv(env_config(attached))  # the real adb server, u2, the shell
                try:
                    record = await run_episode(PlanPolicy(plan, name="scripted"), phone, task,
                                               episode_id=name)
                finally:
                    await phone.close()
                report[f"phone.{lang}.{name}"] = outcome(record)
    print(json.dumps(report))


with tempfile.TemporaryDirectory() as home, attach_virtual_phone(
    seed=0, android_user_home=Path(home)
) as attached:
    asyncio.run(main(attached))
"""


def _write_app(root: Path) -> None:
    for name, text in SHELF.items():
        path = root / "shelf" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")
    (root / "apps.json").write_text(json.dumps(IDENTITY), "utf-8")


def _run(root: Path, *args: str) -> str:
    env = {**os.environ, EXTRA_APPS_ENV: str(root), "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.fixture(scope="module")
def extra_apps(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("extra_apps")
    _write_app(root)
    return root


def test_the_folder_is_listed_by_mgb_sim_tasks(extra_apps: Path) -> None:
    out = _run(extra_apps, "-m", "transfer_eval.commands", "sim", "tasks", "--json")
    ids = [json.loads(line)["id"] for line in out.splitlines() if line.startswith("{")]
    assert TASK_ID in ids and len(ids) == 97


def test_posed_solved_and_judged_in_the_simulator_and_on_the_virtual_phone(
    extra_apps: Path,
) -> None:
    before = subprocess.run(["git", "status", "--porcelain"], cwd=REPO, capture_output=True)
    report = json.loads(_run(extra_apps, "-c", EPISODES, TASK_ID).splitlines()[-1])
    assert report.pop("listed")
    assert len(report) == 8  # two worlds, two languages, the oracle and the wrong plan
    for key, result in report.items():
        if key.endswith("oracle"):
            assert result["outcome"] == "success" and result["clean"], (key, result)
        else:
            assert result["outcome"] != "infra_error", (key, result)
            assert not (result["success"] and result["clean"]), (key, result)
        if key.startswith("phone."):  # judged and put back through the phone's own shell
            assert any(e.startswith("content query") for e in result["evidence"]), result
            assert any("content://com.example.shelf/" in r for r in result["restored"]), (
                key,
                result["restored"],
            )
    after = subprocess.run(["git", "status", "--porcelain"], cwd=REPO, capture_output=True)
    assert after.stdout == before.stdout  # nothing in the repository touched


_SCAN = """
from sim.discovery import scan_templates
from sim.errors import SimError
try:
    scan_templates()
except SimError as exc:
    print(exc)
"""


def test_a_template_module_without_templates_is_refused(tmp_path: Path) -> None:
    _write_app(tmp_path)
    (tmp_path / "shelf" / "draft_tasks.py").write_text("X = 1\n", "utf-8")
    said = _run(tmp_path, "-c", _SCAN)
    assert "shelf/draft_tasks.py is a template module" in said and "no TEMPLATES" in said


def test_a_folder_without_an_identity_is_refused(tmp_path: Path) -> None:
    _write_app(tmp_path)
    (tmp_path / "apps.json").write_text(json.dumps({"apps": []}), "utf-8")
    said = _run(tmp_path, "-c", _SCAN)
    assert "app folder 'shelf' has no entry in bridge/apps.json" in said
