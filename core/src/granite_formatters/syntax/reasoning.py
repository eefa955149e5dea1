"""The ``<think>`` reasoning syntax whose block the prompt may already have opened.

Granite 4.2 ends its generation prompt with ``<think>\\n`` (thinking on) or
``<think></think>`` (thinking off), so its output begins inside the reasoning; past
reasoning is written back into assistant history as ``<think>\\nREASONING\\n</think>\\n``,
cut from turns before the last user message. The specification is in
``docs/granite42.md``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from ..errors import quote

__all__ = ["OPENED_THINK", "OpenedThink", "effort_option_error", "think_option_error"]

_OPEN = "<think>"
_CLOSE = "</think>"
_EMPTY_THOUGHT = _OPEN + _CLOSE
_LOW_EFFORT_SUFFIX = "\n\n{reasoning effort: low}"


def think_option_error(value: Any) -> str | None:
    """Why a value of ``enable_thinking``, ``low_effort`` or ``truncate_history_thinking``
    is refused (the check of those release options)."""
    if value is None or isinstance(value, bool):
        return None
    return f"must be true or false, not {quote(value)}"


def effort_option_error(value: Any) -> str | None:
    """Why a value of ``reasoning_effort`` is refused (a string or null is accepted)."""
    if value is None or isinstance(value, str):
        return None
    return f"must be a string such as 'low' or 'high', not {quote(value)}"


def _low_effort(options: Mapping[str, Any]) -> bool:
    # A non-null reasoning_effort decides low effort (the template's mapping).
    effort = options.get("reasoning_effort")
    if effort is not None:
        return bool(effort == "low")
    return bool(options.get("low_effort", False))


def _body(content: str, reasoning: Any, truncated: bool, with_calls: bool) -> str:
    """An assistant history turn's text, between its header and its tool calls."""
    if isinstance(reasoning, str) and reasoning.strip():
        text = _OPEN + "\n" + reasoning + "\n" + _CLOSE + "\n" + content
    elif _OPEN not in content and _CLOSE not in content:
        text = _EMPTY_THOUGHT + content
    else:
        text = content
    if with_calls:
        if not text.strip():
            return _EMPTY_THOUGHT
        if not truncated:
            return text.strip() + "\n"
        if _CLOSE in text:
            text = text.rsplit(_CLOSE, 1)[1]
        elif _OPEN in text:
            text = text.split(_OPEN, 1)[0]
        return _EMPTY_THOUGHT + text.strip() + "\n"
    if truncated and _OPEN in text and _CLOSE in text:
        text = _EMPTY_THOUGHT + text.rsplit(_CLOSE, 1)[1]
    return text.strip()


@attrs.frozen
class OpenedThink:
    """A ``<think>`` block that the generation prompt opens (or closes empty when thinking
    is off). Implements :class:`~granite_formatters.syntax.ReasoningSyntax`.

    Options read: ``enable_thinking`` (default true), ``low_effort``,
    ``reasoning_effort`` (non-null: low effort is ``== "low"``),
    ``truncate_history_thinking`` (default true).
    """

    open: str = _OPEN
    close: str = _CLOSE
    after_close: str = "\n"

    def generation_prompt(self, options: Mapping[str, Any]) -> str:
        return _OPEN + "\n" if self.starts_inside(options) else _EMPTY_THOUGHT

    def last_user_suffix(self, options: Mapping[str, Any]) -> str:
        return _LOW_EFFORT_SUFFIX if _low_effort(options) else ""

    def history(
        self,
        content: str,
        reasoning: str | None,
        *,
        historical: bool,
        tool_calls: bool,
        options: Mapping[str, Any],
    ) -> str:
        """Past reasoning folded into the text as ``<think>\\n…\\n</think>\\n``, a
        ``<think></think>`` added where there is none, the reasoning of a historical
        turn cut (with ``truncate_history_thinking``); trimmed, and ending in a newline
        before tool calls."""
        truncated = historical and bool(options.get("truncate_history_thinking", True))
        return _body(content, reasoning, truncated, tool_calls)

    def starts_inside(self, options: Mapping[str, Any]) -> bool:
        return bool(options.get("enable_thinking", True))

    def removed_when_off(self, options: Mapping[str, Any]) -> str:
        return "" if self.starts_inside(options) else _EMPTY_THOUGHT


#: Granite 4.2's reasoning.
OPENED_THINK = OpenedThink()
