"""The VLM policy: an OpenAI-compatible endpoint plus a model adapter, as a bridge Policy.

Spec strings ``vlm:ADAPTER@BASE_URL#MODEL`` (``vlm:qwen3vl@http://127.0.0.1:8000/v1#Qwen3-VL-8B``)
are turned into policies by the registry with :meth:`VLMPolicy.from_spec`. Each ``act``:

1. the adapter builds the chat messages from the instruction, the observation and the
   episode's history (each model family replays history its own way);
2. the client sends them (retrying infrastructure failures; :class:`PolicyError` after the
   last retry ends the episode as ``infra_error``);
3. the adapter parses the reply. Unparseable output is **not** an exception: it becomes
   ``PolicyOutput(action=None, error=...)`` with ``raw_text`` kept, an invalid step the runner
   records while the episode goes on. An adapter that *crashes* is a bug of ours and raises
   :class:`PolicyError`.

Adapters (options in their docstrings): ``qwen3vl``, ``qwen25vl``, ``uitars15``,
``autoglm``, ``guiowl``, ``generic``, ``uivenus``, ``maiui``, ``gelab``, ``stepgui``,
``generic_v2``.
"""

from __future__ import annotations

import inspect

from pydantic import ValidationError

from bridge.errors import PolicyError
from bridge.schema import Observation, PolicyContext, PolicyOutput
from policies.vlm.adapter import Adapter, HistoryStep, ParsedOutput
from policies.vlm.autoglm import AutoGLMAdapter
from policies.vlm.client import ChatClient, ClientConfig
from policies.vlm.errors import VLMConfigError
from policies.vlm.gelab import GELabAdapter
from policies.vlm.generic import GenericAdapter
from policies.vlm.generic_v2 import GenericV2Adapter
from policies.vlm.guiowl import GUIOwlAdapter
from policies.vlm.maiui import MAIUIAdapter
from policies.vlm.messages import ChatMessage
from policies.vlm.qwen import Qwen3VLAdapter, Qwen25VLAdapter
from policies.vlm.stepgui import StepGUIAdapter
from policies.vlm.uitars import UITARS15Adapter
from policies.vlm.uivenus import UIVenusAdapter

__all__ = ["ADAPTERS", "Adapter", "HistoryStep", "ParsedOutput", "VLMPolicy"]

ADAPTERS: dict[str, type[Adapter]] = {
    "qwen3vl": Qwen3VLAdapter,
    "qwen25vl": Qwen25VLAdapter,
    "uitars15": UITARS15Adapter,
    "autoglm": AutoGLMAdapter,
    "guiowl": GUIOwlAdapter,
    "generic": GenericAdapter,
    "uivenus": UIVenusAdapter,
    "maiui": MAIUIAdapter,
    "gelab": GELabAdapter,
    "stepgui": StepGUIAdapter,
    "generic_v2": GenericV2Adapter,
}
"""Adapter name (the ``ADAPTER`` of a ``vlm:`` spec) -> adapter class."""

_CLIENT_OPTIONS = frozenset(ClientConfig.model_fields) - {"base_url", "model"}


