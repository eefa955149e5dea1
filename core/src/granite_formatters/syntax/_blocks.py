"""System-turn blocks: a prefix, one compact JSON line per item, a suffix.

Granite 4.0/4.1 list the request's tools and documents this way in the system turn;
the wording around the lines is release data (each release declares its blocks).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import attrs

from .._errors import InvalidRequestError, quote

__all__ = ["SystemBlock", "listed_function"]

_DROPPED_TOOL_KEYS = ("defer_loading", "strict")
_KEY_BREAKING = frozenset('"\\') | {chr(code) for code in range(0x20)}


def listed_function(tool: Any) -> Any:
    """A tool as the ChatML templates list it (Granite 4.2): an OpenAI
    ``{"type": "function", "function": {...}}`` wrapper unwrapped, the keys ``strict``
    and ``defer_loading`` dropped, and ``None`` (left out) when ``defer_loading`` is
    true. A :attr:`SystemBlock.item`."""
    if not isinstance(tool, Mapping):
        return tool
    if "function" in tool:
        tool = tool["function"]
        if not isinstance(tool, Mapping):
            return tool
    if tool.get("defer_loading"):
        return None
    for key in tool:
        if isinstance(key, str) and not _KEY_BREAKING.isdisjoint(key):
            # The template prints each key between quotes without escaping it.
            raise InvalidRequestError(
                f"the key {quote(key)} holds a quote, backslash or control character, which "
                "the chat template prints unescaped (invalid JSON in the prompt)",
                field="tools",
            )
    return {key: value for key, value in tool.items() if key not in _DROPPED_TOOL_KEYS}


@attrs.frozen
class SystemBlock:
    """A block of the system turn: ``prefix``, then ``"\\n"`` + one JSON line per item,
    then ``suffix``.

    ``item``, when given, maps each caller item to the value written (``None`` leaves
    the item out); the block is printed whenever the caller's list is non-empty.
    """

    prefix: str
    suffix: str
    item: Callable[[Any], Any] | None = None

    def write(self, lines: str) -> str:
        """The block around ``lines`` (the items' JSON lines, each after a newline)."""
        return self.prefix + lines + self.suffix
