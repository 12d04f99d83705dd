"""Task templates over the Files app: create, rename, delete, copy and move files, and
questions about a folder.

Judged as a phone shows its shared storage (``ls -a``, ``stat -c '%i %s %Y %F %n'``, no
root): every task seeds its own folder ``/sdcard/Download/<folder>`` (emptied first, times
on the phone's own clock) and reads nothing else, so a phone's own files are never a truth
nor touched. A rename or a move is told from a copy by the inode (:class:`PathCheck`
``inode``), files a task must keep are guards. Every folder a task seeds is watched
(:func:`watching`): a path changed, added or removed there that the task does not expect
(:meth:`FilesTask.expected_files`) is a side effect, in both worlds alike. More templates are
in :mod:`sim.apps.files.more_tasks`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Annotated, Any

from bridge.plans import (
    AnswerStep,
    FinishStep,
    LongPressStep,
    OpenAppStep,
    Plan,
    Selector,
    TapStep,
    TypeStep,
)
from bridge.spec.base import TruthRef
from bridge.spec.clock import LocalTime
from bridge.spec.files import (
    EnsureFolder,
    FilesFact,
    FolderCheck,
    PathCheck,
    SeedFile,
    WatchedFolder,
)
from bridge.taskspec import CheckRule, EnsureOp, TaskSpec, Truth
from sim.apps.files.app import FilesApp
from sim.tasks.base import AnswerSpec, TaskTemplate, WrongPlan
from sim.tasks.params import Choice, TaskParams

__all__ = [
    "TEMPLATES",
    "CopyFile",
    "CountAndNewest",
    "CreateFolder",
    "DeleteRawLogs",
    "FilesTask",
    "FolderWords",
    "LargestFile",
    "MovePdfsToNewFolder",
    "RenameFile",
    "files_text",
    "inode_truth",
    "menu",
    "name_dialog",
    "new_folder",
    "open_folder",
    "seed_folder",
    "select",
    "watching",
]


def files_text(key: str, lang: str) -> str:
    """A string of the Files app in ``lang`` (what its screens show)."""
    return str(FilesApp().strings(lang)[key])


def open_folder(folder: str) -> Plan:
    """Open Files (it opens at Downloads) and the task's folder."""
    return [OpenAppStep(app="files"), TapStep(on=Selector(text=folder, resource_id="title"))]


def select(*names: str) -> Plan:
    """Long-press the first item, tap the others: they are selected."""
    first, *rest = names
    return [
        LongPressStep(on=Selector(text=first, resource_id="title")),
        *(TapStep(on=Selector(text=name, resource_id="title")) for name in rest),
    ]


def menu(key: str, lang: str) -> Plan:
    """The overflow menu's item ``key``."""
    return [
        TapStep(on=Selector(resource_id="action_menu_more")),
        TapStep(on=Selector(text=files_text(key, lang))),
    ]


def name_dialog(name: str) -> Plan:
    """Type into the rename / new-folder dialog and confirm."""
    return [
        TypeStep(text=name, into=Selector(resource_id="edit_text")),
        TapStep(on=Selector(resource_id="button1")),
    ]


def new_folder(name: str) -> Plan:
    """The New folder button, the name, Create."""
    return [TapStep(on=Selector(resource_id="action_menu_create_dir")), *name_dialog(name)]


def watching(spec: TaskSpec, files: Sequence[str] = ()) -> TaskSpec:
    """``spec`` watching every folder it seeds (its :class:`EnsureFolder` ops), the path
    globs ``files`` expected to change there (validated again: they may name truths)."""
    folders = [
        WatchedFolder(folder=op.folder) for op in spec.ensure if isinstance(op, EnsureFolder)
    ]
    expected = spec.expected.model_copy(update={"files": list(files)})
    data = {**dict(spec), "watch_folders": folders, "expected": expected}
    return TaskSpec.model_validate(data)


def seed_folder(
    folder: str, files: list[tuple[str, int, str]], dirs: tuple[str, ...] = ()
) -> EnsureFolder:
    """The task's folder with files (path, days ago, text) at 09:00 minus their index."""
    return EnsureFolder(
        folder=folder,
        dirs=list(dirs),
        files=[
            SeedFile(
                path=name, text=text, mtime=LocalTime(days=-days, at=f"{9 - i % 9:02d}:{i:02d}")
            )
            for i, (name, days, text) in enumerate(files)
        ],
    )


