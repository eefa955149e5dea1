"""The prompt format of a Granite 3.x point release, as data.

A release declares one :class:`Granite3PromptFormat`: the wording of its default system
prompt (one instruction per branch of the template), the role of its tools turn, how its
documents are laid out (:class:`DocumentLayout`) and its special tokens. The wording that
several releases share is provided here as constants (``PREAMBLE``, ``TOOLS_INSTRUCTION``,
...). :class:`~granite_formatters.granite3.input.Granite3InputProcessor` renders requests
with it; :meth:`Granite3PromptFormat.system_turn` is the default system turn.
"""

from __future__ import annotations

import datetime
import enum
from dataclasses import dataclass, field

from ..special_tokens import SpecialTokens
from ..syntax.system_prompt import format_date
from ._turns import SYSTEM_OPEN, TURN_END
from .tokens import END_OF_ROLE, GRANITE3_SPECIAL_TOKENS, START_OF_ROLE

__all__ = [
    "CO_CITATIONS_INSTRUCTION",
    "DOCUMENTS_INSTRUCTION",
    "HALLUCINATIONS_INSTRUCTION",
    "PLAIN_INSTRUCTION",
    "PREAMBLE",
    "THINKING_INSTRUCTION_INTRO",
    "TOOLS_AND_DOCUMENTS_INSTRUCTION",
    "TOOLS_INSTRUCTION",
    "DocumentLayout",
    "Granite3PromptFormat",
]

#: Start of every default system prompt; ``{date}`` is replaced by the formatted date.
PREAMBLE = (
    "Knowledge Cutoff Date: April 2024.\nToday's Date: {date}.\nYou are Granite, developed by IBM."
)
#: The documents-only instruction (identical in Granite 3.1, 3.2 and 3.3).
DOCUMENTS_INSTRUCTION = (
    " Write the response to the user's input by strictly aligning with the facts in the "
    "provided documents. If the information needed to answer the question is not available "
    "in the documents, inform the user that the question cannot be answered based on the "
    "available data."
)
#: The tools instruction of Granite 3.1 and 3.2 (3.3 words it differently).
TOOLS_INSTRUCTION = (
    " You are a helpful AI assistant with access to the following tools. When a tool is "
    "required to answer the user's query, respond with <|tool_call|> followed by a JSON list "
    "of tools used. If a tool does not exist in the provided list of tools, notify the user "
    "that you do not have the ability to fulfill the request."
)
#: The tools-and-documents instruction of Granite 3.1 and 3.2: both, a blank line apart.
TOOLS_AND_DOCUMENTS_INSTRUCTION = TOOLS_INSTRUCTION + "\n\n" + DOCUMENTS_INSTRUCTION.lstrip(" ")
#: The citations instruction of Granite 3.1 and 3.2 (``<co>`` tags).
CO_CITATIONS_INSTRUCTION = (
    "\n\nIn your response, use the symbols <co> and </co> to indicate when a fact comes "
    "from a document in the search result, e.g <co>0</co> for a fact from document 0. "
    "Afterwards, list all the citations with their corresponding documents in an ordered "
    "list."
)
#: The hallucinations instruction of Granite 3.1 and 3.2 (3.3 words it differently).
HALLUCINATIONS_INSTRUCTION = (
    "\n\nFinally, after the response is written, include a numbered list of sentences "
    "from the response that are potentially hallucinated and not based in the documents."
)
#: The instruction when there are no tools, documents or thinking (3.1, 3.2 and 3.3).
PLAIN_INSTRUCTION = " You are a helpful AI assistant."
#: The thinking instruction of 3.2 and 3.3 up to the sentence that names the markers.
THINKING_INSTRUCTION_INTRO = (
    " You are a helpful AI assistant.\nRespond to every user query in a comprehensive and "
    "detailed way. You can write down your thoughts and reasoning process before responding. "
    "In the thought process, engage in a comprehensive cycle of analysis, summarization, "
    "exploration, reassessment, reflection, backtracing, and iteration to develop "
    "well-considered thinking process. In the response section, based on various attempts, "
    "explorations, and reflections from the thoughts section, systematically present the "
    "final solution that you deem correct. The response should summarize the thought process."
)


