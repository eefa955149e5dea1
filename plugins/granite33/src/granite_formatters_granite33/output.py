"""The Granite 3.3 output format: ``<think>``/``<response>`` reasoning and cite tokens.

* Reasoning: ``<think>`` ... ``</think>``, and ``<response>``/``</response>`` tags
  around the answer. A thought cut off before ``</think>`` is reasoning with empty
  content; text outside the response tags (before ``<think>`` or after
  ``</response>``) is kept in the content; response tags are removed with or without
  a think block; a ``</think>`` with no ``<think>`` before it is removed (noted).
* Citations and hallucinations: the cite-token format, which lives in the core
  (:data:`granite_formatters.granite3.CITE_TOKEN_CITATIONS`) so any release can use it.
"""

from __future__ import annotations

from granite_formatters.granite3 import (
    CITE_TOKEN_CITATIONS,
    Granite3OutputProcessor,
    OutputFormat,
)

__all__ = ["GRANITE33_OUTPUT_FORMAT", "Granite33OutputProcessor"]

#: What Granite 3.3 output looks like, as data.
GRANITE33_OUTPUT_FORMAT = OutputFormat(
    release="Granite 3.3",
    citations=CITE_TOKEN_CITATIONS,
    thought_starts=("<think>",),
    thought_ends=("</think>",),
    response_tags=("<response>", "</response>"),
    drop_stray_thought_ends=True,
)


class Granite33OutputProcessor(Granite3OutputProcessor):
    """Parses Granite 3.3 output (reasoning, tool calls, citations, hallucinations)."""

    output_format = GRANITE33_OUTPUT_FORMAT
