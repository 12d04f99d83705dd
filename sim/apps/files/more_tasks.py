"""More Files templates: renames by modification order, a folder of one city's photos, the
oldest backup deleted and named, obsolete drafts cleaned up across two folders, and
questions about a nested folder.

Judged as :mod:`sim.apps.files.tasks` judges (a task's own folder under Download, seeded
and watched; renames and moves told from copies by the inode; files to keep are guards).
Their traps are in the names: dates in file names that are not the modification order,
``_v10`` sorting before ``_v9`` by name, a ``.jpeg`` among ``.jpg`` files, an old
``README`` older than every backup.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Annotated, Any

from bridge.plans import AnswerStep, FinishStep, KeyStep, Plan, Selector, TapStep
from bridge.spec.base import TruthRef
from bridge.spec.clock import LocalTime
from bridge.spec.files import EnsureFolder, FilesFact, FolderCheck, PathCheck, SeedFile
from bridge.taskspec import CheckRule, EnsureOp, Truth
from sim.apps.files.tasks import (
    FilesTask,
    files_text,
    inode_truth,
    menu,
    name_dialog,
    new_folder,
    open_folder,
    seed_folder,
    select,
)
from sim.tasks.base import AnswerSpec, World, WrongPlan
from sim.tasks.params import Choice, TaskParams

__all__ = [
    "TEMPLATES",
    "CleanObsoleteDrafts",
    "CountNestedPhotos",
    "DeleteOldestBackup",
    "MoveCityPhotos",
    "RenameEvidenceByDate",
    "delete_selected",
    "sort_by",
]


def sort_by(order: str, lang: str) -> Plan:
    """The Sort by button and the order ``order`` (``date_asc``, ``size_desc`` …)."""
    return [
        TapStep(on=Selector(resource_id="action_menu_sort")),
        TapStep(on=Selector(text=files_text(f"sort_{order}", lang))),
    ]


def delete_selected() -> Plan:
    """Delete the selection and confirm."""
    return [
        TapStep(on=Selector(resource_id="action_menu_delete")),
        TapStep(on=Selector(resource_id="button1")),
    ]


def _kept(folder: str, names: list[str]) -> list[CheckRule]:
    return [
        PathCheck(name=f"{n} kept", path=f"{folder}/{n}", expect="file", guard=True) for n in names
    ]


def _gone(folder: str, names: list[str]) -> list[CheckRule]:
    return [PathCheck(name=f"{n} deleted", path=f"{folder}/{n}", expect="absent") for n in names]


# ---------------------------------------------------------------- rename by modification order

_EVIDENCE_DIR = "事故证据"
EVIDENCE = (
    "证据_0503_现场照片说明.txt",
    "证据_0507_证人陈述.txt",
    "证据_0510_监控记录.txt",
    "证据_0512_维修单.txt",
    "证据_0515_报警回执.txt",
)
"""The evidence files, by name (their name dates are not their modification order)."""
_EVIDENCE_OTHERS = (
    ("证据清单.docx", 1, "清单：5 份证据\n"),
    ("evidence_template.txt", 20, "evidence_N.txt\n"),
    ("说明_请勿改名.txt", 3, "本文件夹的其他文件请勿改名\n"),
)
_RANKS = ((2, 0, 3, 1, 4), (1, 3, 0, 4, 2), (3, 1, 4, 0, 2), (4, 2, 0, 3, 1))
"""Where each evidence file (by name) falls in modification order, oldest 0: never the
order of the names."""


class EvidenceOrder(TaskParams):
    """The modification order of the evidence files (``ranks[i]``: of ``EVIDENCE[i]``)."""

    ranks: Annotated[tuple[int, ...], Choice(_RANKS)]


def by_age(p: EvidenceOrder) -> list[str]:
    """The evidence files, oldest first."""
    return [name for _, name in sorted(zip(p.ranks, EVIDENCE, strict=True))]


class RenameEvidenceByDate(FilesTask):
    """Rename the evidence files ``evidence_1.txt`` … by modification time (each the same
    file: its inode kept), the dates in their names a trap, the other files kept."""

    id = "files/RenameEvidenceByDate-v1"
    level = "L4"
    kind = "operate"
    Params = EvidenceOrder
    instructions = {
        "en": "In Download/{dir}, rename the evidence files (names starting with {prefix}) to "
        "evidence_1.txt, evidence_2.txt, … in order of modification time, the oldest first. "
        "Leave the other files as they are.",
        "zh": "把“下载/{dir}”中的证据文件（名称以“{prefix}”开头）按修改时间从早到晚依次重命名为 "
        "evidence_1.txt、evidence_2.txt……，其他文件保持不变。",
    }
    words = MappingProxyType({"dir": _EVIDENCE_DIR, "prefix": "证据_"})

    def ensure(self, p: EvidenceOrder) -> list[EnsureOp]:
        evidence = [
            SeedFile(path=name, text=f"{name}\n" * (3 + i), mtime=LocalTime(days=-12 + 2 * r))
            for i, (name, r) in enumerate(zip(EVIDENCE, p.ranks, strict=True))
        ]
        others = [
            SeedFile(path=name, text=text, mtime=LocalTime(days=-days, at="08:00"))
            for name, days, text in _EVIDENCE_OTHERS
        ]
        return [EnsureFolder(folder=_EVIDENCE_DIR, files=[*evidence, *others])]

    def truths(self, p: EvidenceOrder) -> list[Truth]:
        return [
            inode_truth(f"e{k}", f"{_EVIDENCE_DIR}/{name}")
            for k, name in enumerate(by_age(p), start=1)
        ]

    def goal(self, p: EvidenceOrder) -> list[CheckRule]:
        renamed: list[CheckRule] = [
            PathCheck(
                name=f"evidence_{k}.txt is {name}",
                path=f"{_EVIDENCE_DIR}/evidence_{k}.txt",
                expect="file",
                inode=TruthRef(truth=f"e{k}"),
            )
            for k, name in enumerate(by_age(p), start=1)
        ]
        others = [n for n, _, _ in _EVIDENCE_OTHERS]
        names = [f"evidence_{k}.txt" for k in range(1, len(EVIDENCE) + 1)] + others
        only = FolderCheck(name="no evidence file left unrenamed", folder=_EVIDENCE_DIR,
                           names=names)  # fmt: skip
        return [*renamed, only, *_kept(_EVIDENCE_DIR, others)]

    def expected_files(self, p: EvidenceOrder) -> list[str]:
        new = [f"{_EVIDENCE_DIR}/evidence_{k}.txt" for k in range(1, len(EVIDENCE) + 1)]
        return [*new, *(f"{_EVIDENCE_DIR}/{name}" for name in EVIDENCE)]

    def oracle(self, p: EvidenceOrder, lang: str) -> Plan:
        plan = [*open_folder(_EVIDENCE_DIR), *sort_by("date_asc", lang)]
        for k, name in enumerate(by_age(p), start=1):
            plan += [*select(name), *menu("rename", lang), *name_dialog(f"evidence_{k}.txt")]
        return [*plan, FinishStep()]


# ---------------------------------------------------------------- a folder of one city's photos

_TRIP = "旅行照片2026"
_CITIES = {"hangzhou": "杭州", "suzhou": "苏州", "shanghai": "上海"}
_TRIP_FILES = [
    ("hangzhou_westlake.jpg", 9, "jpg " * 90),
    ("hangzhou_lingyin.jpg", 9, "jpg " * 70),
    ("hangzhou_night.jpg", 8, "jpg " * 120),
    ("hangzhou_itinerary.txt", 10, "Day 1 West Lake\n"),
    ("suzhou_garden.jpg", 7, "jpg " * 80),
    ("suzhou_canal.jpg", 6, "jpg " * 60),
    ("suzhou_tickets.pdf", 7, "%PDF tickets"),
    ("shanghai_bund.jpg", 4, "jpg " * 100),
    ("shanghai_tower.jpg", 3, "jpg " * 50),
    ("shanghai_itinerary.txt", 5, "Day 5 The Bund\n"),
]


class CityParams(TaskParams):
    """The city whose photos get a folder (named in Chinese: ``folder``, derived)."""

    city: Annotated[str, Choice(tuple(_CITIES))]


def city_photos(city: str) -> list[str]:
    """The ``.jpg`` photos of ``city``, by name (as the folder lists them)."""
    return sorted(n for n, _, _ in _TRIP_FILES if n.startswith(f"{city}_") and n.endswith(".jpg"))


class MoveCityPhotos(FilesTask):
    """Create a folder named after a city and move that city's photos into it (moved: the
    same files), the city's other files and the other cities' photos left."""

    id = "files/MoveCityPhotos-v1"
    level = "L3"
    kind = "operate"
    Params = CityParams
    instructions = {
        "en": 'In Download/{dir}, create a folder "{folder}" and move every .jpg photo '
        'whose name starts with "{city}_" into it. Leave the other files where they are.',
        "zh": "在“下载/{dir}”中新建文件夹“{folder}”，把名称以“{city}_”开头的 .jpg "
        "照片都移进去，其他文件不动。",
    }
    words = MappingProxyType({"dir": _TRIP})

    def text_values(self, p: CityParams, lang: str) -> dict[str, Any]:
        return {**super().text_values(p, lang), "folder": _CITIES[p.city]}

    def ensure(self, p: CityParams) -> list[EnsureOp]:
        return [seed_folder(_TRIP, _TRIP_FILES)]

    def truths(self, p: CityParams) -> list[Truth]:
        return [inode_truth(name, f"{_TRIP}/{name}") for name in city_photos(p.city)]

    def goal(self, p: CityParams) -> list[CheckRule]:
        folder, photos = _CITIES[p.city], city_photos(p.city)
        moved: list[CheckRule] = [
            PathCheck(name=f"{n} moved", path=f"{_TRIP}/{folder}/{n}", expect="file",
                      inode=TruthRef(truth=n))
            for n in photos
        ]  # fmt: skip
        rest = [n for n, _, _ in _TRIP_FILES if n not in photos]
        top = FolderCheck(name=f"no {p.city} photo left outside", folder=_TRIP, names=rest)
        return [*moved, top, *_kept(_TRIP, rest)]

    def expected_files(self, p: CityParams) -> list[str]:
        folder, photos = _CITIES[p.city], city_photos(p.city)
        moved = [f"{_TRIP}/{folder}/{n}" for n in photos]
        return [f"{_TRIP}/{folder}", *moved, *(f"{_TRIP}/{n}" for n in photos)]

    def oracle(self, p: CityParams, lang: str) -> Plan:
        folder = _CITIES[p.city]
        return [
            *open_folder(_TRIP),
            *new_folder(folder),
            *select(*city_photos(p.city)),
            *menu("move_to", lang),
            TapStep(on=Selector(text=folder, resource_id="title")),
            TapStep(on=Selector(resource_id="button1")),
            FinishStep(),
        ]


# ---------------------------------------------------------------- delete the oldest, name it

_BACKUPS_DIR = "数据库备份"
BACKUPS = ("nightly_07.bak", "nightly_12.bak", "nightly_3.bak", "weekly_1.bak", "manual_final.bak")
_BACKUP_DAYS = (12, 9, 7, 4, 2)
"""Days ago each backup was modified, but for the task's oldest (30 days ago)."""


