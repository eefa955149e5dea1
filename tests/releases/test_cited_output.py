"""Output parsing and streaming of the releases whose answers cite documents.

Each test runs once per release with the ``citations`` feature, over the release's data
in :mod:`support.cited_outputs` (its citation syntax's outputs and what they parse to);
the reasoning and tool-call rows are those of the syntaxes the release declares. The
parser is the one ``get_formatter`` gives for the release's model.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from granite_formatters import get_formatter
from granite_formatters._processors import declared_message_type
from granite_formatters._streaming import Delta
from granite_formatters.granite3 import Granite3AssistantMessage

from support.cited_outputs import (
    BARE_CALL,
    BROKEN_CALL,
    CITED_OUTPUTS,
    NOT_THINKING,
    REASONING_ROWS,
    THINKING,
    THINKING_OFF,
    THOUGHT_MARKERS,
    TOOL_CALL_ROWS,
    USER,
    CitedOutputs,
    Parsed,
)
from support.granite3_output_support import (
    check_consistent,
    check_every_split,
    check_spans,
    check_stream,
    comparable,
    cuts_for,
    marker_soup,
    span_of,
    stream,
    truncations,
)
from support.release_data import release_declaration
from support.releases import RELEASES, Release, with_feature

APPLIES_TO = "citations"


def parser(release: Release) -> Any:
    """The release's output processor, through the public lookup."""
    return get_formatter(release.model).output_processor


def data(release: Release) -> CitedOutputs:
    return CITED_OUTPUTS[release.version]


def test_the_registered_parser_is_the_declarations(release: Release) -> None:
    processor = parser(release)
    assert processor == release_declaration(release.version).output_processor()
    assert declared_message_type(processor) is Granite3AssistantMessage


def _rows(table: str) -> list[Any]:
    """``(release, item)`` for each item of each cited release's ``table`` (an absent
    release's rows are skipped by the conftest, with the reason)."""
    return [
        pytest.param(r, item, id=f"{r.version}-{i}")
        for r in with_feature(APPLIES_TO)
        for i, item in enumerate(getattr(CITED_OUTPUTS[r.version], table))
    ]


def _syntax_rows(tables: dict[str, list[Any]], syntax: str) -> list[Any]:
    """``(release, *row)`` for each row of the release's ``syntax`` (a property of
    :class:`~support.releases.Release`) in ``tables``."""
    params = []
    for r in with_feature(APPLIES_TO):
        key = getattr(r, syntax)
        params += [
            pytest.param(r, *row, id=f"{r.version}-{i}") for i, row in enumerate(tables[key])
        ]
    return params


# --------------------------------------------------------------------------- batch parse


def test_rag_answer_with_five_documents_and_eight_citations(release: Release) -> None:
    d = data(release)
    message = parser(release).transform(d.rag_output, d.rag)
    content = message.content
    assert content == d.rag_content
    assert message.raw_content == d.rag_output
    assert message.reasoning_content == d.rag_reasoning
    assert message.tool_calls == []
    expected = []
    for citation_id, doc_id, sentence, occurrence, context in d.rag_citations:
        span = span_of(content, sentence)
        for _ in range(occurrence):
            span = span_of(content, sentence, span[1])
        expected.append((citation_id, doc_id, span, context))
    got = [
        (c.citation_id, c.doc_id, (c.response_begin, c.response_end), c.context_text)
        for c in message.citations
    ]
    assert got == expected
    # the repeated sentence's second citation is on its second copy
    spans = {
        (sentence, occurrence): span
        for (_, _, span, _), (_, _, sentence, occurrence, _) in zip(
            expected, d.rag_citations, strict=True
        )
    }
    assert len(set(spans.values())) == len(spans)
    assert [c.context_begin for c in message.citations] == d.rag_context_begins
    assert [doc.doc_id for doc in message.documents] == d.rag_doc_ids
    assert [doc.text for doc in message.documents] == [doc["text"] for doc in d.docs]
    assert [(h.hallucination_id, h.risk, h.response_begin) for h in message.hallucinations] == [
        (flag_id, risk, None if needle is None else content.index(needle))
        for flag_id, risk, needle in d.rag_hallucinations
    ]
    assert message.notes == d.rag_notes
    assert check_spans(message, d.docs) == 8 + 8 + 4


def test_no_request_parses_everything_but_cannot_locate_contexts(release: Release) -> None:
    d = data(release)
    message = parser(release).transform(d.rag_output)
    assert message.content == d.rag_content
    assert len(message.citations) == 8
    assert all(c.context_begin is None and c.response_begin is not None for c in message.citations)
    assert message.documents == []
    assert check_spans(message) == 8 + 4


