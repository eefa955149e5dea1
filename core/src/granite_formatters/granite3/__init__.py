"""Shared code of the Granite 3.x formatters: request/response types, prompt rendering
and output parsing.

The input side is imported with this package; the output side (parsers, streaming) is
imported on first use of one of its names, so that a process that only formats prompts
never loads it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_getattr
from .input import (
    CO_CITATIONS_INSTRUCTION,
    DOCUMENTS_INSTRUCTION,
    HALLUCINATIONS_INSTRUCTION,
    PLAIN_INSTRUCTION,
    PREAMBLE,
    THINKING_INSTRUCTION_INTRO,
    TOOLS_AND_DOCUMENTS_INSTRUCTION,
    TOOLS_INSTRUCTION,
    DocumentLayout,
    Granite3InputProcessor,
    Granite3PromptFormat,
)
from .prompt import (
    END_OF_ROLE,
    END_OF_TEXT,
    GRANITE3_SPECIAL_TOKENS,
    MONTH_NAMES,
    SANITIZE_PARTS,
    START_OF_ROLE,
    TOOL_CALL,
    SpecialTokenPolicy,
    SpecialTokens,
    current_date,
    find_special_token_in_json,
    format_date,
    generation_prompt,
    remove_special_tokens_in_json,
    sanitize,
    tojson,
    turn,
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
    from .cite_format import CITE_TOKEN_CITATIONS
    from .citetags import TagEvent, TagGrammar, TagMatch
    from .co_format import (
        CO_CITATIONS,
        CO_SECTION_PATTERNS,
        COTAG_GRAMMAR,
        CoCitationOutputProcessor,
    )
    from .linepatterns import BoundedPattern, PatternSet
    from .markers import MarkerMatch, MarkerSearch, partial_marker_length
    from .output import (
        CitationEntry,
        CitationFormat,
        CitationInput,
        DocumentIndex,
        Granite3OutputProcessor,
        Granite3StreamParser,
        OutputFormat,
        SectionBlock,
        add_hallucination_response_spans,
        create_dict,
        make_citation,
        parse_citation_lines,
        parse_hallucinations_text,
        split_section_blocks,
    )
    from .sentences import SentenceSplitter, split_sentences
    from .spans import anchor_sentences
    from .toolcalls import TOOL_CALL_MARKERS

# Output-side names, imported from their modules on first access.
_LAZY = {
    "TagEvent": "citetags",
    "TagGrammar": "citetags",
    "TagMatch": "citetags",
    "CITE_TOKEN_CITATIONS": "cite_format",
    "CO_CITATIONS": "co_format",
    "CO_SECTION_PATTERNS": "co_format",
    "COTAG_GRAMMAR": "co_format",
    "CoCitationOutputProcessor": "co_format",
    "BoundedPattern": "linepatterns",
    "PatternSet": "linepatterns",
    "MarkerMatch": "markers",
    "MarkerSearch": "markers",
    "partial_marker_length": "markers",
    "CitationEntry": "output",
    "CitationFormat": "output",
    "CitationInput": "output",
    "OutputFormat": "output",
    "DocumentIndex": "output",
    "Granite3OutputProcessor": "output",
    "Granite3StreamParser": "output",
    "SectionBlock": "output",
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
}


__getattr__ = lazy_getattr(__name__, _LAZY, globals())


__all__ = [
    "CO_CITATIONS_INSTRUCTION",
    "HALLUCINATIONS_INSTRUCTION",
    "TOOLS_AND_DOCUMENTS_INSTRUCTION",
    "TOOLS_INSTRUCTION",
    "CITE_TOKEN_CITATIONS",
    "COTAG_GRAMMAR",
    "CO_CITATIONS",
    "CO_SECTION_PATTERNS",
    "CoCitationOutputProcessor",
    "DOCUMENTS_INSTRUCTION",
    "END_OF_ROLE",
    "END_OF_TEXT",
    "GRANITE3_SPECIAL_TOKENS",
    "MONTH_NAMES",
    "PLAIN_INSTRUCTION",
    "PREAMBLE",
    "SANITIZE_PARTS",
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
    "MarkerMatch",
    "MarkerSearch",
    "OutputFormat",
    "PatternSet",
    "SectionBlock",
    "SentenceSplitter",
    "SpecialTokenPolicy",
    "SpecialTokens",
    "TagEvent",
    "TagGrammar",
    "TagMatch",
    "add_hallucination_response_spans",
    "anchor_sentences",
    "create_dict",
    "current_date",
    "find_special_token_in_json",
    "format_date",
    "generation_prompt",
    "make_citation",
    "parse_citation_lines",
    "parse_hallucinations_text",
    "partial_marker_length",
    "remove_special_tokens_in_json",
    "sanitize",
    "split_section_blocks",
    "split_sentences",
    "tojson",
    "turn",
]
