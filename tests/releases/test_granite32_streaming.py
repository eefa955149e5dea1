"""Granite 3.2 streaming: any chunking gives the batch result; no marker ever leaks."""

from __future__ import annotations

from typing import cast

from hypothesis import strategies as st

from granite_formatters.granite3 import Granite3OutputProcessor
from granite_formatters.streaming import Delta
from granite_formatters_granite32.releases import GRANITE32

from .test_granite32_output import (
    DOCS,
    NOT_THINKING,
    RAG,
    RAG_OUTPUT,
    THINKING,
    TOOLS,
)
from support.granite3_output_support import (
    sentences_strategy,
    stream,
)

PARSER = cast("Granite3OutputProcessor", GRANITE32.output_processor())
REQUESTS = [None, RAG, THINKING, TOOLS, NOT_THINKING]


@st.composite
def outputs(draw: st.DrawFn) -> str:
    """Realistic Granite 3.2 outputs (reasoning, tagged answer, tool calls, sections)."""
    here = draw(st.sampled_from(["Here is", "Here's"]))
    parts: list[str] = []
    if draw(st.booleans()):
        parts.append(f"{here} my thought process:\n{draw(st.sampled_from(['Hmm.', 'A. B.']))}\n")
        parts.append(f"\n{here} my response:\n")
    sentences = draw(sentences_strategy())
    numbers = []
    for number, sentence in enumerate(sentences, 1):
        style = draw(st.sampled_from(["none", "before", "after", "start"]))
        if style == "before":
            sentence = sentence[:-1] + f" <co>{number}</co>."
        elif style == "after":
            sentence += f"<co>{number}</co>"
        elif style == "start":
            sentence = f"<co>{number}</co> " + sentence
        if style != "none":
            numbers.append(number)
        parts.append(sentence + draw(st.sampled_from([" ", "\n", "\n\n"])))
    form = draw(st.sampled_from(["", "<|tool_call|>", "<tool_call>"]))
    if form:
        parts.append(form + '[{"name": "get_weather", "arguments": {"city": "Paris"}}]\n')
    sections = []
    if numbers:
        lines = [f'<co>{n}</co> Document {n % 5}: "{DOCS[n % 5]["text"][:20]}"' for n in numbers]
        sections.append("# Citations:\n" + "\n".join(lines) + "\n")
    if draw(st.booleans()):
        risks = draw(st.lists(st.sampled_from(["low", "high", "medium"]), max_size=3))
        items = [f"{i}. Risk {risk}: {sentences[0]}" for i, risk in enumerate(risks, 1)]
        sections.append("# Hallucinations:\n" + "\n".join(items) + "\n")
    if draw(st.booleans()):
        sections.reverse()
    return "".join(parts) + "\n" + "".join(sections)


EVERY_MARKER = [
    (
        "Here is my thought process:\nI should cite.\nHere's my response:\n"
        "Alpha beta <co>1</co>. Gamma delta.<co>2</co> <co>3</co>\n\n"
        '# Citations:\n<co>1</co> Document 0: "Granite"\n<co>2</co> Document 1: "Granite 3.2"\n'
        "\n# Hallucinations:\n1. Risk low: Gamma delta.\n<|end_of_text|>"
    ),
    "Here's my thought process: Think. Here is my response: Done.<|end_of_text|>",
    'Sure. <|tool_call|>[{"name": "f", "arguments": {"x": "<co>1</co>"}}] Then more.',
    'Ok <tool_call>{"name": "f", "arguments": {}}</tool_call> fine.',
    '  [{"name": "get_weather", "arguments": {"city": "Paris"}}]',
    RAG_OUTPUT,
]
LEAKS = ("<", "#", "{", "[", "Here", '"')


def test_reasoning_streams_before_the_answer_and_records_come_at_close() -> None:
    parser = PARSER.stream_parser(RAG)
    text = EVERY_MARKER[0]
    first = parser.feed(text[:40])
    assert first == [Delta(reasoning_content="I should cit", role="assistant")]  # as written
    middle = parser.feed(text[40:90])  # "e.\nHere's my response:\nAlpha beta <co>1</co>. Gamm"
    assert middle == [Delta(reasoning_content="e."), Delta(content="Alpha beta. Gamm")]
    before_close = parser.message
    assert before_close is None
    rest = parser.feed(text[90:])
    assert rest == [Delta(content="a delta.")]  # the sections are held
    assert parser.close() == [Delta(finish_reason="stop")]
    message = parser.message
    assert message is not None and len(message.citations) == 2 and len(message.hallucinations) == 1


def test_tool_call_deltas_are_openai_shaped() -> None:
    deltas = stream(PARSER.stream_parser(TOOLS), EVERY_MARKER[4], [3, 10, 30])
    [delta, last] = deltas
    assert last == Delta(finish_reason="tool_calls")
    [call] = delta.tool_calls
    assert delta.to_openai() == {
        "role": "assistant",
        "tool_calls": [
            {
                "index": 0,
                "id": call.id,
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
            }
        ],
    }
