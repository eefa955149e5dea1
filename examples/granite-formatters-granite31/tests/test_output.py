"""Parsing Granite 3.1 output: tool calls, ``<co>`` citations and hallucinations.

Every span is checked by slicing the text it points into.
"""

from __future__ import annotations

from typing import Any

import pytest
from granite_formatters import OutputProcessor, get_formatter
from granite_formatters.granite3 import Granite3AssistantMessage
from hypothesis import given, settings
from hypothesis import strategies as st

from granite_formatters_granite31.releases import GRANITE31

DOCUMENTS = [
    {"doc_id": "france", "text": "France is in Europe. Paris is the capital of France."},
    {"text": "Italy is in Europe. Rome is the capital of Italy. It is old."},
]
RAG_REQUEST: dict[str, Any] = {
    "messages": [{"role": "user", "content": "What are the capitals of France and Italy?"}],
    "documents": DOCUMENTS,
    "chat_template_kwargs": {"controls": {"citations": True, "hallucinations": True}},
}
RAG_OUTPUT = (
    "The capital of France is Paris.<co>1</co> Rome is the capital of Italy.<co>2</co> "
    "Both cities have more than ten million people.\n\n"
    "# Citations:\n"
    '<co>1</co> Document 0: "Paris is the capital of France."\n'
    '<co>2</co> Document 1: "Rome is the capital of Italy."\n\n'
    "# Hallucinations:\n"
    "1. Risk high: Both cities have more than ten million people."
)


@pytest.fixture(scope="module")
def processor() -> OutputProcessor:
    """The parser the formatter of a Granite 3.1 model name uses."""
    return get_formatter("granite3.1-dense:8b").output_processor


def parse(processor: OutputProcessor, output: str, request: Any = None) -> Any:
    message = processor.transform(output, request)
    assert isinstance(message, Granite3AssistantMessage)
    return message


def test_citations_and_hallucinations_with_spans(processor: OutputProcessor) -> None:
    message = parse(processor, RAG_OUTPUT, RAG_REQUEST)
    content = message.content
    assert content == (
        "The capital of France is Paris. Rome is the capital of Italy. "
        "Both cities have more than ten million people."
    )
    assert message.raw_content == RAG_OUTPUT
    assert message.notes == []
    assert [(c.citation_id, c.doc_id) for c in message.citations] == [("1", "france"), ("2", "1")]
    first, second = message.citations
    assert first.response_text == "The capital of France is Paris."
    assert content[first.response_begin : first.response_end] == first.response_text
    assert first.context_text == "Paris is the capital of France."
    assert DOCUMENTS[0]["text"][first.context_begin : first.context_end] == first.context_text
    assert (first.context_begin, first.context_end) == (21, 52)
    assert second.response_text == "Rome is the capital of Italy."
    assert content[second.response_begin : second.response_end] == second.response_text
    assert DOCUMENTS[1]["text"][second.context_begin : second.context_end] == second.context_text
    [hallucination] = message.hallucinations
    assert hallucination.risk == "high"
    assert hallucination.response_text == "Both cities have more than ten million people."
    span = content[hallucination.response_begin : hallucination.response_end]
    assert span == hallucination.response_text
    # The message's documents carry the ids the citations use.
    assert [d.doc_id for d in message.documents] == ["france", "1"]


def test_formatter_parse_is_the_output_processor() -> None:
    formatter = get_formatter("granite3.1-dense:8b")
    processor = formatter.output_processor
    # The declared release's parser, whose messages carry citations and hallucinations.
    assert processor == GRANITE31.output_processor()
    assert processor.message_type is Granite3AssistantMessage
    message = formatter.parse(RAG_OUTPUT, RAG_REQUEST)
    assert (
        message.model_dump()
        == GRANITE31.output_processor().transform(RAG_OUTPUT, RAG_REQUEST).model_dump()
    )


def test_a_context_not_in_the_document_has_no_span(processor: OutputProcessor) -> None:
    output = 'Paris.<co>1</co>\n\n# Citations:\n<co>1</co> Document 0: "Lyon is big."'
    [citation] = parse(processor, output, RAG_REQUEST).citations
    assert citation.context_text == "Lyon is big."
    assert citation.context_begin is None and citation.context_end is None
    assert citation.response_text == "Paris."


def test_a_tag_without_a_listed_citation_is_noted(processor: OutputProcessor) -> None:
    message = parse(processor, "Paris.<co>3</co>", RAG_REQUEST)
    assert message.content == "Paris."
    assert message.citations == []
    assert any("3" in note for note in message.notes)


