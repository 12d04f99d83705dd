"""Reality-gap behaviour of the virtual phone: system pop-ups now and then, and animations.

Both are driven from the device side, so the simulator stays deterministic and knows nothing
of them: a pop-up is plain OS state (``state.os.dialog``) the phone sets after an input
event, decided by a :class:`PopupSource` seeded like the phone; an animation is a
:class:`Transition` the phone composes into its screenshots for a while after the screen
changed (a real phone animates in real time, so it reads the clock).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, field_validator

from bridge.app_catalog import app_catalog
from device.errors import ProfileError
from device.profiles import VIRTUAL_PROFILE, DeviceProfile, load_profile, profile_names
from sim.pages import SimProfile
from sim.skins import SKINS
from sim.state import SystemDialog

__all__ = [
    "POPUPS",
    "Perturbations",
    "PopupSource",
    "Transition",
    "playable_profiles",
]


def _playable(profile: DeviceProfile) -> bool:
    """Whether the virtual phone can play ``profile``: the simulator has its skin, and that
    skin's phone names the apps as the profile's phones do."""
    skin = SKINS.get(profile.skin)
    return skin is not None and app_catalog().packages(skin.profile) == profile.apps


def playable_profiles() -> list[str]:
    """The device profiles the virtual phone can play (``virtual``: AOSP's; a Redmi's)."""
    return [name for name in profile_names() if _playable(load_profile(name))]


class Perturbations(BaseModel):
    """Reality-gap knobs, all off by default: what a real phone does that the simulator does
    not. One model for the virtual phone and for transfer-eval's ``--popup-rate`` & co.

    Input events are taps, long presses, swipes, key events and typed text, however they
    arrive (``input``, uiautomator2). Pop-ups are seeded by the phone's instance seed.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    latency_ms: float = 0.0
    """Extra delay before every input event takes effect (a busy phone)."""
    popup_rate: float = 0.0
    """Probability that an input event is followed by a system dialog over the screen
    ("Battery low", "… isn't responding"); events while one is shown raise none."""
    animation_ms: float = 0.0
    """How long screenshots show the new screen sliding in after an input event changed it
    (hierarchy dumps show the new tree at once, as uiautomator does for many views)."""
    font_scale: float | None = Field(default=None, ge=0.5, le=2.0)
    """Text drawn this much larger than the font-size setting asks (a ROM's larger default
    text): unlike ``settings put system font_scale``, task setups do not undo it."""
    profile: str = VIRTUAL_PROFILE
    """The phone it plays (a device profile, ``device/profiles/``): ``redmi_note_12_turbo``
    shows HyperOS's screens (``sim/skins.py``) with a Redmi's packages, properties and ways
    (the input switch, ``uiautomator dump``'s exit code, the Security app's alarm clock);
    what the phone holds and how a task is judged are the same."""

    @field_validator("popup_rate")
    @classmethod
    def _a_probability(cls, value: float) -> float:
        if not 0 <= value <= 1:
            raise ValueError(f"popup_rate is a probability in [0, 1], not {value}")
        return value

    @field_validator("profile")
    @classmethod
    def _a_playable_profile(cls, value: str) -> str:
        try:
            profile = load_profile(value)
        except ProfileError as exc:
            raise ValueError(str(exc)) from exc
        if not _playable(profile):
            raise ValueError(
                f"the virtual phone cannot play {value!r} (its apps are not the simulator's); "
                f"it plays {', '.join(playable_profiles())}"
            )
        return value

    @field_validator("latency_ms", "animation_ms")
    @classmethod
    def _a_duration(cls, value: float) -> float:
        if value < 0:
            raise ValueError("latency_ms and animation_ms are durations: give 0 or more")
        return value

    @property
    def active(self) -> bool:
        """Whether any perturbation is on."""
        return self != Perturbations()

    def describe(self) -> str:
        """The perturbations in words, for reports ("" when none is on)."""
        parts = [
            f"system pop-ups after {100 * self.popup_rate:g}% of inputs" if self.popup_rate else "",
            f"{self.animation_ms:g} ms animations" if self.animation_ms else "",
            f"{self.latency_ms:g} ms input latency" if self.latency_ms else "",
            f"text x{self.font_scale:g}" if self.font_scale is not None else "",
            self._played() if self.profile != VIRTUAL_PROFILE else "",
        ]
        return ", ".join(part for part in parts if part)

    @property
    def skin(self) -> str:
        """The skin the phone shows: its profile's."""
        return load_profile(self.profile).skin

    @property
    def screen(self) -> SimProfile:
        """The screen the phone draws: its profile's pixels and density (the virtual Redmi
        draws 1080×2400 at 440 dpi, a Redmi Note 12 Turbo's, so its pages are laid out on a
        wider screen in dp than the simulator's 480-dpi one)."""
        played = load_profile(self.profile)
        return SimProfile(
            width_px=played.width_px, height_px=played.height_px, density_dpi=played.density_dpi
        )

    def _played(self) -> str:
        return f"{SKINS[self.skin].system} screens and ways ({self.screen.density_dpi} dpi)"


