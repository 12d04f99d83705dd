"""Text handling for the learned policy: tokens, character n-grams, hashing, instruction values.

Everything here is deterministic across processes and machines: hashing uses CRC-32, never
Python's salted ``hash``. Latin text is split into lower-case words (``Wi-Fi`` -> ``wi``,
``fi``); CJK text, which has no spaces, into character unigrams and bigrams, so that
``打开蓝牙`` and ``蓝牙`` share tokens.
"""

from __future__ import annotations

import re
import unicodedata
import zlib
from collections.abc import Iterable

__all__ = [
    "char_grams",
    "contains_cjk",
    "hash_index",
    "instruction_values",
    "normalize",
    "overlap",
    "polarity",
    "words",
]

_LATIN_WORD = re.compile(r"[a-z0-9]+")
_LATIN_ALPHA = re.compile(r"[a-z]+")
_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "to",
        "of",
        "in",
        "on",
        "off",
        "for",
        "and",
        "or",
        "is",
        "are",
        "be",
        "it",
        "its",
        "this",
        "that",
        "my",
        "me",
        "your",
        "with",
        "from",
        "by",
        "at",
        "as",
        "then",
        "all",
        "way",
        "please",
        "make",
        "set",
        "turn",
        "change",
        "give",
        "tell",
        "what",
        "which",
        "how",
        "many",
        "does",
        "do",
    ]
)
_CJK_STOP = frozenset("的了把和并是我给请吗呢已")
_CJK_SWITCH = re.compile("打开|开启|启用|关闭|关掉|停用")
_ON_WORDS = ("turn on", "switch on", "enable", " on.", " on ", "打开", "开启", "启用")
_OFF_WORDS = ("turn off", "switch off", "disable", " off.", " off ", "关闭", "关掉", "停用")

# Values a policy may type: quoted spans, e-mails, phone numbers, times, capitalised names
# and CJK runs inside Latin sentences (``Remove 妈妈 from favorites``).
_QUOTED = re.compile(r"\"([^\"]{1,60})\"|“([^”]{1,60})”|「([^」]{1,60})」|‘([^’]{1,60})’")
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_PHONE = re.compile(r"\+?\d[\d \-]{4,}\d")
_TIME = re.compile(r"\b\d{1,2}:\d{2}\b")
_UPPER, _LOWER = "A-ZÀ-ÖØ-Þ", "a-zß-öø-ÿ"
_NAME = re.compile(rf"(?<![\w'-])([{_UPPER}][{_LOWER}]+(?: [{_UPPER}][{_LOWER}]+)*)(?![\w-])")
_MAX_VALUES = 8


def normalize(text: str) -> str:
    """NFKC-folded, lower-cased text (full-width forms become ASCII)."""
    return unicodedata.normalize("NFKC", text).lower()


def contains_cjk(text: str) -> bool:
    """Whether ``text`` has any CJK ideograph."""
    return _CJK_RUN.search(text) is not None


def words(text: str, *, drop_stopwords: bool = True) -> set[str]:
    """Content tokens: Latin words plus CJK unigrams and bigrams.

    On/off words (``on``, ``off``, ``打开``, ``关闭``...) are not content: they say what to do,
    not where (a ``已关闭`` status must not match ``关闭 WLAN``); :func:`polarity` reads them.
    """
    folded = normalize(text)
    if drop_stopwords:
        folded = _CJK_SWITCH.sub(" ", folded)
    found = set(_LATIN_WORD.findall(folded))
    if drop_stopwords:
        found -= _STOPWORDS
    for run in _CJK_RUN.findall(folded):
        found.update(char for char in run if char not in _CJK_STOP)
        found.update(run[i : i + 2] for i in range(len(run) - 1))
    return found


def char_grams(text: str, n: int = 3) -> set[str]:
    """Character n-grams of Latin words (with ``^``/``$`` edges) and CJK bigrams."""
    folded = normalize(text)
    grams: set[str] = set()
    for word in _LATIN_WORD.findall(folded):
        padded = f"^{word}$"
        grams.update(padded[i : i + n] for i in range(max(1, len(padded) - n + 1)))
    for run in _CJK_RUN.findall(folded):
        grams.update(run[i : i + 2] for i in range(len(run) - 1))
        grams.update(run)
    return grams


def overlap(query: set[str], text: set[str]) -> tuple[float, float]:
    """(precision, recall) of ``text``'s tokens against ``query``'s: the fraction of the
    text's tokens in the query, and of the query's tokens in the text (0 when empty)."""
    if not query or not text:
        return 0.0, 0.0
    shared = len(query & text)
    return shared / len(text), shared / len(query)


def polarity(instruction: str) -> int:
    """+1 when the instruction asks to turn something on, -1 for off, 0 otherwise."""
    folded = f" {normalize(instruction)} "
    on = any(word in folded for word in _ON_WORDS)
    off = any(word in folded for word in _OFF_WORDS)
    return 0 if on == off else (1 if on else -1)


def hash_index(key: str, dim: int) -> int:
    """A stable bucket in ``[0, dim)`` for ``key`` (CRC-32; the same on every machine)."""
    return zlib.crc32(key.encode("utf-8")) % dim


def _dedupe(values: Iterable[str]) -> list[str]:
    seen: list[str] = []
    for value in values:
        value = value.strip(" .,;:!?。，；：！？")
        if value and value not in seen:
            seen.append(value)
    return seen


def instruction_values(instruction: str) -> list[str]:
    """Strings from the instruction worth typing, most specific first (at most 8)."""
    quoted = [next(g for g in match.groups() if g) for match in _QUOTED.finditer(instruction)]
    emails = _EMAIL.findall(instruction)
    rest = _EMAIL.sub(" ", instruction)
    phones = [p for p in _PHONE.findall(rest) if sum(c.isdigit() for c in p) >= 5]
    times = _TIME.findall(rest)
    names = [_name(match) for match in _NAME.finditer(rest)]
    cjk = _CJK_RUN.findall(rest) if not _mostly_cjk(_QUOTED.sub(" ", rest)) else []
    values = _dedupe([*quoted, *emails, *phones, *times, *names, *cjk])
    return values[:_MAX_VALUES]


def _name(match: re.Match[str]) -> str:
    """A capitalised run, without the sentence's first word (``Add Alice Johnson``)."""
    name = match.group(1)
    before = match.string[: match.start()].rstrip()
    if not before or before[-1] in ".?!":
        name = name.partition(" ")[2]
    return name if len(name) >= 3 else ""


def _mostly_cjk(text: str) -> bool:
    cjk = sum(len(run) for run in _CJK_RUN.findall(text))
    latin = sum(len(word) for word in _LATIN_ALPHA.findall(normalize(text)))
    return cjk > latin
