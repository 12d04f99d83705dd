"""App names as models say them (``Settings``, ``设置``, ``File Manager``) -> our app ids.

Every model family launches apps by name (Qwen ``open``, UI-TARS ``open_app``, AutoGLM
``Launch``). Our app ids (``settings``, ``contacts``, ``answersheet``, …) are mapped to
packages by the device profiles, so a policy only needs the id. Unknown names still become an
``open_app`` with a normalized id (``Google Maps`` -> ``google_maps``, ``京东`` -> ``京东``):
the env reports an unknown app as a step error, which is the right feedback for the model.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["APP_NAMES", "KNOWN_APP_IDS", "normalize_app_name", "resolve_app"]

KNOWN_APP_IDS = frozenset(
    {
        "settings",
        "contacts",
        "answersheet",
        "messages",
        "clock",
        "notes",
        "calendar",
        "gallery",
        "camera",
        "files",
        "launcher",
    }
)
"""App ids of the simulator and the device profiles; they pass through unchanged."""

APP_NAMES: dict[str, str] = {
    # settings
    "setting": "settings",
    "system settings": "settings",
    "设置": "settings",
    "系统设置": "settings",
    "com.android.settings": "settings",
    # contacts
    "contact": "contacts",
    "people": "contacts",
    "phone book": "contacts",
    "通讯录": "contacts",
    "联系人": "contacts",
    "电话本": "contacts",
    "com.android.contacts": "contacts",
    "com.google.android.contacts": "contacts",
    # answer sheet (our query-task app)
    "answer sheet": "answersheet",
    "answer_sheet": "answersheet",
    "答题卡": "answersheet",
    # the device profiles' other apps
    "message": "messages",
    "sms": "messages",
    "短信": "messages",
    "信息": "messages",
    "deskclock": "clock",
    "alarm": "clock",
    "时钟": "clock",
    "闹钟": "clock",
    "note": "notes",
    "keep": "notes",
    "笔记": "notes",
    "便签": "notes",
    "日历": "calendar",
    "photos": "gallery",
    "相册": "gallery",
    "图库": "gallery",
    "相机": "camera",
    "file manager": "files",
    "文件管理": "files",
    "文件管理器": "files",
    "文件": "files",
    "home": "launcher",
    "home screen": "launcher",
    "桌面": "launcher",
}
"""Lower-case names (English, Chinese, common packages) -> app id."""

_APP_SUFFIX = re.compile(r"\s*(?:app|application|应用)$")


def normalize_app_name(name: str) -> str:
    """Canonical form of a name: NFKC, case-folded, single spaces, quotes stripped."""
    text = unicodedata.normalize("NFKC", name).casefold()
    return " ".join(text.strip().strip("'\"`").split())


def resolve_app(name: str) -> str:
    """Our app id for a model's app name; unknown names become a normalized id.

    Raises:
        ValueError: the name is empty.
    """
    key = normalize_app_name(name)
    if not key:
        raise ValueError("the app name is empty")
    for candidate in (key, _APP_SUFFIX.sub("", key)):
        if candidate in KNOWN_APP_IDS:
            return candidate
        if candidate in APP_NAMES:
            return APP_NAMES[candidate]
        if candidate.replace(" ", "") in KNOWN_APP_IDS:
            return candidate.replace(" ", "")
    return re.sub(r"[\s\-]+", "_", _APP_SUFFIX.sub("", key) or key)
