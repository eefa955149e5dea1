"""Reasoning the model marks itself, anywhere in its output: Granite 3.2 and 3.3.

Granite 3.2 writes ``Here is my thought process:`` … ``Here is my response:`` (also
``Here's``, straight or curly apostrophe); Granite 3.3 writes ``<think>`` … ``</think>``
and wraps its answer in ``<response>`` tags. The prompt opens nothing (the system prompt
asks for the markers), and past reasoning is not written back into history. Read from
output by the engine's parser: text before the first start marker is content, text
up to the first end marker is reasoning. The specification is in
``docs/output-formats.md``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

__all__ = ["THINK_RESPONSE", "THOUGHT_PHRASES", "MarkedReasoning"]


@attrs.frozen
class MarkedReasoning:
    """Reasoning between start and end markers the model writes (the prompt opens none).
    Implements :class:`~granite_formatters.syntax.ReasoningSyntax`.

    ``starts``/``ends`` are the markers (any of them), ``response_tags`` are removed from
    the content when reasoning is read, ``drop_stray_ends`` removes an end marker with
    no start before it (noted). Reasoning is read when the request's ``thinking`` option
    is true or not given, from a start marker anywhere in the content before a tool
    call.
    """

    starts: tuple[str, ...]
    ends: tuple[str, ...]
    response_tags: tuple[str, ...] = ()
    drop_stray_ends: bool = False

    @property
    def open(self) -> str:
        return self.starts[0]

    @property
    def close(self) -> str:
        return self.ends[0]

    @property
    def after_close(self) -> str:
        return ""

    def generation_prompt(self, options: Mapping[str, Any]) -> str:
        return ""

    def last_user_suffix(self, options: Mapping[str, Any]) -> str:
        return ""

    def history(
        self,
        content: str,
        reasoning: str | None,
        *,
        historical: bool,
        tool_calls: bool,
        options: Mapping[str, Any],
    ) -> str:
        """``content`` as it is: the templates do not write past reasoning."""
        return content

    def starts_inside(self, options: Mapping[str, Any]) -> bool:
        return False

    def removed_when_off(self, options: Mapping[str, Any]) -> str:
        return ""

    def reads(self, given: Mapping[str, Any]) -> bool:
        """True when ``thinking`` is not given, or given true."""
        return "thinking" not in given or bool(given["thinking"])

    def marked(self) -> MarkedReasoning:
        return self

    def stray_end_note(self, marker: str, offset: int) -> str:
        from ._marked_stage import stray_end_removed

        return stray_end_removed(marker, offset)

    def unclosed_note(self) -> str:
        from ._marked_stage import reasoning_unclosed

        return reasoning_unclosed(self.close)


_HERE = ("Here is", "Here's", "Here\u2019s")

#: Granite 3.2's phrases.
THOUGHT_PHRASES = MarkedReasoning(
    starts=tuple(f"{here} my thought process:" for here in _HERE),
    ends=tuple(f"{here} my response:" for here in _HERE),
)

#: Granite 3.3's ``<think>`` block and ``<response>`` tags.
THINK_RESPONSE = MarkedReasoning(
    starts=("<think>",),
    ends=("</think>",),
    response_tags=("<response>", "</response>"),
    drop_stray_ends=True,
)
