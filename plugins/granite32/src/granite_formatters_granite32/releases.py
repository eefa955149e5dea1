"""Granite 3.2 as data: its release declaration.

Granite's role-token turns, a dated default system prompt, the tools in a ``tools`` turn
and the documents in one ``documents`` turn after the system turn, ``<|tool_call|>`` JSON
lists, and the ``thinking`` and ``controls`` options. See ``docs/syntaxes.md``.
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
    THINKING_INSTRUCTION_INTRO,
    TOOLS_AND_DOCUMENTS_INSTRUCTION,
    TOOLS_INSTRUCTION,
)
from granite_formatters.release import Option
from granite_formatters.syntax import (
    CONTROLS,
    GRANITE_ROLES,
    JSON_LIST,
    THOUGHT_PHRASES,
    DatedLayout,
    DatedSystemPrompt,
    DocumentsTurn,
    ToolsTurn,
    thinking_option_error,
)

__all__ = ["GRANITE32", "GRANITE32_SYSTEM_PROMPT"]

#: The Granite 3.2 default system prompt: the Granite 3.1 wording plus a thinking mode.
GRANITE32_SYSTEM_PROMPT = DatedSystemPrompt(
    preamble=PREAMBLE,
    tools=TOOLS_INSTRUCTION,
    tools_and_documents=TOOLS_AND_DOCUMENTS_INSTRUCTION,
    documents=DOCUMENTS_INSTRUCTION,
    plain=PLAIN_INSTRUCTION,
    thinking=THINKING_INSTRUCTION_INTRO
    + " Write your thoughts after 'Here is my thought process:' and write your response "
    "after 'Here is my response:' for each user query.",
    citations=CO_CITATIONS_INSTRUCTION,
    hallucinations=HALLUCINATIONS_INSTRUCTION,
)

#: Granite 3.2 (the ``granite-3.2-8b-instruct`` template, shared by 2b and 8b).
GRANITE32 = Release(
    name="Granite 3.2",
    family="Granite 3",
    turns=GRANITE_ROLES,
    special_tokens=GRANITE3_SPECIAL_TOKENS,
    stop_strings=("<|end_of_text|>",),
    tool_calls=JSON_LIST,
    layout=DatedLayout(
        system_prompt=GRANITE32_SYSTEM_PROMPT,
        tools_turn=ToolsTurn("tools"),
        documents_turns=DocumentsTurn(),
        controls=CONTROLS,
        refused_roles=("developer",),
        record_tokens_lead=True,
        template_writes_calls=False,
    ),
    record_tokens=(TOOL_CALL,),
    options=(
        Option("thinking", False, thinking_option_error),
        Option("controls", None, CONTROLS.check),
    ),
    template_joins_parts=False,
    reasoning=THOUGHT_PHRASES,
    citations=CO_CITATIONS,
    tool_call_markers=("<tool_call>",),
    tool_call_ends=("</tool_call>",),
    dropped_tokens=("<|end_of_text|>",),
)
