"""The API key check and the request-size limit."""

from __future__ import annotations

import hmac

from starlette.requests import Request

__all__ = ["BodyTooLarge", "authorized", "read_body"]


class BodyTooLarge(Exception):
    """The request body is over the configured limit."""


def authorized(request: Request, api_key: str | None) -> bool:
    """No key configured, or ``Authorization: Bearer KEY`` (compared in constant time)."""
    if api_key is None:
        return True
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer":
        return False
    return hmac.compare_digest(token.strip().encode(), api_key.encode())


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
