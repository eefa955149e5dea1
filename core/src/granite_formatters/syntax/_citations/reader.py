"""The citation stages of one parse: the reader stage a citation syntax gives the
engine's parser (see :meth:`~.format.CitationFormat.reader`).

The answer text goes through a section splitter (which collects the citation and
hallucination sections from their first header on) and a citation tag remover (which
records where each tag stood) to the parser's content; at the end the sections are read
and the citations, documents and hallucinations built from them and the tag positions.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from ..._engine.request import plain_request
from ..._errors import InvalidRequestError
from ..._types import RequestT, coerce_request
from .._markers import marker_pattern, partial_marker_length
from .citation_input import CitationInput
from .documents import DocumentIndex
from .hallucinations import add_hallucination_response_spans, parse_hallucinations_text
from .lines import CitationEntry
from .notes import excerpt
from .sections import SectionBlock, SectionSplitter, split_section_blocks
from .sentences import split_sentences
from .stages import NOTHING, WHITESPACE, Outbox, TextSink
from .tag_grammar import TagEvent
from .tag_remover import CitationTagRemover, remove_citation_tags

if TYPE_CHECKING:
    from pydantic import BaseModel

    from ..._types import Document
    from ...granite3._types import Citation, Hallucination
    from .format import CitationFormat

__all__ = ["CitationReader", "citation_request", "plainly_uncited", "reads_citations"]


def citation_request(given: object, request_type: type[RequestT]) -> RequestT | None:
    """The request ``given`` as ``request_type`` (``None`` when none was given, or when it
    is not valid: the output is then read without it)."""
    if given is None:
        return None
    try:
        return coerce_request(given, request_type)
    except InvalidRequestError:
        return None


def plainly_uncited(given: dict[str, Any], kwargs_type: type[BaseModel]) -> bool:
    """Whether the plain dict request ``given`` is valid and reads no citations (no
    documents, neither the ``citations`` nor the ``hallucinations`` control), told
    without validating the whole request: the renderer's plain reading
    (:func:`~granite_formatters._engine.request.plain_request`) accepts it as validation
    would, and its ``chat_template_kwargs`` validate as ``kwargs_type`` (the only field
    the Granite 3 request adds checks to). ``False`` when undecided."""
    plain = plain_request(given)
    if plain is None or plain.documents:
        return False
    options = plain.chat_template_kwargs
    if not options:
        return True
    try:
        controls = kwargs_type.model_validate(options).controls  # type: ignore[attr-defined]
    except ValidationError:
        return False
    return not controls or ("citations" not in controls and "hallucinations" not in controls)


def reads_citations(request: object) -> bool:
    """Whether the output for ``request`` (a validated Granite 3 request, or ``None``) is
    read for citations: no request, or one with documents or the ``citations`` or
    ``hallucinations`` control."""
    if request is None:
        return True
    if getattr(request, "documents", None):
        return True
    kwargs = getattr(request, "chat_template_kwargs", None)
    controls = getattr(kwargs, "controls", None) or {}
    return "citations" in controls or "hallucinations" in controls


@lru_cache(maxsize=64)
def _joined(outer: frozenset[str], inner: frozenset[str]) -> frozenset[str]:
    """The characters of two stages' lanes (a handful of pairs per release)."""
    return outer | inner


