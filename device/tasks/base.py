"""What a task needs to run on a phone: setup by adb shell, judging without root.

A device variant names the simulator task it mirrors (same id, same parameters from the
same seed) and says how a phone can judge it, in order of preference: ``probe`` (state read
with ``settings get`` / ``content query`` / ``dumpsys``), ``xpath`` (rules over the UI XML
saved during the episode, MobileBench-OL style), ``answer`` (the agent's typed answer
against a ground truth read from the phone), or ``none`` (the phone cannot judge it
deterministically; the variant says so instead of guessing).

Variants only talk to the phone through :class:`Shell` (``adb shell`` text in, text out),
so the same variant works on any adb device, the virtual phone included.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, Protocol

from bridge.schema import AnswerValue, Check, TaskInstance, Verdict
from device.errors import DeviceError
from device.profiles import locale_language

__all__ = ["DeviceVariant", "Judging", "Shell", "VariantContext", "ui_locale"]

Judging = Literal["probe", "xpath", "answer", "none"]


class Shell(Protocol):
    """Runs one ``adb shell`` command line on the phone and returns its output."""

    async def __call__(self, command: str) -> str:
        """Output (stdout and stderr) of ``command``."""
        ...


async def ui_locale(shell: Shell) -> str:
    """The locale the phone's UI uses: ``persist.sys.locale`` (what Settings last chose),
    else the factory ``ro.product.locale``."""
    chosen = (await shell("getprop persist.sys.locale")).strip()
    return chosen or (await shell("getprop ro.product.locale")).strip()


@dataclass
class VariantContext:
    """What judging may look at: the phone, the task, the answer, the episode's UI trees."""

    shell: Shell
    task: TaskInstance
    answer: Mapping[str, AnswerValue] | None = None
    trees: list[str] = field(default_factory=list)
    """UI hierarchy XML of every step of the episode, oldest first."""
    baseline: Mapping[str, Any] = field(default_factory=dict)
    """What :meth:`DeviceVariant.setup` read from the phone at the start (ground truths)."""

    @property
    def params(self) -> Mapping[str, Any]:
        """The task's parameters (drawn from the seed by the simulator's registry)."""
        return self.task.params


class DeviceVariant:
    """Base class of device variants: override ``setup`` and ``judge``."""

    task_id: ClassVar[str]
    judged_by: ClassVar[Judging]
    packages: ClassVar[tuple[str, ...]] = ()
    """Packages to force-stop before the episode (fresh app state without wiping data)."""
    note: ClassVar[str] = ""
    """How the real phone differs, for reports (e.g. which probe, what it cannot see)."""

    async def setup(self, shell: Shell, task: TaskInstance) -> Mapping[str, Any] | None:
        """Bring the phone to the task's starting point: :meth:`prepare`, then :meth:`pose`.

        Returns the baseline from :meth:`pose`; the env hands it to :meth:`judge` as
        ``ctx.baseline``.
        """
        await self.prepare(shell, task)
        return await self.pose(shell, task)

    async def prepare(self, shell: Shell, task: TaskInstance) -> None:
        """Undo what earlier episodes may have left that every task depends on: the UI
        language (the task's) and the font scale (default). A phone is not reset between
        episodes, so without this one language task would break every later one.

        Raises:
            DeviceError: the UI is not in the task's language afterwards. Most phones apply
                a language only through Settings (or at the next boot), so writing the
                setting is tried, then checked, never assumed.
        """
        locale = "zh-CN" if task.lang == "zh" else "en-US"
        await shell(f"settings put system system_locales {locale}")
        await shell("settings put system font_scale 1.0")
        shown = await ui_locale(shell)
        if shown and locale_language(shown) != task.lang:
            raise DeviceError(
                f"the phone's UI language is {shown} but {task.task_id} is posed in "
                f"{task.lang}; a phone changes language through Settings > System > Languages "
                f"(or after a reboot), so switch it there, or run the task in the phone's "
                "language (--lang)"
            )

    async def pose(self, shell: Shell, task: TaskInstance) -> Mapping[str, Any] | None:
        """Pose the task on the phone (``settings put``, ``content insert`` ...).

        May return a baseline read from the phone (e.g. how many favourites there are at
        the start).
        """
        return None

    async def judge(self, ctx: VariantContext) -> list[Check]:
        """Checks of the episode's outcome read from the phone."""
        raise NotImplementedError(f"{self.task_id} has no device judge")

    async def verdict(self, ctx: VariantContext) -> Verdict:
        """The deterministic verdict from :meth:`judge`."""
        kind = {"probe": "state", "xpath": "ui", "answer": "answer"}.get(self.judged_by)
        if kind is None:
            raise NotImplementedError(f"{self.task_id}: a phone cannot judge it deterministically")
        return Verdict.from_checks(await self.judge(ctx), kind=kind)  # type: ignore[arg-type]