class OldestParams(TaskParams):
    """Which backup is the oldest."""

    oldest: Annotated[str, Choice(BACKUPS)]


def backups_by_age(p: OldestParams) -> list[str]:
    """The backups, oldest first."""
    days = {n: 30 if n == p.oldest else d for n, d in zip(BACKUPS, _BACKUP_DAYS, strict=True)}
    return sorted(BACKUPS, key=lambda n: -days[n])


class DeleteOldestBackup(FilesTask):
    """Sort by date, delete the oldest backup and name it (an older ``README.txt`` is no
    backup): the answer is the name read on the phone at the start."""

    id = "files/DeleteOldestBackup-v1"
    level = "L2"
    kind = "hybrid"
    Params = OldestParams
    instructions = {
        "en": "In Download/{dir}, delete the backup file (.bak) that was modified longest "
        "ago, and tell me its name.",
        "zh": "在“下载/{dir}”中删除修改时间最早的备份文件（.bak），并告诉我它的文件名。",
    }
    words = MappingProxyType({"dir": _BACKUPS_DIR})
    answer_fields = (AnswerSpec("name", "text", {"en": "Deleted file", "zh": "删除的文件"}),)

    def ensure(self, p: OldestParams) -> list[EnsureOp]:
        days = {n: 30 if n == p.oldest else d for n, d in zip(BACKUPS, _BACKUP_DAYS, strict=True)}
        files = [(n, days[n], f"backup {n}\n" * 5) for n in BACKUPS]
        return [seed_folder(_BACKUPS_DIR, [("README.txt", 60, "how to restore\n"), *files])]

    def truths(self, p: OldestParams) -> list[Truth]:
        oldest = FilesFact(folder=_BACKUPS_DIR, name="*.bak", order="mtime")
        return [Truth(name="name", fact=oldest, reduce="first")]

    def goal(self, p: OldestParams) -> list[CheckRule]:
        rest = ["README.txt", *(n for n in BACKUPS if n != p.oldest)]
        return [*_gone(_BACKUPS_DIR, [p.oldest]), *_kept(_BACKUPS_DIR, rest)]

    def expected_files(self, p: OldestParams) -> list[str]:
        return [f"{_BACKUPS_DIR}/{p.oldest}"]

    def oracle(self, p: OldestParams, lang: str) -> Plan:
        return [
            *open_folder(_BACKUPS_DIR),
            *sort_by("date_asc", lang),
            *select(p.oldest),
            *delete_selected(),
            AnswerStep(fields={"name": p.oldest}),
        ]


