"""One log line per request through :mod:`logging`, and the server's logging setup.

Client strings (the model name, the field of an error) are escaped and cut short, so no
request can forge a log line or write a megabyte one. Nothing here configures logging at
import; :func:`configure_logging` is what ``granite-format serve`` calls.
"""

from __future__ import annotations

import logging
import re
import sys
import time

import attrs
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .backends import Usage

__all__ = [
    "LIBRARY_LOGGERS",
    "LOGGER",
    "AccessLog",
    "RequestLog",
    "configure_logging",
    "log_http",
    "loggable",
    "mark_logged",
]

LOGGER = logging.getLogger("granite_formatters.serve")

#: Loggers of the libraries the server runs on: ``httpx`` logs every backend request (a
#: second line per request), ``httpcore`` the connection's traffic and ``sse_starlette``
#: every event it sends (the generated text) at debug level. They log warnings and errors
#: only, whatever ``--log-level`` says.
LIBRARY_LOGGERS = ("httpx", "httpcore", "sse_starlette", "hpack", "multipart")

#: How many characters of a client string a log line shows.
_LOG_VALUE_LIMIT = 80

# Characters that could end or fake a line, or that no log stream can encode.
_UNSAFE = re.compile(r"[\x00-\x1f\x7f-\x9f\\\u2028\u2029\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    return "\\\\" if char == "\\" else f"\\u{ord(char):04x}"


def loggable(value: str, limit: int = _LOG_VALUE_LIMIT) -> str:
    """``value`` for a log line: control characters escaped, cut to ``limit`` characters."""
    cut = value[:limit]
    text = _UNSAFE.sub(_escape, cut)
    if len(value) > limit:
        text += f"...({len(value)} chars)"
    return text


def configure_logging(level: str) -> None:
    """Log to stderr at ``level``; the library loggers at warning level."""
    logging.basicConfig(
        level=level.upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    for name in LIBRARY_LOGGERS:
        logging.getLogger(name).setLevel(logging.WARNING)


#: The scope key a route sets when it writes the request's line itself.
_LOGGED = "granite_formatters.logged"


def mark_logged(scope: Scope) -> None:
    """Tell :class:`AccessLog` that this request's line is the route's own."""
    scope[_LOGGED] = True


class AccessLog:
    """ASGI middleware: one line for each request that no route logged itself.

    The chat route writes its own, richer line (:class:`RequestLog`); every other request
    (model lists, health checks, refusals, unknown routes) gets
    ``http method=GET path=/v1/models status=200 latency_ms=...``.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500

        async def send_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_status)
        finally:
            if not scope.get(_LOGGED):
                log_http(scope, status, started)


def log_http(scope: Scope, status: int, started: float) -> None:
    """The line of a request no route logged (``started``: its ``perf_counter`` time)."""
    LOGGER.info(
        "http method=%s path=%s status=%d latency_ms=%.1f",
        loggable(scope["method"], 16),
        loggable(scope["path"]),
        status,
        (time.perf_counter() - started) * 1000,
    )


@attrs.define
class RequestLog:
    """Collects what the request's log line reports; :meth:`emit` writes it once."""

    model: str = "-"
    stream: bool = False
    status: int = 200
    usage: Usage | None = None
    error: str | None = None
    #: The code of a warning the answer carries (``special_tokens_dropped``).
    warning: str | None = None
    started: float = attrs.field(factory=time.perf_counter)
    _done: bool = False

    def emit(self) -> None:
        if self._done:
            return
        self._done = True
        if not LOGGER.isEnabledFor(logging.INFO):
            return
        usage = self.usage  # None: the backend did not count (or never answered): "-"
        LOGGER.info(
            "chat model=%s stream=%s status=%d latency_ms=%.1f prompt_tokens=%s "
            "completion_tokens=%s%s%s",
            loggable(self.model),
            "yes" if self.stream else "no",
            self.status,
            (time.perf_counter() - self.started) * 1000,
            "-" if usage is None else usage.prompt_tokens,
            "-" if usage is None else usage.completion_tokens,
            f" error={loggable(self.error, 200)}" if self.error else "",
            f" warning={self.warning}" if self.warning else "",
        )