class VLMPolicy:
    """A policy that asks a vision-language model for each action."""

    def __init__(self, client: ChatClient, adapter: Adapter, name: str | None = None) -> None:
        self._client = client
        self.adapter = adapter
        config = client.config
        model = f"#{config.model}" if config.model is not None else ""
        self._name = name or f"vlm:{adapter.name}@{config.base_url}{model}"
        self._instruction: str | None = None
        self._context = PolicyContext()
        self._history: list[HistoryStep] = []
        self.last_messages: list[ChatMessage] = []
        """The messages of the latest request (for debugging consoles and tests)."""

    @classmethod
    def from_spec(
        cls,
        adapter: str,
        base_url: str,
        model: str | None = None,
        *,
        name: str | None = None,
        **options: object,
    ) -> VLMPolicy:
        """The policy for ``vlm:ADAPTER@BASE_URL#MODEL``.

        Without a ``model`` (``vlm:ADAPTER@BASE_URL``) the adapter's ``default_model`` is
        used (``Qwen/Qwen3-VL-8B-Instruct`` for qwen3vl, …); ``generic`` has none and uses
        the one model the server lists at ``GET {base_url}/models``.

        ``options`` named like :class:`ClientConfig` fields (``temperature``, ``max_tokens``,
        ``api_key_env``, ``timeout_s``, ``max_retries``, ``backoff_s``, ``extra_body``, …) go
        to the client; the rest to the adapter (``scale``, ``relative1000``, ``version``, …).
        ``name`` is the policy's name in records (default: the spec without options).

        Raises:
            VLMConfigError: unknown adapter, unknown option, or an invalid value.
        """
        if adapter not in ADAPTERS:
            raise VLMConfigError(
                f"unknown VLM adapter {adapter!r}; available: {', '.join(sorted(ADAPTERS))}"
            )
        model = model or ADAPTERS[adapter].default_model
        client_options = {k: v for k, v in options.items() if k in _CLIENT_OPTIONS}
        adapter_options = {k: v for k, v in options.items() if k not in _CLIENT_OPTIONS}
        try:
            config = ClientConfig.model_validate(
                {"base_url": base_url, "model": model, **client_options}
            )
        except ValidationError as exc:
            raise VLMConfigError(f"bad client options for {base_url}: {exc}") from exc
        return cls(config.build(), _build_adapter(ADAPTERS[adapter], adapter_options), name)

    async def preflight(self) -> None:
        """Check once, before a run, that the endpoint serves this policy's model (see
        :meth:`ChatClient.check_served`); raises ``PolicyError`` saying what is wrong."""
        await self._client.check_served()

    @property
    def client_config(self) -> ClientConfig:
        """The endpoint and sampling settings the client sends (for fingerprints)."""
        return self._client.config

    @property
    def name(self) -> str:
        """The spec string, ``vlm:ADAPTER@BASE_URL#MODEL``."""
        return self._name

    @property
    def history(self) -> tuple[HistoryStep, ...]:
        """The steps of the current episode, oldest first."""
        return tuple(self._history)

    async def reset(self, instruction: str, context: PolicyContext) -> None:
        """Start a new episode: forget the history."""
        self._instruction, self._context, self._history = instruction, context, []
        self.last_messages = []

    async def act(self, observation: Observation) -> PolicyOutput:
        """Ask the model for the next action on ``observation``.

        Raises:
            PolicyError: the endpoint failed after its retries, or the observation has no
                screenshot for a vision adapter. An adapter that crashes on the output is a
                bug and propagates unchanged.
        """
        if self._instruction is None:
            raise PolicyError(f"{self._name}: call reset(instruction, context) before act()")
        if self.adapter.needs_image and observation.screenshot is None:
            raise PolicyError(
                f"{self._name}: the observation has no screenshot and the "
                f"{self.adapter.name} adapter cannot act without one"
            )
        messages = self.adapter.build_messages(
            self._instruction, self._context, observation, self._history
        )
        self.last_messages = messages
        completion = await self._client.complete(messages)
        parsed = self._parse(completion.text, observation)
        shot = observation.screenshot
        self._history.append(
            HistoryStep(
                image_url=shot.data_url if shot is not None else None,
                raw_text=completion.text,
                parsed=parsed,
                app=observation.foreground.app or observation.foreground.package,
            )
        )
        return PolicyOutput(
            action=parsed.action,
            thought=parsed.thought,
            raw_text=completion.text,
            error=parsed.error,
        )

    def _parse(self, text: str, observation: Observation) -> ParsedOutput:
        parsed = self.adapter.parse(text, observation, self._context)  # a crash is our bug
        if parsed.action is None and not parsed.error:
            return ParsedOutput.invalid("the output holds no action", parsed.thought)
        return parsed


def _build_adapter(adapter_cls: type[Adapter], options: dict[str, object]) -> Adapter:
    accepted = [name for name in inspect.signature(adapter_cls).parameters if name != "self"]
    unknown = sorted(set(options) - set(accepted))
    if unknown:
        raise VLMConfigError(
            f"unknown option(s) {', '.join(unknown)} for the {adapter_cls.name} adapter; it "
            f"takes {', '.join(accepted) or 'none'}, and the client takes "
            f"{', '.join(sorted(_CLIENT_OPTIONS))}"
        )
    try:
        return adapter_cls(**options)
    except TypeError as exc:
        raise VLMConfigError(f"bad options for the {adapter_cls.name} adapter: {exc}") from exc
