"""The gallery's checks of one rendered screen: pure functions over what the page showed.

Three classes of UI bugs, each a :class:`Problem`:

* ``untranslated`` — a string key shown to the user instead of its text: a visible text,
  hint or content description that equals a key of any strings table (and is no text of
  that language), or looks like one (a ``snake_case`` identifier, or an app's internal
  route such as ``/contact``); and on a screen in
  another language than English, the English text of a string that has a translation
  (its English and translated values differ), shown whole or, for formatted strings, with
  any values in its placeholders;
* ``overflow`` — text larger than its box, or cut off by the screen or by a clipping
  ancestor, as ``gallery_probe.js`` measured it in the page (ellipses are intended);
* ``cjk`` — CJK characters drawn as the missing-glyph box ("tofu"), as the probe found by
  drawing each in its element's font next to a code point no font has.

:class:`StringTables` holds every strings table an installed phone shows from (the apps',
the system UI's, the pickers'), so a key of one app leaking into another is caught too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from bridge.schema import UINode

__all__ = [
    "CheckName",
    "Problem",
    "ShownText",
    "StringTables",
    "probe_problems",
    "probe_texts",
    "tree_texts",
    "untranslated_problems",
]

CheckName = Literal["untranslated", "overflow", "cjk"]

_KEY_LIKE = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+")
"""A snake_case identifier: how a string key looks (``wifi_settings``)."""
_ROUTE_LIKE = re.compile(r"/(?:[a-z0-9_-]+(?:/[a-z0-9_-]+)*)?")
"""An app's internal route (``/``, ``/contact``): an identifier as much as a key is."""
_PLACEHOLDER = re.compile(r"\{[^{}]*\}")
_WORD = re.compile(r"[A-Za-z]{2,}")
_PROBE_KINDS = {
    "overflow": "text overflows its box",
    "clipped": "text is cut off",
    "tofu": "CJK text renders as missing-glyph boxes",
}


