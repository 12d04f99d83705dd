"""Policy specs: the strings that name a policy, parsed into models that build it.

Grammar (one per kind; ``[...]`` is optional)::

    scripted                       the task's oracle plan       (needs plan_for at load)
    random[:SEED]                  seeded random valid actions  (SEED defaults to load's seed)
    replay:RUN/EPISODE             re-issue a recorded episode  (RUN may contain '/')
    vlm:ADAPTER[,K=V...]@BASE_URL[#MODEL]
                                   a VLM behind an OpenAI-compatible endpoint; K=V options
                                   go to the adapter (scale=1000) or the client
                                   (temperature=0, max_tokens=512, api_key_env=MY_KEY)
    learned:CHECKPOINT             the small learned policy
    vlm-replay:RUN                 a VLM run's recorded replies (RUN: a recording directory
                                   of `mgb vlm record`, or a run directory holding one)
    human                          a person at the terminal decides every step
                                   (``attended``: runs play its episodes one at a time)

Splitting rules, chosen so that paths, ports and model ids survive: the kind ends at the first
``:``; a replay's EPISODE is after the *last* ``/`` (episode ids never contain one); a VLM's
ADAPTER (with its ``,K=V`` options) ends at the first ``@`` and BASE_URL at the first ``#``
after it (a base URL has no fragment), so MODEL keeps every later ``/``, ``:``, ``@`` or ``#``
(``vlm:qwen3vl@http://127.0.0.1:8000/v1#Qwen/Qwen3-VL-8B-Instruct``).

:func:`parse_spec` is pure (no files, no network); :func:`load` parses and builds. VLM and
learned policies are imported only when such a spec is built, so this module stays cheap.
Without ``#MODEL`` a VLM spec uses the adapter class's ``default_model`` (an error if it has
none). A replay re-issues element targets as the centre of the recorded element's bounds,
normalized, since element ids differ between worlds (see :mod:`policies.replay`).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from pathlib import Path
from typing import ClassVar, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, NonNegativeInt

from bridge.errors import BridgeError, PolicyError
from bridge.plans import Plan
from bridge.policy import Policy
from bridge.schema import PolicyContext
from bridge.trajectory import validate_episode_id
from policies.errors import PolicySpecError, ReplaySourceError
from policies.random_policy import RandomPolicy
from policies.replay import ReplayPolicy
from policies.scripted import PlanPolicy

__all__ = [
    "KINDS",
    "HumanSpec",
    "LearnedSpec",
    "PlanFor",
    "PolicySpec",
    "RandomSpec",
    "ReplaySpec",
    "ScriptedSpec",
    "VLMReplaySpec",
    "VLMSpec",
    "load",
    "parse_spec",
    "preflight",
    "valid_forms",
    "vlm_adapters",
]

_REPO_ROOT = Path(__file__).resolve().parent.parent
"""The checkout; relative checkpoint paths fall back to it (``checkpoints/trained``)."""

PlanFor = Callable[[str, PolicyContext], Plan]
"""Returns the task oracle's plan for an instruction and its context (the composition root's)."""

KINDS = ("scripted", "random", "replay", "vlm", "learned", "vlm-replay", "human")
"""Every policy kind, in the order the help text lists them."""

_FORMS = (
    ("scripted", "the task's oracle plan", "scripted"),
    ("random[:SEED]", "seeded random valid actions", "random:7"),
    (
        "replay:RUN/EPISODE",
        "re-issue a recorded episode",
        "replay:runs/base/settings.SetWifi-v1_s0_en",
    ),
    (
        "vlm:ADAPTER[,K=V...]@BASE_URL[#MODEL]",
        "a VLM over an OpenAI-compatible API",
        "vlm:qwen3vl@http://127.0.0.1:8000/v1#Qwen/Qwen3-VL-8B-Instruct",
    ),
    ("learned:CHECKPOINT", "the small learned policy", "learned:checkpoints/grpo"),
    ("vlm-replay:RUN", "a VLM run's recorded replies", "vlm-replay:runs/qwen/vlm_recording"),
    ("human", "a person at the terminal decides each step", "human"),
)
_SYNONYMS = {"person": "human", "manual": "human", "user": "human", "me": "human"}
"""Words people type for a kind under another name."""
_ADAPTER_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
_OPTION_KEY = re.compile(r"[a-z_][a-z0-9_]*")
_VLM_MODULE = "policies.vlm.base"
_LEARNED_MODULE = "policies.learned.policy"


# --------------------------------------------------------------------------- help text


def vlm_adapters() -> list[str] | None:
    """The VLM adapter names of ``policies.vlm.base.ADAPTERS``; None if that is not present."""
    try:
        from policies.vlm.base import ADAPTERS
    except ModuleNotFoundError as exc:
        if exc.name in ("policies.vlm", _VLM_MODULE):
            return None
        raise
    return sorted(ADAPTERS)


def valid_forms() -> str:
    """Every valid spec form with what it means and an example, one per line."""
    lines = ["valid policy specs:"]
    for form, meaning, example in _FORMS:
        lines.append(f"  {form:<30} {meaning}, e.g. {example}")
    adapters = vlm_adapters()
    if adapters is not None:
        lines.append(f"  vlm adapters: {', '.join(adapters)}")
    return "\n".join(lines)


def _error(spec: str, problem: str) -> PolicySpecError:
    return PolicySpecError(f"bad policy spec {spec!r}: {problem}\n{valid_forms()}")


def _nearest(word: str, choices: list[str] | tuple[str, ...]) -> str | None:
    lowered = word.lower()
    if _SYNONYMS.get(lowered) in choices:
        return _SYNONYMS[lowered]
    for choice in choices:  # 'vlm-qwen3vl', 'RANDOM', 'replay_x': the kind with junk after it
        if lowered == choice or (lowered.startswith(choice) and len(lowered) > len(choice)):
            return choice
    near = difflib.get_close_matches(lowered, list(choices), n=1, cutoff=0.6)
    return near[0] if near else None


# --------------------------------------------------------------------------- spec models


class PolicySpec(BaseModel):
    """A parsed policy spec: its ``kind`` and that kind's fields. ``str()`` gives the spec."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: str
    attended: ClassVar[bool] = False
    """A person decides (``human``): runs play its episodes one at a time."""

    def build(self, *, plan_for: PlanFor | None = None, seed: int = 0) -> Policy:
        """The policy this spec names (see :func:`load` for the arguments)."""
        raise NotImplementedError