_TEXTS: dict[str, tuple[SystemDialog, SystemDialog]] = {
    "battery_low": (
        SystemDialog(title="Battery low", message="15% battery remaining", positive="OK"),
        SystemDialog(title="电量不足", message="剩余电量 15%", positive="确定"),
    ),
    "not_responding": (
        SystemDialog(title="System UI isn't responding", positive="Wait", negative="Close app"),
        SystemDialog(title="“系统界面”无响应", positive="等待", negative="关闭应用"),
    ),
    "usb_debugging": (
        SystemDialog(
            title="Allow USB debugging?",
            message="The computer's RSA key fingerprint is: 5A:3F:C2:91:0B:7E:44:D8",
            positive="Allow",
            negative="Cancel",
        ),
        SystemDialog(
            title="允许 USB 调试吗？",
            message="这台计算机的 RSA 密钥指纹如下：5A:3F:C2:91:0B:7E:44:D8",
            positive="允许",
            negative="取消",
        ),
    ),
    "storage_low": (
        SystemDialog(
            title="Storage space running out",
            message="Some system functions may not work",
            positive="OK",
        ),
        SystemDialog(title="存储空间不足", message="某些系统功能可能无法正常运行", positive="确定"),
    ),
}

_LBE = "com.lbe.security.miui"
_SECURITY = "com.miui.securitycenter"
_GRANT = "com.android.packageinstaller.permission.ui.GrantPermissionsActivity"
_WAKEPATH = "com.miui.wakepath.ui.ConfirmStartActivity"

_MIUI_TEXTS: dict[str, tuple[SystemDialog, SystemDialog]] = {
    "permission_sheet": (
        SystemDialog(
            title="Allow {app} to send notifications?",
            positive="Allow",
            negative="Deny",
            package=_LBE,
            activity=_GRANT,
        ),
        SystemDialog(
            title="要允许“{app}”发送通知吗？",
            positive="允许",
            negative="拒绝",
            package=_LBE,
            activity=_GRANT,
        ),
    ),
    "wakepath": (
        SystemDialog(
            title="Open another app?",
            message="{app} wants to open another app",
            positive="Allow",
            negative="Deny",
            package=_SECURITY,
            activity=_WAKEPATH,
        ),
        SystemDialog(
            title="启动应用",
            message="“{app}”想要启动其他应用，是否允许？",
            positive="允许",
            negative="拒绝",
            package=_SECURITY,
            activity=_WAKEPATH,
        ),
    ),
    "updater": (
        SystemDialog(
            title="Install automatically?",
            message="Updates will be installed when the phone is idle at night",
            positive="Install",
            negative="No",
            package="com.android.updater",
        ),
        SystemDialog(
            title="自动安装更新？",
            message="将在夜间空闲时自动安装更新",
            positive="自动安装",
            negative="不了",
            package="com.android.updater",
        ),
    ),
    "battery_low": (
        SystemDialog(
            title="Battery is below 20%",
            message="Turn on Battery saver to make it last longer",
            positive="Got it",
            negative="Battery saver",
            package=_SECURITY,
        ),
        SystemDialog(
            title="电量已低于20%",
            message="开启省电模式可延长续航",
            positive="知道了",
            negative="省电模式",
            package=_SECURITY,
        ),
    ),
}
"""MIUI's own pop-ups (HyperOS keeps them): the runtime permission sheet of its permission
app and the Security app's "open another app?" (both activities: they take the focus), the
updater's question, and the Security app's low-battery dialog. Texts after the public
record (docs/phone.md); ``{app}`` is the app in front."""

_BY_SKIN = {"aosp": _TEXTS, "hyperos": _MIUI_TEXTS}

POPUPS: tuple[str, ...] = tuple(_TEXTS)
"""The kinds of system dialog an AOSP phone may throw (HyperOS's skin: MIUI's instead)."""


class PopupSource:
    """Decides, after each input event, whether a system dialog pops up, and which one.

    Seeded and owned by one phone: the same seed and the same events give the same pop-ups.
    """

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(f"popups:{seed}")

    def roll(
        self, rate: float, lang: str, skin: str = "aosp", app: str = ""
    ) -> SystemDialog | None:
        """With probability ``rate``, a dialog of a phone in ``skin`` in ``lang`` (``en`` or
        ``zh``), naming ``app`` (the app in front) where it names one; else None."""
        if rate <= 0 or self._rng.random() >= rate:
            return None
        texts = _BY_SKIN.get(skin, _TEXTS)
        english, chinese = texts[self._rng.choice(tuple(texts))]
        dialog = chinese if lang == "zh" else english
        name = app or ("系统" if lang == "zh" else "System")
        return dialog.model_copy(
            update={
                "title": dialog.title.format(app=name),
                "message": dialog.message.format(app=name),
            }
        )


@dataclass(frozen=True)
class Transition:
    """The screen animating from ``before`` to the current frame over ``duration_s``.

    The rows that changed (an app's window, not bars that stayed put) slide in from the
    right over the old ones at constant speed: any two frames taken at different moments
    differ, as on a phone, so waiting for two equal screenshots really waits for the end.
    """

    before: np.ndarray
    started: float
    """``time.monotonic()`` when the screen changed."""
    duration_s: float

    def done(self, now: float) -> bool:
        """Whether the animation is over at ``now``."""
        return now - self.started >= self.duration_s

    def frame(self, after: np.ndarray, now: float) -> np.ndarray | None:
        """The frame shown at ``now`` when the screen is heading to ``after``; None when
        that is just ``after`` (the animation is over, or the screen did not change)."""
        if self.done(now) or after.shape != self.before.shape:
            return None
        rows = np.flatnonzero((after != self.before).any(axis=(1, 2)))
        if rows.size == 0:
            return None
        top, bottom = int(rows[0]), int(rows[-1]) + 1
        width = after.shape[1]
        seam = round((1 - (now - self.started) / self.duration_s) * width)
        frame = after.copy()
        frame[top:bottom, :seam] = self.before[top:bottom, :seam]
        frame[top:bottom, seam:] = after[top:bottom, : width - seam]
        return frame