@pytest.mark.parametrize(("release", "case"), _rows("parsed"))
def test_exact_parses(release: Release, case: Parsed) -> None:
    message = parser(release).transform(case.output, case.request)
    assert message.content == case.content
    assert [
        (c.doc_id, c.response_text, c.context_text, c.context_begin) for c in message.citations
    ] == case.citations
    assert [
        (h.risk, h.response_text, h.response_begin, h.response_end) for h in message.hallucinations
    ] == case.hallucinations
    assert [doc.doc_id for doc in message.documents] == case.documents
    assert message.notes == case.notes
    documents = (case.request or {}).get("documents", ())
    assert check_spans(message, documents) == case.spans


@pytest.mark.parametrize(("release", "case"), _rows("malformed"))
def test_malformed_outputs(release: Release, case: tuple[str, str, int, list[str]]) -> None:
    d = data(release)
    output, content, count, notes = case
    message = parser(release).transform(output, d.rag)
    assert message.content == content
    assert len(message.citations) == count
    assert message.notes == notes
    check_consistent(message, output)
    check_spans(message, d.docs)


@given(st.data())
def test_fuzz_never_raises_and_stays_consistent(release: Release, draws: st.DataObject) -> None:
    d, processor = data(release), parser(release)
    output = draws.draw(st.one_of(st.text(max_size=200), marker_soup(d.markers)))
    request = draws.draw(st.sampled_from(d.requests))
    message = processor.transform(output, request)
    check_consistent(message, output)
    check_spans(message, d.docs if request is d.rag else ())
    assert comparable(message) == comparable(processor.transform(output, request))


# --------------------------------------------------------------------------- reasoning


@pytest.mark.parametrize(
    ("release", "output", "reasoning", "content"),
    _syntax_rows(REASONING_ROWS, "reasoning_syntax"),
)
def test_reasoning(release: Release, output: str, reasoning: str | None, content: str) -> None:
    for request in (THINKING, None, {"messages": USER}):
        message = parser(release).transform(output, request)
        assert (message.reasoning_content, message.content) == (reasoning, content)
        check_consistent(message, output)


def test_thinking_off_leaves_the_markers_in_the_content(release: Release) -> None:
    assert release.reasoning_syntax is not None
    output = THINKING_OFF[release.reasoning_syntax]
    message = parser(release).transform(output, NOT_THINKING)
    assert (message.reasoning_content, message.content, message.raw_content) == (
        None,
        output,
        output,
    )


@pytest.mark.parametrize("request_kind", ["none", "no thinking key", "thinking"])
def test_an_unclosed_thought_is_reasoning_with_a_note(release: Release, request_kind: str) -> None:
    # The policy (docs/output-formats.md, "Reasoning"): text after a start marker with no
    # end marker is reasoning_content (the output was cut off inside the thought, as
    # Granite 4.2 treats it), and a note says the end marker is missing. A request
    # without a "thinking" key parses the markers as thinking=True does.
    assert release.reasoning_syntax is not None
    start, end = THOUGHT_MARKERS[release.reasoning_syntax]
    processor = parser(release)
    request = {
        "none": None,
        "no thinking key": {"messages": [{"role": "user", "content": "Hi"}]},
        "thinking": THINKING,
    }[request_kind]
    note = f"the reasoning has no end marker {end}; kept as reasoning"
    for text, content, reasoning, notes in [
        (f"{start} Let me think.\nStill thinking", "", "Let me think.\nStill thinking", [note]),
        (f"Lead. {start} cut", "Lead.", "cut", [note]),
        (f"{start}", "", "", [note]),
        (f"{start} Done. {end} Answer.", "Answer.", "Done.", []),
    ]:
        message = processor.transform(text, request)
        assert (message.content, message.reasoning_content, message.notes) == (
            content,
            reasoning,
            notes,
        ), text
        check_stream(processor, text, request, range(len(text)))


def test_with_thinking_off_the_markers_are_content(release: Release) -> None:
    assert release.reasoning_syntax is not None
    start = THOUGHT_MARKERS[release.reasoning_syntax][0]
    request = {
        "messages": [{"role": "user", "content": "Hi"}],
        "chat_template_kwargs": {"thinking": False},
    }
    message = parser(release).transform(f"{start} cut", request)
    assert (message.content, message.reasoning_content, message.notes) == (f"{start} cut", None, [])


# --------------------------------------------------------------------------- tool calls


