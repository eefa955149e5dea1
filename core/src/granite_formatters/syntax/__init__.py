"""The syntax vocabulary: turns, tool calls, system blocks, and the protocols they implement.

Each module holds one syntax serving both directions (written into prompts, read from
output). A :class:`~granite_formatters.Release` composes them; see ``docs/syntaxes.md``.
The Granite 3 citation syntaxes are the subpackage :mod:`.citations`, not imported here
(a release that declares one loads it).
"""

from __future__ import annotations

from .blocks import SystemBlock, listed_function
from .context_turns import DocumentsTurn, DocumentTurnPerDocument, ToolsTurn
from .controls import (
    CONTROL_VALUES,
    CONTROLS,
    Controls,
    controls_problem,
    thinking_option_error,
    valid_control_items,
)
from .json_blocks import JSON_BLOCKS, JsonBlocks, decode_json_block
from .json_list import JSON_LIST, JsonList, decode_json_list, json_list_call_name
from .marked_reasoning import THINK_RESPONSE, THOUGHT_PHRASES, MarkedReasoning
from .protocols import (
    BlockReader,
    HistoryCall,
    HistoryWriter,
    MarkedReasoningSyntax,
    ReasoningSyntax,
    ToolCallDefaults,
    ToolCallSyntax,
    TurnSyntax,
)
from .reasoning import (
    OPENED_THINK,
    OpenedReasoningReader,
    OpenedThink,
    effort_option_error,
    think_option_error,
)
from .system_prompt import DatedSystemPrompt, format_date
from .turns import CHATML, GRANITE_ROLES, ToolResults, Turns
from .xml_functions import (
    XML_FUNCTIONS,
    ToolSchemas,
    XmlBlockReader,
    XmlFunctions,
    decode_arguments,
)

__all__ = [
    "CONTROLS",
    "CONTROL_VALUES",
    "Controls",
    "DatedSystemPrompt",
    "DocumentTurnPerDocument",
    "DocumentsTurn",
    "ToolsTurn",
    "controls_problem",
    "format_date",
    "thinking_option_error",
    "valid_control_items",
    "CHATML",
    "GRANITE_ROLES",
    "JSON_BLOCKS",
    "JSON_LIST",
    "OPENED_THINK",
    "XML_FUNCTIONS",
    "BlockReader",
    "HistoryCall",
    "HistoryWriter",
    "MarkedReasoningSyntax",
    "JsonBlocks",
    "JsonList",
    "MarkedReasoning",
    "THINK_RESPONSE",
    "THOUGHT_PHRASES",
    "OpenedReasoningReader",
    "OpenedThink",
    "ReasoningSyntax",
    "SystemBlock",
    "ToolCallDefaults",
    "ToolCallSyntax",
    "ToolResults",
    "ToolSchemas",
    "TurnSyntax",
    "Turns",
    "XmlBlockReader",
    "XmlFunctions",
    "decode_arguments",
    "decode_json_block",
    "decode_json_list",
    "effort_option_error",
    "json_list_call_name",
    "listed_function",
    "think_option_error",
]
