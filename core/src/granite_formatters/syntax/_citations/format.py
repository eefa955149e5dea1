"""What a citation syntax declares (:class:`CitationFormat`): its tags and sections, and
the reader stage it gives the parser (:meth:`CitationFormat.reader`)."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING

import attrs

if TYPE_CHECKING:
    from ...granite3._types import (
        Citation,
        Granite3AssistantMessage,
        Granite3ChatCompletion,
        Granite3Kwargs,
    )
    from .citation_input import CitationInput
    from .line_patterns import PatternSet
    from .lines import CitationEntry
    from .reader import CitationReader
    from .stages import TextSink
    from .tag_grammar import TagGrammar

__all__ = ["CitationFormat"]


@attrs.frozen
class CitationFormat:
    """A citation syntax: inline tags, the sections' headers and how to read them.

    ``read_section(body, notes)`` reads the body of a citations section into
    :class:`CitationEntry` items; ``build_citations(CitationInput)`` matches the tags
    with the entries. ``section_open``/``section_close`` are the special tokens around
    a section (3.3), "" when sections are only headers at the start of a line (3.2).
    ``documents_by_position``: documents are named by position ("Document 0"), not by
    ``doc_id``.
    """

    name: str
    tag_grammar: TagGrammar
    section_patterns: PatternSet
    read_section: Callable[[str, list[str]], list[CitationEntry]]
    build_citations: Callable[[CitationInput], list[Citation]]
    section_open: str = ""
    section_close: str = ""
    documents_by_position: bool = True

    def reader(self, content: TextSink, notes: list[str], given: object) -> CitationReader | None:
        """The citation stages of one parse for the request ``given`` (``None`` when it
        reads no citations: a request without documents or the citation controls): the
        answer text written to it goes on to ``content`` with the tags removed. The
        request is read as :meth:`request_type` (one that is not valid is read as no
        request: a parser never raises)."""
        from .reader import CitationReader, citation_request, plainly_uncited, reads_citations

        if type(given) is dict and plainly_uncited(given, _types()[2]):
            return None  # (what validating the whole request would decide, at a fraction)
        request = citation_request(given, self.request_type())
        if not reads_citations(request):
            return None
        return CitationReader(
            self,
            content,
            notes,
            documents=request.documents if request is not None else None,
            no_request=request is None,
        )

    def message_type(self) -> type[Granite3AssistantMessage]:
        """The class of the messages a parse with this syntax gives (they carry the
        citations, documents and hallucinations)."""
        return _types()[0]

    def request_type(self) -> type[Granite3ChatCompletion]:
        """The request model the reader stage reads (documents and controls): the
        parser validates a given request as one."""
        return _types()[1]


@cache
def _types() -> tuple[
    type[Granite3AssistantMessage], type[Granite3ChatCompletion], type[Granite3Kwargs]
]:
    """The message, request and options types (pydantic), imported on first use and kept
    (an import statement per parse shows on a short answer's parse)."""
    from ...granite3._types import Granite3AssistantMessage, Granite3ChatCompletion, Granite3Kwargs

    return Granite3AssistantMessage, Granite3ChatCompletion, Granite3Kwargs
