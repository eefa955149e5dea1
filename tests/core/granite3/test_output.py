"""The shared Granite 3 output code, exercised without any plugin (a toy release with a toy
citation format, parsed by the one parser)."""

from __future__ import annotations

import pytest

from granite_formatters._errors import InvalidRequestError
from granite_formatters._streaming import Delta, ToolCallDelta
from granite_formatters._types import Document, coerce_request
from granite_formatters.granite3._citations import (
    ANCHOR,
    BoundedPattern,
    CitationEntry,
    CitationFormat,
    CitationInput,
    DocumentIndex,
    Lit,
    PatternSet,
    Rep,
    SectionBlock,
    add_hallucination_response_spans,
    anchor_sentences,
    make_citation,
    parse_citation_lines,
    parse_hallucinations_text,
    split_section_blocks,
)
from granite_formatters.granite3._output_processor import CitedOutputProcessor
from granite_formatters.granite3._types import Citation, Granite3ChatCompletion, Hallucination
from granite_formatters.syntax import JSON_LIST
from granite_formatters.syntax._citations.spans import ContextLocator
from granite_formatters.syntax._marked_reasoning import MarkedReasoning

from .test_citetags import PointTags
from support.granite3_output_support import (
    check_consistent,
    check_spans,
    comparable,
    joined,
    stream,
)
from support.toy_release import toy_release

# ----------------------------------------------------------------------------------------
# The prior implementation's helpers


@pytest.mark.parametrize(
    ("line", "number", "risk", "text"),
    [
        ("1. Risk low: A b.", "1", "low", "A b."),
        ("2. risk HIGH:C", "2", "high", "C"),
        ("3) Risk medium : D.", "3", "medium", "D."),
        ("4.Risk: unanswerable: E.", "4", "unanswerable", "E."),
        ("  5. Risk 0.75: F.", "5", "0.75", "F."),
        ("- Risk low: G.", "1", "low", "G."),
    ],
)
def test_parse_hallucinations_is_tolerant(line: str, number: str, risk: str, text: str) -> None:
    notes: list[str] = []
    assert parse_hallucinations_text(line, notes) == [
        Hallucination(hallucination_id=number, risk=risk, response_text=text)
    ]
    assert notes == []


def test_parse_hallucinations_items_continue_and_junk_is_noted() -> None:
    notes: list[str] = []
    items = parse_hallucinations_text(
        "preamble\n1. Risk low: First\nline.\n\n2. Risk high: Second.\n", notes
    )
    assert [(h.hallucination_id, h.risk, h.response_text) for h in items] == [
        ("1", "low", "First\nline."),
        ("2", "high", "Second."),
    ]
    assert notes == ["could not read hallucination line 'preamble'"]
    assert parse_hallucinations_text("", notes) == []


def test_add_hallucination_response_spans() -> None:
    response = "One. Two. One."
    items = [
        Hallucination(hallucination_id="1", risk="low", response_text="One. <c>1</c>"),
        Hallucination(hallucination_id="2", risk="low", response_text="One."),
        Hallucination(hallucination_id="3", risk="high", response_text="Three."),
    ]
    notes: list[str] = []
    located = add_hallucination_response_spans(
        items, response, lambda text: text.replace("<c>1</c>", ""), notes=notes
    )
    assert [(h.response_text, h.response_begin, h.response_end) for h in located] == [
        ("One.", 0, 4),
        ("One.", 10, 14),
        ("Three.", None, None),
    ]
    assert notes == ["hallucination 3: 'Three.' is not in the response"]
    assert items[0].response_begin is None  # inputs are not modified


# ----------------------------------------------------------------------------------------
# Sections, citation lines, documents

PATTERNS = PatternSet(
    [
        BoundedPattern("citations", [Rep(" ", 0, 3), Lit("# Refs", True), Lit(":")]),
        BoundedPattern("hallucinations", [Rep(" ", 0, 3), Lit("# Flags", True), Lit(":")]),
    ]
)


def test_split_section_blocks() -> None:
    text = "# Refs:\na\nb # Flags: not a header\n# flags: c\n# Refs: d"
    blocks, strays = split_section_blocks(text, PATTERNS)
    assert blocks == [
        SectionBlock("citations", "\na\nb # Flags: not a header\n", False, "# Refs:"),
        SectionBlock("hallucinations", " c\n", False, "# flags:"),
        SectionBlock("citations", " d", False, "# Refs:"),
    ]
    assert strays == []


