"""Feature vectors of candidate actions: what the linear policy scores.

A candidate's vector has two parts. A *dense* block of named scalars (text overlap between
the instruction and the candidate's node, switch state against the instruction's on/off
word, position, history of the episode, ...) repeated once per candidate kind, so each kind
weighs them on its own. Then a *hashed* block (CRC-32 into ``HASH_DIM`` buckets) of sparse
indicators: kind and variant, resource-id and class names, the foreground app, and crosses
with the instruction's words (``open_app:settings`` x ``wifi``). Only the observation, the
instruction and the policy's own past actions go in; never simulator state.

Bump :data:`FEATURE_VERSION` whenever a vector changes for the same input: checkpoints
record it and refuse to load under another.
"""

from __future__ import annotations

import zlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from bridge.schema import Observation, UINode
from policies.learned.candidates import KINDS, Candidate
from policies.learned.text import char_grams, hash_index, normalize, overlap, polarity, words

__all__ = [
    "DENSE_NAMES",
    "DIM",
    "FEATURE_VERSION",
    "HASH_DIM",
    "History",
    "Instruction",
    "dense_value",
    "featurize",
    "screen_signature",
]

FEATURE_VERSION = 2
"""Version of the feature map; part of every checkpoint. 2: the screen signature uses the
activity a phone reports, not the simulator's route; step errors are the ones a phone gives."""

DENSE_NAMES: tuple[str, ...] = (
    "bias", "prec", "recall", "gram", "best", "toggle", "toward", "at_goal", "checked",
    "editable", "focused", "x", "y", "area", "step", "changed", "repeat", "same_last",
    "coverage", "goal_visible", "launcher", "fg_app", "just_toggled", "typed", "value_ctx",
    "echo", "last_error", "keyboard",
)  # fmt: skip
"""The dense scalars, each repeated per candidate kind."""

HASH_DIM = 1024
"""Buckets of the hashed block."""

DIM = len(KINDS) * len(DENSE_NAMES) + HASH_DIM
"""Length of a feature vector."""

_DENSE = {name: i for i, name in enumerate(DENSE_NAMES)}
_KIND = {kind: i for i, kind in enumerate(KINDS)}
_HASH_OFFSET = len(KINDS) * len(DENSE_NAMES)
_MAX_WORDS = 12
_MAX_SUBTREE = 40


@dataclass(frozen=True)
class Instruction:
    """The instruction as the features use it: tokens, character grams, on/off polarity."""

    text: str
    words: frozenset[str]
    grams: frozenset[str]
    polarity: int
    max_steps: int

    @classmethod
    def of(cls, text: str, max_steps: int) -> Instruction:
        """Tokenize ``text`` once per episode."""
        return cls(text, frozenset(words(text)), frozenset(char_grams(text)), polarity(text),
                   max(1, max_steps))  # fmt: skip

    def cross_words(self) -> list[str]:
        """Up to 12 instruction words, sorted, for the hashed crosses."""
        return sorted(self.words)[:_MAX_WORDS]


@dataclass
class History:
    """What the policy remembers of its episode: its own moves and the screens it saw."""

    step: int = 0
    taken: Counter[str] = field(default_factory=Counter)
    last_signature: str | None = None
    last_kind: str | None = None
    last_screen: str | None = None
    changed: bool = True
    just_toggled: bool = False

    def see(self, screen: str) -> None:
        """Note the screen now shown (did the last move change it?)."""
        self.changed = self.last_screen is None or screen != self.last_screen
        self.last_screen = screen

    def record(self, candidate: Candidate, toggled_toward_goal: bool) -> None:
        """Note the move taken on the current screen."""
        self.step += 1
        self.taken[candidate.signature] += 1
        self.last_signature = candidate.signature
        self.last_kind = candidate.kind
        self.just_toggled = toggled_toward_goal


def screen_signature(observation: Observation) -> str:
    """A short fingerprint of what is on screen (texts, states and bounds)."""
    parts = [
        f"{n.text}|{n.content_desc}|{n.checked}|{n.bounds_px}" for n in observation.ui if n.visible
    ]
    digest = zlib.crc32("\n".join(parts).encode("utf-8"))
    fg = observation.foreground
    return f"{fg.app}|{fg.activity}|{digest:08x}"


