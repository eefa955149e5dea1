"""The Granite 3.1 input processor.

Reference: the official chat template of ``ibm-granite/granite-3.1-8b-instruct``
(shared by the 2b, 8b and both MoE instruct models). Granite 3.1 has the Granite 3
prompt layout that :class:`~granite_formatters.granite3.Granite3InputProcessor`
renders; this module only supplies the 3.1 wording. Compared with Granite 3.2 there
is no thinking branch, so ``chat_template_kwargs.thinking = true`` is refused with an
:class:`~granite_formatters.InvalidRequestError` instead of being silently ignored.
"""

from __future__ import annotations

from granite_formatters.granite3 import (
    DOCUMENTS_INSTRUCTION,
    Granite3InputProcessor,
    Granite3PromptFormat,
)

__all__ = ["GRANITE31_PROMPT_FORMAT", "Granite31InputProcessor"]

_TOOLS = (
    " You are a helpful AI assistant with access to the following tools. When a tool is "
    "required to answer the user's query, respond with <|tool_call|> followed by a JSON list "
    "of tools used. If a tool does not exist in the provided list of tools, notify the user "
    "that you do not have the ability to fulfill the request."
)

#: The Granite 3.1 prompt format: the system-prompt sentences of the 3.1 template.
GRANITE31_PROMPT_FORMAT = Granite3PromptFormat(
    release="Granite 3.1",
    tools_instruction=_TOOLS,
    # Tools and documents: the tools sentence, a blank line, the documents sentence.
    tools_and_documents_instruction=_TOOLS + "\n\n" + DOCUMENTS_INSTRUCTION.lstrip(" "),
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
    # No thinking mode in 3.1: thinking_instruction stays None.
)


class Granite31InputProcessor(Granite3InputProcessor):
    """Renders chat requests as Granite 3.1 instruct prompts."""

    prompt_format = GRANITE31_PROMPT_FORMAT