TOOLS_REQUEST = {
    "messages": [{"role": "user", "content": "Weather in Paris, and the time?"}],
    "tools": [{"name": "get_current_weather"}, {"name": "get_time"}],
}
CALLS = (
    '[{"name": "get_current_weather", "arguments": {"city": "Paris"}}, '
    '{"name": "get_time", "arguments": {}}]'
)


@pytest.mark.parametrize(
    ("output", "request_"),
    [
        ("<|tool_call|>" + CALLS, None),
        ("<tool_call>" + CALLS, None),  # the plain marker Granite 3.1 models also write
        ("<|tool_call|>" + CALLS, TOOLS_REQUEST),
        (CALLS, TOOLS_REQUEST),  # the special token removed by the decoder
    ],
    ids=["special_token", "plain_marker", "with_request", "bare_list_tools_offered"],
)
def test_tool_calls(processor: OutputProcessor, output: str, request_: Any) -> None:
    message = parse(processor, output, request_)
    assert message.content == ""
    assert [(call.name, call.arguments) for call in message.tool_calls] == [
        ("get_current_weather", {"city": "Paris"}),
        ("get_time", {}),
    ]
    openai = message.to_openai()
    assert openai["tool_calls"][0]["function"] == {
        "name": "get_current_weather",
        "arguments": '{"city": "Paris"}',
    }
    assert message.tool_calls[0].id != message.tool_calls[1].id


def test_a_bare_list_is_an_answer_when_no_tools_were_offered(
    processor: OutputProcessor,
) -> None:
    message = parse(processor, CALLS, {"messages": [{"role": "user", "content": "A list?"}]})
    assert message.tool_calls == []
    assert message.content == CALLS


def test_invalid_tool_call_json_stays_content(processor: OutputProcessor) -> None:
    output = '<|tool_call|>[{"name": "get_time", "arguments": {'
    message = parse(processor, output)
    assert message.tool_calls == []
    assert message.content == output


def test_there_is_no_reasoning(processor: OutputProcessor) -> None:
    output = "Here is my thought process:\nI think.\nHere is my response:\nHello."
    request = {"messages": [{"role": "user", "content": "Hi"}]}
    message = parse(processor, output, request)
    assert message.reasoning_content is None
    assert message.content == output


# ----------------------------------------------------------------------------- properties

WORDS = st.text(st.sampled_from("abcdefghij"), min_size=1, max_size=8)
SENTENCES = st.lists(
    st.lists(WORDS, min_size=1, max_size=5).map(lambda words: "The " + " ".join(words) + " fact."),
    min_size=1,
    max_size=6,
    unique=True,
)


@settings(max_examples=200)
@given(SENTENCES, st.data())
def test_every_cited_sentence_gets_its_span(sentences: list[str], data: st.DataObject) -> None:
    """An answer of sentences, some tagged ``<co>N</co>``, each citing a whole document."""
    documents = [{"text": sentence} for sentence in sentences]
    cited = data.draw(st.lists(st.booleans(), min_size=len(sentences), max_size=len(sentences)))
    parts: list[str] = []
    listing: list[str] = []
    for index, (sentence, tag) in enumerate(zip(sentences, cited, strict=True)):
        parts.append(sentence + (f"<co>{index + 1}</co>" if tag else ""))
        if tag:
            listing.append(f'<co>{index + 1}</co> Document {index}: "{sentence}"')
    output = " ".join(parts)
    if listing:
        output += "\n\n# Citations:\n" + "\n".join(listing)
    request = {
        "messages": [{"role": "user", "content": "q"}],
        "documents": documents,
        "chat_template_kwargs": {"controls": {"citations": True}},
    }
    message = GRANITE31.output_processor().transform(output, request)
    assert isinstance(message, Granite3AssistantMessage)
    assert message.content == " ".join(sentences)
    expected = [(str(i + 1), i) for i, tag in enumerate(cited) if tag]
    assert [(c.citation_id, int(c.doc_id)) for c in message.citations] == expected
    for citation in message.citations:
        sentence = sentences[int(citation.doc_id)]
        assert citation.response_text == sentence
        assert message.content[citation.response_begin : citation.response_end] == sentence
        assert (citation.context_begin, citation.context_end) == (0, len(sentence))


@settings(max_examples=100)
@given(st.integers(1, 40))
def test_streaming_in_chunks_gives_the_same_message(size: int) -> None:
    processor = GRANITE31.output_processor()
    parser = processor.stream_parser(RAG_REQUEST)
    content: list[str] = []
    for start in range(0, len(RAG_OUTPUT), size):
        content += [d.content or "" for d in parser.feed(RAG_OUTPUT[start : start + size])]
    content += [d.content or "" for d in parser.close()]
    whole = processor.transform(RAG_OUTPUT, RAG_REQUEST)
    assert parser.message is not None
    assert parser.message.model_dump() == whole.model_dump()
    assert "".join(content) == whole.content
