"""Granite 3.1 as data: its release declaration.

Granite's role-token turns, the Granite 3 dated default system prompt with the 3.1
wording (no thinking mode), the tools in a ``tools`` turn and the documents in one
``documents`` turn after the system turn, ``<|tool_call|>`` JSON lists (also
``<tool_call>``) and the ``<co>`` citations, all syntaxes the core provides. The plugin
registers its models with this release; the core's engine renders and parses it.
"""

from __future__ import annotations

from granite_formatters import Release
from granite_formatters.granite3 import CO_CITATIONS, GRANITE3_SPECIAL_TOKENS, TOOL_CALL
from granite_formatters.granite3.prompt_format import (
    CO_CITATIONS_INSTRUCTION,
    DOCUMENTS_INSTRUCTION,
    HALLUCINATIONS_INSTRUCTION,
    PLAIN_INSTRUCTION,
    PREAMBLE,
    TOOLS_AND_DOCUMENTS_INSTRUCTION,
    TOOLS_INSTRUCTION,
)
from granite_formatters.release import Option
from granite_formatters.syntax import (
    CONTROLS,
    GRANITE_ROLES,
    JSON_LIST,
    DatedSystemPrompt,
    DocumentsTurn,
    ToolsTurn,
)

__all__ = ["GRANITE31"]

#: Granite 3.1 (the ``granite-3.1-8b-instruct`` template, shared by the four models).
GRANITE31 = Release(
    name="Granite 3.1",
    family="Granite 3",
    turns=GRANITE_ROLES,
    special_tokens=GRANITE3_SPECIAL_TOKENS,
    stop_strings=("<|end_of_text|>",),
    tool_calls=JSON_LIST,
    tool_call_markers=("<tool_call>",),
    tool_call_ends=("</tool_call>",),
    dropped_tokens=("<|end_of_text|>",),
    citations=CO_CITATIONS,
    system_prompt=DatedSystemPrompt(
        preamble=PREAMBLE,
        tools=TOOLS_INSTRUCTION,
        tools_and_documents=TOOLS_AND_DOCUMENTS_INSTRUCTION,
        documents=DOCUMENTS_INSTRUCTION,
        plain=PLAIN_INSTRUCTION,
        citations=CO_CITATIONS_INSTRUCTION,
        hallucinations=HALLUCINATIONS_INSTRUCTION,
    ),
    tools_turn=ToolsTurn("tools"),
    documents_turns=DocumentsTurn(),
    controls=CONTROLS,
    record_tokens=(TOOL_CALL,),
    record_tokens_lead=True,
    options=(Option("controls", None, CONTROLS.check),),
    option_hints={"thinking": "it has no thinking mode; set thinking to false"},
    template_joins_parts=False,
    refused_roles=("developer",),
    template_writes_calls=False,
)