def test_split_section_blocks_with_tokens() -> None:
    text = "<o># Refs:\nA\n<c>\n junk \n<o># Flags:\nB<c><o>{?}\nC<c><o>"
    blocks, strays = split_section_blocks(text, PATTERNS, open_token="<o>", close_token="<c>")
    assert blocks == [
        SectionBlock("citations", "\nA\n", True, "# Refs:"),
        SectionBlock("hallucinations", "\nB", True, "# Flags:"),
        SectionBlock(None, "{?}\nC", True),
        SectionBlock(None, "", True),
    ]
    assert strays == ["\n", " junk \n"]  # as written, to go back to the content


def test_parse_citation_lines_keeps_quoted_lines_together() -> None:
    import re

    pattern = re.compile(r"(?P<key>\d+)\s*->\s*(?P<document>\w+)\s*:\s*(?P<context>.*)")
    notes: list[str] = []
    body = 'junk\n1 -> d0: "first line\n2 -> d1: still quoted"\n3 -> d2: plain\nmore'
    assert parse_citation_lines(body, [pattern], notes) == [
        CitationEntry("1", "d0", "first line\n2 -> d1: still quoted"),
        CitationEntry("3", "d2", "plain\nmore"),
    ]
    assert notes == ["could not read citation line 'junk'"]


def test_document_index_by_position_and_by_id() -> None:
    docs = [Document(text="zero"), Document(text="one", doc_id="abc"), Document(text="two")]
    index = DocumentIndex(docs, by_position=True)
    assert index.lookup("2") == ("2", docs[2])
    assert index.lookup(" 1 ") == ("abc", docs[1])
    assert (
        index.lookup("3") is None and index.lookup("x") is None and index.lookup("9" * 50) is None
    )
    assert [(d.text, d.doc_id) for d in index.cited()] == [("two", "2"), ("one", "abc")]
    assert docs[2].doc_id is None  # the request's documents are not modified

    by_id = DocumentIndex([Document(text="a", doc_id=7), Document(text="b")], by_position=False)
    assert by_id.lookup("7") is not None and by_id.lookup("") is not None
    assert by_id.lookup("0") is None
    assert [d.doc_id for d in by_id.cited()] == [7, ""]


def test_make_citation() -> None:
    index = DocumentIndex([Document(text="The sky is blue. Grass is green.")], by_position=True)
    notes: list[str] = []
    locator = ContextLocator()
    content = "Skies are blue. Lawns are green."
    citation = make_citation(
        "1",
        CitationEntry("1", "0", "Grass is green."),
        "0",
        (16, 32),
        content,
        index,
        locator,
        notes,
    )
    assert citation == Citation(
        citation_id="1", doc_id="0", context_text="Grass is green.", context_begin=17,
        context_end=32, response_text="Lawns are green.", response_begin=16, response_end=32,
    )  # fmt: skip
    missing = make_citation("2", None, "5", None, content, index, locator, notes)
    assert missing == Citation(citation_id="2", doc_id="5", context_text="")
    assert notes == ["citation 2: the request has no document '5'"]


# ----------------------------------------------------------------------------------------
# The parser, with a toy release


def _read_toy_section(body: str, notes: list[str]) -> list[CitationEntry]:
    import re

    pattern = re.compile(r"(?P<key>\d+) (?P<document>\d+) (?P<context>.*)")
    return parse_citation_lines(body, [pattern], notes)


def _build_toy_citations(found: CitationInput) -> list[Citation]:
    listed = {entry.key: entry for entry in found.entries}
    anchors = [e for e in found.events if e.kind == ANCHOR]
    spans = anchor_sentences([e.position for e in anchors], found.sentences())
    locator = ContextLocator()
    return [
        make_citation(
            e.ref or "", listed[e.ref], listed[e.ref].document, span,
            found.content, found.documents, locator, found.notes,
        )
        for e, span in zip(anchors, spans, strict=True)
        if e.ref in listed
    ]  # fmt: skip


TOY_CITATIONS = CitationFormat(
    name="toy",
    tag_grammar=PointTags(),
    section_patterns=PATTERNS,
    read_section=_read_toy_section,
    build_citations=_build_toy_citations,
)


