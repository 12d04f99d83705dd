"""The Files templates without a browser: posing seeds only the task's folder, near misses
get partial credit, a copy is not a rename, and a stranger's phone (its own files elsewhere,
leftovers in the task folder) is posed and judged on the task's folder only."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from bridge.errors import TaskNotPosed
from bridge.judge import StartRecord, judge, pose
from bridge.schema import AnswerValue, Verdict
from bridge.taskspec import TaskSpec
from sim import storage as sdcard
from sim.android_state import SimAndroidState
from sim.phone import Phone
from sim.state import InstanceState
from sim.sync_call import complete
from sim.tasks.params import sample_params
from sim.tasks.registry import default_registry

REGISTRY = default_registry()
FILES_IDS = [task_id for task_id in REGISTRY.ids() if task_id.startswith("files/")]
World = Mapping[str, Mapping[str, Any]]
D = "/sdcard/Download"


class Posed:
    """A Files task posed on a simulated phone, changed through the storage tree."""

    def __init__(
        self,
        phone: Phone,
        world: World,
        task_id: str,
        state: InstanceState | None = None,
        **fixed: Any,
    ) -> None:
        template = REGISTRY.get(task_id)
        self.params = template.bind({**sample_params(template.Params, 0, world), **fixed}, world)
        self.spec: TaskSpec = template.spec(self.params, "en")
        self.state = state or InstanceState(seed=0)
        self.android = SimAndroidState(phone, self.state)
        self.start: StartRecord = complete(pose(self.spec, self.android))

    @property
    def tree(self) -> sdcard.Storage:
        return self.state.os.storage

    def verdict(self, answer: Mapping[str, AnswerValue] | None = None) -> Verdict:
        return complete(judge(self.spec, self.android, self.start, answer=answer))

    def mv(self, src: str, dst: str) -> None:
        sdcard.move(self.tree, f"{D}/{src}", f"{D}/{dst}", self.state.os.clock_ms)

    def cp(self, src: str, dst: str) -> None:
        sdcard.copy(self.tree, f"{D}/{src}", f"{D}/{dst}", self.state.os.clock_ms)

    def rm(self, path: str) -> None:
        sdcard.remove(self.tree, f"{D}/{path}", recursive=True)

    def mkdir(self, path: str) -> None:
        sdcard.make_dir(self.tree, f"{D}/{path}", self.state.os.clock_ms)


def _passed(verdict: Verdict) -> list[bool]:
    return [check.passed for check in verdict.checks]


@pytest.mark.parametrize("task_id", FILES_IDS)
def test_every_template_poses_in_its_own_folder(phone: Phone, world: World, task_id: str) -> None:
    fresh = InstanceState(seed=0)
    outside = {sdcard.path_of(fresh.os.storage, n) for n in fresh.os.storage.nodes.values()}
    posed = Posed(phone, world, task_id)
    after = {sdcard.path_of(posed.tree, n) for n in posed.tree.nodes.values()}
    folder = next(op.folder for op in posed.spec.ensure if getattr(op, "op", "") == "ensure_folder")
    assert {p for p in after - outside if not p.startswith(f"{D}/{folder}")} == set()
    assert outside <= after  # the owner's files are untouched
    assert not posed.spec.requires  # judgeable on a retail phone
    assert len(posed.state.model_dump_json()) < 20_000


def test_a_rename_keeps_the_inode_and_a_copy_does_not(phone: Phone, world: World) -> None:
    posed = Posed(
        phone, world, "files/RenameFile-v1", target="meeting_notes.txt", new="2026Q1.docx"
    )
    assert not posed.verdict().success
    posed.cp("改名/meeting_notes.txt", "改名/2026Q1.docx")
    posed.rm("改名/meeting_notes.txt")
    copied = posed.verdict()
    assert _passed(copied) == [False, True] and 0 < copied.progress < 1
    assert "another inode" in str(copied.checks[0].actual)
    posed.rm("改名/2026Q1.docx")
    posed = Posed(
        phone, world, "files/RenameFile-v1", target="meeting_notes.txt", new="2026Q1.docx"
    )
    posed.mv("改名/meeting_notes.txt", "改名/2026Q1.docx")
    done = posed.verdict()
    assert done.success and done.clean is True


def test_deleting_a_look_alike_breaks_a_guard(phone: Phone, world: World) -> None:
    posed = Posed(phone, world, "files/DeleteRawLogs-v1")
    for name in ("raw_0501.log", "raw_0503.log"):
        posed.rm(f"日志导出/{name}")
    near = posed.verdict()
    assert not near.success and 0 < near.progress < 1
    posed.rm("日志导出/raw_0506.log")
    assert posed.verdict().success
    posed.rm("日志导出/rawdata_sync.log")
    assert not posed.verdict().success


def test_moving_the_pdfs(phone: Phone, world: World) -> None:
    posed = Posed(phone, world, "files/MovePdfsToNewFolder-v1", name="final_reports")
    posed.mkdir("整理PDF/final_reports")
    for name in ("report_march.pdf", "report_april.pdf"):
        posed.mv(f"整理PDF/{name}", "整理PDF/final_reports")
    near = posed.verdict()
    assert not near.success and 0 < near.progress < 1
    posed.mv("整理PDF/invoice-0412.pdf", "整理PDF/final_reports/invoice-0412.pdf")
    assert posed.verdict().success


def test_the_answers_are_what_the_folder_holds(phone: Phone, world: World) -> None:
    posed = Posed(phone, world, "files/CountAndNewest-v1", count=4)
    assert posed.start.truths == {"count": [4], "newest": ["data.csv"]}
    assert posed.verdict({"count": 4, "newest": "data.csv"}).success
    assert _passed(posed.verdict({"count": 5, "newest": "data.csv"})) == [False, True]
    largest = Posed(phone, world, "files/LargestFile-v1", count=5)
    assert largest.start.truths["largest"] == ["data.csv"]


def test_a_stranger_phone_is_judged_on_the_task_folder_only(phone: Phone, world: World) -> None:
    state = InstanceState(seed=7)
    tree, now = state.os.storage, state.os.clock_ms
    sdcard.write(tree, f"{D}/raw_0501.log", "the owner's own raw log", now)  # same name, elsewhere
    sdcard.make_dir(tree, f"{D}/日志导出", now)
    sdcard.write(tree, f"{D}/日志导出/raw_leftover.log", "an earlier run's leftover", now)
    sdcard.make_dir(tree, "/sdcard/Documents/mine", now)
    sdcard.write(tree, "/sdcard/Documents/mine/raw_x.log", "mine", now)
    posed = Posed(phone, world, "files/DeleteRawLogs-v1", state=state)
    assert sdcard.lookup(tree, f"{D}/日志导出/raw_leftover.log") is None  # emptied first
    assert sdcard.lookup(tree, f"{D}/raw_0501.log") is not None
    for name in ("raw_0501.log", "raw_0503.log", "raw_0506.log"):
        posed.rm(f"日志导出/{name}")
    assert posed.verdict().success
    assert sdcard.resolve(tree, "/sdcard/Documents/mine/raw_x.log").text == "mine"
    count = Posed(phone, world, "files/CountAndNewest-v1", state=state, count=3)
    assert count.start.truths["count"] == [3]


def test_a_goal_that_holds_is_refused(phone: Phone, world: World) -> None:
    spec = REGISTRY.get("files/CreateFolder-v1")
    p = spec.bind({"folder": "Projects", "name": "Archive 2026"}, world)
    bound = spec.spec(p, "en")
    android = SimAndroidState(phone, InstanceState(seed=0))
    complete(pose(bound, android))
    with pytest.raises(TaskNotPosed):  # posing empties the folder: the goal cannot hold
        sdcard.make_dir(android.state.os.storage, f"{D}/Projects/Archive 2026", 0)
        bound_checks = bound.model_copy(update={"ensure": []})
        complete(pose(bound_checks, android))


# ---------------------------------------------------------------- the watched folder


def test_a_change_in_the_task_folder_the_task_does_not_expect_is_named(
    phone: Phone, world: World
) -> None:
    posed = Posed(phone, world, "files/CreateFolder-v1", folder="Projects", name="receipts")
    assert posed.spec.watch_folders[0].folder == "Projects"
    posed.mkdir("Projects/receipts")
    assert posed.verdict().clean is True  # the folder asked for is expected
    now = posed.state.os.clock_ms
    sdcard.write(posed.tree, f"{D}/Projects/receipts/stray.txt", "x", now)
    sdcard.write(posed.tree, f"{D}/Projects/meeting_notes.txt", "edited", now)
    sdcard.write(posed.tree, "/sdcard/Documents/mine.txt", "not the task's", now)
    verdict = posed.verdict()
    assert verdict.success and verdict.clean is False
    assert verdict.side_effects == [
        f"{D}/Projects/meeting_notes.txt",
        f"{D}/Projects/receipts/stray.txt",
    ]


def test_a_wrong_rename_is_a_side_effect_and_a_failed_check(phone: Phone, world: World) -> None:
    posed = Posed(phone, world, "files/RenameFile-v1", target="budget_2026.xlsx", new="2026Q1.docx")
    posed.mv("改名/季度报告.docx", "改名/2026Q1.docx")
    verdict = posed.verdict()
    assert not verdict.success and verdict.side_effects == [f"{D}/改名/季度报告.docx"]


@pytest.mark.asyncio
async def test_both_worlds_name_the_same_file_side_effects() -> None:
    from sim.simulator import Simulator
    from tests.device.parity import Worlds, differences, verdict_json

    simulator = Simulator()
    spec = REGISTRY.instantiate("files/DeleteRawLogs-v1", 0, "en").spec
    assert spec is not None
    worlds = Worlds.fresh(simulator, 0)
    verdicts = []
    try:
        for state in worlds.both():
            start = await pose(spec, state)
            await state.remove(f"{D}/日志导出/raw_0501.log")
            await state.remove(f"{D}/日志导出/raw-summary.txt")
            await state.write_file(f"{D}/日志导出/new.txt", "new", 0)
            verdicts.append(await verdict_json(spec, state, start, None))
    finally:
        simulator.drop_instance(worlds.virtual.instance.id)
    assert not differences(*verdicts)
    assert verdicts[0]["side_effects"] == [f"{D}/日志导出/new.txt", f"{D}/日志导出/raw-summary.txt"]


def test_expected_files_and_paths_name_only_truths_read() -> None:
    from bridge.spec.files import PathCheck, bind_path
    from bridge.taskspec import ExpectedChanges

    with pytest.raises(ValueError, match="names truths not read"):
        TaskSpec(checks=[PathCheck(name="x", path="a/{truth.day}", expect="dir")])
    with pytest.raises(ValueError, match="names truths not read"):
        TaskSpec(expected=ExpectedChanges(files=["a/{truth.day}"]))
    assert bind_path("a/{truth.day}", {"day": ["2026-05-14"]}) == "a/2026-05-14"
    with pytest.raises(Exception, match="cannot be a name"):
        bind_path("a/{truth.day}", {"day": ["../x"]})


# ---------------------------------------------------------------- the further templates


def test_evidence_renamed_by_name_order_or_copied_fails(phone: Phone, world: World) -> None:
    from sim.apps.files.more_tasks import EVIDENCE, by_age

    posed = Posed(phone, world, "files/RenameEvidenceByDate-v1", ranks=(2, 0, 3, 1, 4))
    for k, name in enumerate(EVIDENCE, start=1):  # the dates in the names: a trap
        posed.mv(f"事故证据/{name}", f"事故证据/evidence_{k}.txt")
    trap = posed.verdict()
    assert not trap.success and 0 < trap.progress < 1 and trap.clean is True
    assert [c.passed for c in trap.checks[:5]] == [False, False, False, False, True]
    posed = Posed(phone, world, "files/RenameEvidenceByDate-v1", ranks=(2, 0, 3, 1, 4))
    for k, name in enumerate(by_age(posed.params), start=1):
        posed.cp(f"事故证据/{name}", f"事故证据/evidence_{k}.txt")
        posed.rm(f"事故证据/{name}")
    copied = posed.verdict()
    assert not copied.success and "another inode" in str(copied.checks[0].actual)
    posed = Posed(phone, world, "files/RenameEvidenceByDate-v1", ranks=(2, 0, 3, 1, 4))
    for k, name in enumerate(by_age(posed.params), start=1):
        posed.mv(f"事故证据/{name}", f"事故证据/evidence_{k}.txt")
    done = posed.verdict()
    assert done.success and done.clean is True


def test_v10_is_later_than_v9(phone: Phone, world: World) -> None:
    from sim.apps.files.more_tasks import drafts

    posed = Posed(phone, world, "files/CleanObsoleteDrafts-v1", proposal=4, quote=4)
    for sub, (old, _) in drafts(posed.params).items():
        for name in old:
            posed.rm(f"项目交接/{sub}/{name.replace('_v9.', '_v10.')}")
    trap = posed.verdict()
    assert not trap.success and trap.clean is False
    assert trap.side_effects == [f"{D}/项目交接/方案/设计说明_v10.docx"]
    posed = Posed(phone, world, "files/CleanObsoleteDrafts-v1", proposal=4, quote=4)
    for sub, (old, _) in drafts(posed.params).items():
        for name in old:
            posed.rm(f"项目交接/{sub}/{name}")
    assert posed.verdict().success and posed.verdict().clean is True


def test_the_oldest_backup_is_read_on_the_phone_and_readme_is_kept(
    phone: Phone, world: World
) -> None:
    posed = Posed(phone, world, "files/DeleteOldestBackup-v1", oldest="weekly_1.bak")
    assert posed.start.truths["name"] == ["weekly_1.bak"]  # README.txt is older, not a backup
    posed.rm("数据库备份/weekly_1.bak")
    assert posed.verdict({"name": "weekly_1.bak"}).success
    posed.rm("数据库备份/README.txt")
    broken = posed.verdict({"name": "weekly_1.bak"})
    assert not broken.success and broken.side_effects == [f"{D}/数据库备份/README.txt"]


def test_nested_photos_count_only_the_folder_s_own_jpgs(phone: Phone, world: World) -> None:
    posed = Posed(phone, world, "files/CountNestedPhotos-v1", count=4)
    assert posed.start.truths == {"count": [4], "largest": ["IMG_20260504.jpg"]}
    assert posed.verdict({"count": 4, "largest": "IMG_20260504.jpg"}).success
    assert not posed.verdict({"count": 5, "largest": "IMG_scan.jpeg"}).success


def test_city_photos_moved_not_copied(phone: Phone, world: World) -> None:
    posed = Posed(phone, world, "files/MoveCityPhotos-v1", city="suzhou")
    posed.mkdir("旅行照片2026/苏州")
    posed.cp("旅行照片2026/suzhou_canal.jpg", "旅行照片2026/苏州/suzhou_canal.jpg")
    posed.rm("旅行照片2026/suzhou_canal.jpg")
    posed.mv("旅行照片2026/suzhou_garden.jpg", "旅行照片2026/苏州")
    copied = posed.verdict()
    assert not copied.success and [c.passed for c in copied.checks[:2]] == [False, True]


def test_a_folder_named_after_the_event_date_read_on_the_phone(phone: Phone, world: World) -> None:
    from sim.apps.calendar.query_tasks import simulated_date

    posed = Posed(phone, world, "crossapp/FolderForEventDate-v1", title="年度体检", days=3)
    date, day_after = simulated_date(3), simulated_date(4)
    assert posed.start.truths["date"] == [date]
    posed.mkdir(f"活动资料/{date}")
    done = posed.verdict()
    assert done.success and done.clean is True
    posed.rm(f"活动资料/{date}")
    posed.mkdir(f"活动资料/{day_after}")
    wrong = posed.verdict()
    assert not wrong.success and wrong.side_effects == [f"{D}/活动资料/{day_after}"]