# ---------------------------------------------------------------- obsolete drafts, two folders

_HANDOFF = "项目交接"


def _versions(stem: str, ext: str, first: int, last: int) -> list[str]:
    return [f"{stem}_v{v}{ext}" for v in range(first, last + 1)]


class DraftParams(TaskParams):
    """How many versions of the proposal and of the quote are there."""

    proposal: Annotated[int, Choice((4, 5))]
    quote: Annotated[int, Choice((4, 5))]


def drafts(p: DraftParams) -> dict[str, tuple[list[str], list[str]]]:
    """By subfolder: (obsolete versions, files to keep), each in version order."""
    proposal = _versions("方案书", ".docx", 1, p.proposal)
    design = _versions("设计说明", ".docx", 8, 10)  # v10 sorts before v8 by name
    budget = _versions("预算", ".xlsx", 1, 2)
    quote = _versions("报价单", ".xlsx", 1, p.quote)
    parts = _versions("物料清单", ".xlsx", 1, 2)
    return {
        "方案": (
            [*proposal[:-1], *design[:-1], *budget[:-1]],
            [proposal[-1], design[-1], budget[-1], "会议纪要_v2.docx", "合同_终版.pdf"],
        ),
        "报价": ([*quote[:-1], *parts[:-1]], [quote[-1], parts[-1], "供应商名单.xlsx"]),
    }