TOY_RELEASE = toy_release(
    tool_calls=JSON_LIST,
    tool_call_markers=("<tool_call>",),
    reasoning=MarkedReasoning(starts=("<t>",), ends=("</t>",)),
    citations=TOY_CITATIONS,
)
_TOY = TOY_RELEASE.output_processor()
assert isinstance(_TOY, CitedOutputProcessor)  # (its messages are Granite3AssistantMessage)
TOY = _TOY
DOCS = [{"text": "Doc zero says hello."}, {"text": "Doc one says bye."}]
REQUEST = {"messages": [{"role": "user", "content": "q"}], "documents": DOCS}
OUTPUT = (
    "<t>plan</t>Hello there.<c>1</c> Bye now <c>2</c>.\n\n# Refs:\n1 0 says hello\n2 1 says bye"
    "\n# Flags:\n1. Risk high: Bye now."
)


def test_toy_release_end_to_end() -> None:
    message = TOY.transform(OUTPUT, REQUEST)
    assert message.content == "Hello there. Bye now."
    assert message.reasoning_content == "plan"
    assert message.raw_content == OUTPUT
    assert [
        (c.citation_id, c.doc_id, c.response_text, c.context_text) for c in message.citations
    ] == [
        ("1", "0", "Hello there.", "says hello"),
        ("2", "1", "Bye now.", "says bye"),
    ]
    assert [(h.risk, h.response_begin, h.response_end) for h in message.hallucinations] == [
        ("high", 13, 21)
    ]
    assert [d.text for d in message.documents] == [d["text"] for d in DOCS]
    assert check_spans(message, DOCS) == 5
    assert message.notes == []
    check_consistent(message, OUTPUT)


def test_policies_depend_on_the_request() -> None:
    # No request: everything is parsed, but contexts cannot be located.
    bare = TOY.transform(OUTPUT)
    assert bare.reasoning_content == "plan" and len(bare.citations) == 2
    assert all(c.context_begin is None for c in bare.citations) and bare.documents == []
    # thinking: false leaves the thought in the content; no documents: no RAG parsing.
    plain = {
        "messages": [{"role": "user", "content": "q"}],
        "chat_template_kwargs": {"thinking": False},
    }
    message = TOY.transform(OUTPUT, plain)
    assert message.reasoning_content is None
    assert message.content == OUTPUT
    assert message.raw_content == OUTPUT and message.citations == []


def test_bad_requests_and_bad_output_do_not_raise() -> None:
    # A request the renderer refuses is parsed as without one (issue 43: the parser
    # never raises on a bad request; format does).
    bad: object
    for bad in ({"messages": []}, "{not json"):
        with pytest.raises(InvalidRequestError):
            coerce_request(bad, Granite3ChatCompletion)
        message = TOY.transform(OUTPUT, bad)
        without = TOY.transform(OUTPUT)
        assert message.model_dump(exclude={"tool_calls"}) == without.model_dump(
            exclude={"tool_calls"}
        )
    for output in ["", "<t>", "</t>", "# Refs:", "<c>1</c>", "# Flags:\n1. Risk low: ?"]:
        check_consistent(TOY.transform(output, REQUEST), output)
    assert TOY.transform(b"bytes <t>x</t>".decode()).content == "bytes"
    assert TOY.transform(None).content == ""  # type: ignore[arg-type]


def test_stream_parser_protocol() -> None:
    parser = TOY.stream_parser(REQUEST)
    assert parser.message is None
    deltas = stream(parser, OUTPUT, [1, 5, 20, 21, 40])
    assert joined(deltas) == ("Hello there. Bye now.", "plan")
    assert comparable(parser.message) == comparable(TOY.transform(OUTPUT, REQUEST))
    assert parser.close() == []
    with pytest.raises(RuntimeError):
        parser.feed("more")
    assert all(isinstance(d, Delta) for d in deltas)
    assert deltas[0].to_openai() == {"role": "assistant", "reasoning_content": "pl"}  # "<" held


def test_delta_records() -> None:
    call = ToolCallDelta(index=0, id="call_1", name="f", arguments='{"a": 1}')
    assert Delta(tool_calls=(call,)).to_openai() == {
        "tool_calls": [
            {"index": 0, "id": "call_1", "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}}
        ]
    }  # fmt: skip
    assert ToolCallDelta(index=1, arguments="}").to_openai() == {
        "index": 1,
        "function": {"arguments": "}"},
    }
    assert Delta(content="x", reasoning_content="").to_openai() == {
        "reasoning_content": "",
        "content": "x",
    }
    with pytest.raises(AttributeError):
        call.index = 2  # type: ignore[misc]
