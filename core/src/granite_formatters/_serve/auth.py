"""The API key check and the request-size limit."""

from __future__ import annotations

import hmac

from starlette.requests import Request

__all__ = ["BodyTooLarge", "authorized", "read_body"]


class BodyTooLarge(Exception):
    """The request body is over the configured limit."""


def authorized(request: Request, api_key: str | None) -> bool:
    """No key configured, or ``Authorization: Bearer KEY``.

    The header's bytes are compared, in constant time, with the key's UTF-8 bytes (the
    way clients send a non-ASCII key), so any Unicode key works.
    """
    if api_key is None:
        return True
    # Starlette decodes header bytes as latin-1: encoding back gives the bytes sent.
    header = request.headers.get("authorization", "").encode("latin-1")
    scheme, _, token = header.partition(b" ")
    if scheme.lower() != b"bearer":
        return False
    return hmac.compare_digest(token.strip(b" \t"), api_key.encode("utf-8"))


async def read_body(request: Request, limit: int) -> bytes:
    """The whole body, refusing (before reading it all) anything over ``limit`` bytes."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise BodyTooLarge
    parts: list[bytes] = []
    size = 0
    async for part in request.stream():
        size += len(part)
        if size > limit:
            raise BodyTooLarge
        parts.append(part)
    return b"".join(parts)
