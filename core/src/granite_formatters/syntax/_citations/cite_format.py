"""The cite-token citation format of Granite 3.3 output, as a core format object.

* Citations: ``<|start_of_cite|>{"document_id": "ID"}<|end_of_cite|>`` after the cited
  sentence, or wrapped around the cited text (``<|start_of_cite|>{...}text<|end_of_cite|>``,
  as in the prompt's example); ids may be any string. The citations section is
  ``<|start_of_plugin|>{"id": "citation"}`` followed by ``ID: "quoted context"`` lines
  and ``<|end_of_plugin|>``; tags are matched to lines by document id, in order (a
  document cited more often than listed reuses its last context). A start tag never
  closed is read as a point citation, with a note.
* Hallucinations: ``<|start_of_plugin|>{"id": "hallucination"}`` with
  ``1. Risk low: sentence`` items.

These markers are special tokens, which servers remove by default
(``skip_special_tokens=True``). Section headers are still recognised without their
tokens (a ``{"id": "citation"}`` line) when a request is given, and
``{"document_id": ...}`` remnants are removed from the content, but the tag positions
cannot be trusted then, so no citations are produced and a note says why. Decode with
``skip_special_tokens=False``.

:data:`CITE_TOKEN_CITATIONS` is the format object; any release whose model writes this
syntax declares it as its ``citations`` (``Release(citations=CITE_TOKEN_CITATIONS)``).
"""

from __future__ import annotations

import json
import re
from collections import deque
from typing import TYPE_CHECKING, Any

from .format import CitationFormat
from .line_patterns import SPACES, BoundedPattern, Lit, PatternSet, Rep
from .tag_grammar import ANCHOR, CLOSE, NEED_MORE, OPEN, NeedMore, TagEvent, TagMatch

if TYPE_CHECKING:
    from ...granite3._types import Citation
    from .citation_input import CitationInput
    from .lines import CitationEntry
    from .spans import Span

__all__ = [
    "CITE_GRAMMAR",
    "CITE_SECTION_PATTERNS",
    "CITE_TOKEN_CITATIONS",
    "END_OF_CITE",
    "END_OF_PLUGIN",
    "START_OF_CITE",
    "START_OF_PLUGIN",
    "TOKENS_SKIPPED_NOTE",
]

START_OF_CITE, END_OF_CITE = "<|start_of_cite|>", "<|end_of_cite|>"
START_OF_PLUGIN, END_OF_PLUGIN = "<|start_of_plugin|>", "<|end_of_plugin|>"

#: The note made when the server removed the special tokens.
TOKENS_SKIPPED_NOTE = (
    "the output has no <|start_of_cite|> tokens (the server probably decoded with "
    "skip_special_tokens=True), so citations cannot be located and none are returned; "
    "request skip_special_tokens=False to get them"
)


def _section_header(kind: str, word: str) -> BoundedPattern:
    return BoundedPattern(
        kind,
        [
            SPACES,
            Lit("{"),
            SPACES,
            Lit('"id"'),
            SPACES,
            Lit(":"),
            SPACES,
            Lit(f'"{word}'),
            Rep("s", 0, 1),
            Lit('"'),
            SPACES,
            Lit("}"),
        ],
    )


#: ``{"id": "citation"}`` and ``{"id": "hallucination"}`` section headers.
CITE_SECTION_PATTERNS = PatternSet(
    [_section_header("citations", "citation"), _section_header("hallucinations", "hallucination")]
)

_OBJECT_LIMIT = 256
_DOCUMENT_ID = re.compile(
    r'\{[ \t]*"?document_id"?[ \t]*:[ \t]*(?:"((?:[^"\\\n]|\\.){0,200})"|([^\s,}"]{1,200}))'
)
#: What may decide an object waiting for its "}" (see _read_object).
_OBJECT_WAITS = frozenset("}\n")
_REMNANTS = ('{"document_id"', "{document_id", '{ "document_id"')