class Problem(BaseModel):
    """One thing wrong on one screen: which check, what it found, and where."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    check: CheckName
    message: str
    text: str
    """The offending text (as shown, shortened)."""
    bounds: tuple[int, int, int, int] | None = None
    """Where, in device pixels of the screenshot (left, top, right, bottom)."""


@dataclass(frozen=True)
class _Translated:
    """A string whose English and translated texts differ, as a matcher of its English."""

    source: str
    key: str
    pattern: re.Pattern[str]


def _english_matcher(english: str) -> re.Pattern[str] | None:
    """A full-text matcher of ``english`` with any text in its placeholders; None when the
    text around the placeholders has no word (``{day} {month}`` would match anything)."""
    literal = _PLACEHOLDER.sub(" ", english)
    if not _WORD.search(literal):
        return None
    parts = _PLACEHOLDER.split(english)
    return re.compile(".+?".join(re.escape(part) for part in parts), re.DOTALL)


def _list_items(english: str, translated: str) -> list[tuple[str, str]]:
    """The items of a comma-separated list string (weekdays, months), paired by position."""
    en, other = english.split(","), translated.split(",")
    if len(en) < 2 or len(en) != len(other) or "{" in english:
        return []
    return [(a.strip(), b.strip()) for a, b in zip(en, other, strict=True)]


@dataclass
class StringTables:
    """Every strings table of the phone: ``tables[source][lang][key] = text``."""

    tables: dict[str, dict[str, Mapping[str, str]]]
    _keys: frozenset[str] = field(init=False)
    _values: dict[str, frozenset[str]] = field(init=False)
    _translated: dict[str, list[_Translated]] = field(init=False)

    def __post_init__(self) -> None:
        self._keys = frozenset(
            k for langs in self.tables.values() for t in langs.values() for k in t
        )
        langs = {lang for by_lang in self.tables.values() for lang in by_lang}
        self._values = {
            lang: frozenset(
                text for by_lang in self.tables.values() for text in by_lang.get(lang, {}).values()
            )
            for lang in langs
        }
        self._translated = {lang: self._english_of(lang) for lang in langs if lang != "en"}

    def _english_of(self, lang: str) -> list[_Translated]:
        found: list[_Translated] = []
        for source, by_lang in self.tables.items():
            english, other = by_lang.get("en", {}), by_lang.get(lang, {})
            for key, text in english.items():
                translated = other.get(key)
                if translated is None or translated == text:
                    continue
                items = _list_items(text, translated)
                for item, item_translated in items:
                    if len(item) > 1 and item != item_translated:
                        found.append(_Translated(source, key, re.compile(re.escape(item))))
                pattern = None if items else _english_matcher(text)
                if pattern is not None:
                    found.append(_Translated(source, key, pattern))
        return found

    def is_key(self, text: str, lang: str) -> bool:
        """Whether ``text`` is a string key rather than a text of ``lang`` (``hour`` is
        both a key and the English text of the pickers' hour field)."""
        return text in self._keys and text not in self._values.get(lang, frozenset())

    def is_text(self, text: str) -> bool:
        """Whether ``text`` is the text of some string in some language."""
        return any(text in values for values in self._values.values())

    def english_source(self, text: str, lang: str) -> _Translated | None:
        """The string whose English text ``text`` is, when ``lang`` has its own text."""
        for entry in self._translated.get(lang, ()):
            if entry.pattern.fullmatch(text):
                return entry
        return None


@dataclass(frozen=True)
class ShownText:
    """A text the user can see or hear: ``what`` it is (``text``, ``hint``, ``desc`` of a
    tree node, or ``screen`` for a text drawn outside any node) and where (device px)."""

    what: str
    text: str
    bounds: tuple[int, int, int, int] | None = None


def tree_texts(nodes: Sequence[UINode]) -> list[ShownText]:
    """Every text, hint and content description of the UI tree."""
    shown = []
    for node in nodes:
        for what, text in (("text", node.text), ("hint", node.hint), ("desc", node.content_desc)):
            if text.strip():
                shown.append(ShownText(what, text.strip(), node.bounds_px))
    return shown


def untranslated_problems(
    texts: Iterable[ShownText], lang: str, tables: StringTables
) -> list[Problem]:
    """Keys (or internal routes) shown instead of texts, and English texts on a screen in
    ``lang``; each distinct text once."""
    problems: list[Problem] = []
    seen: set[str] = set()
    for shown in texts:
        text, what = shown.text, shown.what
        if text in seen:
            continue
        seen.add(text)
        if tables.is_key(text, lang):
            message = f"the {what} {text!r} is a string key, not a text"
        elif _KEY_LIKE.fullmatch(text) and not tables.is_text(text):
            message = f"the {what} {text!r} looks like a string key (snake_case), not a text"
        elif _ROUTE_LIKE.fullmatch(text):
            message = f"the {what} {text!r} is an internal route, not a text"
        elif (entry := tables.english_source(text, lang)) is not None:
            message = (
                f"the {what} {text!r} is the English of {entry.source}:{entry.key}, "
                f"which has a {lang} translation"
            )
        else:
            continue
        problems.append(
            Problem(check="untranslated", message=message, text=text, bounds=shown.bounds)
        )
    return problems


def _device_box(box: Sequence[float], dpr: float) -> tuple[int, int, int, int]:
    left, top, right, bottom = (round(float(v) * dpr) for v in box)
    return left, top, right, bottom


def probe_texts(probe: Mapping[str, list[Mapping[str, Any]]], dpr: float) -> list[ShownText]:
    """The texts the probe found drawn on the screen (every visible text node)."""
    return [ShownText("screen", str(t["text"]), _device_box(t["box"], dpr)) for t in probe["texts"]]


def probe_problems(probe: Mapping[str, list[Mapping[str, Any]]], dpr: float) -> list[Problem]:
    """The probe's overflow and missing-glyph findings as problems, in device pixels."""
    problems: list[Problem] = []
    checks: tuple[tuple[str, CheckName], ...] = (("overflow", "overflow"), ("tofu", "cjk"))
    for name, check in checks:
        for found in probe.get(name, []):
            problems.append(
                Problem(
                    check=check,
                    message=f"{_PROBE_KINDS[str(found['kind'])]}: {found['detail']}",
                    text=str(found["text"]),
                    bounds=_device_box(found["box"], dpr),
                )
            )
    return problems