def _draft_seed(p: DraftParams) -> EnsureFolder:
    files: list[tuple[str, int, str]] = []
    for sub, (old, keep) in drafts(p).items():
        for name in sorted([*old, *keep], key=_version):
            files.append((f"{sub}/{name}", 30 - _version(name) * 2, f"{name}\n" * 4))
    return seed_folder(_HANDOFF, files)


def _version(name: str) -> int:
    """The version in ``stem_vN.ext`` (0 when none): later versions are newer files."""
    stem = name.rsplit(".", 1)[0]
    tail = stem.rsplit("_v", 1)
    return int(tail[1]) if len(tail) == 2 and tail[1].isdigit() else 0


class CleanObsoleteDrafts(FilesTask):
    """In two subfolders, delete every version of a document but its latest (``_v10`` is
    later than ``_v9``), keeping single-version files and the others."""

    id = "files/CleanObsoleteDrafts-v1"
    level = "L4"
    kind = "operate"
    Params = DraftParams
    instructions = {
        "en": "Download/{dir} has two folders, {a} and {b}, with several versions of some "
        "files (name_v1, name_v2, …). In both, delete every older version and keep only the "
        "latest version of each file; keep every other file.",
        "zh": "“下载/{dir}”里有“{a}”和“{b}”两个文件夹，部分文件有多个版本（名称_v1、"
        "名称_v2……）。请在这两个文件夹中删除所有旧版本，每个文件只保留最新版本，其他文件保留。",
    }
    words = MappingProxyType({"dir": _HANDOFF, "a": "方案", "b": "报价"})

    def ensure(self, p: DraftParams) -> list[EnsureOp]:
        return [_draft_seed(p)]

    def goal(self, p: DraftParams) -> list[CheckRule]:
        gone: list[CheckRule] = []
        kept: list[CheckRule] = []
        for sub, (old, keep) in drafts(p).items():
            gone += _gone(f"{_HANDOFF}/{sub}", old)
            kept += _kept(f"{_HANDOFF}/{sub}", keep)
        return [*gone, *kept]

    def expected_files(self, p: DraftParams) -> list[str]:
        return [f"{_HANDOFF}/{sub}/{n}" for sub, (old, _) in drafts(p).items() for n in old]

    def oracle(self, p: DraftParams, lang: str) -> Plan:
        plan = open_folder(_HANDOFF)
        for i, (sub, (old, _)) in enumerate(drafts(p).items()):
            back = [KeyStep(key="back")] if i else []
            plan += [*back, TapStep(on=Selector(text=sub, resource_id="title")), *select(*old)]
            plan += delete_selected()
        return [*plan, FinishStep()]