def _read_object(text: str, pos: int, final: bool) -> tuple[int, str | None] | NeedMore | None:
    """A one-line ``{...}`` at ``pos`` (no nesting): its end and its document id."""
    limit = pos + _OBJECT_LIMIT
    close = text.find("}", pos, limit)
    if close == -1:
        if "\n" in text[pos:limit]:
            return None
        return NEED_MORE if not final and len(text) < limit else None
    if "\n" in text[pos:close]:
        return None
    found = _DOCUMENT_ID.match(text, pos, close + 1)
    ref: str | None = None
    if found is not None:
        quoted = found.group(1)
        if quoted is not None:
            # Without a backslash the JSON string is its own text (json.loads would
            # return it, or reject a control character and the raw text is kept).
            if "\\" not in quoted:
                ref = quoted
            else:
                try:
                    ref = str(json.loads(f'"{quoted}"'))
                except ValueError:
                    ref = quoted
        else:
            ref = found.group(2)
    return close + 1, ref


# The start tag as the model writes it (the prompt's example), read in one step: the id
# holds no quote, backslash, line break or "}", so the first "}" closes the object and
# the id is what _read_object would return (the object is far shorter than its limit).
_CANONICAL_OPEN = re.compile(
    re.escape(START_OF_CITE + '{"document_id": "') + r'([^"\\\n}]{0,200})"\}'
)
_END_TAG = TagMatch(len(END_OF_CITE), CLOSE)


class _CiteTags:
    """Granite 3.3 cite tokens, plus ``{"document_id": ...}`` left by a token-stripping server."""

    markers: tuple[str, ...] = (START_OF_CITE, END_OF_CITE, *_REMNANTS)

    def match(self, text: str, pos: int, final: bool) -> TagMatch | NeedMore | None:
        if text.startswith(END_OF_CITE, pos):
            return _END_TAG
        canonical = _CANONICAL_OPEN.match(text, pos)
        if canonical is not None:
            return TagMatch(canonical.end() - pos, OPEN, canonical.group(1))
        return self.match_any_form(text, pos, final)

    def match_any_form(self, text: str, pos: int, final: bool) -> TagMatch | NeedMore | None:
        """:meth:`match` without the one-step reading of the canonical start tag."""
        if text.startswith(END_OF_CITE, pos):
            return _END_TAG
        if text.startswith(START_OF_CITE, pos):
            cursor = pos + len(START_OF_CITE)
            brace = cursor
            while brace < len(text) and brace - cursor < 3 and text[brace] in " \t":
                brace += 1
            if brace == len(text) and not final:
                return NEED_MORE
            if brace < len(text) and text[brace] == "{":
                found = _read_object(text, brace, final)
                if isinstance(found, NeedMore):
                    return found
                if found is not None:
                    return TagMatch(found[0] - pos, OPEN, found[1])
            return TagMatch(len(START_OF_CITE), OPEN)
        found = _read_object(text, pos, final)
        if isinstance(found, NeedMore) or found is None:
            return found
        if found[1] is None:
            return None
        return TagMatch(found[0] - pos, ANCHOR, found[1], "remnant")

    def waits(self, text: str, pos: int) -> tuple[frozenset[str], int] | None:
        """For a tag at ``pos`` that :meth:`match` left undecided: the characters that
        may decide it and how long ``text[pos:]`` may grow without one of them and stay
        undecided (below that length); ``None`` when the next character may decide it.

        Only an object waiting for its ``}`` waits (a line break or its size limit
        decides it too)."""
        if text.startswith(START_OF_CITE, pos):
            cursor = pos + len(START_OF_CITE)
            brace = cursor
            while brace < len(text) and brace - cursor < 3 and text[brace] in " \t":
                brace += 1
            if brace == len(text) or text[brace] != "{":
                return None
            return _OBJECT_WAITS, brace - pos + _OBJECT_LIMIT
        return _OBJECT_WAITS, _OBJECT_LIMIT


#: The Granite 3.3 inline citation tag grammar.
CITE_GRAMMAR = _CiteTags()

