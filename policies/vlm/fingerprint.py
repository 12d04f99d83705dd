"""A VLM policy's harness fingerprint: every detail between the model and the Env that moves
its score, so that two runs can be told apart, or shown to be the same.

Published agent scores are often irreproducible because the prompt, the image handling, the
history or the sampling were never recorded. :func:`vlm_fingerprint` records them from the
built policy itself, not from its spec, so nothing can drift between what is recorded and
what is sent:

* ``prompt_sha256``: the SHA-256 of the messages the adapter builds for a fixed, synthetic
  observation and a fixed, synthetic history (in English and in Chinese), images replaced by
  a placeholder naming their size and type. Any change to a prompt, to the way history is
  replayed or to the order of the parts changes it;
* ``image``: what image reaches the model (the observation's screenshot as the env encoded
  it: adapters never resize or re-encode) and the coordinate frame the adapter reads points
  in, for the synthetic screen;
* ``history``: how many messages and images the adapter sends after a long synthetic
  history (which shows its replay window), and its history options;
* ``sampling``: the request fields besides model and messages, exactly as the client sends
  them (:meth:`ClientConfig.sampling`);
* ``parser_version``: the adapter module's ``PARSER_VERSION`` constant (bumped when its
  parsing changes); a module without one is identified by the SHA-256 of its source and of
  the ``policies.vlm`` modules it uses, so an unversioned change still shows.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Literal

from pydantic import BaseModel, ConfigDict, JsonValue

from bridge.actions import TapAction, Target
from bridge.schema import (
    BackendInfo,
    Foreground,
    Observation,
    PolicyContext,
    Screenshot,
    ScreenSpec,
    UINode,
)
from policies.vlm.adapter import Adapter, HistoryStep, ParsedOutput
from policies.vlm.base import VLMPolicy
from policies.vlm.messages import ChatMessage, ImagePart

__all__ = ["PROBE_HISTORY_STEPS", "VLMFingerprint", "parser_version", "vlm_fingerprint"]

PROBE_HISTORY_STEPS = 8
"""Synthetic steps of history the probe replays: more than any adapter's replay window."""
_PROBE_SCREEN = ScreenSpec(width_px=1080, height_px=2400, density_dpi=440)
_PROBE_SHOT = Screenshot(format="png", width=1080, height=2400, data=b"synthetic probe screen")
_PROBE_TEXT = "Thought: the switch is on the right.\nAction: tap the switch"


class VLMFingerprint(BaseModel):
    """The harness details of one VLM policy (see the module docstring for each field)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    adapter: str
    adapter_class: str
    adapter_options: dict[str, JsonValue]
    model: str | None
    base_url: str
    prompt_sha256: str
    image: dict[str, JsonValue]
    history: dict[str, JsonValue]
    sampling: dict[str, JsonValue]
    parser_version: str


def vlm_fingerprint(policy: VLMPolicy) -> VLMFingerprint:
    """The fingerprint of ``policy`` as built (no network: the endpoint is not asked)."""
    adapter, config = policy.adapter, policy.client_config
    options = _options(adapter)
    return VLMFingerprint(
        adapter=adapter.name,
        adapter_class=f"{type(adapter).__module__}.{type(adapter).__qualname__}",
        adapter_options=options,
        model=config.model,
        base_url=config.base_url,
        prompt_sha256=_prompt_hash(adapter),
        image=_image(adapter),
        history=_history(adapter, options),
        sampling=config.sampling(),
        parser_version=parser_version(type(adapter)),
    )


def parser_version(adapter_cls: type[Adapter]) -> str:
    """``MODULE@PARSER_VERSION`` of the adapter's module, else ``source:`` and a SHA-256 (16
    hex digits) of its source and of the ``policies.vlm`` modules it uses."""
    module = sys.modules[adapter_cls.__module__]
    declared = getattr(module, "PARSER_VERSION", None)
    if declared is not None:
        return f"{module.__name__}@{declared}"
    digest = hashlib.sha256()
    for used in _vlm_modules(module):
        digest.update(used.__name__.encode() + b"\0" + Path(inspect.getfile(used)).read_bytes())
    return f"source:{digest.hexdigest()[:16]}"


def _vlm_modules(module: ModuleType) -> list[ModuleType]:
    """``module`` and the ``policies.vlm`` modules its globals come from, by name."""
    found = {module.__name__: module}
    for value in vars(module).values():
        name = value.__name__ if isinstance(value, ModuleType) else getattr(value, "__module__", "")
        if isinstance(name, str) and name.startswith("policies.vlm.") and name in sys.modules:
            found.setdefault(name, sys.modules[name])
    return [found[name] for name in sorted(found)]


def _options(adapter: Adapter) -> dict[str, JsonValue]:
    """The adapter's public settings (what its constructor stored), as JSON."""
    return {
        key: _json(value) for key, value in sorted(vars(adapter).items()) if not key.startswith("_")
    }


