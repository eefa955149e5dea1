"""The Granite 3.3 input processor: the Granite 3 prompt with the 3.3 wording.

Reference: the current revision of the official chat template
``granite-3.3-8b-instruct.jinja`` (shared by the 2b and 8b instruct models). Tools go
into an ``available_tools`` turn, each document into its own
``document {"document_id": "..."}`` turn, and citations are requested with the
``<|start_of_cite|>``/``<|end_of_cite|>`` special tokens.
"""

from __future__ import annotations

from granite_formatters.granite3 import (
    DocumentLayout,
    Granite3InputProcessor,
    Granite3PromptFormat,
)
from granite_formatters.granite3.prompt_format import (
    DOCUMENTS_INSTRUCTION,
    THINKING_INSTRUCTION_INTRO,
)

from .releases import GRANITE33_SPECIAL_TOKENS

__all__ = ["GRANITE33_PROMPT_FORMAT", "Granite33InputProcessor"]

_TOOLS = (
    " You are a helpful assistant with access to the following tools. When a tool is "
    "required to answer the user's query, respond only with <|tool_call|> followed by a JSON "
    "list of tools used. If a tool does not exist in the provided list of tools, notify the "
    "user that you do not have the ability to fulfill the request."
)

#: The Granite 3.3 prompt format (current template revision: bare newline joins).
GRANITE33_PROMPT_FORMAT = Granite3PromptFormat(
    release="Granite 3.3",
    tools_instruction=_TOOLS,
    tools_and_documents_instruction=_TOOLS + "\n" + DOCUMENTS_INSTRUCTION.lstrip(" "),
    thinking_instruction=THINKING_INSTRUCTION_INTRO
    + " Write your thoughts between <think></think> and write your response between "
    "<response></response> for each user query.",
    citations_instruction=(
        "\nUse the symbols <|start_of_cite|> and <|end_of_cite|> to indicate when a fact "
        "comes from a document in the search result, e.g <|start_of_cite|> {document_id: 1}my "
        "fact <|end_of_cite|> for a fact from document 1. Afterwards, list all the citations "
        "with their corresponding documents in an ordered list."
    ),
    hallucinations_instruction=(
        "\nFinally, after the response is written, include a numbered list of sentences from "
        "the response with a corresponding risk value that are hallucinated and not based in "
        "the documents."
    ),
    tools_role="available_tools",
    document_layout=DocumentLayout.TURN_PER_DOCUMENT,
    special_tokens=GRANITE33_SPECIAL_TOKENS,
)


class Granite33InputProcessor(Granite3InputProcessor):
    """Renders chat requests as Granite 3.3 instruct prompts (2b and 8b)."""

    prompt_format = GRANITE33_PROMPT_FORMAT
