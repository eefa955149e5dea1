"""Shared code of the Granite 3.x formatters: request/response types, prompt rendering
and output parsing.

The input side is imported with this package; the output side (parsers, streaming) is
imported on first use of one of its names, so that a process that only formats prompts
never loads it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_getattr
from ._sanitize import sanitize
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
from .types import (
    Citation,
    Granite3AssistantMessage,
    Granite3ChatCompletion,
    Granite3Controls,
    Granite3Kwargs,
    Hallucination,
)

if TYPE_CHECKING:
    from .citetags import TagEvent, TagGrammar, TagMatch
    from .co_format import CO_SECTION_PATTERNS, COTAG_GRAMMAR, CoCitationOutputProcessor
    from .linepatterns import BoundedPattern, PatternSet
    from .markers import MarkerMatch, MarkerSearch, find_earliest, partial_marker_length
    from .output import (
        CitationEntry,
        DocumentIndex,
        Granite3OutputProcessor,
        Granite3StreamParser,
        SectionBlock,
        add_citation_context_spans,
        add_hallucination_response_spans,
        create_dict,
        make_citation,
        parse_citation_lines,
        parse_hallucinations_text,
        split_section_blocks,
    )
    from .sentences import SentenceSplitter, split_sentences
    from .spans import anchor_sentences
    from .toolcalls import TOOL_CALL_MARKERS, ToolCallParse, parse_tool_calls

# Output-side names, imported from their modules on first access.
_LAZY = {
    "TagEvent": "citetags",
    "TagGrammar": "citetags",
    "TagMatch": "citetags",
    "CO_SECTION_PATTERNS": "co_format",
    "COTAG_GRAMMAR": "co_format",
    "CoCitationOutputProcessor": "co_format",
    "BoundedPattern": "linepatterns",
    "PatternSet": "linepatterns",
    "MarkerMatch": "markers",
    "MarkerSearch": "markers",
    "find_earliest": "markers",
    "partial_marker_length": "markers",
    "CitationEntry": "output",
    "DocumentIndex": "output",
    "Granite3OutputProcessor": "output",
    "Granite3StreamParser": "output",
    "SectionBlock": "output",
    "add_citation_context_spans": "output",
    "add_hallucination_response_spans": "output",
    "create_dict": "output",
    "make_citation": "output",
    "parse_citation_lines": "output",
    "parse_hallucinations_text": "output",
    "split_section_blocks": "output",
    "SentenceSplitter": "sentences",
    "split_sentences": "sentences",
    "anchor_sentences": "spans",
    "TOOL_CALL_MARKERS": "toolcalls",
    "ToolCallParse": "toolcalls",
    "parse_tool_calls": "toolcalls",
}


__getattr__ = lazy_getattr(__name__, _LAZY, globals())


__all__ = [
    "CO_CITATIONS_INSTRUCTION",
    "HALLUCINATIONS_INSTRUCTION",
    "TOOLS_AND_DOCUMENTS_INSTRUCTION",
    "TOOLS_INSTRUCTION",
    "COTAG_GRAMMAR",
    "CO_SECTION_PATTERNS",
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
    "MarkerMatch",
    "MarkerSearch",
    "PatternSet",
    "SectionBlock",
    "SentenceSplitter",
    "TagEvent",
    "TagGrammar",
    "TagMatch",
    "ToolCallParse",
    "add_citation_context_spans",
    "add_hallucination_response_spans",
    "anchor_sentences",
    "create_dict",
    "find_earliest",
    "make_citation",
    "parse_citation_lines",
    "parse_hallucinations_text",
    "parse_tool_calls",
    "partial_marker_length",
    "sanitize",
    "split_section_blocks",
    "split_sentences",
]
