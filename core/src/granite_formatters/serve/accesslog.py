"""One log line per request through :mod:`logging` (no handlers are configured here)."""

from __future__ import annotations

import logging
import time

import attrs

from .backends import Usage

__all__ = ["LOGGER", "RequestLog"]

LOGGER = logging.getLogger("granite_formatters.serve")


@attrs.define
class RequestLog:
    """Collects what the request's log line reports; :meth:`emit` writes it once."""

    model: str = "-"
    stream: bool = False
    status: int = 200
    usage: Usage | None = None
    error: str | None = None
    started: float = attrs.field(factory=time.perf_counter)
    _done: bool = False

    def emit(self) -> None:
        if self._done:
            return
        self._done = True
        usage = self.usage or Usage()
        LOGGER.info(
            "chat model=%s stream=%s status=%d latency_ms=%.1f prompt_tokens=%d "
            "completion_tokens=%d%s",
            self.model,
            "yes" if self.stream else "no",
            self.status,
            (time.perf_counter() - self.started) * 1000,
            usage.prompt_tokens,
            usage.completion_tokens,
            f" error={self.error!r}" if self.error else "",
        )