class CitationReader:
    """The section splitter and tag remover of one parse (a text sink), and what is built
    from them at the end (:meth:`finish`).

    ``content`` receives the answer with the tags removed; ``notes`` is the parser's
    list of notes (appended to in order); ``documents`` are the request's documents and
    ``no_request`` says that no request was given (header-like lines that cannot be
    read then stay in the content).
    """

    __slots__ = (
        "_blocks",
        "_cite",
        "_documents",
        "_entries",
        "_held",
        "_items",
        "_no_request",
        "_notes",
        "_outbox",
        "_sections",
        "_tags",
        "write",
    )

    def __init__(
        self,
        cite: CitationFormat,
        content: TextSink,
        notes: list[str],
        *,
        documents: list[Document] | None,
        no_request: bool,
    ) -> None:
        self._cite = cite
        self._notes = notes
        self._documents = documents
        self._no_request = no_request
        outbox = self._outbox = Outbox()
        outbox.notes = notes  # (the parser's notes, in the order they are made)
        self._tags = CitationTagRemover(content, cite.tag_grammar)
        sections = self._sections = SectionSplitter(
            self._tags,
            outbox,
            line_patterns=cite.section_patterns,
            starters=(cite.section_open,) if cite.section_open else (),
            drops=(cite.section_close,) if cite.section_close else (),
        )
        sections.recover = self._read_sections
        #: Takes the answer text (the section splitter's ``write``).
        self.write = sections.write
        self._held: frozenset[str] | None = None
        self._blocks: list[SectionBlock] = []
        self._entries: list[CitationEntry] = []
        self._items: list[Hallucination] = []

    def lane(self) -> tuple[frozenset[str], Callable[[str], str | None]] | None:
        """The characters that need a scan by one of the stages now and what takes text
        holding none of them instead of :attr:`write` (the scans skipped; a non-empty
        text): it returns the text that then reaches ``content``, for the caller to
        write there. ``None``
        when every text needs the scans (a stage is mid-marker or at a line start, or
        tags wait for the text after them). Valid until text holding one of them is
        written.

        The section splitter passes such text on unchanged to the tag remover, which
        only repairs whitespace (see their ``lane``), or adds it to a tag waiting for
        the text that decides it (see its ``waits``); once the sections are collected,
        every text is only collected.
        """
        sections = self._sections
        outer = sections.lane()
        if outer is None:
            return (NOTHING, sections.collector()) if sections.collecting else None
        tags = self._tags
        inner = tags.lane()
        if inner is None:
            # A tag waiting for more text: text that cannot decide it is only added.
            waits = tags.waits()
            return None if waits is None else (_joined(outer, waits), tags.adds)
        if not tags.resolved:
            return None
        return _joined(outer, inner), tags.passes

    def between_markers(self) -> bool:
        """Whether the stages are between markers: the answer goes on, not at a line
        start, with nothing pending (tags may wait for the text after them)."""
        return self._sections.lane() is not None and self._tags.lane() is not None

    def holds(self) -> frozenset[str]:
        """The texts the stages would keep whole, nothing passed on, while they are
        between markers (see :meth:`between_markers`): the beginnings of the tag
        remover's markers and of the section splitter's (away from a line start) that
        hold no marker and no whitespace, and that the splitter keeps or passes on whole."""
        held = self._held
        if held is None:
            sections, tags = self._sections, self._tags
            markers = sections.markers
            pattern = marker_pattern(markers)
            held = self._held = frozenset(
                text
                for text in sections.holds() | tags.holds()
                if text.strip(WHITESPACE) == text
                and not any(space in text for space in WHITESPACE)
                and (
                    text in sections.holds()
                    or (
                        (pattern is None or pattern.search(text) is None)
                        and partial_marker_length(text, markers) == 0
                    )
                )
            )
        return held

    def end(self) -> None:
        """No more text: the sections are read, what they do not account for goes on."""
        self._sections.end()

    def _read_sections(self, text: str) -> str:
        """Read the collected sections once; return the text that goes back to the answer.

        Kept in the answer (nothing the model wrote is lost): the body of a section of
        unknown kind, text after a section's closing token and, when no request was
        given, header-like lines that are not the model's section syntax (3.3: a header
        not opened by ``<|start_of_plugin|>``; 3.1/3.2: a header whose section cannot be
        read, one that does not end the answer with citation or hallucination lines).
        """
        note = self._outbox.note
        cite = self._cite
        blocks, strays = split_section_blocks(
            text,
            cite.section_patterns,
            open_token=cite.section_open,
            close_token=cite.section_close,
        )
        recovered: list[str] = []
        no_request = self._no_request
        kinds_seen: set[str] = set()
        tag_markers = marker_pattern(cite.tag_grammar.markers)
        for block in blocks:
            if block.kind is None:
                note(f"a section of unknown kind is kept in the content: {excerpt(block.body)}")
                recovered.append(block.body)
                continue
            if no_request and cite.section_open and not block.token:
                recovered.append(block.header + block.body)
                continue
            block_notes: list[str] = []
            entries: list[CitationEntry] = []
            items: list[Hallucination] = []
            if block.kind == "citations":
                entries = list(cite.read_section(block.body, block_notes))
                # A citation tag inside a quoted context is noise. Contexts are made of
                # the body's lines, and no tag marker spans a line break: a body without
                # a marker has no tag to remove.
                if tag_markers is not None and tag_markers.search(block.body) is not None:
                    for number, entry in enumerate(entries):
                        if tag_markers.search(entry.context) is None:
                            continue
                        context = remove_citation_tags(entry.context, cite.tag_grammar)[0]
                        if context != entry.context:
                            entries[number] = CitationEntry(entry.key, entry.document, context)
            else:
                items = parse_hallucinations_text(block.body, block_notes)
            unreadable = not (entries or items) or any(
                each.startswith("could not read") for each in block_notes
            )
            if no_request and not cite.section_open and unreadable:
                recovered.append(block.header + block.body)
                continue
            if block.kind in kinds_seen:
                note(f"the {block.kind} section appears more than once; all are read")
            kinds_seen.add(block.kind)
            for each in block_notes:
                note(each)
            self._blocks.append(block)
            self._entries.extend(entries)
            self._items.extend(items)
        for stray in strays:
            if stray.strip():
                note(f"text after a section is kept in the content: {excerpt(stray)}")
        recovered.extend(strays)
        return "".join(recovered)

    def finish(
        self, content: str, lead: int
    ) -> tuple[list[Citation], list[Document], list[Hallucination]]:
        """The citations, cited documents and hallucinations of the parse, once the
        content is complete; ``lead`` is how many characters were stripped from the
        start of the text the tag remover passed on (tag positions move by it)."""
        cite = self._cite
        notes = self._notes
        index = DocumentIndex(self._documents, by_position=cite.documents_by_position)
        size = len(content)
        events = self._tags.events
        if lead or (events and max(map(itemgetter(2), events)) > size):
            events = [
                TagEvent(kind, ref, min(max(position - lead, 0), size), flag)
                for kind, ref, position, flag in events
            ]
        # One sentence split per parse, shared by citations and hallucinations.
        found = CitationInput(
            events, self._entries, content, index, self._blocks, notes, split_sentences
        )
        citations: list[Citation] = []
        hallucinations: list[Hallucination] = []
        if events or self._entries:
            citations = cite.build_citations(found)
        if self._items:
            grammar = cite.tag_grammar
            hallucinations = add_hallucination_response_spans(
                self._items,
                content,
                lambda text: remove_citation_tags(text, grammar)[0],
                sentences=found.sentences(),
                notes=notes,
            )
        return citations, index.cited(), hallucinations
