"""Granite 3.3 as data: its release declaration.

Granite 3.2's layout with the 3.3 wording: the tools in an ``available_tools`` turn, one
``document {"document_id": "…"}`` turn per document, citations asked for with the
``<|start_of_cite|>``/``<|end_of_cite|>`` tokens. See ``docs/syntaxes.md``.
"""

from __future__ import annotations

from granite_formatters import Release
from granite_formatters.granite3 import CITE_TOKEN_CITATIONS, GRANITE3_SPECIAL_TOKENS, TOOL_CALL
from granite_formatters.granite3.prompt_format import (
    DOCUMENTS_INSTRUCTION,
    PLAIN_INSTRUCTION,
    PREAMBLE,
    THINKING_INSTRUCTION_INTRO,
)
from granite_formatters.release import Option
from granite_formatters.special_tokens import SpecialTokens
from granite_formatters.syntax import (
    CONTROLS,
    GRANITE_ROLES,
    JSON_LIST,
    THINK_RESPONSE,
    DatedLayout,
    DatedSystemPrompt,
    DocumentTurnPerDocument,
    ToolsTurn,
    thinking_option_error,
)

__all__ = ["GRANITE33", "GRANITE33_SPECIAL_TOKENS", "GRANITE33_SYSTEM_PROMPT"]

#: Every special token of the Granite 3.3 tokenizer (26): the 22 Granite 3 tokens plus the
#: citation and plugin tokens.
GRANITE33_SPECIAL_TOKENS = SpecialTokens(
    (
        *GRANITE3_SPECIAL_TOKENS,
        "<|start_of_cite|>",
        "<|end_of_cite|>",
        "<|start_of_plugin|>",
        "<|end_of_plugin|>",
    )
)

_TOOLS = (
    " You are a helpful assistant with access to the following tools. When a tool is "
    "required to answer the user's query, respond only with <|tool_call|> followed by a JSON "
    "list of tools used. If a tool does not exist in the provided list of tools, notify the "
    "user that you do not have the ability to fulfill the request."
)

#: The Granite 3.3 default system prompt (current template revision: bare newline joins).
GRANITE33_SYSTEM_PROMPT = DatedSystemPrompt(
    preamble=PREAMBLE,
    tools=_TOOLS,
    documents=DOCUMENTS_INSTRUCTION,
    plain=PLAIN_INSTRUCTION,
    tools_and_documents=_TOOLS + "\n" + DOCUMENTS_INSTRUCTION.lstrip(" "),
    thinking=THINKING_INSTRUCTION_INTRO
    + " Write your thoughts between <think></think> and write your response between "
    "<response></response> for each user query.",
    citations=(
        "\nUse the symbols <|start_of_cite|> and <|end_of_cite|> to indicate when a fact "
        "comes from a document in the search result, e.g <|start_of_cite|> {document_id: 1}my "
        "fact <|end_of_cite|> for a fact from document 1. Afterwards, list all the citations "
        "with their corresponding documents in an ordered list."
    ),
    hallucinations=(
        "\nFinally, after the response is written, include a numbered list of sentences from "
        "the response with a corresponding risk value that are hallucinated and not based in "
        "the documents."
    ),
)

#: Granite 3.3 (the current ``granite-3.3-8b-instruct`` template, shared by 2b and 8b).
GRANITE33 = Release(
    name="Granite 3.3",
    family="Granite 3",
    turns=GRANITE_ROLES,
    special_tokens=GRANITE33_SPECIAL_TOKENS,
    stop_strings=("<|end_of_text|>",),
    tool_calls=JSON_LIST,
    layout=DatedLayout(
        system_prompt=GRANITE33_SYSTEM_PROMPT,
        tools_turn=ToolsTurn("available_tools"),
        documents_turns=DocumentTurnPerDocument(),
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
    reasoning=THINK_RESPONSE,
    citations=CITE_TOKEN_CITATIONS,
    tool_call_markers=("<tool_call>",),
    tool_call_ends=("</tool_call>",),
    dropped_tokens=("<|end_of_text|>",),
)