class ScriptedSpec(PolicySpec):
    """``scripted``: follows the oracle plan ``plan_for`` returns for each episode."""

    kind: Literal["scripted"] = "scripted"

    def __str__(self) -> str:
        return "scripted"

    def build(self, *, plan_for: PlanFor | None = None, seed: int = 0) -> Policy:
        """A PlanPolicy over ``plan_for``; without one there is no plan to follow."""
        if plan_for is None:
            raise PolicySpecError(
                "the 'scripted' policy follows the task's oracle plan, so load() needs "
                "plan_for=<callable (instruction, context) -> Plan>; the composition root "
                "(the CLI that knows the tasks) supplies it"
            )
        return PlanPolicy(plan_for=plan_for, name=str(self))


class RandomSpec(PolicySpec):
    """``random[:SEED]``: seeded random valid actions; no SEED means load's ``seed``."""

    kind: Literal["random"] = "random"
    seed: NonNegativeInt | None = None

    def __str__(self) -> str:
        return "random" if self.seed is None else f"random:{self.seed}"

    def build(self, *, plan_for: PlanFor | None = None, seed: int = 0) -> Policy:
        """A RandomPolicy; its name always carries the seed used (``random:SEED``)."""
        return RandomPolicy(self.seed if self.seed is not None else seed)