# ---------------------------------------------------------------- a nested folder's photos

_ALBUM = "相册备份"
_PHOTO_SIZES = (300, 800, 450, 1200, 650, 1500)
"""Sizes in bytes of the ``.jpg`` photos of ``photos``, in name order."""


class NestedParams(TaskParams):
    """How many ``.jpg`` photos are directly in ``photos``."""

    count: Annotated[int, Choice((3, 4, 5, 6))]


def nested_photos(count: int) -> list[tuple[str, int]]:
    """(name, size) of the ``.jpg`` photos directly in ``photos``."""
    return [(f"IMG_2026050{i + 1}.jpg", _PHOTO_SIZES[i]) for i in range(count)]


class CountNestedPhotos(FilesTask):
    """How many ``.jpg`` files a nested folder holds (not its subfolder's, not the
    ``.jpeg``), and which of them is the largest."""

    id = "files/CountNestedPhotos-v1"
    level = "L2"
    kind = "query"
    Params = NestedParams
    instructions = {
        "en": "How many .jpg files are directly in Download/{dir}/photos (not in its "
        "subfolders), and which of those .jpg files is the largest?",
        "zh": "“下载/{dir}/photos”里（不含其子文件夹）有多少个 .jpg 文件？其中哪个 .jpg 文件最大？",
    }
    words = MappingProxyType({"dir": _ALBUM})
    answer_fields = (
        AnswerSpec("count", "number", {"en": ".jpg files", "zh": ".jpg 文件数"}),
        AnswerSpec("largest", "text", {"en": "Largest .jpg", "zh": "最大的 .jpg"}),
    )

    def ensure(self, p: NestedParams) -> list[EnsureOp]:
        photos = [(f"photos/{n}", 3, "j" * size) for n, size in nested_photos(p.count)]
        others = [
            ("photos/IMG_scan.jpeg", 2, "j" * 2000),
            ("photos/cover.png", 2, "p" * 1800),
            ("photos/notes.txt", 1, "拍摄记录\n"),
            ("photos/thumbs/IMG_20260501.jpg", 1, "t" * 40),
            ("photos/thumbs/IMG_20260502.jpg", 1, "t" * 40),
            ("IMG_top_1.jpg", 5, "j" * 900),
            ("IMG_top_2.jpg", 5, "j" * 950),
        ]
        return [seed_folder(_ALBUM, [*photos, *others])]

    def truths(self, p: NestedParams) -> list[Truth]:
        jpgs = FilesFact(folder=f"{_ALBUM}/photos", name="*.jpg")
        largest = jpgs.model_copy(update={"order": "size", "descending": True})
        return [
            Truth(name="count", fact=jpgs, reduce="count"),
            Truth(name="largest", fact=largest, reduce="first"),
        ]

    def oracle(self, p: NestedParams, lang: str) -> Plan:
        largest = max(nested_photos(p.count), key=lambda photo: photo[1])[0]
        return [
            *open_folder(_ALBUM),
            TapStep(on=Selector(text="photos", resource_id="title")),
            *sort_by("size_desc", lang),
            AnswerStep(fields={"count": p.count, "largest": largest}),
        ]