_CITATION_LINES = (
    re.compile(r'[ \t]*"?(?P<key>[^":\n]{1,64}?)"?[ \t]*:[ \t]*(?P<context>.*)'),
    re.compile(r"[ \t]*(?P<key>\d{1,9})\.[ \t]+(?P<context>.*)"),
)


def _strip_span(content: str, begin: int, end: int) -> Span | None:
    while begin < end and content[begin].isspace():
        begin += 1
    while end > begin and content[end - 1].isspace():
        end -= 1
    return (begin, end) if begin < end else None


def _build_cite_citations(found: CitationInput) -> list[Citation]:
    # (the parse-side modules are imported by the first parse, not by a declaration)
    from .documents import citation_fields, citations_from_fields
    from .spans import ContextLocator, anchor_sentences

    events, entries, content = found.events, found.entries, found.content
    documents, blocks, notes = found.documents, found.blocks, found.notes
    real_tokens = any(event.flag != "remnant" for event in events)
    stripped = any(event.flag == "remnant" for event in events) or any(
        not block.token for block in blocks
    )
    if stripped and not real_tokens:
        notes.append(TOKENS_SKIPPED_NOTE)
        return []

    # (document id, anchor position, explicit span) per tag, in answer order.
    refs: list[tuple[str | None, int, Span | None]] = []
    opened: TagEvent | None = None
    unclosed = "a <|start_of_cite|> is never closed by <|end_of_cite|>; read as a point citation"
    for event in events:
        if event.kind == OPEN:
            if opened is not None:
                notes.append(unclosed)
                refs.append((opened.ref, opened.position, None))
            opened = event
        elif event.kind == CLOSE:
            if opened is None:
                notes.append("removed an <|end_of_cite|> that closes no <|start_of_cite|>")
                continue
            span = _strip_span(content, opened.position, event.position)
            refs.append((opened.ref, opened.position, span))
            opened = None
        else:
            refs.append((event.ref, event.position, None))
    if opened is not None:
        notes.append(unclosed)
        refs.append((opened.ref, opened.position, None))

    points = [position for _, position, span in refs if span is None]
    sentences = found.sentences() if points else []
    point_spans = iter(anchor_sentences(points, sentences))

    queues: dict[str, deque[CitationEntry]] = {}
    for listed in entries:
        queues.setdefault(listed.key, deque()).append(listed)
    last_used: dict[str, CitationEntry] = {}
    locator = ContextLocator()
    citations: list[dict[str, Any]] = []
    for ref, _, span in refs:
        response = span if span is not None else next(point_spans)
        citation_id = str(len(citations))
        if ref is None:
            notes.append(f"citation {citation_id}: the cite tag names no document_id")
            ref = ""
        queue = queues.get(ref)
        entry = queue.popleft() if queue else last_used.get(ref)
        if entry is None:
            notes.append(
                f"citation {citation_id}: document {ref!r} has no line in the citations section"
            )
        else:
            last_used[ref] = entry
        citations.append(
            citation_fields(citation_id, entry, ref, response, content, documents, locator, notes)
        )
    for queue in queues.values():
        for unused in queue:
            citation_id = str(len(citations))
            notes.append(
                f"citation {citation_id}: document {unused.key!r} is listed but not cited "
                "in the answer"
            )
            citations.append(
                citation_fields(
                    citation_id, unused, unused.key, None, content, documents, locator, notes
                )
            )
    return citations_from_fields(citations)


def _read_cite_section(body: str, notes: list[str]) -> list[CitationEntry]:
    from .lines import parse_citation_lines

    return parse_citation_lines(body, _CITATION_LINES, notes)


#: The Granite 3.3 cite-token citation format, as data.
CITE_TOKEN_CITATIONS = CitationFormat(
    name="cite-token",
    tag_grammar=CITE_GRAMMAR,
    section_patterns=CITE_SECTION_PATTERNS,
    read_section=_read_cite_section,
    build_citations=_build_cite_citations,
    section_open=START_OF_PLUGIN,
    section_close=END_OF_PLUGIN,
    documents_by_position=False,
)
