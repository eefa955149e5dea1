"""The API key check and the request-size limit."""

from __future__ import annotations

import hmac

from starlette.requests import ClientDisconnect, Request
from starlette.types import Receive

__all__ = ["BodyTooLarge", "authorized", "key_matches", "read_body"]


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
    return key_matches(request.headers.get("authorization", "").encode("latin-1"), api_key)


def key_matches(header: bytes, api_key: str) -> bool:
    """Whether the ``Authorization`` header's bytes ``header`` carry ``Bearer api_key``."""
    scheme, _, token = header.partition(b" ")
    if scheme.lower() != b"bearer":
        return False
    return hmac.compare_digest(token.strip(b" \t"), api_key.encode("utf-8"))


async def read_body(receive: Receive, declared: bytes | None, limit: int) -> bytes:
    """The whole body of the request whose ``receive`` is given, refusing (before reading
    it all) anything over ``limit`` bytes (``declared``: its ``Content-Length`` header);
    :class:`ClientDisconnect` if the client goes before its end."""
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise BodyTooLarge
    parts: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            raise ClientDisconnect
        part = message.get("body", b"")
        size += len(part)
        if size > limit:
            raise BodyTooLarge
        parts.append(part)
        if not message.get("more_body", False):
            return b"".join(parts)