class _Screen:
    """Per-observation caches: subtree texts, switch states, overlaps with the instruction."""

    def __init__(self, observation: Observation, instruction: Instruction) -> None:
        self.obs = observation
        self.instruction = instruction
        self.children: dict[int, list[int]] = {}
        for node in observation.ui:
            if node.parent is not None:
                self.children.setdefault(node.parent, []).append(node.id)
        self._text: dict[int, str] = {}
        visible = " ".join(n.text or n.content_desc for n in observation.ui if n.visible)
        self.coverage = overlap(set(instruction.words), words(visible))[1]

    def subtree(self, node: UINode) -> list[UINode]:
        """The node and its descendants (at most 40), in document order."""
        found: list[UINode] = []
        stack = [node.id]
        while stack and len(found) < _MAX_SUBTREE:
            current = self.obs.ui[stack.pop()]
            found.append(current)
            stack.extend(reversed(self.children.get(current.id, [])))
        return found

    def text(self, node: UINode) -> str:
        """Every text, description and hint in the node's subtree, joined."""
        if node.id not in self._text:
            parts = [p for n in self.subtree(node) for p in (n.text, n.content_desc, n.hint) if p]
            self._text[node.id] = " ".join(parts)
        return self._text[node.id]

    def switch(self, node: UINode) -> bool | None:
        """The checked state of the node, or of the first checkable node inside it."""
        return next((n.checked for n in self.subtree(node) if n.checkable), None)

    def match(self, text: str) -> tuple[float, float, float]:
        """(word precision, word recall, character-gram score) of ``text`` vs the instruction."""
        prec, recall = overlap(set(self.instruction.words), words(text))
        g_prec, g_recall = overlap(set(self.instruction.grams), char_grams(text))
        return prec, recall, (g_prec + g_recall) / 2.0

    def toward_goal(self, node: UINode) -> tuple[bool, bool]:
        """(tapping moves an instruction-named switch toward the goal, it is already there)."""
        state, want = self.switch(node), self.instruction.polarity
        if state is None or want == 0 or self.match(self.text(node))[1] == 0.0:
            return False, False
        return state != (want > 0), state == (want > 0)


def _candidate_text(screen: _Screen, candidate: Candidate) -> str:
    if candidate.kind == "answer":
        return " ".join(_row_text(screen, choice.node) for choice in candidate.answers)
    if candidate.node is not None:
        return screen.text(candidate.node)
    return candidate.detail


def _row_text(screen: _Screen, node: UINode | None) -> str:
    """The texts around a value: its row (the parent's subtree) and a label just above the
    row (a preceding sibling with text that is not itself actionable, e.g. a section title)."""
    if node is None:
        return ""
    if node.parent is None:
        return screen.text(node)
    row = screen.obs.ui[node.parent]
    siblings = screen.children.get(row.parent, []) if row.parent is not None else []
    before = [screen.obs.ui[i] for i in siblings if i < row.id]
    label = before[-1] if before else None
    if label is None or label.clickable or not (label.text or label.content_desc):
        return screen.text(row)
    return f"{screen.text(label)} {screen.text(row)}"


def _answer_values(screen: _Screen, candidate: Candidate) -> dict[str, float]:
    """How well each value's surroundings match the question and its field label, and how
    much the value merely echoes the question (averaged over the answer's fields)."""
    context, echo = [], []
    for choice in candidate.answers:
        question = set(screen.instruction.words) | words(choice.field.label)
        context.append(overlap(question, words(_row_text(screen, choice.node)))[0])
        echo.append(overlap(set(screen.instruction.words), words(str(choice.value)))[0])
    count = max(len(candidate.answers), 1)
    return {"value_ctx": sum(context) / count, "echo": sum(echo) / count}


