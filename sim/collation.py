"""How the simulated phone orders and finds names: accents and case folded, Chinese by its
pinyin, as Android's contacts list and Launcher3's all-apps list do.

One home for what the Contacts list and the launcher's drawer both need: the folded form of
a name, the pinyin syllables of its Han characters, the A–Z order (Chinese among Latin by
pinyin, names that do not start with a letter last) and a pinyin match by full syllables
from any one of them or by initials.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from functools import lru_cache

from pypinyin import lazy_pinyin

__all__ = ["fold", "is_han", "letter_order", "pinyin_matches", "syllables"]


def fold(text: str) -> str:
    """Casefold and drop accents (``García`` → ``garcia``)."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def is_han(ch: str) -> bool:
    """Whether ``ch`` is a CJK ideograph (the unified and compatibility blocks)."""
    return "\u3400" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff"


@lru_cache(maxsize=8192)
def syllables(text: str) -> tuple[str, ...]:
    """Pinyin of each Han character (phrase readings: 音乐 is yin yue), other runs folded.

    Cached: every render of a list sorts every name, and pinyin lookup dominates.
    """
    return tuple(part for part in (fold(p).strip() for p in lazy_pinyin(text)) if part)


def letter_order(latin: str, text: str) -> tuple[int, str, str]:
    """The A–Z order of ``text`` whose Latin form is ``latin`` (its syllables joined):
    names starting with a letter first, by that form; then the rest; ties by ``text``."""
    first = latin[:1]
    starts_with_letter = first.isascii() and first.isalpha()
    return (0 if starts_with_letter else 1, latin, text)


def pinyin_matches(text: str, query: str, readings: Sequence[str] | None = None) -> bool:
    """Whether a Latin ``query`` (folded, no spaces) is the pinyin of Chinese ``text`` from
    any syllable (``wei``, ``zhangwei``) or its initials (``zw``); ``readings`` replaces the
    syllables (a surname read as in names)."""
    if not (query.isascii() and query.isalpha()) or not any(map(is_han, text)):
        return False
    parts = tuple(readings) if readings is not None else syllables(text)
    if "".join(part[0] for part in parts).startswith(query):
        return True
    return any("".join(parts[i:]).startswith(query) for i in range(len(parts)))
