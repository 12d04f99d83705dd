"""An async client for OpenAI-compatible chat endpoints (vLLM, SGLang, DashScope, OpenAI).

``POST {base_url}/chat/completions`` with the model, the messages (text and ``data:`` image
URLs), the temperature and ``max_tokens``; nothing else unless ``extra_body`` adds it (vLLM
sampling knobs such as ``top_p``). Failures of the *infrastructure* are retried with bounded
exponential backoff and then raised as :class:`bridge.errors.PolicyError`, which ends the
episode as ``infra_error``:

* retried: connection errors and timeouts (``httpx.TransportError``), HTTP 408, 409, 425,
  429 and every 5xx (a ``Retry-After`` header is honoured up to ``backoff_max_s``);
* not retried: any other 4xx (a bad request or key will not get better by waiting), a
  200 whose body is not a chat completion, and the other request errors of httpx (a body
  that cannot be decoded, too many redirects).

Every httpx exception is converted here (``raise PolicyError(...) from exc``): nothing of
httpx reaches the runner, which would take it for a bug.

Without a model name, the one model ``GET {base_url}/models`` lists is used (a vLLM server
serves one); the request fails clearly when it lists several.

The API key is read from the environment variable ``api_key_env`` (default
``OPENAI_API_KEY``) at each request, sent as a bearer token when set, and never logged or
put in an error message. Local servers without a key work with the variable unset.

Each :meth:`ChatClient.complete` call uses its own short-lived ``httpx.AsyncClient`` unless
one is passed in: policies have no ``close`` in the contract and may be used from different
event loops, so a pooled client would leak; one model call costs seconds, one connection
set-up milliseconds.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Awaitable, Callable, Sequence

import httpx
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    NonNegativeFloat,
    NonNegativeInt,
    PositiveFloat,
    PositiveInt,
)

from bridge.errors import PolicyError
from policies.vlm.messages import ChatMessage

__all__ = ["ChatClient", "ClientConfig", "Completion"]

_LOG = logging.getLogger(__name__)
_RETRY_STATUS = frozenset({408, 409, 425, 429})
_EXCERPT = 300


class ClientConfig(BaseModel):
    """Where the model is served and how to talk to it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    base_url: str = Field(min_length=1, description="e.g. http://127.0.0.1:8000/v1")
    model: str | None = Field(
        default=None, min_length=1, description="served model name; None: the one served"
    )
    api_key_env: str = "OPENAI_API_KEY"
    temperature: NonNegativeFloat = 0.0
    max_tokens: PositiveInt = 1024
    timeout_s: PositiveFloat = 120.0
    connect_timeout_s: PositiveFloat = 10.0
    max_retries: NonNegativeInt = 4
    backoff_s: NonNegativeFloat = 1.0
    backoff_max_s: NonNegativeFloat = 30.0
    extra_body: dict[str, JsonValue] = Field(default_factory=dict)

    def sampling(self) -> dict[str, JsonValue]:
        """The request fields besides model and messages, exactly as sent (and fingerprinted)."""
        return {"temperature": self.temperature, "max_tokens": self.max_tokens, **self.extra_body}

    @property
    def url(self) -> str:
        """The chat-completions endpoint."""
        return self.base_url.rstrip("/") + "/chat/completions"

    def build(self, http: httpx.AsyncClient | None = None) -> ChatClient:
        """A client for this endpoint (``http``: a caller-owned client to reuse)."""
        return ChatClient(self, http=http)


