"""The Granite 3.2 input processor: the Granite 3 prompt with the 3.2 wording.

Reference: the official chat template ``granite-3.2-8b-instruct.jinja`` (shared by the
2b and 8b instruct models). Documents go into one ``documents`` turn and are not
identified by id; citations are requested with ``<co>`` markers.
"""

from __future__ import annotations

from granite_formatters.granite3.input import (
    DOCUMENTS_INSTRUCTION,
    THINKING_INSTRUCTION_INTRO,
    Granite3InputProcessor,
    Granite3PromptFormat,
)

__all__ = ["GRANITE32_PROMPT_FORMAT", "Granite32InputProcessor"]

_TOOLS = (
    " You are a helpful AI assistant with access to the following tools. When a tool is "
    "required to answer the user's query, respond with <|tool_call|> followed by a JSON list "
    "of tools used. If a tool does not exist in the provided list of tools, notify the user "
    "that you do not have the ability to fulfill the request."
)

#: The Granite 3.2 prompt format.
GRANITE32_PROMPT_FORMAT = Granite3PromptFormat(
    release="Granite 3.2",
    tools_instruction=_TOOLS,
    tools_and_documents_instruction=_TOOLS + "\n\n" + DOCUMENTS_INSTRUCTION.lstrip(" "),
    thinking_instruction=THINKING_INSTRUCTION_INTRO
    + " Write your thoughts after 'Here is my thought process:' and write your response "
    "after 'Here is my response:' for each user query.",
    citations_instruction=(
        "\n\nIn your response, use the symbols <co> and </co> to indicate when a fact comes "
        "from a document in the search result, e.g <co>0</co> for a fact from document 0. "
        "Afterwards, list all the citations with their corresponding documents in an ordered "
        "list."
    ),
    hallucinations_instruction=(
        "\n\nFinally, after the response is written, include a numbered list of sentences "
        "from the response that are potentially hallucinated and not based in the documents."
    ),
)


class Granite32InputProcessor(Granite3InputProcessor):
    """Renders chat requests as Granite 3.2 instruct prompts (2b and 8b)."""

    prompt_format = GRANITE32_PROMPT_FORMAT
