"""The Granite 3.2 input processor: the Granite 3 prompt with the 3.2 wording.

Reference: the official chat template ``granite-3.2-8b-instruct.jinja`` (shared by the
2b and 8b instruct models). Documents go into one ``documents`` turn and are not
identified by id; citations are requested with ``<co>`` markers.
"""

from __future__ import annotations

from granite_formatters.granite3 import (
    Granite3InputProcessor,
    Granite3PromptFormat,
)
from granite_formatters.granite3.prompt_format import (
    CO_CITATIONS_INSTRUCTION,
    HALLUCINATIONS_INSTRUCTION,
    THINKING_INSTRUCTION_INTRO,
    TOOLS_AND_DOCUMENTS_INSTRUCTION,
    TOOLS_INSTRUCTION,
)

__all__ = ["GRANITE32_PROMPT_FORMAT", "Granite32InputProcessor"]

#: The Granite 3.2 prompt format: the Granite 3.1 wording plus a thinking mode.
GRANITE32_PROMPT_FORMAT = Granite3PromptFormat(
    release="Granite 3.2",
    tools_instruction=TOOLS_INSTRUCTION,
    tools_and_documents_instruction=TOOLS_AND_DOCUMENTS_INSTRUCTION,
    thinking_instruction=THINKING_INSTRUCTION_INTRO
    + " Write your thoughts after 'Here is my thought process:' and write your response "
    "after 'Here is my response:' for each user query.",
    citations_instruction=CO_CITATIONS_INSTRUCTION,
    hallucinations_instruction=HALLUCINATIONS_INSTRUCTION,
)


class Granite32InputProcessor(Granite3InputProcessor):
    """Renders chat requests as Granite 3.2 instruct prompts (2b and 8b)."""

    prompt_format = GRANITE32_PROMPT_FORMAT
