"""The syntax vocabulary a :class:`~granite_formatters.Release` composes: the protocols a
syntax implements, the bundled syntax values, the context turns and system prompts a
release declares, and the checks of its template options.

Each private module holds one syntax serving both directions (written into prompts,
read from output); see ``docs/syntaxes.md``. The Granite 3 citation syntaxes are in the
private subpackage ``_citations``, loaded only by a release that declares one (their
public names are in :mod:`granite_formatters.granite3`).

Each name is imported from its module on first access, so that a release declaration
loads only the syntaxes it names.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_getattr

if TYPE_CHECKING:
    from ._blocks import SystemBlock, listed_function
    from ._context_turns import DocumentsTurn, DocumentTurnPerDocument, ToolsTurn
    from ._controls import CONTROLS, thinking_option_error
    from ._dated_layout import DatedLayout
    from ._json_blocks import JSON_BLOCKS
    from ._json_list import JSON_LIST
    from ._marked_reasoning import THINK_RESPONSE, THOUGHT_PHRASES
    from ._protocols import (
        BlockReader,
        HistoryCall,
        HistoryWriter,
        MarkedReasoningSyntax,
        ReasoningSyntax,
        ToolCallDefaults,
        ToolCallSyntax,
        TurnSyntax,
    )
    from ._reasoning import OPENED_THINK, effort_option_error, think_option_error
    from ._system_blocks_layout import SystemBlocksLayout
    from ._system_prompt import DatedSystemPrompt
    from ._turns import CHATML, GRANITE_ROLES
    from ._xml_functions import XML_FUNCTIONS

__all__ = [
    # The protocols a syntax implements.
    "BlockReader",
    "HistoryCall",
    "HistoryWriter",
    "MarkedReasoningSyntax",
    "ReasoningSyntax",
    "ToolCallDefaults",
    "ToolCallSyntax",
    "TurnSyntax",
    # The bundled syntaxes.
    "CHATML",
    "GRANITE_ROLES",
    "JSON_BLOCKS",
    "JSON_LIST",
    "XML_FUNCTIONS",
    "OPENED_THINK",
    "THINK_RESPONSE",
    "THOUGHT_PHRASES",
    "CONTROLS",
    # The two prompt layouts a release names.
    "DatedLayout",
    "SystemBlocksLayout",
    # What a release declares around them.
    "DatedSystemPrompt",
    "DocumentTurnPerDocument",
    "DocumentsTurn",
    "SystemBlock",
    "ToolsTurn",
    "listed_function",
    # The checks of template options.
    "effort_option_error",
    "think_option_error",
    "thinking_option_error",
]

_LAZY = {
    "SystemBlock": "_blocks",
    "listed_function": "_blocks",
    "DocumentsTurn": "_context_turns",
    "DocumentTurnPerDocument": "_context_turns",
    "ToolsTurn": "_context_turns",
    "CONTROLS": "_controls",
    "thinking_option_error": "_controls",
    "DatedLayout": "_dated_layout",
    "JSON_BLOCKS": "_json_blocks",
    "JSON_LIST": "_json_list",
    "THINK_RESPONSE": "_marked_reasoning",
    "THOUGHT_PHRASES": "_marked_reasoning",
    "BlockReader": "_protocols",
    "HistoryCall": "_protocols",
    "HistoryWriter": "_protocols",
    "MarkedReasoningSyntax": "_protocols",
    "ReasoningSyntax": "_protocols",
    "ToolCallDefaults": "_protocols",
    "ToolCallSyntax": "_protocols",
    "TurnSyntax": "_protocols",
    "OPENED_THINK": "_reasoning",
    "effort_option_error": "_reasoning",
    "think_option_error": "_reasoning",
    "SystemBlocksLayout": "_system_blocks_layout",
    "DatedSystemPrompt": "_system_prompt",
    "CHATML": "_turns",
    "GRANITE_ROLES": "_turns",
    "XML_FUNCTIONS": "_xml_functions",
}

__getattr__ = lazy_getattr(__name__, _LAZY, globals())


def __dir__() -> list[str]:
    return sorted(__all__)