class ReplaySpec(PolicySpec):
    """``replay:RUN/EPISODE``: re-issues episode EPISODE of run directory RUN."""

    kind: Literal["replay"] = "replay"
    run: str = Field(min_length=1)
    episode: str = Field(min_length=1)

    def __str__(self) -> str:
        return f"replay:{self.run}/{self.episode}"

    def build(self, *, plan_for: PlanFor | None = None, seed: int = 0) -> Policy:
        """A ReplayPolicy over the recorded steps (element targets replayed as points)."""
        try:
            return ReplayPolicy.from_run(Path(self.run), self.episode, name=str(self))
        except ReplaySourceError as exc:
            raise PolicySpecError(f"cannot replay {str(self)!r}: {exc}") from exc


OptionValue = str | int | float | bool
"""A ``K=V`` option's value: ``true``/``false``, an int, a float, else the text."""


class VLMSpec(PolicySpec):
    """``vlm:ADAPTER[,K=V...]@BASE_URL[#MODEL]``: no MODEL means the adapter's default;
    options go to the adapter or the client (see ``VLMPolicy.from_spec``)."""

    kind: Literal["vlm"] = "vlm"
    adapter: str = Field(min_length=1)
    base_url: str = Field(min_length=1)
    model: str | None = None
    options: dict[str, OptionValue] = Field(default_factory=dict)

    def __str__(self) -> str:
        model = f"#{self.model}" if self.model is not None else ""
        options = "".join(f",{k}={_option_text(v)}" for k, v in self.options.items())
        return f"vlm:{self.adapter}{options}@{self.base_url}{model}"

    def build(self, *, plan_for: PlanFor | None = None, seed: int = 0) -> Policy:
        """``VLMPolicy.from_spec(adapter, base_url, model)``; without a MODEL, the adapter
        class's ``default_model``."""
        try:
            from policies.vlm.base import ADAPTERS, VLMPolicy
        except ModuleNotFoundError as exc:
            if exc.name not in ("policies.vlm", _VLM_MODULE):
                raise
            raise PolicySpecError(
                f"cannot build {str(self)!r}: {_VLM_MODULE} is not in this installation"
            ) from exc
        model = self.model
        if model is None and self.adapter in ADAPTERS:
            model = getattr(ADAPTERS[self.adapter], "default_model", None)
        if not model:
            raise PolicySpecError(
                f"cannot build {str(self)!r}: the {self.adapter!r} adapter has no default "
                f"model; name the served model with #MODEL, e.g. {self}#Qwen/Qwen3-VL-8B-Instruct"
            )
        try:
            return VLMPolicy.from_spec(
                self.adapter, self.base_url, model, name=str(self) if self.options else None,
                **self.options,
            )  # fmt: skip
        except ValueError as exc:  # VLMConfigError: an unknown option or a bad value
            raise PolicySpecError(f"cannot build {str(self)!r}: {exc}") from exc


class VLMReplaySpec(PolicySpec):
    """``vlm-replay:RUN``: the VLM policy of a recording (``mgb vlm record``), answered by a
    local server from the recorded replies (see :mod:`policies.vlm_replay`)."""

    kind: Literal["vlm-replay"] = "vlm-replay"
    run: str = Field(min_length=1)

    def __str__(self) -> str:
        return f"vlm-replay:{self.run}"

    def build(self, *, plan_for: PlanFor | None = None, seed: int = 0) -> Policy:
        """A RecordedVLMPolicy: its own replay server on 127.0.0.1 and the recorded adapter."""
        from policies.vlm_replay import RecordedVLMPolicy

        try:
            return RecordedVLMPolicy.open(Path(self.run), name=str(self))
        except ValueError as exc:  # RecordingError, VLMConfigError
            raise PolicySpecError(f"cannot build {str(self)!r}: {exc}") from exc