class Completion(BaseModel):
    """The text a model returned, with what the server said about it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    text: str
    model: str | None = None
    finish_reason: str | None = None
    attempts: PositiveInt = 1


class ChatClient:
    """Sends chat requests to one endpoint, retrying infrastructure failures."""

    def __init__(
        self,
        config: ClientConfig,
        *,
        http: httpx.AsyncClient | None = None,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    ) -> None:
        self.config = config
        self._http = http
        self._sleep = sleep
        self._served_model: str | None = None

    def __repr__(self) -> str:
        return f"ChatClient(url={self.config.url!r}, model={self.config.model!r})"

    async def complete(self, messages: Sequence[ChatMessage]) -> Completion:
        """The model's reply to ``messages``.

        Raises:
            PolicyError: the endpoint failed after the last retry, refused the request, or
                answered with something that is not a chat completion.
        """
        if self._http is not None:
            return await self._complete(self._http, messages)
        timeout = httpx.Timeout(self.config.timeout_s, connect=self.config.connect_timeout_s)
        async with httpx.AsyncClient(timeout=timeout) as http:
            return await self._complete(http, messages)

    async def _complete(
        self, http: httpx.AsyncClient, messages: Sequence[ChatMessage]
    ) -> Completion:
        model = self.config.model or self._served_model or await self._discover(http)
        self._served_model = model
        body: dict[str, JsonValue] = {
            "model": model,
            "messages": [message.model_dump(mode="json") for message in messages],
            **self.config.sampling(),
        }
        response, attempts = await self._request(http, self.config.url, body)
        return self._completion(response, attempts)

    async def _discover(self, http: httpx.AsyncClient) -> str:
        """The one model ``GET {base_url}/models`` lists (used when the spec names none)."""
        url = self.config.base_url.rstrip("/") + "/models"
        response, _ = await self._request(http, url, None)
        try:
            names = [str(entry["id"]) for entry in response.json()["data"]]
        except (ValueError, KeyError, TypeError) as exc:
            raise PolicyError(f"GET {url} did not list models: {_excerpt(response.text)}") from exc
        if len(names) != 1:
            raise PolicyError(
                f"GET {url} lists {len(names)} models ({', '.join(names) or 'none'}); "
                "name one in the spec: vlm:ADAPTER@BASE_URL#MODEL"
            )
        return names[0]

    async def check_served(self, timeout_s: float = 10.0) -> list[str]:
        """Ask the endpoint once (``GET {base_url}/models``, no retries) which models it
        serves, before a run spends phone or GPU time; returns their names.

        Raises:
            PolicyError: nothing answers at the URL, it refuses, it lists no models, or it
                does not serve the configured model (the message names the URL and what it
                does serve).
        """
        url = self.config.base_url.rstrip("/") + "/models"
        try:
            async with httpx.AsyncClient(timeout=timeout_s) as http:
                response = await http.get(url, headers=self._headers())
        except httpx.HTTPError as exc:
            raise PolicyError(
                f"no model server answers at {url} ({type(exc).__name__}: {exc}); start it, "
                "or fix the URL in the policy spec (vlm:ADAPTER@BASE_URL#MODEL)"
            ) from exc
        if response.status_code >= 400:
            raise PolicyError(
                f"GET {url} was refused (HTTP {response.status_code}: "
                f"{_excerpt(response.text)}); check the URL and the API key in "
                f"${self.config.api_key_env}"
            )
        try:
            names = [str(entry["id"]) for entry in response.json()["data"]]
        except (ValueError, KeyError, TypeError) as exc:
            raise PolicyError(
                f"GET {url} did not list models ({_excerpt(response.text)}); is this an "
                "OpenAI-compatible endpoint (it ends in /v1)?"
            ) from exc
        wanted = self.config.model
        if wanted is not None and wanted not in names:
            raise PolicyError(
                f"the server at {self.config.base_url} serves {', '.join(names) or 'no model'}, "
                f"not {wanted!r}; name a served model with #MODEL"
            )
        if wanted is None and len(names) != 1:
            raise PolicyError(
                f"GET {url} lists {len(names)} models ({', '.join(names) or 'none'}); "
                "name one in the spec: vlm:ADAPTER@BASE_URL#MODEL"
            )
        return names

    def _headers(self) -> dict[str, str]:
        key = os.environ.get(self.config.api_key_env, "").strip()
        return {"Authorization": f"Bearer {key}"} if key else {}

    async def _request(
        self, http: httpx.AsyncClient, url: str, body: dict[str, JsonValue] | None
    ) -> tuple[httpx.Response, int]:
        """POST ``body`` (GET when None) with retries; the first success and its attempt."""
        method, tries = ("GET" if body is None else "POST"), self.config.max_retries + 1
        last = "no attempt made"
        for attempt in range(1, tries + 1):
            try:
                response = await http.request(method, url, json=body, headers=self._headers())
            except httpx.TransportError as exc:
                last, delay = f"{type(exc).__name__}: {exc}", self._backoff(attempt)
            except httpx.HTTPError as exc:  # DecodingError, TooManyRedirects: not transient
                raise PolicyError(f"{method} {url} failed: {type(exc).__name__}: {exc}") from exc
            else:
                if response.status_code < 400:
                    return response, attempt
                last = f"HTTP {response.status_code}: {_excerpt(response.text)}"
                if not _retryable(response.status_code):
                    raise PolicyError(
                        f"{method} {url} was refused ({last}); check the model name, "
                        f"the API key in ${self.config.api_key_env} and the request"
                    )
                delay = _retry_after(response) or self._backoff(attempt)
            if attempt < tries:
                delay = min(delay, self.config.backoff_max_s)
                _LOG.warning("%s %s failed (%s); retry %d/%d in %.1fs",
                             method, url, last, attempt, tries - 1, delay)  # fmt: skip
                await self._sleep(delay)
        raise PolicyError(
            f"{method} {url} failed after {tries} attempts; last error: {last}. "
            "Check that the model server is running and reachable."
        )

    def _backoff(self, attempt: int) -> float:
        return self.config.backoff_s * 2.0 ** (attempt - 1)

    def _completion(self, response: httpx.Response, attempts: int) -> Completion:
        try:
            body = response.json()
            choice = body["choices"][0]
            text = _content_text(choice["message"].get("content"))
        except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
            raise PolicyError(
                f"POST {self.config.url} answered HTTP {response.status_code} with a body that is "
                f"not a chat completion ({type(exc).__name__}): {_excerpt(response.text)}"
            ) from exc
        return Completion(
            text=text,
            model=body.get("model"),
            finish_reason=choice.get("finish_reason"),
            attempts=attempts,
        )


def _content_text(content: object) -> str:
    """``message.content`` as text: a string, a list of text parts, or null (no text)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(part["text"] for part in content if part.get("type") == "text")
    raise TypeError(f"message.content is a {type(content).__name__}")


def _retryable(status: int) -> bool:
    return status >= 500 or status in _RETRY_STATUS


def _retry_after(response: httpx.Response) -> float | None:
    """Seconds from a numeric ``Retry-After`` header (HTTP dates are ignored)."""
    try:
        value = float(response.headers.get("retry-after", ""))
    except ValueError:
        return None
    return value if value >= 0 else None


def _excerpt(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _EXCERPT else text[: _EXCERPT - 1] + "…"