def inode_truth(name: str, path: str) -> Truth:
    """Truth ``name``: the inode of the file at ``path`` (under Download) when posed."""
    folder, _, file_name = path.rpartition("/")
    return Truth(name=name, fact=FilesFact(folder=folder, name=file_name, field="inode"))


class FolderWords:
    """Names an instruction shows as they are (its folder's, ``{dir}``), given as format
    values: an English instruction holds no Chinese text of its own."""

    words: Mapping[str, str] = MappingProxyType({})

    def text_values(self, p: Any, lang: str) -> dict[str, Any]:
        """The names of :attr:`words` and the parameters."""
        return {**self.words, **p.model_dump()}


class FilesTask(FolderWords, TaskTemplate[Any]):
    """Base of the Files templates: the app, and its folder under Download, watched."""

    apps = ("files",)

    def expected_files(self, p: Any) -> list[str]:
        """Path globs under Download this instance may change (the task folder's only)."""
        return []

    def spec(self, p: Any, lang: str) -> TaskSpec:
        """The bound spec, watching the task's folder (:func:`watching`)."""
        return watching(super().spec(p, lang), self.expected_files(p))


# ---------------------------------------------------------------- operate

_REPORTS = [
    ("季度报告.docx", 3, "Q1 report draft " * 8),
    ("budget_2026.xlsx", 5, "1,2,3\n" * 20),
    ("meeting_notes.txt", 1, "notes: ship on Friday\n"),
]


class CreateFolderParams(TaskParams):
    """The task folder and the new folder's name."""

    folder: Annotated[str, Choice(("工作资料", "Projects"))]
    name: Annotated[str, Choice(("归档", "Archive 2026", "receipts", "旅行照片"))]


class CreateFolder(FilesTask):
    """Create a folder in the task's folder."""

    id = "files/CreateFolder-v1"
    level = "L2"
    kind = "operate"
    Params = CreateFolderParams
    instructions = {
        "en": 'In Download/{folder}, create a folder named "{name}".',
        "zh": "在“下载/{folder}”中新建一个名为“{name}”的文件夹。",
    }

    def ensure(self, p: Any) -> list[EnsureOp]:
        return [seed_folder(p.folder, _REPORTS)]

    def goal(self, p: Any) -> list[CheckRule]:
        return [
            PathCheck(name=f"folder {p.name}", path=f"{p.folder}/{p.name}", expect="dir"),
            FolderCheck(
                name="the files are kept",
                folder=p.folder,
                names=[n for n, _, _ in _REPORTS],
                guard=True,  # it holds at the start: no progress for doing nothing
            ),
        ]

    def expected_files(self, p: Any) -> list[str]:
        return [f"{p.folder}/{p.name}"]

    def oracle(self, p: Any, lang: str) -> Plan:
        return [*open_folder(p.folder), *new_folder(p.name), FinishStep()]


class RenameParams(TaskParams):
    """Which seeded file is renamed to what."""

    target: Annotated[str, Choice(tuple(n for n, _, _ in _REPORTS))]
    new: Annotated[str, Choice(("final_report.docx", "报告-终稿.docx", "2026Q1.docx"))]


class RenameFile(FilesTask):
    """Rename a file (the same file: its inode kept)."""

    id = "files/RenameFile-v1"
    level = "L2"
    kind = "operate"
    Params = RenameParams
    instructions = {
        "en": 'Rename the file "{target}" in Download/{dir} to "{new}".',
        "zh": "把“下载/{dir}”里的文件“{target}”重命名为“{new}”。",
    }
    words = MappingProxyType({"dir": "改名"})

    def ensure(self, p: Any) -> list[EnsureOp]:
        return [seed_folder("改名", _REPORTS)]

    def truths(self, p: Any) -> list[Truth]:
        return [inode_truth("seeded", f"改名/{p.target}")]

    def goal(self, p: Any) -> list[CheckRule]:
        return [
            PathCheck(
                name=f"{p.new} is the renamed file",
                path=f"改名/{p.new}",
                expect="file",
                inode=TruthRef(truth="seeded"),
            ),
            PathCheck(name=f"{p.target} is gone", path=f"改名/{p.target}", expect="absent"),
        ]

    def expected_files(self, p: Any) -> list[str]:
        return [f"改名/{p.target}", f"改名/{p.new}"]

    def oracle(self, p: Any, lang: str) -> Plan:
        return [
            *open_folder("改名"),
            *select(p.target),
            *menu("rename", lang),
            *name_dialog(p.new),
            FinishStep(),
        ]


