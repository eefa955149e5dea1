"""Refusing requests a web page made: the ``Host`` check and the ``Origin`` (CORS) check.

A page the user opens can send requests to a server on the user's machine: a
``text/plain`` POST needs no CORS preflight, and after DNS rebinding the page's own name
points at the loopback address, so it may even read the answers. Two checks stop that:

- **Host**: unless an API key is required (and no ``--allowed-hosts`` are given), the
  ``Host`` header must name a loopback host (``localhost``, ``*.localhost``, ``127.0.0.0/8``,
  ``::1``, ``::ffff:127.0.0.1``), the address the request arrived on, the ``--host`` the
  server binds, or one of ``--allowed-hosts`` (``*`` allows any). A rebinding page sends
  its own name and is refused.
- **Origin**: a request that carries an ``Origin`` header (every cross-origin browser request
  does) is refused unless ``--cors-origin`` lists that origin (or ``*``); for a listed
  origin, preflight requests are answered and responses carry the CORS headers.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .responses import error_response

__all__ = ["RequestGuard", "host_name", "is_loopback"]

_ALLOWED_METHODS = "GET, POST, OPTIONS"
_ALLOWED_HEADERS = "authorization, content-type"


def host_name(header: str) -> str:
    """The host of a ``Host`` header value, lower case, without port, brackets or final dot."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1:].partition("]")[0]
    name, sep, port = header.rpartition(":")
    if sep and port.isdigit() and ":" not in name:
        header = name
    return header.rstrip(".")


def is_loopback(name: str) -> bool:
    """Whether host ``name`` (from :func:`host_name`) is a loopback host; an IPv4-mapped IPv6
    address (``::ffff:127.0.0.1``) is one on every Python version (before 3.13 the standard
    library says it is not)."""
    name = name.strip().lower().rstrip(".")
    if name.startswith("[") and name.endswith("]"):
        name = name[1:-1]
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped.is_loopback
    return address.is_loopback


class RequestGuard:
    """ASGI middleware applying the two checks before the application sees a request."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        check_host: bool,
        allowed_hosts: Iterable[str] = (),
        bound_host: str = "127.0.0.1",
        cors_origins: Iterable[str] = (),
    ) -> None:
        self.app = app
        self.check_host = check_host
        self.hosts = {host_name(h) for h in allowed_hosts} | {host_name(bound_host)}
        self.any_host = "*" in self.hosts
        self.origins = {o.rstrip("/").lower() for o in cors_origins}
        self.any_origin = "*" in self.origins

    def host_allowed(self, scope: Scope, header: str | None) -> bool:
        if header is None:  # HTTP/1.0 without Host: not a browser
            return True
        name = host_name(header)
        if self.any_host or name in self.hosts or is_loopback(name):
            return True
        server = scope.get("server")
        if not server:
            return False
        return name == str(server[0]).lower()

    def origin_allowed(self, origin: str) -> bool:
        return self.any_origin or origin.rstrip("/").lower() in self.origins

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        admitted = await self.admit(scope, receive, send)
        if admitted is not None:
            await self.app(scope, receive, admitted)

    async def admit(self, scope: Scope, receive: Receive, send: Send) -> Send | None:
        """Apply the checks to HTTP request ``scope``: the ``send`` to answer it with (with
        the CORS headers for a listed origin), or ``None`` when it has been answered here
        (a refusal, or a preflight request)."""
        host = origin = None
        has_preflight_method = False
        for name, value in scope["headers"]:
            if name == b"host":
                host = value.decode("latin-1") if host is None else host
            elif name == b"origin":
                origin = value.decode("latin-1") if origin is None else origin
            elif name == b"access-control-request-method":
                has_preflight_method = True
        if self.check_host and not self.host_allowed(scope, host):
            refusal = error_response(
                403,
                "the Host header names a host this server does not answer to (see --allowed-hosts)",
                code="host_not_allowed",
            )
            await refusal(scope, receive, send)
            return None
        if origin is None:
            return send
        if not self.origin_allowed(origin):
            refusal = error_response(
                403,
                "cross-origin requests from this origin are not allowed (see --cors-origin)",
                code="origin_not_allowed",
            )
            await refusal(scope, receive, send)
            return None
        cors = [
            (b"access-control-allow-origin", origin.encode("latin-1")),
            (b"vary", b"Origin"),
        ]
        if scope["method"] == "OPTIONS" and has_preflight_method:
            await send(
                {
                    "type": "http.response.start",
                    "status": 204,
                    "headers": [
                        *cors,
                        (b"access-control-allow-methods", _ALLOWED_METHODS.encode()),
                        (b"access-control-allow-headers", _ALLOWED_HEADERS.encode()),
                        (b"access-control-max-age", b"600"),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": b""})
            return None

        async def send_with_cors(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *cors]}
            await send(message)

        return send_with_cors
