"""Granite 4 streaming: incremental, linear, and equal to the batch parse for every chunking."""

from __future__ import annotations

import itertools
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from granite_formatters._engine.parse import ReleaseStreamParser as Granite4StreamParser
from granite_formatters.streaming import Delta
from granite_formatters.syntax import JSON_BLOCKS
from granite_formatters.types import AssistantMessage
from granite_formatters_granite4.releases import GRANITE41

from .test_granite4_output import AGENT_CPP_SAMPLE, LLAMA_CPP_SAMPLE, VLLM_SAMPLE
from support.granite3_output_support import comparable

PROCESSOR = GRANITE41.output_processor()


def stream(chunks: list[str]) -> tuple[list[Delta], AssistantMessage]:
    parser = PROCESSOR.stream_parser()
    deltas: list[Delta] = []
    for chunk in chunks:
        deltas += parser.feed(chunk)
    deltas += parser.close()
    assert parser.message is not None
    return deltas, parser.message


def assert_stream_equals_batch(text: str, chunks: list[str]) -> None:
    assert "".join(chunks) == text
    deltas, message = stream(chunks)
    batch = PROCESSOR.transform(text)
    # Generated ids are random per parser: compared by their per-message counter.
    assert comparable(message) == comparable(batch)
    assert "".join(d.content or "" for d in deltas) == batch.content
    assert all(d.reasoning_content is None for d in deltas)
    streamed_calls = [call for d in deltas for call in d.tool_calls]
    assert [(c.index, c.id, c.name, c.arguments) for c in streamed_calls] == [
        (i, call.id, call.name, call.to_openai()["function"]["arguments"])
        for i, call in enumerate(message.tool_calls)
    ]
    # No delta is empty, and no content delta carries a partial tag.
    assert all(d != Delta() for d in deltas)