_LOGS = [
    ("raw_0501.log", 6, "raw sensor dump\n" * 9),
    ("raw_0503.log", 4, "raw dump\n" * 30),
    ("raw_0506.log", 2, "raw\n" * 50),
    ("rawdata_sync.log", 3, "sync ok\n"),
    ("raw-summary.txt", 1, "3 raw logs summarised\n"),
    ("raw_template.txt", 9, "template\n"),
    ("汇总_0506.log", 1, "汇总完成\n"),
]
_RAW = [n for n, _, _ in _LOGS if n.startswith("raw_") and n.endswith(".log")]


class NoParams(TaskParams):
    """Nothing drawn: the folder is the task."""


class DeleteRawLogs(FilesTask):
    """Delete the ``raw_*.log`` files, keeping the look-alikes."""

    id = "files/DeleteRawLogs-v1"
    level = "L2"
    kind = "operate"
    Params = NoParams
    instructions = {
        "en": "In Download/{dir}, delete the raw logs named raw_*.log. Keep every other file.",
        "zh": "在“下载/{dir}”中删除所有 raw_*.log 原始日志，其余文件保留。",
    }
    words = MappingProxyType({"dir": "日志导出"})

    def ensure(self, p: Any) -> list[EnsureOp]:
        return [seed_folder("日志导出", _LOGS)]

    def goal(self, p: Any) -> list[CheckRule]:
        gone = [PathCheck(name=f"{n} deleted", path=f"日志导出/{n}", expect="absent") for n in _RAW]
        kept = [
            PathCheck(name=f"{n} kept", path=f"日志导出/{n}", expect="file", guard=True)
            for n, _, _ in _LOGS
            if n not in _RAW
        ]
        return [*gone, *kept]

    def expected_files(self, p: Any) -> list[str]:
        return [f"日志导出/{n}" for n in _RAW]

    def oracle(self, p: Any, lang: str) -> Plan:
        return [
            *open_folder("日志导出"),
            *select(*_RAW),
            TapStep(on=Selector(resource_id="action_menu_delete")),
            TapStep(on=Selector(resource_id="button1")),
            FinishStep(),
        ]


class CopyParams(TaskParams):
    """The file copied into the backup folder."""

    target: Annotated[str, Choice(tuple(n for n, _, _ in _REPORTS))]


class CopyFile(FilesTask):
    """Copy a file into a subfolder (the original stays)."""

    id = "files/CopyFile-v1"
    level = "L2"
    kind = "operate"
    Params = CopyParams
    instructions = {
        "en": 'Copy "{target}" in Download/{dir} into its folder "backup".',
        "zh": "把“下载/{dir}”里的“{target}”复制到其中的“backup”文件夹。",
    }
    words = MappingProxyType({"dir": "Backup_Demo"})

    def ensure(self, p: Any) -> list[EnsureOp]:
        return [seed_folder("Backup_Demo", _REPORTS, dirs=("backup",))]

    def truths(self, p: Any) -> list[Truth]:
        return [inode_truth("original", f"Backup_Demo/{p.target}")]

    def goal(self, p: Any) -> list[CheckRule]:
        return [
            PathCheck(name="the copy", path=f"Backup_Demo/backup/{p.target}", expect="file"),
            PathCheck(
                name="the original stays",
                path=f"Backup_Demo/{p.target}",
                expect="file",
                inode=TruthRef(truth="original"),
                guard=True,  # it holds at the start: no progress for doing nothing
            ),
        ]

    def expected_files(self, p: Any) -> list[str]:
        return [f"Backup_Demo/backup/{p.target}"]

    def oracle(self, p: Any, lang: str) -> Plan:
        return [
            *open_folder("Backup_Demo"),
            *select(p.target),
            *menu("copy_to", lang),
            TapStep(on=Selector(text="backup", resource_id="title")),
            TapStep(on=Selector(resource_id="button1")),
            FinishStep(),
        ]


