"""A release's output format as a declarative ``response_template`` for transformers and
vLLM (see ``docs/runtimes.md``)."""

from __future__ import annotations

from ._export import (
    ExportError,
    release_response_template,
    response_template,
    write_response_template,
)

__all__ = [
    "ExportError",
    "release_response_template",
    "response_template",
    "write_response_template",
]
