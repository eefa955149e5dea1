"""Shared code of the Granite 3.x formatters: request/response types, prompt rendering
and output parsing.

The prompt side is imported with this package; the request and message types (pydantic),
:func:`sanitize` and the output side (parsers, streaming) are imported on first use of
one of their names, so that a process that only formats plain-dict prompts never loads
them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_getattr
from .input import Granite3InputProcessor
from .prompt_format import (
    CO_CITATIONS_INSTRUCTION,
    DOCUMENTS_INSTRUCTION,
    HALLUCINATIONS_INSTRUCTION,
    PLAIN_INSTRUCTION,
    PREAMBLE,
    THINKING_INSTRUCTION_INTRO,
    TOOLS_AND_DOCUMENTS_INSTRUCTION,
    TOOLS_INSTRUCTION,
    DocumentLayout,
    Granite3PromptFormat,
)
from .tokens import (
    END_OF_ROLE,
    END_OF_TEXT,
    GRANITE3_SPECIAL_TOKENS,
    START_OF_ROLE,
    TOOL_CALL,
)

if TYPE_CHECKING:
    from ._citetags import TagEvent, TagGrammar, TagMatch
    from ._linepatterns import BoundedPattern, Lit, PatternSet, Rep
    from ._sanitize import sanitize
    from ._sentences import SentenceSplitter, split_sentences
    from ._spans import anchor_sentences
    from ._toolcalls import TOOL_CALL_MARKERS
    from .cite_format import CITE_TOKEN_CITATIONS
    from .co_format import (
        CO_CITATIONS,
        CoCitationOutputProcessor,
    )
    from .output import (
        CitationEntry,
        CitationFormat,
        CitationInput,
        DocumentIndex,
        Granite3OutputProcessor,
        Granite3StreamParser,
        OutputFormat,
        SectionBlock,
        make_citation,
        parse_citation_lines,
    )
    from .types import (
        Citation,
        Granite3AssistantMessage,
        Granite3ChatCompletion,
        Granite3Controls,
        Granite3Kwargs,
        Hallucination,
    )

# Types and output-side names, imported from their modules on first access.
_LAZY = {
    "sanitize": "_sanitize",
    "Citation": "types",
    "Granite3AssistantMessage": "types",
    "Granite3ChatCompletion": "types",
    "Granite3Controls": "types",
    "Granite3Kwargs": "types",
    "Hallucination": "types",
    "TagEvent": "_citetags",
    "TagGrammar": "_citetags",
    "TagMatch": "_citetags",
    "CITE_TOKEN_CITATIONS": "cite_format",
    "CO_CITATIONS": "co_format",
    "CoCitationOutputProcessor": "co_format",
    "BoundedPattern": "_linepatterns",
    "PatternSet": "_linepatterns",
    "Lit": "_linepatterns",
    "Rep": "_linepatterns",
    "CitationEntry": "output",
    "CitationFormat": "output",
    "CitationInput": "output",
    "OutputFormat": "output",
    "DocumentIndex": "output",
    "Granite3OutputProcessor": "output",
    "Granite3StreamParser": "output",
    "SectionBlock": "output",
    "make_citation": "output",
    "parse_citation_lines": "output",
    "SentenceSplitter": "_sentences",
    "split_sentences": "_sentences",
    "anchor_sentences": "_spans",
    "TOOL_CALL_MARKERS": "_toolcalls",
}


__getattr__ = lazy_getattr(__name__, _LAZY, globals())


__all__ = [
    "CO_CITATIONS_INSTRUCTION",
    "HALLUCINATIONS_INSTRUCTION",
    "TOOLS_AND_DOCUMENTS_INSTRUCTION",
    "TOOLS_INSTRUCTION",
    "CITE_TOKEN_CITATIONS",
    "CO_CITATIONS",
    "CoCitationOutputProcessor",
    "DOCUMENTS_INSTRUCTION",
    "END_OF_ROLE",
    "END_OF_TEXT",
    "GRANITE3_SPECIAL_TOKENS",
    "PLAIN_INSTRUCTION",
    "PREAMBLE",
    "START_OF_ROLE",
    "THINKING_INSTRUCTION_INTRO",
    "TOOL_CALL",
    "TOOL_CALL_MARKERS",
    "BoundedPattern",
    "Citation",
    "CitationEntry",
    "CitationFormat",
    "CitationInput",
    "DocumentIndex",
    "DocumentLayout",
    "Granite3AssistantMessage",
    "Granite3ChatCompletion",
    "Granite3Controls",
    "Granite3InputProcessor",
    "Granite3Kwargs",
    "Granite3OutputProcessor",
    "Granite3PromptFormat",
    "Granite3StreamParser",
    "Hallucination",
    "OutputFormat",
    "PatternSet",
    "Lit",
    "Rep",
    "SectionBlock",
    "SentenceSplitter",
    "TagEvent",
    "TagGrammar",
    "TagMatch",
    "anchor_sentences",
    "make_citation",
    "parse_citation_lines",
    "sanitize",
    "split_sentences",
]
