"""The Granite 3.x parse fast paths, each against the slower path it shortcuts.

* the 3.3 grammar reads the canonical ``<|start_of_cite|>{"document_id": "ID"}`` in
  one regex step (:meth:`_CiteTags.match`) instead of the general reading
  (:meth:`_CiteTags.match_any_form`);
* a quoted document id without a backslash is taken as it is, not JSON-decoded;
* the tag remover resolves a cluster with shortcuts for one tag and one whitespace
  run, and the usual cluster (tags back to back after a word, then whitespace and a
  word) in place: compared with the rule-by-rule resolution it replaced (kept here);
* the tag remover collects the output of a long buffer and writes it on once: a long
  text written whole against the same text in small chunks;
* section blocks are split with the lines that cannot start a header skipped in one
  search: compared with the line-by-line split it replaced (kept here);
* the bundled citation formats validate their citations as one list: equal, with the
  same fields set, to building them one by one;
* a document answers a quote it was asked before from its cache: as ``str.find``, and
  a locator a context it was asked before: as a fresh locator;
* citation lines keep each context's stripped text instead of re-joining it per line:
  compared with the reading it replaced (kept here).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from granite_formatters.granite3._citations import (
    ANCHOR,
    CLOSE,
    OPEN,
    CitationEntry,
    PatternSet,
    SectionBlock,
    TagEvent,
    citations_from_fields,
    parse_citation_lines,
    split_section_blocks,
)
from granite_formatters.granite3._cite_format import (
    CITE_GRAMMAR,
    CITE_SECTION_PATTERNS,
    END_OF_CITE,
    END_OF_PLUGIN,
    START_OF_CITE,
    START_OF_PLUGIN,
)
from granite_formatters.granite3._co_format import CO_SECTION_PATTERNS
from granite_formatters.granite3._types import Citation
from granite_formatters.syntax._citations import cite_format, co_format
from granite_formatters.syntax._citations import tag_remover as _citetags
from granite_formatters.syntax._citations.spans import ContextLocator, _TextIndex
from granite_formatters.syntax._citations.tag_remover import (
    CitationTagRemover,
    remove_citation_tags,
)
from granite_formatters.syntax._markers import MarkerSearch

from .test_citetags import POINT, TAGGED, WrapTags, _chunked
from support.granite3_output_support import cuts_for
from support.toy_release import toy_release

# Characters that decide the reading of an id: quotes, escapes, braces, line breaks,
# control characters, non-ASCII and a lone surrogate.
_ID_CHARS = st.sampled_from(list('ab1 -_"\\}{\n\t\x00\x1féü\ud800/'))
_IDS = st.one_of(
    st.lists(_ID_CHARS, max_size=12).map("".join),
    st.integers(min_value=195, max_value=205).map(lambda n: "d" * n),
)
_TAILS = st.sampled_from(["", END_OF_CITE, " Next.", "}", '"}', "\n", " " * 300])


@settings(max_examples=300)
@given(
    ident=_IDS,
    head=st.sampled_from(['{"document_id": "', '{"document_id":"', ' {"document_id": "', "{", ""]),
    close=st.sampled_from(['"}', '"', "}", '" }', ""]),
    tail=_TAILS,
    final=st.booleans(),
)
def test_the_canonical_start_tag_reads_as_the_general_reading(
    ident: str, head: str, close: str, tail: str, final: bool
) -> None:
    for text in (START_OF_CITE + head + ident + close + tail, "x " + head + ident + close + tail):
        pos = 0 if text.startswith(START_OF_CITE) else 2
        assert CITE_GRAMMAR.match(text, pos, final) == CITE_GRAMMAR.match_any_form(text, pos, final)


def _reference_read_object(text: str, pos: int, final: bool) -> object:
    """``_read_object`` as it was: every quoted id JSON-decoded."""
    found = cite_format._read_object(text, pos, final)
    if not isinstance(found, tuple):
        return found
    match = cite_format._DOCUMENT_ID.match(text, pos, found[0])
    assert match is not None or found[1] is None
    if match is None or match.group(1) is None:
        return found
    try:
        ref = str(json.loads(f'"{match.group(1)}"'))
    except ValueError:
        ref = match.group(1)
    return found[0], ref


@settings(max_examples=300)
@given(ident=_IDS, final=st.booleans())
def test_an_id_without_a_backslash_is_what_json_decodes(ident: str, final: bool) -> None:
    text = '{"document_id": "' + ident + '"} rest'
    assert cite_format._read_object(text, 0, final) == _reference_read_object(text, 0, final)


def test_the_canonical_start_tag_on_the_usual_shapes() -> None:
    text = f'Fact.{START_OF_CITE}{{"document_id": "doc-1"}}{END_OF_CITE} Next.'
    clean, events = remove_citation_tags(text, CITE_GRAMMAR)
    assert clean == "Fact. Next."
    assert events == [TagEvent(ANCHOR, "doc-1", 5)]
    escaped = f'{START_OF_CITE}{{"document_id": "a\\u00e9"}}'
    assert CITE_GRAMMAR.match(escaped, 0, True) == (len(escaped), OPEN, "aé", "")


class _Sink:
    def __init__(self) -> None:
        self.parts: list[str] = []

    def write(self, text: str) -> None:
        self.parts.append(text)

    def end(self) -> None:
        pass


class _ReferenceRemover(CitationTagRemover):
    """The cluster resolution as it was before its shortcuts (none resolved in place)."""

    def __init__(self, next_sink: _Sink, grammar: object) -> None:
        super().__init__(next_sink, grammar)  # type: ignore[arg-type]
        self._in_place = False

    def _resolve(self, following: str | None) -> None:
        cluster = self._cluster or []
        runs = ["".join(run) for run in self._runs]
        separator = ""
        line_start = self._out == 0 or self._last == "\n"
        if following is not None and not (runs[-1] == "" and following in ".,;:!?)]}\"'”’»…"):
            candidates = [run for run in runs if run]
            if candidates:
                separator = max(reversed(candidates), key=lambda run: run.count("\n"))
                if line_start and "\n" not in separator:
                    separator = ""
        before, after = self._out, self._out + len(separator)
        index = 0
        while index < len(cluster):
            tag = cluster[index]
            if tag.kind == OPEN and index + 1 < len(cluster) and cluster[index + 1].kind == CLOSE:
                self.events.append(TagEvent(ANCHOR, tag.ref, before, tag.flag))
                index += 2
                continue
            position = after if tag.kind == OPEN else before
            self.events.append(TagEvent(tag.kind, tag.ref, position, tag.flag))
            index += 1
        self._cluster = None
        self._runs = []
        self._pass(separator)


def _remove(remover_type: type[CitationTagRemover], text: str, grammar: object) -> object:
    sink = _Sink()
    remover = remover_type(sink, grammar)  # type: ignore[arg-type]
    remover.write(text)
    remover.end()
    return "".join(sink.parts), remover.events


_CLUSTERS = st.lists(
    st.sampled_from(["<c>1</c>", "<w>", "</w>", "<p>", " ", "  ", "\n", "\n\n", "\t", ".", ")",
                     "word", "x"]),
    max_size=20,
).map("".join)  # fmt: skip


@settings(max_examples=300)
@given(text=st.one_of(TAGGED, _CLUSTERS))
def test_cluster_resolution_equals_the_rule_by_rule_resolution(text: str) -> None:
    for grammar in (POINT, WrapTags(), CITE_GRAMMAR):
        shaped = (
            text.replace("<w>", START_OF_CITE + '{"document_id": "d"}').replace("</w>", END_OF_CITE)
            if grammar is CITE_GRAMMAR
            else text
        )
        assert _remove(CitationTagRemover, shaped, grammar) == _remove(
            _ReferenceRemover, shaped, grammar
        )


@settings(max_examples=100)
@given(data=st.data(), pieces=st.lists(st.one_of(TAGGED, _CLUSTERS), min_size=1, max_size=12))
def test_a_long_buffer_collected_in_one_write_equals_small_chunks(
    data: st.DataObject, pieces: list[str]
) -> None:
    # Long enough for the collected scan; the small chunks take the piece-by-piece one.
    text = "".join(pieces) + " Filler sentence." * 20
    assert len(text) >= _citetags._COLLECT_FROM
    cuts = data.draw(cuts_for(text))
    for grammar in (POINT, WrapTags()):
        small = [cut for cut in cuts if cut > 0]
        assert _chunked(text, small, grammar) == remove_citation_tags(text, grammar)
        assert _chunked(text, list(range(1, len(text))), grammar) == remove_citation_tags(
            text, grammar
        )


def test_a_tag_inside_a_quoted_context_is_removed_only_where_there_is_one() -> None:
    # The citations section is searched for tag markers once; only then are contexts
    # cleaned one by one. A context with a tag and one without, in 3.3 syntax (the
    # core's cite-token format, so no plugin is needed).
    from granite_formatters.granite3 import CITE_TOKEN_CITATIONS
    from granite_formatters.granite3._output_processor import CitedOutputProcessor

    request = {
        "messages": [{"role": "user", "content": "Q?"}],
        "documents": [{"doc_id": "d", "text": "Granite is a family of models. It is open."}],
    }
    tag = START_OF_CITE + '{"document_id": "d"}' + END_OF_CITE
    section = '<|start_of_plugin|>{"id": "citation"}\n{lines}\n<|end_of_plugin|>'
    answer = f"Granite is a family.{tag} It is open.{tag}\n\n"
    tagged = 'd: "Granite is ' + tag + 'a family of models."\nd: "It is open."'
    plain = 'd: "Granite is a family of models."\nd: "It is open."'
    parser = toy_release(
        "cite tokens",
        citations=CITE_TOKEN_CITATIONS,
    ).output_processor()
    assert isinstance(parser, CitedOutputProcessor)
    with_tag = parser.transform(answer + section.replace("{lines}", tagged), request)
    without = parser.transform(answer + section.replace("{lines}", plain), request)
    assert [c.context_text for c in with_tag.citations] == [
        "Granite is a family of models.",
        "It is open.",
    ]
    assert with_tag.citations == without.citations


def _reference_split_section_blocks(
    text: str, patterns: PatternSet, *, open_token: str = "", close_token: str = ""
) -> tuple[list[SectionBlock], list[str]]:
    """``split_section_blocks`` as it was: every line tested against the patterns."""
    blocks: list[SectionBlock] = []
    strays: list[str] = []
    kind: str | None = None
    header = ""
    body: list[str] | None = None
    token = False

    def finish() -> None:
        nonlocal body
        if body is not None:
            blocks.append(SectionBlock(kind, "".join(body), token, header))
            body = None

    def lines(piece: str) -> list[str]:
        parts = piece.split("\n")
        return [part + "\n" for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])

    search = MarkerSearch(text, [t for t in (open_token, close_token) if t])
    position = 0
    opened = False
    while True:
        found = search.next(position)
        stop = len(text) if found is None else found.start
        at_line_start = opened or position == 0 or text[position - 1] == "\n"
        for line in lines(text[position:stop]):
            hit = patterns.match(line) if at_line_start else None
            if hit is not None:
                finish()
                kind, header, body, token = hit[0].name, line[: hit[1]], [line[hit[1] :]], opened
            elif opened:
                finish()
                kind, header, body, token = None, "", [line], True
            elif body is not None:
                body.append(line)
            else:
                strays.append(line)
            opened = False
            at_line_start = line.endswith("\n")
        if opened:
            finish()
            kind, header, body, token = None, "", [], True
        finish()
        if found is None:
            break
        opened = found.marker == open_token
        position = found.end
    return blocks, strays


_SECTION_PIECES = st.sampled_from(
    ["# Citations:", "## hallucinations :", " # Citations:", "#Citations", '{"id": "citation"}',
     ' {"id":"hallucinations"}', "<co>1</co> Document 0: \"x\"", "1. Risk low: A.", "\n", "\n\n",
     " ", "\t", "text", "#", "{", START_OF_PLUGIN, END_OF_PLUGIN, "<|start_of", "d: \"q\""]
)  # fmt: skip


@settings(max_examples=300)
@given(pieces=st.lists(_SECTION_PIECES, max_size=24))
def test_section_blocks_split_as_line_by_line(pieces: list[str]) -> None:
    text = "".join(pieces)
    for patterns, tokens in (
        (CO_SECTION_PATTERNS, {}),
        (CITE_SECTION_PATTERNS, {"open_token": START_OF_PLUGIN, "close_token": END_OF_PLUGIN}),
        (CITE_SECTION_PATTERNS, {}),
    ):
        assert split_section_blocks(text, patterns, **tokens) == _reference_split_section_blocks(
            text, patterns, **tokens
        )


_CITATION_FIELDS = st.fixed_dictionaries(
    {
        "citation_id": st.text(max_size=3),
        "doc_id": st.one_of(st.text(max_size=4), st.integers(-5, 10**12)),
        "context_text": st.text(max_size=8),
    },
    optional={
        "context_begin": st.integers(0, 99),
        "context_end": st.integers(0, 99),
        "response_text": st.text(max_size=8),
        "response_begin": st.integers(0, 99),
        "response_end": st.integers(0, 99),
    },
)


@given(st.lists(_CITATION_FIELDS, max_size=6))
def test_citations_validated_as_one_list_equal_one_by_one(fields: list[dict[str, object]]) -> None:
    together = citations_from_fields(fields)
    one_by_one = [Citation(**item) for item in fields]  # type: ignore[arg-type]
    assert together == one_by_one
    for made, expected in zip(together, one_by_one, strict=True):
        assert type(made) is Citation
        assert made.model_fields_set == expected.model_fields_set
        assert made.model_dump(exclude_unset=True) == expected.model_dump(exclude_unset=True)
        assert made.model_dump_json() == expected.model_dump_json()


@given(
    text=st.text(alphabet="ab .", max_size=60),
    quotes=st.lists(st.text(alphabet="ab .", min_size=1, max_size=5), max_size=12),
)
def test_a_short_text_answers_repeated_quotes_from_its_cache_as_find(
    text: str, quotes: list[str]
) -> None:
    index = _TextIndex(text)
    for quote in quotes + quotes:  # each quote asked twice: the second from the cache
        assert index.find(quote) == text.find(quote)


def _reference_parse_citation_lines(
    body: str, item_patterns: Sequence[re.Pattern[str]], notes: list[str]
) -> list[CitationEntry]:
    """``parse_citation_lines`` as it was: the open quote re-checked on the joined context."""

    def unquote(text: str) -> str:
        text = text.strip()
        if text.startswith('"'):
            text = text[1:]
        if text.endswith('"'):
            text = text[:-1]
        return text.strip()

    def quote_open(text: str) -> bool:
        text = text.strip()
        return text.startswith('"') and (len(text) == 1 or not text.endswith('"'))

    items: list[tuple[str, str, list[str]]] = []
    for line in body.splitlines():
        match = None
        if not (items and quote_open("\n".join(items[-1][2]))):
            for pattern in item_patterns:
                match = pattern.fullmatch(line)
                if match is not None:
                    break
        if match is not None:
            groups = match.groupdict()
            key = (groups.get("key") or "").strip()
            document = (groups.get("document") or key).strip()
            items.append((key, document, [groups.get("context") or ""]))
        elif items:
            items[-1][2].append(line)
        elif line.strip():
            notes.append(f"could not read citation line {line!r}")
    return [CitationEntry(key, doc, unquote("\n".join(lines))) for key, doc, lines in items]


_LINE_PIECES = st.sampled_from(
    ['<co>1</co> Document 0: "a', '"', 'b"', "<co> 2 </co> document 3 : x", "1. ", "d: ", '"',
     ' "q" ', "\n", "\r\n", "\n \n", " ", "c\u2028d", "text", ":", "<co>", '""']
)  # fmt: skip
_KEY_ONLY = re.compile(r"(?P<key>\w+)=(?P<context>.*)")


@settings(max_examples=300)
@given(pieces=st.lists(_LINE_PIECES, max_size=20))
def test_citation_lines_read_as_with_the_joined_open_quote_check(pieces: list[str]) -> None:
    body = "".join(pieces)
    for patterns in (co_format._CITATION_LINE,), cite_format._CITATION_LINES, (_KEY_ONLY,):
        notes: list[str] = []
        assert parse_citation_lines(body, patterns, notes) == _reference_parse_citation_lines(
            body, patterns, []
        )


@settings(max_examples=200)
@given(
    document=st.text(alphabet="aB .\n\"'…", max_size=40),
    long=st.booleans(),
    contexts=st.lists(st.text(alphabet="ab .\n\"'…", max_size=8), max_size=8),
)
def test_a_repeated_context_is_located_as_the_first_time(
    document: str, long: bool, contexts: list[str]
) -> None:
    # One locator remembers each context's answer; a fresh locator per call cannot.
    if long:
        document = "x " * 2100 + document  # past the direct search: the word index
    shared = ContextLocator()
    for context in contexts + contexts:
        assert shared.locate("d", document, context) == ContextLocator().locate(
            "d", document, context
        )
