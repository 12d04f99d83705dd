"""The AnswerSheet app (MobileGym's grounded answering): a typed form for query tasks.

A task poses its question with :func:`pose_questions`; the agent fills the fields (choices
by tapping, numbers, dates, times and text by typing) and submits. Submitted answers are
stored typed in the overlay, where the task's verdict reads them.
"""

from __future__ import annotations

import re
from typing import Any

from sim.app import App, AppContext, Event, GalleryScreen, Screen, on
from sim.apps.answersheet.state import AnswerSheetState

__all__ = ["AnswerSheetApp", "pose_questions"]

_PREFIX = "answersheet."
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_TIME = re.compile(r"^\d{1,2}:\d{2}$")


def pose_questions(overlay: dict[str, Any], question: str, fields: list[dict[str, Any]]) -> None:
    """Put a question on the sheet: fields are ``{name, kind, label, choices?}`` dicts."""
    overlay.update(question=question, fields=fields, answers={}, submitted=False)


def _parse(kind: str, text: str) -> tuple[Any, str | None]:
    """The typed value of ``text`` for a field of ``kind``, or the error key."""
    text = text.strip()
    if not text:
        return None, "required"
    if kind == "number":
        try:
            number = float(text)
        except ValueError:
            return None, "bad_number"
        return (int(number) if number.is_integer() else number), None
    if kind == "date" and not _DATE.match(text):
        return None, "bad_date"
    if kind == "time" and not _TIME.match(text):
        return None, "bad_time"
    return text, None


def _sheet_values(ctx: AppContext) -> dict[str, Any]:
    """The form, or the submitted answers."""
    data = ctx.data
    fields = data.get("fields", [])
    return {
        "question": data.get("question", ""),
        "fields": fields,
        "submitted": data.get("submitted", False),
        "answers": {k: str(v) for k, v in (data.get("answers") or {}).items()},
        "drafts": {f["name"]: ctx.field(_PREFIX + f["name"]) for f in fields},
        "focus": ctx.state.ui.focus,
        "error": data.get("error"),
    }


class AnswerSheetApp(App):
    """The AnswerSheet: one form per query task."""

    id = "answersheet"
    overlay_model = AnswerSheetState
    SCREENS = {"/": Screen("sheet.html", _sheet_values)}

    def initial_overlay(self) -> dict[str, Any]:
        """An empty sheet."""
        return {"question": "", "fields": [], "answers": {}, "submitted": False, "error": None}

    def view(self, overlay: Any) -> dict[str, Any]:
        """The submitted answers (ignored by side-effect checks)."""
        return {
            "submitted": bool(overlay.get("submitted")),
            "answers": dict(overlay.get("answers") or {}),
        }

    @on("choose")
    def choose(self, ctx: AppContext, event: Event) -> None:
        """Pick an option of a choice field."""
        ctx.set_field(_PREFIX + event.arg("field"), event.arg("option"))

    @on("submit")
    def submit(self, ctx: AppContext, event: Event) -> None:
        """Validate every field; submit the typed answers or show the first problem."""
        answers: dict[str, Any] = {}
        for field in ctx.data.get("fields", []):
            value, error = _parse(field["kind"], ctx.field(_PREFIX + field["name"]))
            if error is not None:
                ctx.data["error"] = ctx.t(error, label=field["label"])
                return
            answers[field["name"]] = value
        ctx.data.update(answers=answers, submitted=True, error=None)
        ctx.clear_fields(_PREFIX)
        ctx.toast(ctx.t("toast_submitted"))

    @on("edit")
    def edit(self, ctx: AppContext, event: Event) -> None:
        """Reopen the form with the submitted answers as drafts."""
        for name, value in (ctx.data.get("answers") or {}).items():
            ctx.set_field(_PREFIX + name, str(value))
        ctx.data["submitted"] = False

    def gallery_screens(self) -> tuple[GalleryScreen, ...]:
        """The empty sheet, a sheet posing one field of every kind (in each language, as a
        task poses it), and that sheet answered."""
        words = {
            "en": (
                "What is Zhang Wei's work phone, when does the next team meeting start, how "
                "many events are on May 18, and is Wi-Fi on?",
                ("Work phone", "Date", "Start time", "Events on May 18", "Wi-Fi", "Yes", "No"),
            ),
            "zh": (
                "张伟的工作电话是多少？下一次团队周会哪天几点开始？"
                "5月18日有几个日程？WLAN 是否已开启？",
                ("工作电话", "日期", "开始时间", "5月18日的日程数", "WLAN", "是", "否"),
            ),
        }
        posed: dict[str, dict[str, Any]] = {}
        answered: dict[str, dict[str, Any]] = {}
        for lang, (question, (phone, day, start, count, wifi, yes, no)) in words.items():
            kinds = (("phone", "text", phone), ("date", "date", day), ("time", "time", start))
            fields: list[dict[str, Any]] = [
                {"name": name, "kind": kind, "label": label} for name, kind, label in kinds
            ]
            fields.append({"name": "count", "kind": "number", "label": count})
            fields.append({"name": "wifi", "kind": "choice", "label": wifi, "choices": [yes, no]})
            pose_questions(posed.setdefault(lang, {}), question, fields)
            answers: dict[str, Any] = {"phone": "010-6552 3344", "date": "2026-05-19"}
            answers.update(time="10:00", count=3, wifi=yes)
            answered[lang] = {**posed[lang], "submitted": True, "answers": answers}
        return (
            GalleryScreen(name="empty", title="Empty sheet"),
            GalleryScreen(name="sheet", title="Answer sheet", localized=posed),
            GalleryScreen(name="submitted", title="Submitted answers", localized=answered),
        )