def split(text: str, cuts: list[int]) -> list[str]:
    points = sorted({min(max(c, 0), len(text)) for c in cuts})
    bounds = [0, *points, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


SAMPLES = [
    LLAMA_CPP_SAMPLE,
    VLLM_SAMPLE,
    AGENT_CPP_SAMPLE,
    'A <tool_call>{"name": "e", "arguments": {"s": "x</tool_call>y"}}\n</tool_call> B',
    '<tool_call>bad</tool_call><tool_call>[{"name": "a"}]</tool_call> <tool_ca',
    '  <tool_call> {"arguments": "{\\"k\\": 2}", "name": "n"} </tool_call>\n\n',
    '<tool_call>{"name": "u", "arguments": {"a": "unterminated',
]


@pytest.mark.parametrize("text", SAMPLES)
def test_every_single_split_point(text: str) -> None:
    for cut in range(len(text) + 1):
        assert_stream_equals_batch(text, [text[:cut], text[cut:]])


@pytest.mark.parametrize("text", SAMPLES)
def test_character_by_character(text: str) -> None:
    assert_stream_equals_batch(text, list(text))


# Outputs built from the pieces that matter: tags, partial tags, JSON pieces, text.
_CALL = st.builds(
    lambda name, args, as_string: json.dumps(
        {"name": name, "arguments": json.dumps(args) if as_string else args}
    ),
    st.sampled_from(["f", "get_weather", "ä"]),
    st.dictionaries(st.sampled_from(["a", "b"]), st.text(max_size=5), max_size=2),
    st.booleans(),
)
_BLOCK = st.builds(
    lambda lead, call, trail: "<tool_call>" + lead + call + trail + "</tool_call>",
    st.sampled_from(["", "\n", " "]),
    _CALL,
    st.sampled_from(["", "\n", " "]),
)
_PIECES = st.one_of(
    _BLOCK,
    st.sampled_from(
        [
            "<tool_call>",
            "</tool_call>",
            "<tool_ca",
            "<",
            "{",
            "}",
            '"',
            "\\",
            '{"name": "x"',
            "\n",
            " ",
            '"</tool_call>"',
        ]
    ),
    st.text(max_size=8),
)
OUTPUTS = st.lists(_PIECES, max_size=12).map("".join)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(OUTPUTS, st.lists(st.integers(0, 400), max_size=12))
def test_stream_equals_batch_for_random_chunkings(text: str, cuts: list[int]) -> None:
    assert_stream_equals_batch(text, split(text, cuts))


@settings(max_examples=200, deadline=None)
@given(OUTPUTS)
def test_batch_never_raises_and_loses_no_text(text: str) -> None:
    message = PROCESSOR.transform(text)
    assert message.raw_content == text
    # Every non-whitespace character is in the content or in a parsed call's block.
    if not message.tool_calls:
        assert message.content == text.strip()


def test_a_call_is_emitted_when_its_block_is_complete() -> None:
    prefix = 'Sure.\n<tool_call>\n{"name": "f", "arguments": {"x": 1}}\n</tool_call'
    parser = PROCESSOR.stream_parser()
    seen: list[Delta] = []
    for char in prefix:
        seen += parser.feed(char)
    assert "".join(d.content or "" for d in seen) == "Sure."
    assert not any(d.tool_calls for d in seen)
    final = parser.feed(">")
    assert len(final) == 1 and final[0].tool_calls[0].name == "f"
    assert final[0].tool_calls[0].arguments == '{"x": 1}'


def test_a_partial_tag_is_held_only_while_it_can_become_the_tag() -> None:
    parser = PROCESSOR.stream_parser()
    assert parser.feed("Hello <tool_c") == [Delta(content="Hello", role="assistant")]
    assert parser.feed("x and more") == [Delta(content=" <tool_cx and more")]
    assert parser.feed(" <") == []
    assert parser.close() == [Delta(content=" <", finish_reason="stop")]
    assert parser.message is not None and parser.message.content == "Hello <tool_cx and more <"


def test_feed_after_close_is_an_error() -> None:
    parser = PROCESSOR.stream_parser()
    parser.close()
    assert parser.close() == []
    with pytest.raises(RuntimeError):
        parser.feed("x")


def _work(text: str, chunk: int, monkeypatch: pytest.MonkeyPatch) -> int:
    """Characters the engine's parser (its private machinery, counted here) looks at (chunk joins plus each step's span), for one chunking."""
    count = 0
    original_consume = Granite4StreamParser._consume
    original_text = Granite4StreamParser._text
    original_block = Granite4StreamParser._in_block

    def counted_consume(self: Granite4StreamParser, piece: str) -> None:
        nonlocal count
        count += len(self._pending) + len(piece)
        original_consume(self, piece)

    def counted_text(self: Granite4StreamParser, piece: str, pos: int) -> int:
        nonlocal count
        end = original_text(self, piece, pos)
        count += end - pos + 1
        return end

    def counted_block(self: Granite4StreamParser, piece: str, pos: int) -> int:
        nonlocal count
        end = original_block(self, piece, pos)
        count += end - pos + 1
        return end

    monkeypatch.setattr(Granite4StreamParser, "_consume", counted_consume)
    monkeypatch.setattr(Granite4StreamParser, "_text", counted_text)
    monkeypatch.setattr(Granite4StreamParser, "_in_block", counted_block)
    assert_stream_equals_batch(text, [text[i : i + chunk] for i in range(0, len(text), chunk)])
    monkeypatch.undo()
    return count


@pytest.mark.parametrize(
    "unit",
    [
        "word <tool_ca ",
        '<tool_call>{"name": "f", "arguments": {"s": "' + "x" * 50 + '"}}</tool_call>',
        "<tool_call>",
    ],
)
def test_work_is_linear_in_the_output(unit: str, monkeypatch: pytest.MonkeyPatch) -> None:
    for chunk in (1, 7, 10**9):
        small = _work(unit * 50, chunk, monkeypatch)
        large = _work(unit * 400, chunk, monkeypatch)
        assert large <= 8 * small * 1.5  # 8 times the text, at most ~8 times the work


def test_the_release_reads_json_blocks() -> None:
    assert GRANITE41.tool_calls is JSON_BLOCKS
    assert (JSON_BLOCKS.open, JSON_BLOCKS.close) == ("<tool_call>", "</tool_call>")


@pytest.mark.parametrize(
    "unit",
    [
        "<tool_call>{}",
        '<tool_call>{"name": "f", "arguments": {}}</tool_call>',
        "<tool_call>" + "[" * 65 + "1]",
        "<tool_call>" + "[" * 70 + '"' + "x" * 300 + '", ',
        "<tool_call>" + "[1, " * 30,
    ],
)
def test_the_json_decoder_reads_a_bounded_window_per_block(
    unit: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A block's JSON that arrives whole is read by the C decoder, from a window of at
    # most WHOLE_CHARS characters, at most once per block: bounded work per block,
    # whatever the blocks (valid, too deep, never closed).
    from granite_formatters import jsonscan

    given: list[int] = []
    real = jsonscan._DECODER

    class Counting:
        def raw_decode(self, text: str, index: int = 0) -> tuple[object, int]:
            given.append(len(text) - index)
            return real.raw_decode(text, index)

    monkeypatch.setattr(jsonscan, "_DECODER", Counting())
    PROCESSOR.transform(unit * 200 + "]" * 10)
    assert len(given) <= 200
    assert all(size <= jsonscan.WHOLE_CHARS for size in given)