TEMPLATES = (
    RenameEvidenceByDate(),
    MoveCityPhotos(),
    DeleteOldestBackup(),
    CleanObsoleteDrafts(),
    CountNestedPhotos(),
)
"""The further Files templates."""


# ---- wrong plans, which must not pass (tests/sim/test_tasks_e2e.py runs them):
# The name order for the time order, one file left, the second oldest, _v9 kept for _v10, the
# .jpeg counted.


def _by_name(p: dict[str, Any], lang: str, w: World) -> Plan:
    """The name order for the time order."""
    plan = [*open_folder("事故证据"), *sort_by("date_asc", lang)]
    for k, name in enumerate(EVIDENCE, start=1):
        plan += [*select(name), *menu("rename", lang), *name_dialog(f"evidence_{k}.txt")]
    return [*plan, FinishStep()]


def _v9_kept(p: dict[str, Any], lang: str, w: World) -> Plan:
    """``_v9`` kept for ``_v10``."""
    plan = open_folder("项目交接")
    for i, (sub, (old, _)) in enumerate(drafts(DraftParams(**p)).items()):
        old = [n.replace("_v9.", "_v10.") for n in old]
        plan += [
            *([KeyStep(key="back")] if i else []),
            TapStep(on=Selector(text=sub, resource_id="title")),
            *select(*old),
            *delete_selected(),
        ]
    return [*plan, FinishStep()]


def _city(p: dict[str, Any], lang: str, w: World) -> Plan:
    """One photo left behind."""
    folder = {"hangzhou": "杭州", "suzhou": "苏州", "shanghai": "上海"}[p["city"]]
    return [
        *open_folder("旅行照片2026"),
        *new_folder(folder),
        *select(*city_photos(p["city"])[:-1]),
        *menu("move_to", lang),
        TapStep(on=Selector(text=folder, resource_id="title")),
        TapStep(on=Selector(resource_id="button1")),
        FinishStep(),
    ]


def _second_oldest(p: dict[str, Any], lang: str, w: World) -> Plan:
    """The second oldest backup deleted and named."""
    second = backups_by_age(OldestParams(**p))[1]
    return [
        *open_folder("数据库备份"),
        *sort_by("date_asc", lang),
        *select(second),
        *delete_selected(),
        AnswerStep(fields={"name": second}),
    ]


WRONG: dict[str, WrongPlan] = {
    "files/RenameEvidenceByDate-v1": _by_name,
    "files/MoveCityPhotos-v1": _city,
    "files/DeleteOldestBackup-v1": _second_oldest,
    "files/CleanObsoleteDrafts-v1": _v9_kept,
    "files/CountNestedPhotos-v1": lambda p, lang, w: [
        *open_folder("相册备份"),
        TapStep(on=Selector(text="photos", resource_id="title")),
        AnswerStep(fields={"count": p["count"] + 1, "largest": "IMG_scan.jpeg"}),
    ],
}