# Order of the system-prompt branches (the first that applies wins).
_TOOLS_AND_DOCUMENTS, _TOOLS, _DOCUMENTS, _THINKING, _PLAIN = range(5)


class DocumentLayout(enum.Enum):
    """How documents are laid out in the prompt."""

    #: One ``documents`` turn: ``Document <i>\\n<text>`` joined by blank lines (3.1, 3.2).
    #: ``doc_id`` and ``title`` are not rendered.
    SINGLE_TURN = "single_turn"
    #: One ``document {"document_id": "<doc_id>"}`` turn per document, the text after a
    #: newline (3.3). Every document needs a ``doc_id``.
    TURN_PER_DOCUMENT = "turn_per_document"


@dataclass(frozen=True)
class Granite3PromptFormat:
    """What distinguishes one Granite 3 point release's prompt from another's.

    Instruction strings are appended to the preamble exactly as given (the templates'
    instructions start with a space, the citation and hallucination ones with the
    release's separator, e.g. ``"\\n\\n"`` in 3.2 and ``"\\n"`` in 3.3).
    ``thinking_instruction`` is ``None`` for a release without a thinking mode.
    """

    release: str
    tools_instruction: str
    tools_and_documents_instruction: str
    citations_instruction: str
    hallucinations_instruction: str
    thinking_instruction: str | None = None
    documents_instruction: str = DOCUMENTS_INSTRUCTION
    plain_instruction: str = PLAIN_INSTRUCTION
    preamble: str = PREAMBLE
    tools_role: str = "tools"
    document_layout: DocumentLayout = DocumentLayout.SINGLE_TURN
    special_tokens: SpecialTokens = GRANITE3_SPECIAL_TOKENS

    # Derived once per format: the constant parts of the system turn.
    system_head: str = field(init=False, repr=False, compare=False)
    system_tails: tuple[str, ...] = field(init=False, repr=False, compare=False)
    tools_open: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.preamble.count("{date}") != 1:
            raise ValueError("preamble must contain '{date}' exactly once")
        before, _, after = self.preamble.partition("{date}")
        middles = (
            self.tools_and_documents_instruction,
            self.tools_instruction,
            self.documents_instruction,
            self.thinking_instruction or "",
            self.plain_instruction,
        )
        tails = []
        for middle in middles:
            for citations in (False, True):
                for hallucinations in (False, True):
                    tails.append(
                        after
                        + middle
                        + (self.citations_instruction if citations else "")
                        + (self.hallucinations_instruction if hallucinations else "")
                        + TURN_END
                    )
        object.__setattr__(self, "system_head", SYSTEM_OPEN + before)
        object.__setattr__(self, "system_tails", tuple(tails))
        object.__setattr__(self, "tools_open", START_OF_ROLE + self.tools_role + END_OF_ROLE)

    def system_turn(
        self,
        day: datetime.date,
        *,
        tools: bool = False,
        documents: bool = False,
        thinking: bool = False,
        citations: bool = False,
        hallucinations: bool = False,
    ) -> str:
        """The default system turn, as the template builds it.

        ``citations``/``hallucinations`` mean "the key is present in ``controls``"; like
        the template, their instructions are added only together with documents.
        ``thinking`` is ignored when there are tools or documents, or no thinking mode.
        """
        if tools:
            branch = _TOOLS_AND_DOCUMENTS if documents else _TOOLS
        elif documents:
            branch = _DOCUMENTS
        elif thinking and self.thinking_instruction is not None:
            branch = _THINKING
        else:
            branch = _PLAIN
        if not documents:
            citations = hallucinations = False
        tail = self.system_tails[branch * 4 + citations * 2 + hallucinations]
        return self.system_head + format_date(day) + tail
