"""The Granite 3.2 output processor: the ``<co>`` citation format plus 3.2 reasoning.

* Reasoning: ``Here is my thought process:`` ... ``Here is my response:`` (also
  ``Here's``, with a straight or curly apostrophe). Text before the thought marker is
  content; a response marker with no thought marker before it is left in the content.
* Citations and hallucinations: the ``<co>`` format shared with Granite 3.1, see
  :mod:`granite_formatters.granite3.co_format`.
"""

from __future__ import annotations

from granite_formatters.granite3.co_format import CoCitationOutputProcessor

__all__ = ["THOUGHT_ENDS", "THOUGHT_STARTS", "Granite32OutputProcessor"]

_APOSTROPHES = ("Here is", "Here's", "Here\u2019s")
THOUGHT_STARTS = tuple(f"{here} my thought process:" for here in _APOSTROPHES)
THOUGHT_ENDS = tuple(f"{here} my response:" for here in _APOSTROPHES)


class Granite32OutputProcessor(CoCitationOutputProcessor):
    """Parses Granite 3.2 output (reasoning, tool calls, citations, hallucinations)."""

    release = "Granite 3.2"
    thought_starts = THOUGHT_STARTS
    thought_ends = THOUGHT_ENDS