_MIXED = [
    ("report_march.pdf", 8, "%PDF march"),
    ("report_april.pdf", 4, "%PDF april"),
    ("invoice-0412.pdf", 3, "%PDF invoice"),
    ("photo_0412.jpg", 3, "jpeg"),
    ("notes.txt", 2, "todo\n"),
    ("pdf_reader_guide.txt", 1, "not a pdf\n"),
]
_PDFS = [n for n, _, _ in _MIXED if n.endswith(".pdf")]


class MoveParams(TaskParams):
    """The new folder's name."""

    name: Annotated[str, Choice(("final_reports", "PDF归档"))]


class MovePdfsToNewFolder(FilesTask):
    """Create a folder and move the PDFs into it (moved: the same files)."""

    id = "files/MovePdfsToNewFolder-v1"
    level = "L3"
    kind = "operate"
    Params = MoveParams
    instructions = {
        "en": 'In Download/{dir}, create a folder "{name}" and move every PDF '
        "file there. Leave the other files where they are.",
        "zh": "在“下载/{dir}”中新建文件夹“{name}”，把所有 PDF 文件移进去，其他文件不动。",
    }
    words = MappingProxyType({"dir": "整理PDF"})

    def ensure(self, p: Any) -> list[EnsureOp]:
        return [seed_folder("整理PDF", _MIXED)]

    def truths(self, p: Any) -> list[Truth]:
        return [inode_truth(f"pdf{i}", f"整理PDF/{n}") for i, n in enumerate(_PDFS)]

    def goal(self, p: Any) -> list[CheckRule]:
        moved = [
            PathCheck(
                name=f"{n} moved",
                path=f"整理PDF/{p.name}/{n}",
                expect="file",
                inode=TruthRef(truth=f"pdf{i}"),
            )
            for i, n in enumerate(_PDFS)
        ]
        kept = [
            PathCheck(name=f"{n} stays", path=f"整理PDF/{n}", expect="file", guard=True)
            for n, _, _ in _MIXED
            if n not in _PDFS
        ]
        top = FolderCheck(
            name="no PDF left outside",
            folder="整理PDF",
            names=[n for n, _, _ in _MIXED if n not in _PDFS],
        )
        return [*moved, top, *kept]

    def expected_files(self, p: Any) -> list[str]:
        moved = [f"整理PDF/{p.name}/{n}" for n in _PDFS]
        return [f"整理PDF/{p.name}", *moved, *(f"整理PDF/{n}" for n in _PDFS)]

    def oracle(self, p: Any, lang: str) -> Plan:
        return [
            *open_folder("整理PDF"),
            *new_folder(p.name),
            *select(*_PDFS),
            *menu("move_to", lang),
            TapStep(on=Selector(text=p.name, resource_id="title")),
            TapStep(on=Selector(resource_id="button1")),
            FinishStep(),
        ]


# ---------------------------------------------------------------- questions

_COUNT = "Download/统计"
_PAPERS = [
    ("论文初稿.docx", 9, "x" * 300),
    ("参考文献.bib", 7, "@book{a}\n" * 40),
    ("figure1.png", 5, "png" * 100),
    ("data.csv", 3, "1,2\n" * 250),
    ("审稿意见.txt", 2, "修改意见\n" * 20),
]


class CountParams(TaskParams):
    """How many of the papers are seeded (the newest is the last)."""

    count: Annotated[int, Choice((3, 4, 5))]


class CountAndNewest(FilesTask):
    """How many files a folder holds, and which was modified last."""

    id = "files/CountAndNewest-v1"
    level = "L1"
    kind = "query"
    Params = CountParams
    instructions = {
        "en": "How many files are in Download/{dir}, and which one was modified most recently?",
        "zh": "“下载/{dir}”里有多少个文件？哪个文件是最近修改的？",
    }
    words = MappingProxyType({"dir": "统计"})
    answer_fields = (
        AnswerSpec("count", "number", {"en": "Files", "zh": "文件数"}),
        AnswerSpec("newest", "text", {"en": "Newest file", "zh": "最新文件"}),
    )

    def ensure(self, p: Any) -> list[EnsureOp]:
        return [seed_folder("统计", _PAPERS[: p.count])]

    def truths(self, p: Any) -> list[Truth]:
        newest = FilesFact(folder="统计", order="mtime", descending=True)
        return [
            Truth(name="count", fact=FilesFact(folder="统计"), reduce="count"),
            Truth(name="newest", fact=newest, reduce="first"),
        ]

    def oracle(self, p: Any, lang: str) -> Plan:
        newest = _PAPERS[p.count - 1][0]
        return [*open_folder("统计"), AnswerStep(fields={"count": p.count, "newest": newest})]


