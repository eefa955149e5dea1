"""The syntax vocabulary: turns, tool calls, system blocks, and the protocols they implement.

Each module holds one syntax serving both directions (written into prompts, read from
output). A :class:`~granite_formatters.Release` composes them; see ``docs/syntaxes.md``.
"""

from __future__ import annotations

from .blocks import SystemBlock
from .json_blocks import JSON_BLOCKS, JsonBlocks, decode_json_block
from .protocols import (
    BlockReader,
    HistoryCall,
    HistoryWriter,
    ReasoningSyntax,
    ToolCallSyntax,
    TurnSyntax,
)
from .turns import CHATML, GRANITE_ROLES, ToolResults, Turns

__all__ = [
    "CHATML",
    "GRANITE_ROLES",
    "JSON_BLOCKS",
    "BlockReader",
    "HistoryCall",
    "HistoryWriter",
    "JsonBlocks",
    "ReasoningSyntax",
    "SystemBlock",
    "ToolCallSyntax",
    "ToolResults",
    "TurnSyntax",
    "Turns",
    "decode_json_block",
]
