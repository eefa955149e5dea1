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
    Granite3InputProcessor,
    Granite3PromptFormat,
)
from granite_formatters.granite3.prompt_format import (
    CO_CITATIONS_INSTRUCTION,
    HALLUCINATIONS_INSTRUCTION,
    TOOLS_AND_DOCUMENTS_INSTRUCTION,
    TOOLS_INSTRUCTION,
)

__all__ = ["GRANITE31_PROMPT_FORMAT", "Granite31InputProcessor"]

#: The Granite 3.1 prompt format: the system-prompt sentences of the 3.1 template, which
#: the core provides because Granite 3.2 reuses them.
GRANITE31_PROMPT_FORMAT = Granite3PromptFormat(
    release="Granite 3.1",
    tools_instruction=TOOLS_INSTRUCTION,
    tools_and_documents_instruction=TOOLS_AND_DOCUMENTS_INSTRUCTION,
    citations_instruction=CO_CITATIONS_INSTRUCTION,
    hallucinations_instruction=HALLUCINATIONS_INSTRUCTION,
    # No thinking mode in 3.1: thinking_instruction stays None.
)


class Granite31InputProcessor(Granite3InputProcessor):
    """Renders chat requests as Granite 3.1 instruct prompts."""

    prompt_format = GRANITE31_PROMPT_FORMAT