class LearnedSpec(PolicySpec):
    """``learned:CHECKPOINT``: the small learned policy saved in directory CHECKPOINT."""

    kind: Literal["learned"] = "learned"
    checkpoint: str = Field(min_length=1)

    def __str__(self) -> str:
        return f"learned:{self.checkpoint}"

    def path(self) -> Path | None:
        """Where the checkpoint is: the path as given, else (for a relative path) under
        the repository, where the shipped ``checkpoints/`` live; None if neither exists."""
        given = Path(self.checkpoint)
        shipped = _REPO_ROOT / given
        for candidate in (given, shipped) if not given.is_absolute() else (given,):
            if candidate.exists():
                return candidate
        return None

    def build(self, *, plan_for: PlanFor | None = None, seed: int = 0) -> Policy:
        """``LearnedPolicy.load(checkpoint)``."""
        path = self.path()
        if path is None:
            raise PolicySpecError(
                f"cannot build {str(self)!r}: no checkpoint at {self.checkpoint} (nor in "
                f"{_REPO_ROOT}); give the directory a training run wrote (`mgb train --out DIR`)"
            )
        try:
            from policies.learned.policy import LearnedPolicy
        except ModuleNotFoundError as exc:
            if exc.name not in ("policies.learned", _LEARNED_MODULE):
                raise
            raise PolicySpecError(
                f"cannot build {str(self)!r}: {_LEARNED_MODULE} is not in this installation"
            ) from exc
        return LearnedPolicy.load(path)


class HumanSpec(PolicySpec):
    """``human``: a person at the terminal reads each screen and types the action
    (:class:`policies.human.HumanPolicy`; stdin must be a terminal)."""

    kind: Literal["human"] = "human"
    attended: ClassVar[bool] = True

    def __str__(self) -> str:
        return "human"

    def build(self, *, plan_for: PlanFor | None = None, seed: int = 0) -> Policy:
        """A HumanPolicy on stdin/stdout."""
        from policies.human import HumanPolicy

        return HumanPolicy()


# --------------------------------------------------------------------------- parsing


def _parse_scripted(spec: str, rest: str | None) -> PolicySpec:
    if rest is not None:
        raise _error(spec, "'scripted' takes no arguments (its plan comes from plan_for)")
    return ScriptedSpec()


def _parse_random(spec: str, rest: str | None) -> PolicySpec:
    if rest is None:
        return RandomSpec()
    if not rest.isascii() or not rest.isdigit():
        raise _error(spec, f"the random SEED must be a non-negative integer, got {rest!r}")
    return RandomSpec(seed=int(rest))


def _parse_replay(spec: str, rest: str | None) -> PolicySpec:
    run, slash, episode = (rest or "").rpartition("/")
    if not slash or not run:
        raise _error(spec, "replay needs RUN/EPISODE: a run directory, '/', an episode id")
    if not episode:
        raise _error(spec, f"replay of run {run!r} names no episode after the last '/'")
    try:
        validate_episode_id(episode)
    except BridgeError as exc:
        raise _error(spec, str(exc)) from exc
    return ReplaySpec(run=run, episode=episode)


def _parse_vlm(spec: str, rest: str | None) -> PolicySpec:
    head, at, target = (rest or "").partition("@")
    adapter, *pairs = head.split(",")
    if not at or not adapter:
        raise _error(spec, "vlm needs ADAPTER@BASE_URL, e.g. qwen3vl@http://127.0.0.1:8000/v1")
    _check_adapter(spec, adapter)
    base_url, hash_, model = target.partition("#")
    _check_url(spec, base_url)
    if hash_ and not model:
        raise _error(spec, "nothing after '#'; name a model, or drop '#' for the default")
    options = dict(_parse_option(spec, pair) for pair in pairs)
    return VLMSpec(
        adapter=adapter, base_url=base_url, model=model if hash_ else None, options=options
    )


def _parse_option(spec: str, pair: str) -> tuple[str, OptionValue]:
    key, eq, text = pair.partition("=")
    if not eq or not _OPTION_KEY.fullmatch(key) or not text:
        raise _error(spec, f"option {pair!r} is not KEY=VALUE, e.g. qwen3vl,scale=1000@URL")
    lowered = text.lower()
    if lowered in ("true", "false"):
        return key, lowered == "true"
    for kind in (int, float):
        try:
            return key, kind(text)
        except ValueError:
            continue
    return key, text


def _option_text(value: OptionValue) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _check_adapter(spec: str, adapter: str) -> None:
    if not _ADAPTER_NAME.fullmatch(adapter):
        raise _error(spec, f"{adapter!r} is not an adapter name (letters, digits, _ . -)")
    known = vlm_adapters()
    if known is not None and adapter not in known:
        near = _nearest(adapter, known)
        hint = f"; did you mean {near!r}?" if near else ""
        raise _error(spec, f"unknown vlm adapter {adapter!r}{hint} (known: {', '.join(known)})")