class LargestFile(FilesTask):
    """The largest file of a folder, after sorting it by size."""

    id = "files/LargestFile-v1"
    level = "L2"
    kind = "query"
    Params = CountParams
    instructions = {
        "en": "Which file in Download/{dir} is the largest, and how many files are there?",
        "zh": "“下载/{dir}”中哪个文件最大？一共有几个文件？",
    }
    words = MappingProxyType({"dir": "统计"})
    answer_fields = (
        AnswerSpec("largest", "text", {"en": "Largest file", "zh": "最大的文件"}),
        AnswerSpec("count", "number", {"en": "Files", "zh": "文件数"}),
    )

    def ensure(self, p: Any) -> list[EnsureOp]:
        return [seed_folder("统计", _PAPERS[: p.count])]

    def truths(self, p: Any) -> list[Truth]:
        largest = FilesFact(folder="统计", order="size", descending=True)
        return [
            Truth(name="largest", fact=largest, reduce="first"),
            Truth(name="count", fact=FilesFact(folder="统计"), reduce="count"),
        ]

    def oracle(self, p: Any, lang: str) -> Plan:
        seeded = _PAPERS[: p.count]
        largest = max(seeded, key=lambda f: len(f[2].encode()))[0]
        return [
            *open_folder("统计"),
            TapStep(on=Selector(resource_id="action_menu_sort")),
            TapStep(on=Selector(text=files_text("sort_size_desc", lang))),
            AnswerStep(fields={"largest": largest, "count": p.count}),
        ]


TEMPLATES = (
    CreateFolder(),
    RenameFile(),
    DeleteRawLogs(),
    CopyFile(),
    MovePdfsToNewFolder(),
    CountAndNewest(),
    LargestFile(),
)
"""The Files templates."""


# ---- wrong plans, which must not pass (tests/sim/test_tasks_e2e.py runs them):
# One letter off, moved not copied, one file left behind, an answer off by one.

_SMALLEST = {n: len(t.encode()) for n, _, t in _PAPERS}

WRONG: dict[str, WrongPlan] = {
    "files/CreateFolder-v1": lambda p, lang, w: [
        *open_folder(p["folder"]),
        *new_folder(p["name"] + "s"),
        FinishStep(),
    ],
    "files/RenameFile-v1": lambda p, lang, w: [
        *open_folder("改名"),
        *select(p["target"]),
        *menu("rename", lang),
        *name_dialog("x" + p["new"]),
        FinishStep(),
    ],
    "files/DeleteRawLogs-v1": lambda p, lang, w: [
        *open_folder("日志导出"),
        *select(*_RAW[:2]),
        TapStep(on=Selector(resource_id="action_menu_delete")),
        TapStep(on=Selector(resource_id="button1")),
        FinishStep(),
    ],
    "files/CopyFile-v1": lambda p, lang, w: [
        *open_folder("Backup_Demo"),
        *select(p["target"]),
        *menu("move_to", lang),
        TapStep(on=Selector(text="backup", resource_id="title")),
        TapStep(on=Selector(resource_id="button1")),
        FinishStep(),
    ],
    "files/MovePdfsToNewFolder-v1": lambda p, lang, w: [
        *open_folder("整理PDF"),
        *new_folder(p["name"]),
        *select(*_PDFS[:2]),
        *menu("move_to", lang),
        TapStep(on=Selector(text=p["name"], resource_id="title")),
        TapStep(on=Selector(resource_id="button1")),
        FinishStep(),
    ],
    "files/CountAndNewest-v1": lambda p, lang, w: [
        *open_folder("统计"),
        AnswerStep(fields={"count": p["count"] + 1, "newest": _PAPERS[p["count"] - 1][0]}),
    ],
    "files/LargestFile-v1": lambda p, lang, w: [
        *open_folder("统计"),
        AnswerStep(
            fields={
                "largest": min(list(_SMALLEST)[: p["count"]], key=_SMALLEST.__getitem__),
                "count": p["count"],
            }
        ),
    ],
}