def _json(value: object) -> JsonValue:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple, frozenset, set)):
        items = sorted(value, key=str) if isinstance(value, (set, frozenset)) else value
        return [_json(item) for item in items]
    if isinstance(value, dict):
        return {str(k): _json(v) for k, v in value.items()}
    return repr(value)


def _observation(step: int = 0) -> Observation:
    nodes = [
        UINode(id=0, class_name="android.widget.FrameLayout", bounds_px=(0, 0, 1080, 2400)),
        UINode(
            id=1,
            parent=0,
            class_name="android.widget.Switch",
            text="Wi-Fi",
            clickable=True,
            bounds_px=(900, 400, 1040, 480),
        ),
    ]
    return Observation(
        step=step,
        screenshot=_PROBE_SHOT,
        screen=_PROBE_SCREEN,
        ui=nodes,
        foreground=Foreground(app="settings", package="com.android.settings"),
        backend=BackendInfo(kind="sim"),
    )


def _probe_history(steps: int) -> list[HistoryStep]:
    tap = TapAction(target=Target.at(0.9, 0.18))
    parsed = ParsedOutput(action=tap, thought="the switch is on the right", summary="tap it")
    return [
        HistoryStep(_PROBE_SHOT.data_url, _PROBE_TEXT, parsed, app="settings") for _ in range(steps)
    ]


def _probe(adapter: Adapter, lang: Literal["en", "zh"], steps: int) -> list[ChatMessage]:
    context = PolicyContext(task_id="probe/Probe-v1", lang=lang)
    instruction = "Turn on Wi-Fi." if lang == "en" else "打开 Wi-Fi。"
    return adapter.build_messages(instruction, context, _observation(steps), _probe_history(steps))


def _placeholder(messages: Sequence[ChatMessage]) -> list[JsonValue]:
    """The messages as JSON, each image URL replaced by its size and type (the bytes are
    the env's, not the harness's)."""
    shot = _PROBE_SHOT
    dumped: list[JsonValue] = []
    for message in messages:
        data = message.model_dump(mode="json")
        for part, original in zip(data["content"], _parts(message), strict=False):
            if isinstance(original, ImagePart) and isinstance(part, dict):
                part["image_url"] = {"url": f"<image {shot.width}x{shot.height} {shot.format}>"}
        dumped.append(data)
    return dumped


def _parts(message: ChatMessage) -> list[object]:
    return list(message.content) if isinstance(message.content, list) else []


def _prompt_hash(adapter: Adapter) -> str:
    digest = hashlib.sha256()
    langs: tuple[Literal["en", "zh"], ...] = ("en", "zh")
    for lang in langs:
        for steps in (0, 2):
            text = json.dumps(_placeholder(_probe(adapter, lang, steps)), ensure_ascii=False)
            digest.update(text.encode() + b"\0")
    return f"sha256:{digest.hexdigest()}"


def _image(adapter: Adapter) -> dict[str, JsonValue]:
    """What image the model gets and which frame its points are read in."""
    frame = getattr(adapter, "frame", None)
    sends = any(isinstance(part, ImagePart) for m in _probe(adapter, "en", 0) for part in _parts(m))
    return {
        "sent": "the screenshot as the env encoded it (no resize, no re-encoding)"
        if sends
        else "no image",
        "probe_screen": f"{_PROBE_SCREEN.width_px}x{_PROBE_SCREEN.height_px}",
        "coordinate_frame": frame(_observation()).label
        if callable(frame)
        else "normalized 0-1 points or element ids",
    }


def _history(adapter: Adapter, options: dict[str, JsonValue]) -> dict[str, JsonValue]:
    """How much of a long history the adapter sends, and its history options."""
    messages = _probe(adapter, "en", PROBE_HISTORY_STEPS)
    images = sum(isinstance(part, ImagePart) for m in messages for part in _parts(m))
    window = {k: v for k, v in options.items() if k in ("max_images", "replay_turns")}
    return {
        "probe_steps": PROBE_HISTORY_STEPS,
        "messages": len(messages),
        "images": images,
        **window,
    }
