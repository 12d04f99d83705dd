"""Chat messages of the OpenAI-compatible API, as typed models.

Adapters build lists of :class:`ChatMessage`; the client serializes them with
``model_dump(mode="json")`` into the ``messages`` of ``POST /chat/completions``. Images travel
as ``data:`` URLs (``Screenshot.data_url``), never as pixel lists.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "ChatMessage",
    "ContentPart",
    "ImagePart",
    "ImageURL",
    "TextPart",
    "assistant",
    "image_urls",
    "message_text",
    "system",
    "user",
]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ImageURL(_Model):
    """The ``image_url`` object of an image part: a URL (here always a ``data:`` URL)."""

    url: str


class TextPart(_Model):
    """A text part of a message's content."""

    type: Literal["text"] = "text"
    text: str


class ImagePart(_Model):
    """An image part of a message's content."""

    type: Literal["image_url"] = "image_url"
    image_url: ImageURL


ContentPart = Annotated[TextPart | ImagePart, Field(discriminator="type")]
"""One part of a multimodal message."""


class ChatMessage(_Model):
    """One chat message: a role and either plain text or a list of parts."""

    role: Literal["system", "user", "assistant"]
    content: str | list[ContentPart]


def system(text: str) -> ChatMessage:
    """A system message with one text part (the form vLLM's multimodal templates expect)."""
    return ChatMessage(role="system", content=[TextPart(text=text)])


def user(*parts: str | ImageURL | None) -> ChatMessage:
    """A user message: strings become text parts, :class:`ImageURL` image parts; None is
    skipped (an optional part)."""
    content: list[ContentPart] = []
    for part in parts:
        if isinstance(part, ImageURL):
            content.append(ImagePart(image_url=part))
        elif part is not None:
            content.append(TextPart(text=part))
    return ChatMessage(role="user", content=content)


def assistant(text: str) -> ChatMessage:
    """An assistant message replaying an earlier model output."""
    return ChatMessage(role="assistant", content=text)


def image_urls(messages: list[ChatMessage]) -> list[str]:
    """Every image URL in ``messages``, in order (for tests and request logging)."""
    return [
        part.image_url.url
        for message in messages
        if isinstance(message.content, list)
        for part in message.content
        if isinstance(part, ImagePart)
    ]


def message_text(message: ChatMessage) -> str:
    """The text of a message, its text parts joined by newlines."""
    if isinstance(message.content, str):
        return message.content
    return "\n".join(part.text for part in message.content if isinstance(part, TextPart))
