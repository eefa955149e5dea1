"""Regression tests for the output side's hardening (each failed before its fix)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from granite_formatters import get_formatter
from granite_formatters._types import AssistantMessage
from granite_formatters.granite3 import Granite3AssistantMessage
from granite_formatters.syntax._citations import spans
from granite_formatters.syntax._citations.spans import ContextLocator

G32 = get_formatter("granite-3.2-8b-instruct", Granite3AssistantMessage)
G33 = get_formatter("granite-3.3-8b-instruct", Granite3AssistantMessage)


@pytest.mark.parametrize("digit", ["²", "①", "₀", "٣"])
def test_non_ascii_digits_name_no_document(digit: str) -> None:
    # Item 1: "²".isdigit() is true but int("²") raised.
    request = {"messages": [{"role": "user", "content": "q"}], "documents": [{"text": "Paris"}]}
    output = f'Paris.<co>1</co>\n# Citations:\n<co>1</co> Document {digit}: "Paris"'
    message = G32.parse(output, request)
    assert message.content == "Paris."
    assert [(c.doc_id, c.context_begin) for c in message.citations] == [(digit, None)]
    assert f"citation 1: the request has no document {digit!r}" in message.notes


def _serialises(message: AssistantMessage) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(message.model_dump_json())
    json.dumps(message.to_openai()).encode("utf-8")
    json.dumps(message.to_openai(), ensure_ascii=False).encode("utf-8")
    return data


def test_lone_surrogate_in_tool_arguments_is_replaced() -> None:
    # Item 5: a \\ud83d escape decoded to a lone surrogate that pydantic cannot encode.
    message = G33.parse('<|tool_call|>[{"name": "f", "arguments": {"text": "smile \\ud83d"}}]')
    data = _serialises(message)
    assert data["tool_calls"][0]["arguments"] == {"text": "smile \ufffd"}
    assert "replaced lone surrogates in a tool call with U+FFFD" in message.notes


def test_lone_surrogate_in_cite_tag_is_replaced() -> None:
    message = G33.parse('Hi.<|start_of_cite|>{"document_id": "\\udc00"}<|end_of_cite|>')
    data = _serialises(message)
    assert [c["doc_id"] for c in data["citations"]] == ["\ufffd"]
    assert "citation 0: replaced lone surrogates in its document id" in message.notes


def test_lone_surrogate_in_the_text_is_replaced_one_for_one() -> None:
    message = G33.parse("caf\ud800 ok.")
    _serialises(message)
    assert message.content == "caf\ufffd ok."
    assert any("lone surrogates" in note for note in message.notes)


@pytest.mark.parametrize("depth", [65, 300, 900])
def test_arguments_too_deep_are_kept_as_their_string(depth: int) -> None:
    nested = "[" * depth + "]" * depth
    output = '<|tool_call|>[{"name": "f", "arguments": ' + json.dumps(nested) + "}]"
    message = G33.parse(output)
    data = _serialises(message)
    assert data["tool_calls"][0]["arguments"] == nested
    assert any("nested deeper than 64 levels" in note for note in message.notes)


def test_arguments_within_the_limit_are_decoded() -> None:
    nested = "[" * 64 + "]" * 64
    output = '<|tool_call|>[{"name": "f", "arguments": ' + json.dumps(nested) + "}]"
    assert isinstance(G33.parse(output).tool_calls[0].arguments, list)


def test_integer_doc_id_is_kept_so_citations_join_documents() -> None:
    # Item 11: documents[0].doc_id == 1 but citations[0].doc_id was "1".
    request = {
        "messages": [{"role": "user", "content": "q"}],
        "documents": [{"doc_id": 1, "text": "Paris is nice"}],
    }
    output = (
        'Paris.<|start_of_cite|>{"document_id": "1"}<|end_of_cite|>\n'
        '<|start_of_plugin|>{"id": "citation"}\n1: "Paris is nice"<|end_of_plugin|>'
    )
    message = G33.parse(output, request)
    assert [c.doc_id for c in message.citations] == [1]
    assert [d.doc_id for d in message.documents] == [1]
    by_id = {d.doc_id: d for d in message.documents}
    assert by_id[message.citations[0].doc_id].text == "Paris is nice"


def test_integer_doc_id_kept_by_position_too() -> None:
    request = {
        "messages": [{"role": "user", "content": "q"}],
        "documents": [{"doc_id": 7, "text": "Paris"}],
    }
    message = G32.parse('Paris.<co>1</co>\n# Citations:\n<co>1</co> Document 0: "Paris"', request)
    assert [c.doc_id for c in message.citations] == [7]
    assert [d.doc_id for d in message.documents] == [7]


def test_unclosed_cite_tag_is_noted() -> None:
    message = G33.parse('Hello <|start_of_cite|>{"document_id": "1"} world.')
    assert message.content == "Hello world."
    assert (
        "a <|start_of_cite|> is never closed by <|end_of_cite|>; read as a point citation"
        in message.notes
    )
    closed = G33.parse('Hello.<|start_of_cite|>{"document_id": "1"}<|end_of_cite|>')
    assert not any("never closed" in note for note in closed.notes)


def test_bytes_split_inside_a_character_decode_like_the_batch() -> None:
    # Item 8: each chunk was decoded alone, giving 'caf\ufffd\ufffd'.
    data = "café – 東京".encode()
    for cut in range(len(data) + 1):
        parser = G33.stream_parser()
        # StreamParser.feed is annotated `str` but takes bytes too (docs/api.md, "feed accepts
        # str or bytes"); the annotation in the core is to be widened.
        deltas = parser.feed(data[:cut]) + parser.feed(data[cut:]) + parser.close()  # type: ignore[arg-type]
        assert parser.message is not None
        assert parser.message.content == "café – 東京"
        assert "".join(d.content or "" for d in deltas) == "café – 東京"


def test_truncated_bytes_are_replaced_at_close() -> None:
    parser = G33.stream_parser()
    parser.feed(b"ok " + "é".encode()[:1])  # type: ignore[arg-type]  # bytes: see above
    parser.close()
    assert parser.message is not None and parser.message.content == "ok \ufffd"


def test_generated_ids_are_unique_across_turns() -> None:
    output = '<|tool_call|>[{"name": "f", "arguments": {}}, {"name": "f", "arguments": {}}]'
    ids = [c.id for _ in range(3) for c in G33.parse(output).tool_calls]
    assert len(set(ids)) == 6
    assert all(re.fullmatch("call_[0-9a-f]{24}", i) for i in ids)


# Item 3: quotes are found through an index built once per document.

WORDS = st.sampled_from(["a", "ab", "b", "Paris", "is", " ", "  ", ".", ",", "\n", "x1", "é"])


@settings(max_examples=200)
@given(
    body=st.lists(WORDS, min_size=1, max_size=80).map("".join),
    quote=st.lists(WORDS, min_size=1, max_size=8).map("".join),
)
def test_indexed_search_finds_what_str_find_finds(body: str, quote: str) -> None:
    text = body * (spans._DIRECT // max(len(body), 1) + 2)  # longer than the direct limit
    assert len(text) > spans._DIRECT
    index = spans._TextIndex(text)
    assert index.find(quote) == text.find(quote)
    assert index.find(quote) == text.find(quote)  # cached


def test_context_locator_exact_then_whitespace_and_case() -> None:
    document = ("Filler words here. " * 400) + "Alpha beta.\nGamma  delta."
    locator = ContextLocator()
    begin = document.index("beta.")
    assert locator.locate("a", document, "beta.") == (begin, begin + 5)
    span = locator.locate("a", document, '"gamma delta."')
    assert span is not None and document[span[0] : span[1]] == "Gamma  delta."
    assert locator.locate("a", document, "not there at all") is None


# Item 4: nothing the model wrote is lost from the message.

RAG33 = {
    "messages": [{"role": "user", "content": "q"}],
    "documents": [{"doc_id": "1", "text": "Paris is nice"}],
}


@pytest.mark.parametrize("request_", [None, RAG33])
def test_unknown_plugin_section_and_text_after_it_stay_in_content(
    request_: dict[str, Any] | None,
) -> None:
    message = G33.parse("Hello <|start_of_plugin|>X<|end_of_plugin|> world.", request_)
    assert message.content == "Hello X world."
    assert "a section of unknown kind is kept in the content: 'X'" in message.notes
    assert "text after a section is kept in the content: 'world.'" in message.notes


def test_text_after_a_known_section_stays_in_content() -> None:
    output = (
        'Paris.<|start_of_cite|>{"document_id": "1"}<|end_of_cite|>\n'
        '<|start_of_plugin|>{"id": "citation"}\n1: "Paris is nice"<|end_of_plugin|>\nBye.'
    )
    message = G33.parse(output, RAG33)
    assert message.content == "Paris.\n\nBye."
    assert [(c.doc_id, c.response_text, c.context_text) for c in message.citations] == [
        ("1", "Paris.", "Paris is nice")
    ]


def test_header_like_line_without_request_stays_in_content_33() -> None:
    output = 'Send this JSON:\n{"id": "citation"}\nThen call the API'
    assert G33.parse(output).content == output


def test_header_like_line_without_request_stays_in_content_32() -> None:
    output = "Send this:\n# Citations:\nThen call the API"
    assert G32.parse(output).content == output


def test_real_sections_without_request_are_still_read() -> None:
    output = 'Paris.<co>1</co>\n# Citations:\n<co>1</co> Document 0: "Paris"'
    message = G32.parse(output)
    assert message.content == "Paris."
    assert [c.context_text for c in message.citations] == ["Paris"]
    output33 = (
        'Paris.<|start_of_cite|>{"document_id": "1"}<|end_of_cite|>\n'
        '<|start_of_plugin|>{"id": "citation"}\n1: "Paris"<|end_of_plugin|>'
    )
    message33 = G33.parse(output33)
    assert message33.content == "Paris."
    assert [c.context_text for c in message33.citations] == ["Paris"]


@pytest.mark.parametrize(
    "output",
    [
        "Hello <|start_of_plugin|>X<|end_of_plugin|> world.",
        'Send this JSON:\n{"id": "citation"}\nThen call the API',
    ],
)
def test_recovered_text_streams_like_the_batch(output: str) -> None:
    batch = G33.parse(output)
    for cut in range(len(output) + 1):
        parser = G33.stream_parser()
        deltas = parser.feed(output[:cut]) + parser.feed(output[cut:]) + parser.close()
        assert "".join(d.content or "" for d in deltas) == batch.content
