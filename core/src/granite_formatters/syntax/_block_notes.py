"""The notes about a tool-call block in output, worded alike for every tool-call syntax.

The syntax words why a block is not a call (its ``reader_note``, ``not_closed_note``,
``unfinished_note`` and what ``decode`` returns); these put that reason in the sentence
every note about a block shares: which block, where, and what became of it.
"""

from __future__ import annotations

__all__ = ["closes_no_call", "holds_no_call", "kept_as_content", "not_a_call"]


def kept_as_content(marker: str, offset: int, why: str) -> str:
    """A block (opened by ``marker`` at ``offset``) that ``why`` keeps in the content."""
    return f"the {marker} block at offset {offset} {why}; kept as content"


def not_a_call(marker: str, offset: int, why: str) -> str:
    """A whole block whose body the syntax did not read as a call, ``why`` being its
    reason."""
    return kept_as_content(marker, offset, f"is not a tool call: {why}")


def holds_no_call(marker: str, offset: int) -> str:
    """A block whose body reads as no call at all (an empty list)."""
    return f"the {marker} block at offset {offset} holds no call"


def closes_no_call(marker: str, offset: int) -> str:
    """An end ``marker`` at ``offset`` outside a block, removed, with no call before it."""
    return f"removed {marker} at offset {offset}: it closes no tool call"