@pytest.mark.parametrize(
    ("release", "output", "content", "arguments"),
    _syntax_rows(TOOL_CALL_ROWS, "tool_call_syntax"),
)
def test_tool_calls(release: Release, output: str, content: str, arguments: Any) -> None:
    d, processor = data(release), parser(release)
    for request in (d.tools, {**d.tools, "chat_template_kwargs": {"thinking": True}}):
        message = processor.transform(output, request)
        assert [(c.name, c.arguments) for c in message.tool_calls] == [("get_weather", arguments)]
        assert (message.content, message.reasoning_content) == (content, None)
        assert message.raw_content == output
        assert message.to_openai()["tool_calls"][0]["function"] == {
            "name": "get_weather",
            "arguments": json.dumps(arguments),
        }
        again = processor.transform(output, request)
        assert again.tool_calls[0].id != message.tool_calls[0].id  # unique per call across turns


def test_bare_list_without_offered_tools_is_content(release: Release) -> None:
    call = BARE_CALL[release.tool_call_syntax]
    message = parser(release).transform(call, {"messages": USER})
    assert message.tool_calls == [] and message.content == call


def test_invalid_tool_call_json_is_content(release: Release) -> None:
    output, note = BROKEN_CALL[release.tool_call_syntax]
    message = parser(release).transform(output, data(release).tools)
    assert message.tool_calls == [] and message.content == output
    assert note in message.notes[0]


# --------------------------------------------------------------------------- streaming


def test_reasoning_streams_before_the_answer_and_records_come_at_close(release: Release) -> None:
    split = data(release).stream_split
    stream_parser = parser(release).stream_parser(data(release).rag)
    bounds = [0, *split.cuts, len(split.text)]
    for (begin, end), expected in zip(itertools.pairwise(bounds), split.feeds[:-1], strict=True):
        assert stream_parser.feed(split.text[begin:end]) == expected
        assert stream_parser.message is None
    assert stream_parser.close() == split.feeds[-1]
    message = stream_parser.message
    assert message is not None
    assert [(c.doc_id, c.response_text) for c in message.citations] == split.citations
    assert len(message.hallucinations) == split.hallucinations


def test_tool_call_deltas_are_openai_shaped(release: Release) -> None:
    d = data(release)
    deltas = stream(parser(release).stream_parser(d.tools), d.tool_call_stream, [3, 10, 30])
    [delta, last] = deltas
    assert last == Delta(finish_reason="tool_calls")
    [call] = delta.tool_calls
    assert call.id is not None and call.id.startswith("call_")
    [written] = json.loads(d.tool_call_stream)
    assert delta.to_openai() == {
        "role": "assistant",
        "tool_calls": [
            {
                "index": 0,
                "id": call.id,
                "type": "function",
                "function": {
                    "name": written["name"],
                    "arguments": json.dumps(written["arguments"]),
                },
            }
        ],
    }


@given(st.data())
def test_realistic_outputs_any_chunking(release: Release, draws: st.DataObject) -> None:
    d = data(release)
    request = draws.draw(st.sampled_from(d.requests))
    text = draws.draw(d.outputs().flatmap(truncations))
    check_stream(parser(release), text, request, draws.draw(cuts_for(text)))


@given(st.data())
def test_random_outputs_any_chunking(release: Release, draws: st.DataObject) -> None:
    d = data(release)
    request = draws.draw(st.sampled_from(d.requests))
    text = draws.draw(st.one_of(st.text(max_size=120), marker_soup(d.markers)))
    check_stream(parser(release), text, request, draws.draw(cuts_for(text)))


@given(st.data())
def test_one_character_at_a_time(release: Release, draws: st.DataObject) -> None:
    text = draws.draw(data(release).outputs())
    check_stream(parser(release), text, data(release).rag, range(len(text)))


@pytest.mark.parametrize(("release", "text"), _rows("every_marker"))
def test_no_delta_holds_a_partial_marker_at_any_split_point(release: Release, text: str) -> None:
    d = data(release)
    request = {**d.rag, "tools": d.tools["tools"], "chat_template_kwargs": {"thinking": True}}
    check_every_split(parser(release), text, request, d.leaks)


@pytest.mark.parametrize(
    "text",
    [
        "a <|tool_call|> x b\ud800c",
        "</think> a <tool_call> y \udfff and \ud83d",
        '<think>\ud800</think> <|tool_call|>[{"name": "f", "arguments": {"u": "\\ud83c"}}]',
    ],
)
def test_stream_equals_batch_when_lone_surrogates_are_replaced(release: Release, text: str) -> None:
    # The surrogate note used to be recorded when its chunk arrived: after the notes of
    # earlier chunks in a stream, before them in the batch parse.
    processor, request = parser(release), data(release).tools
    message = processor.transform(text, request)
    assert message.notes[0] == (
        "replaced lone surrogates (not encodable as UTF-8) in the output with U+FFFD"
    )
    check_stream(processor, text, request, range(len(text)))


def test_every_cited_release_has_its_data() -> None:
    assert {r.version for r in RELEASES if r.has(APPLIES_TO)} <= set(CITED_OUTPUTS)
