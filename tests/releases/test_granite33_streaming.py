"""Granite 3.3 streaming: any chunking gives the batch result; no marker ever leaks."""

from __future__ import annotations

from typing import cast

from hypothesis import strategies as st

from granite_formatters.granite3 import Granite3OutputProcessor
from granite_formatters.streaming import Delta
from granite_formatters_granite33.releases import GRANITE33

from .test_granite33_output import (
    DOCS,
    NOT_THINKING,
    RAG,
    RAG_OUTPUT,
    THINKING,
    TOOLS,
    cite,
)
from support.granite3_output_support import (
    sentences_strategy,
    stream,
)

PARSER = cast("Granite3OutputProcessor", GRANITE33.output_processor())
REQUESTS = [None, RAG, THINKING, TOOLS, NOT_THINKING]
DOC_IDS = [str(d["doc_id"]) for d in DOCS]


@st.composite
def outputs(draw: st.DrawFn) -> str:
    """Realistic Granite 3.3 outputs (think/response, cite tags, tool calls, plugin sections)."""
    parts: list[str] = []
    if draw(st.booleans()):
        parts.append(f"<think>{draw(st.sampled_from(['Hmm.', 'A. B.', '']))}</think>")
        parts.append(draw(st.sampled_from(["", "\n", "\n\n"])))
    wrap = draw(st.booleans())
    if wrap:
        parts.append("<response>")
    sentences = draw(sentences_strategy())
    cited = []
    for sentence in sentences:
        style = draw(st.sampled_from(["none", "before", "after", "start", "wrap"]))
        doc_id = draw(st.sampled_from(DOC_IDS))
        if style == "before":
            sentence = sentence[:-1] + " " + cite(doc_id) + "."
        elif style == "after":
            sentence += cite(doc_id)
        elif style == "start":
            sentence = cite(doc_id) + " " + sentence
        elif style == "wrap":
            sentence = (
                '<|start_of_cite|>{"document_id": "' + doc_id + '"}' + sentence + "<|end_of_cite|>"
            )
        if style != "none":
            cited.append(doc_id)
        parts.append(sentence + draw(st.sampled_from([" ", "\n", "\n\n"])))
    if wrap:
        parts.append("</response>")
    form = draw(st.sampled_from(["", "<|tool_call|>", "<tool_call>"]))
    if form:
        parts.append(form + '[{"name": "get_weather", "arguments": {"city": "Paris"}}]\n')
    sections = []
    if cited:
        lines = [f'{doc_id}: "{DOCS[DOC_IDS.index(doc_id)]["text"][:20]}"' for doc_id in cited]
        sections.append(
            '<|start_of_plugin|>{"id": "citation"}\n' + "\n".join(lines) + "\n<|end_of_plugin|>\n"
        )
    if draw(st.booleans()):
        risks = draw(st.lists(st.sampled_from(["low", "high", "medium"]), max_size=3))
        items = [f"{i}. Risk {risk}: {sentences[0]}" for i, risk in enumerate(risks, 1)]
        sections.append(
            '<|start_of_plugin|>{"id": "hallucination"}\n'
            + "\n".join(items)
            + "\n<|end_of_plugin|>\n"
        )
    if draw(st.booleans()):
        sections.reverse()
    return "".join(parts) + "\n" + "".join(sections)


EVERY_MARKER = [
    (
        "<think>I should cite.</think>\n<response>Alpha beta " + cite("overview") + ". "
        '<|start_of_cite|>{"document_id": "sizes"}Gamma delta<|end_of_cite|>.'
        "</response>\n\n"
        '<|start_of_plugin|>{"id": "citation"}\noverview: "Granite"\nsizes: "The 8b"\n'
        '<|end_of_plugin|>\n<|start_of_plugin|>{"id": "hallucination"}\n'
        "1. Risk low: Gamma delta.\n<|end_of_plugin|><|end_of_text|>"
    ),
    "<think>Think.</think><response>Done.",
    'Sure. <|tool_call|>[{"name": "f", "arguments": {"x": "<think>"}}] Then more.',
    'Ok <tool_call>{"name": "f", "arguments": {}}</tool_call> fine.',
    '  [{"name": "get_weather", "arguments": {"city": "<response>"}}]',
    'Stripped tokens {"document_id": "sizes"}.\n\n{"id": "citation"}\nsizes: "The 8b"',
    RAG_OUTPUT,
]
LEAKS = ("<", "{", "[", '"', "|")


def test_reasoning_streams_before_the_answer_and_records_come_at_close() -> None:
    parser = PARSER.stream_parser(RAG)
    text = EVERY_MARKER[0]
    assert parser.feed(text[:12]) == [Delta(reasoning_content="I sho", role="assistant")]
    assert parser.feed(text[12:70]) == [
        Delta(reasoning_content="uld cite."),
        Delta(content="Alpha beta"),
    ]
    rest = parser.feed(text[70:])
    assert rest == [Delta(content=". Gamma delta.")]
    before_close = parser.message
    assert before_close is None
    assert parser.close() == [Delta(finish_reason="stop")]
    message = parser.message
    assert message is not None
    assert [(c.doc_id, c.response_text) for c in message.citations] == [
        ("overview", "Alpha beta."),
        ("sizes", "Gamma delta"),
    ]
    assert len(message.hallucinations) == 1


def test_tool_call_deltas_are_openai_shaped() -> None:
    [delta, last] = stream(PARSER.stream_parser(TOOLS), EVERY_MARKER[4], [3, 10, 30])
    assert (delta.role, last) == ("assistant", Delta(finish_reason="tool_calls"))
    [call] = delta.tool_calls
    assert (call.index, call.name, call.arguments) == (
        0,
        "get_weather",
        '{"city": "<response>"}',
    )
    assert call.id is not None and call.id.startswith("call_")