def _check_url(spec: str, url: str) -> None:
    if not url:
        raise _error(spec, "vlm needs a BASE_URL after '@', e.g. http://127.0.0.1:8000/v1")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise _error(spec, f"BASE_URL {url!r} must be http(s)://HOST[:PORT][/PATH]")
    try:
        parts.port  # noqa: B018 - parsing the port is the check
    except ValueError as exc:
        raise _error(spec, f"BASE_URL {url!r} has a bad port ({exc})") from exc


def _parse_learned(spec: str, rest: str | None) -> PolicySpec:
    if not rest:
        raise _error(spec, "learned needs a CHECKPOINT path, e.g. learned:checkpoints/grpo")
    return LearnedSpec(checkpoint=rest)


def _parse_vlm_replay(spec: str, rest: str | None) -> PolicySpec:
    if not rest:
        raise _error(spec, "vlm-replay needs RUN: a recording or run directory")
    return VLMReplaySpec(run=rest)


def _parse_human(spec: str, rest: str | None) -> PolicySpec:
    if rest is not None:
        raise _error(spec, "'human' takes no arguments (the person is at this terminal)")
    return HumanSpec()


_PARSERS: dict[str, Callable[[str, str | None], PolicySpec]] = {
    "scripted": _parse_scripted,
    "random": _parse_random,
    "replay": _parse_replay,
    "vlm": _parse_vlm,
    "learned": _parse_learned,
    "vlm-replay": _parse_vlm_replay,
    "human": _parse_human,
}


def parse_spec(spec: str) -> PolicySpec:
    """Parse a policy spec string (surrounding whitespace ignored) into its model.

    Raises:
        PolicySpecError: naming the problem, listing every valid form with an example, and
            suggesting the nearest kind (or adapter) for a typo.
    """
    text = spec.strip()
    if not text:
        raise _error(spec, "the spec is empty")
    kind, colon, rest = text.partition(":")
    parser = _PARSERS.get(kind)
    if parser is None:
        near = _nearest(re.split(r"[@#/]", kind, maxsplit=1)[0], KINDS)
        hint = f"; did you mean {near!r}?" if near else ""
        raise _error(spec, f"unknown policy kind {kind!r}{hint}")
    return parser(spec, rest if colon else None)


async def preflight(spec: str) -> PolicySpec:
    """Check a spec as far as can be known before a run: its syntax, and that what it names
    exists and answers — the run, episode or checkpoint is there and loads, the VLM adapter
    and its options are known and the endpoint serves the model (one ``GET /models``), a
    ``human`` has a terminal (stdin is one).
    ``scripted`` is only parsed (its plan comes from each task). Returns the parsed spec.

    Raises:
        PolicySpecError: naming the spec, the problem and what to do (never one infra error
            per episode later).
    """
    parsed = parse_spec(spec)
    if isinstance(parsed, ScriptedSpec):
        return parsed
    policy = parsed.build(seed=0)
    check = getattr(policy, "preflight", None)
    if check is not None:
        try:
            await check()
        except PolicyError as exc:
            raise PolicySpecError(f"policy {spec.strip()!r}: {exc}") from exc
    return parsed


def load(spec: str | PolicySpec, *, plan_for: PlanFor | None = None, seed: int = 0) -> Policy:
    """Build the policy a spec names.

    Args:
        spec: A spec string (see the module docstring) or a parsed :class:`PolicySpec`.
        plan_for: The task oracle's plan for an instruction/context; ``scripted`` needs it.
        seed: The seed of ``random`` when the spec gives none.

    Raises:
        PolicySpecError: the spec is malformed, or names something absent (a run, an
            episode, a checkpoint, the vlm/learned package) or needs ``plan_for``.
    """
    parsed = parse_spec(spec) if isinstance(spec, str) else spec
    return parsed.build(plan_for=plan_for, seed=seed)
