"""The Granite 3.1 output processor.

Granite 3.1 writes citations in the ``<co>`` format that the core implements in
:class:`~granite_formatters.granite3.CoCitationOutputProcessor`: ``<co>N</co>`` after
a cited sentence, a ``# Citations:`` list of ``<co>N</co> Document D: "context"``
lines and an optional ``# Hallucinations:`` list. Tool calls are a JSON list after
``<|tool_call|>`` (or the plain ``<tool_call>`` that 3.1 models also emit). There is
no reasoning format, so the processor sets no thought markers and text such as
"Here is my thought process:" stays in the content.
"""

from __future__ import annotations

from granite_formatters.granite3 import CoCitationOutputProcessor

__all__ = ["Granite31OutputProcessor"]


class Granite31OutputProcessor(CoCitationOutputProcessor):
    """Parses Granite 3.1 output (tool calls, citations, hallucinations)."""

    release = "Granite 3.1"
