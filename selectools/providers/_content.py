"""A message's content as a flat list of parts every provider formats its own way.

A :class:`~selectools.types.Message` can carry text, a list of
:class:`~selectools.types.ContentPart`, and the older ``image_path`` /
``image_base64`` fields. :func:`message_parts` reduces all of them to
:class:`Part` values (text, image by URL, image bytes as base64, audio), so the
vendor formatters only translate parts and never re-implement the rules.
Images given as ``data:`` URLs are decoded to base64 parts; a base64 image
without a MIME type gets one sniffed from its first bytes.
"""

from __future__ import annotations

import base64
import binascii
import mimetypes
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..exceptions import ProviderError
from ..types import ContentPart, Message, Role, text_content

__all__ = ["Part", "alternating_turns", "message_parts", "unsupported"]

_PART_TYPES = ("text", "image_url", "image_base64", "audio")
_SIGNATURES = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


@dataclass(frozen=True, slots=True)
class Part:
    """One piece of content: ``kind`` is ``"text"``, ``"image"`` or ``"audio"``.

    An image has either ``url`` (a public URL) or ``data`` (base64) with
    ``media_type``; audio always has ``data`` and ``media_type``.
    """

    kind: str
    text: str = ""
    url: str | None = None
    data: str | None = None
    media_type: str | None = None


def unsupported(provider: str, what: str, fix: str) -> ProviderError:
    """The error for input a provider's API cannot take (never worth retrying)."""
    return ProviderError(
        f"{provider} cannot send {what}: {fix}", provider=provider.lower(), retryable=False
    )


def _sniff(data: str) -> str:
    try:
        head = base64.b64decode(data[:24] + "=" * (-len(data[:24]) % 4), validate=False)
    except (binascii.Error, ValueError):
        return "image/jpeg"
    for signature, media_type in _SIGNATURES:
        if head.startswith(signature):
            return media_type
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return "image/jpeg"


def _image_from_url(url: str) -> Part:
    if url.startswith("data:"):
        header, _, payload = url[5:].partition(",")
        if ";base64" not in header or not payload:
            raise ProviderError(
                "an image data: URL must be base64 encoded (data:image/png;base64,...)",
                retryable=False,
            )
        media_type = header.split(";", 1)[0] or _sniff(payload)
        return Part("image", data=payload, media_type=media_type)
    return Part("image", url=url, media_type=mimetypes.guess_type(url)[0])


def _from_content_part(part: ContentPart) -> Part | None:
    kind = part.type
    if kind == "text":
        return Part("text", text=part.text or "") if part.text else None
    if kind == "image_url":
        if not part.image_url:
            raise ProviderError(
                "ContentPart(type='image_url') needs image_url=...", retryable=False
            )
        return _image_from_url(part.image_url)
    if kind == "image_base64":
        if not part.image_base64:
            raise ProviderError(
                "ContentPart(type='image_base64') needs image_base64=...", retryable=False
            )
        media_type = part.media_type or _sniff(part.image_base64)
        return Part("image", data=part.image_base64, media_type=media_type)
    if kind == "audio":
        if not part.image_base64:
            raise ProviderError(
                "ContentPart(type='audio') needs the base64 audio in image_base64=... "
                "and media_type='audio/wav' (or audio/mpeg)",
                retryable=False,
            )
        return Part("audio", data=part.image_base64, media_type=part.media_type or "audio/wav")
    raise ProviderError(
        f"unknown ContentPart type {kind!r}; use one of {', '.join(_PART_TYPES)}",
        retryable=False,
    )


def _from_path(path: str) -> Part:
    file = Path(path)
    try:
        raw = file.read_bytes()
    except OSError as exc:
        raise ProviderError(
            f"cannot read Message.image_path {path!r} ({exc.strerror or exc}); "
            "pass an existing image file",
            retryable=False,
        ) from None
    media_type = mimetypes.guess_type(file.name)[0] or "image/jpeg"
    return Part("image", data=base64.b64encode(raw).decode("ascii"), media_type=media_type)


def message_parts(message: Message) -> list[Part]:
    """Every part of ``message`` in order: its content, then legacy image fields."""
    parts: list[Part] = []
    content = message.content
    if isinstance(content, str):
        if content:
            parts.append(Part("text", text=content))
    else:
        for item in content:
            part = _from_content_part(item)
            if part is not None:
                parts.append(part)
    if message.image_path:
        parts.append(_from_path(message.image_path))
    if message.image_base64:
        parts.append(
            Part("image", data=message.image_base64, media_type=_sniff(message.image_base64))
        )
    return parts


def alternating_turns(
    system_prompt: str,
    messages: Sequence[Message],
    turn: Callable[[Message], tuple[str, list[dict[str, Any]]]],
    key: str,
) -> tuple[list[str], list[dict[str, Any]]]:
    """System texts, and the other messages as ``{"role": ..., key: [...]}`` turns.

    For APIs that take the system prompt apart and require roles to alternate
    (Anthropic, Gemini): ``turn(message)`` gives a message's role and blocks, and
    adjacent turns of one role are merged (parallel tool results share a turn).
    """
    system = [system_prompt] if system_prompt else []
    turns: list[dict[str, Any]] = []
    for message in messages:
        if message.role is Role.SYSTEM:
            system.append(text_content(message))
            continue
        role, blocks = turn(message)
        if not blocks:
            continue
        if turns and turns[-1]["role"] == role:
            turns[-1][key].extend(blocks)
        else:
            turns.append({"role": role, key: blocks})
    return system, turns
