"""The ``granite-format serve`` application for another ASGI server (needs the ``serve``
extra; see ``docs/serving.md``)."""

from __future__ import annotations

from ._serve import ServeConfig, create_app

__all__ = ["ServeConfig", "create_app"]
