"""Batch jobs on Ray Data: the stages that format and parse Granite requests inside a
``map_batches`` pipeline (needs the ``ray`` extra; see ``docs/batch.md``)."""

from __future__ import annotations

try:
    from ._batch.ray import FormatStage, ParseStage
except ImportError as error:  # pragma: no cover - the core-only cells check this message
    raise ImportError(
        "granite_formatters.batch needs the optional 'ray' extra: "
        "pip install './core[ray]' (from a clone)"
    ) from error

__all__ = ["FormatStage", "ParseStage"]
