"""VLM policies: an OpenAI-compatible endpoint plus an adapter per model family.

Specs ``vlm:ADAPTER@BASE_URL#MODEL`` build a :class:`VLMPolicy` with
:meth:`VLMPolicy.from_spec`; :data:`ADAPTERS` lists the adapters (qwen3vl, qwen25vl,
uitars15, autoglm, guiowl, generic).
"""

from policies.vlm.adapter import Adapter, HistoryStep, ParsedOutput
from policies.vlm.base import ADAPTERS, VLMPolicy
from policies.vlm.client import ChatClient, ClientConfig, Completion
from policies.vlm.errors import VLMConfigError

__all__ = [
    "ADAPTERS",
    "Adapter",
    "ChatClient",
    "ClientConfig",
    "Completion",
    "HistoryStep",
    "ParsedOutput",
    "VLMConfigError",
    "VLMPolicy",
]