def _dense(
    screen: _Screen, candidate: Candidate, history: History, best: float, goal_visible: bool
) -> np.ndarray:
    obs, node = screen.obs, candidate.node
    values = np.zeros(len(DENSE_NAMES))
    prec, recall, gram = screen.match(_candidate_text(screen, candidate))
    score = prec + recall + gram
    toward, at_goal = screen.toward_goal(node) if node is not None else (False, False)
    set_ = {
        "bias": 1.0, "prec": prec, "recall": recall, "gram": gram,
        "best": float(score > 0 and score >= best), "toward": float(toward),
        "at_goal": float(at_goal), "step": history.step / screen.instruction.max_steps,
        "changed": float(history.changed), "repeat": min(history.taken[candidate.signature], 3) / 3,
        "same_last": float(history.last_signature == candidate.signature),
        "coverage": screen.coverage, "goal_visible": float(goal_visible),
        "launcher": float(obs.foreground.app is None),
        "fg_app": float(candidate.kind == "open_app" and obs.foreground.app == candidate.detail),
        "just_toggled": float(history.just_toggled),
        "last_error": float(obs.last_action_error is not None),
        "keyboard": float(obs.keyboard_visible),
    }  # fmt: skip
    if node is not None:
        set_.update(_node_values(screen, node, candidate))
    if candidate.answers:
        set_.update(_answer_values(screen, candidate))
    for name, value in set_.items():
        values[_DENSE[name]] = value
    return values


def _node_values(screen: _Screen, node: UINode, candidate: Candidate) -> dict[str, float]:
    screen_spec = screen.obs.screen
    x, y = node.center_px
    area = node.area_px / float(screen_spec.width_px * screen_spec.height_px)
    typed = candidate.kind == "type" and normalize(candidate.detail) in normalize(node.text)
    return {
        "toggle": float(screen.switch(node) is not None),
        "checked": float(any(n.checked or n.selected for n in screen.subtree(node))),
        "editable": float(node.editable),
        "focused": float(node.focused),
        "x": x / screen_spec.width_px,
        "y": y / screen_spec.height_px,
        "area": min(area, 1.0),
        "typed": float(typed),
    }


def _hashed_keys(screen: _Screen, candidate: Candidate, history: History) -> list[str]:
    kind, node = candidate.kind, candidate.node
    foreground = screen.obs.foreground.app or "launcher"
    move = f"{kind}:{candidate.detail}" if kind in ("scroll", "key", "open_app", "slide") else kind
    keys = [move, f"{move}|fg:{foreground}", f"{kind}|after:{history.last_kind}"]
    anchor = move
    if node is not None:
        rid = node.resource_id.rpartition("/")[2] or "-"
        anchor = f"{kind}|rid:{rid}"
        widget = node.class_name.rpartition(".")[2]
        keys += [anchor, f"{kind}|cls:{widget}", f"{anchor}|fg:{foreground}"]
    for choice in candidate.answers:
        keys.append(f"answer|{choice.field.kind}|row:{_row_rid(screen, choice.node)}")
    keys += [f"{anchor}|w:{word}" for word in screen.instruction.cross_words()]
    return keys


def _row_rid(screen: _Screen, node: UINode | None) -> str:
    if node is None or node.parent is None:
        return "-"
    return screen.obs.ui[node.parent].resource_id.rpartition("/")[2] or "-"


def featurize(
    observation: Observation,
    candidates: Sequence[Candidate],
    instruction: Instruction,
    history: History,
) -> np.ndarray:
    """The ``(len(candidates), DIM)`` feature matrix of ``candidates`` on ``observation``."""
    screen = _Screen(observation, instruction)
    scores = [sum(screen.match(_candidate_text(screen, c))) if c.node else 0.0 for c in candidates]
    best = max(scores, default=0.0)
    goal_visible = any(
        screen.toward_goal(c.node)[1] for c in candidates if c.kind == "tap" and c.node
    )
    phi = np.zeros((len(candidates), DIM))
    width = len(DENSE_NAMES)
    for row, candidate in enumerate(candidates):
        start = _KIND[candidate.kind] * width
        phi[row, start : start + width] = _dense(screen, candidate, history, best, goal_visible)
        for key in _hashed_keys(screen, candidate, history):
            phi[row, _HASH_OFFSET + hash_index(key, HASH_DIM)] += 1.0
    return phi


def dense_value(row: np.ndarray, kind: str, name: str) -> float:
    """The dense feature ``name`` of a candidate of ``kind`` in its feature vector ``row``."""
    return float(row[_KIND[kind] * len(DENSE_NAMES) + _DENSE[name]])
