"""The Granite 3.2 output format: the ``<co>`` citation format plus 3.2 reasoning.

* Reasoning: ``Here is my thought process:`` ... ``Here is my response:`` (also
  ``Here's``, with a straight or curly apostrophe). Text before the thought marker is
  content; a response marker with no thought marker before it is left in the content.
* Citations and hallucinations: the ``<co>`` format shared with Granite 3.1
  (:data:`granite_formatters.granite3.CO_CITATIONS`).
"""

from __future__ import annotations

from granite_formatters.granite3 import CO_CITATIONS, Granite3OutputProcessor, OutputFormat

__all__ = ["GRANITE32_OUTPUT_FORMAT", "THOUGHT_ENDS", "THOUGHT_STARTS", "Granite32OutputProcessor"]

_APOSTROPHES = ("Here is", "Here's", "Here\u2019s")
THOUGHT_STARTS = tuple(f"{here} my thought process:" for here in _APOSTROPHES)
THOUGHT_ENDS = tuple(f"{here} my response:" for here in _APOSTROPHES)

#: What Granite 3.2 output looks like, as data.
GRANITE32_OUTPUT_FORMAT = OutputFormat(
    release="Granite 3.2",
    citations=CO_CITATIONS,
    thought_starts=THOUGHT_STARTS,
    thought_ends=THOUGHT_ENDS,
)


class Granite32OutputProcessor(Granite3OutputProcessor):
    """Parses Granite 3.2 output (reasoning, tool calls, citations, hallucinations)."""

    output_format = GRANITE32_OUTPUT_FORMAT
