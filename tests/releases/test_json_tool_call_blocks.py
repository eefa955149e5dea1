"""Tool calls in ``<tool_call>`` JSON blocks (``JSON_BLOCKS``): batch parse and streaming.

Each test runs once per release whose tool-call syntax is ``json-tool-call-blocks``, with
the output processor ``get_formatter`` gives for the release's model: content, calls,
notes (exact strings), real outputs from public test suites
(:mod:`support.json_block_samples`), and streaming that is incremental, linear and equal
to the batch parse for every chunking.
"""

from __future__ import annotations

import itertools
import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from granite_formatters import OutputProcessor, get_formatter
from granite_formatters._streaming import Delta
from granite_formatters._types import AssistantMessage
from granite_formatters.syntax import JSON_BLOCKS
from granite_formatters.syntax._call_stage import CallStage

from support.granite3_output_support import comparable
from support.json_block_samples import (
    AGENT_CPP_SAMPLE,
    COORDS,
    LLAMA_CPP_SAMPLE,
    STOCK,
    VLLM_SAMPLE,
)
from support.releases import Release

APPLIES_TO = "json-tool-call-blocks"


@pytest.fixture(scope="module")
def processor(release: Release) -> OutputProcessor:
    """The release's output processor, through the public lookup."""
    return get_formatter(release.model).output_processor


def calls(message: AssistantMessage) -> list[tuple[str, object]]:
    return [(call.name, call.arguments) for call in message.tool_calls]


# --------------------------------------------------------------------------- real outputs


def test_llama_cpp_sample(processor: OutputProcessor) -> None:
    message = processor.transform(LLAMA_CPP_SAMPLE)
    assert message.content == ""
    assert calls(message) == [("special_function", {"arg1": 1})]
    assert message.notes == []
    assert message.raw_content == LLAMA_CPP_SAMPLE


def test_vllm_interleaved_sample_with_string_arguments(processor: OutputProcessor) -> None:
    message = processor.transform(VLLM_SAMPLE)
    assert calls(message) == [
        ("find_bbox", COORDS),
        ("get_stock_price", STOCK),
        ("find_bbox", COORDS),
    ]
    assert message.content == (
        "Here goes the bbox call: \n Now the stock price call: \n  Now another bbox call: \n  "
        "See? I'm a helpful assistant."
    )
    # to_openai() encodes the unwrapped arguments once.
    openai = message.to_openai()["tool_calls"]
    assert [json.loads(c["function"]["arguments"]) for c in openai] == [COORDS, STOCK, COORDS]


def test_agent_cpp_sample(processor: OutputProcessor) -> None:
    assert calls(processor.transform(AGENT_CPP_SAMPLE)) == [
        ("calculator", {"a": 3, "b": 4, "operation": "add"})
    ]


# --------------------------------------------------------------------------- point 5


def test_plain_text(processor: OutputProcessor) -> None:
    message = processor.transform("The capital of France is Paris.")
    assert message.content == "The capital of France is Paris."
    assert message.tool_calls == []
    assert message.reasoning_content is None
    assert message.notes == []


def test_blocks_with_and_without_newlines_and_prose_around(processor: OutputProcessor) -> None:
    text = (
        "Checking both.\n"
        '<tool_call>{"name": "a", "arguments": {"x": 1}}</tool_call>'
        " and "
        '<tool_call>\n{"name": "b", "arguments": {}}\n</tool_call>\n'
        "Done."
    )
    message = processor.transform(text)
    assert calls(message) == [("a", {"x": 1}), ("b", {})]
    assert message.content == "Checking both.\n and \nDone."
    assert message.raw_content == text


def test_arguments_before_name(processor: OutputProcessor) -> None:
    message = processor.transform(
        '<tool_call>\n{"arguments": {"city": "Rome"}, "name": "w"}\n</tool_call>'
    )
    assert calls(message) == [("w", {"city": "Rome"})]


def test_string_arguments_are_unwrapped_once(processor: OutputProcessor) -> None:
    # A string holding a JSON string is decoded once only: the result is that string.
    twice = json.dumps(json.dumps(json.dumps({"q": 1})))
    message = processor.transform(
        '<tool_call>{"name": "f", "arguments": ' + twice + "}</tool_call>"
    )
    assert calls(message) == [("f", json.dumps({"q": 1}))]
    once = processor.transform('<tool_call>{"name": "f", "arguments": "{\\"q\\": 1}"}</tool_call>')
    assert calls(once) == [("f", {"q": 1})]
    assert once.to_openai()["tool_calls"][0]["function"]["arguments"] == '{"q": 1}'


def test_closing_tag_inside_a_json_string_does_not_end_the_call(processor: OutputProcessor) -> None:
    text = '<tool_call>{"name": "echo", "arguments": {"s": "a</tool_call>b"}}</tool_call>tail'
    message = processor.transform(text)
    assert calls(message) == [("echo", {"s": "a</tool_call>b"})]
    assert message.content == "tail"


def test_missing_arguments_are_empty_and_ids_are_unique_across_turns(
    processor: OutputProcessor,
) -> None:
    first = processor.transform('<tool_call>{"name": "now"}</tool_call>')
    assert calls(first) == [("now", {})]
    assert re.fullmatch("call_[0-9a-f]{24}", first.tool_calls[0].id)
    # The same call in another turn (another parse) is another call: another id.
    assert (
        processor.transform('<tool_call>{"name": "now"}</tool_call>').tool_calls[0].id
        != first.tool_calls[0].id
    )
    given = processor.transform(
        '<tool_call>{"id": "c7", "name": "now", "arguments": {}}</tool_call>'
    )
    assert given.tool_calls[0].id == "c7"


def test_a_list_in_one_block(processor: OutputProcessor) -> None:
    message = processor.transform(
        '<tool_call>[{"name": "a", "arguments": {}}, {"name": "b"}]</tool_call>'
    )
    assert calls(message) == [("a", {}), ("b", {})]
    assert len({call.id for call in message.tool_calls}) == 2


@pytest.mark.parametrize(
    ("text", "note"),
    [
        ('Hi <tool_call>{"name": "f", "arguments": {}}', "is not closed by </tool_call>"),
        ('<tool_call>{"name": "f", "arguments": {"a": "unterminated', "is not closed"),
        ("<tool_call>get_weather(city='Rome')</tool_call>", "is not followed by a JSON object"),
        ('<tool_call>{"name": "f"} trailing</tool_call>', "is not closed by </tool_call> after"),
        ('<tool_call>{"name": "f", "arguments": {}</tool_call>', "is not closed"),
        ('<tool_call>{"name": f}</tool_call>', "its JSON is invalid"),
        ('<tool_call>{"arguments": {}}</tool_call>', "no string name"),
        ("<tool_call>[]</tool_call>", "empty list"),
        ("<tool_call>[1]</tool_call>", "not a {name, arguments} object"),
        ("<tool_call>", "is not closed"),
    ],
)
def test_malformed_blocks_stay_in_content_with_a_note(
    processor: OutputProcessor, text: str, note: str
) -> None:
    message = processor.transform(text)
    assert message.tool_calls == []
    assert message.content == text.strip()
    assert len(message.notes) == 1 and note in message.notes[0]
    assert message.raw_content == text


def test_a_malformed_block_does_not_hide_the_next_one(processor: OutputProcessor) -> None:
    text = '<tool_call>oops</tool_call> <tool_call>{"name": "g"}</tool_call>'
    message = processor.transform(text)
    assert calls(message) == [("g", {})]
    assert message.content == "<tool_call>oops</tool_call>"
    assert message.notes == [
        "the <tool_call> block at offset 0 is not followed by a JSON object; kept as content"
    ]


def test_non_json_string_arguments_are_kept_with_a_note(processor: OutputProcessor) -> None:
    message = processor.transform('<tool_call>{"name": "f", "arguments": "city=Rome"}</tool_call>')
    assert calls(message) == [("f", "city=Rome")]
    assert message.notes == [
        "tool call 0 (f): the arguments are a string that is not JSON; kept as the string"
    ]


def test_form_feeds_and_vertical_tabs_before_the_json_are_skipped(
    processor: OutputProcessor,
) -> None:
    # Python's ASCII blanks, for every release (as the 3.x parser always skipped them).
    message = processor.transform('<tool_call>\f\v {"name": "f", "arguments": {}}</tool_call>')
    assert (calls(message), message.content, message.notes) == ([("f", {})], "", [])


def test_partial_tag_text_is_content(processor: OutputProcessor) -> None:
    assert processor.transform("a <tool_ca").content == "a <tool_ca"
    assert processor.transform("x < y and <tool>").content == "x < y and <tool>"


def test_the_formatter_round_trip(release: Release) -> None:
    # Parse a tool call, send it back as the assistant turn: the prompt shows the call as
    # the model wrote it (docs/granite4.md, "The tool-call round trip").
    formatter = get_formatter(release.model)
    output = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
    message = formatter.parse(output)
    request = {
        "messages": [
            {"role": "user", "content": "Weather in Paris?"},
            message.to_openai(),
            {"role": "tool", "tool_call_id": message.tool_calls[0].id, "content": "18 C"},
        ],
        "tools": [{"name": "get_weather"}],
    }
    prompt = formatter.format(request)
    assert (
        "<|start_of_role|>assistant<|end_of_role|>" + output + "<|end_of_text|>\n"
        "<|start_of_role|>user<|end_of_role|>\n<tool_response>\n18 C\n</tool_response>"
        "<|end_of_text|>\n<|start_of_role|>assistant<|end_of_role|>"
    ) in prompt


# --------------------------------------------------------------------------- streaming


def stream(processor: OutputProcessor, chunks: list[str]) -> tuple[list[Delta], AssistantMessage]:
    parser = processor.stream_parser()
    deltas: list[Delta] = []
    for chunk in chunks:
        deltas += parser.feed(chunk)
    deltas += parser.close()
    assert parser.message is not None
    return deltas, parser.message


def assert_stream_equals_batch(processor: OutputProcessor, text: str, chunks: list[str]) -> None:
    assert "".join(chunks) == text
    deltas, message = stream(processor, chunks)
    batch = processor.transform(text)
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
def test_every_single_split_point(processor: OutputProcessor, text: str) -> None:
    for cut in range(len(text) + 1):
        assert_stream_equals_batch(processor, text, [text[:cut], text[cut:]])


@pytest.mark.parametrize("text", SAMPLES)
def test_character_by_character(processor: OutputProcessor, text: str) -> None:
    assert_stream_equals_batch(processor, text, list(text))


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
def test_stream_equals_batch_for_random_chunkings(
    processor: OutputProcessor, text: str, cuts: list[int]
) -> None:
    assert_stream_equals_batch(processor, text, split(text, cuts))


@settings(max_examples=200, deadline=None)
@given(OUTPUTS)
def test_batch_never_raises_and_loses_no_text(processor: OutputProcessor, text: str) -> None:
    message = processor.transform(text)
    assert message.raw_content == text
    # Every non-whitespace character is in the content or in a parsed call's block.
    if not message.tool_calls:
        assert message.content == text.strip()


def test_a_call_is_emitted_when_its_block_is_complete(processor: OutputProcessor) -> None:
    prefix = 'Sure.\n<tool_call>\n{"name": "f", "arguments": {"x": 1}}\n</tool_call'
    parser = processor.stream_parser()
    seen: list[Delta] = []
    for char in prefix:
        seen += parser.feed(char)
    assert "".join(d.content or "" for d in seen) == "Sure."
    assert not any(d.tool_calls for d in seen)
    final = parser.feed(">")
    assert len(final) == 1 and final[0].tool_calls[0].name == "f"
    assert final[0].tool_calls[0].arguments == '{"x": 1}'


def test_a_partial_tag_is_held_only_while_it_can_become_the_tag(processor: OutputProcessor) -> None:
    parser = processor.stream_parser()
    assert parser.feed("Hello <tool_c") == [Delta(content="Hello", role="assistant")]
    assert parser.feed("x and more") == [Delta(content=" <tool_cx and more")]
    assert parser.feed(" <") == []
    assert parser.close() == [Delta(content=" <", finish_reason="stop")]
    assert parser.message is not None and parser.message.content == "Hello <tool_cx and more <"


def test_feed_after_close_is_an_error(processor: OutputProcessor) -> None:
    parser = processor.stream_parser()
    parser.close()
    assert parser.close() == []
    with pytest.raises(RuntimeError):
        parser.feed("x")


def _work(
    processor: OutputProcessor, text: str, chunk: int, monkeypatch: pytest.MonkeyPatch
) -> int:
    """Characters the engine's tool-call stage (its private machinery, counted here) looks at (chunk joins plus each step's span), for one chunking."""
    count = 0
    original_read = CallStage.read
    original_text = CallStage._text
    original_block = CallStage._in_block

    def counted_read(self: CallStage, piece: str) -> None:
        nonlocal count
        count += len(self._pending) + len(piece)
        original_read(self, piece)

    def counted_text(self: CallStage, piece: str, pos: int) -> int:
        nonlocal count
        end = original_text(self, piece, pos)
        count += end - pos + 1
        return end

    def counted_block(self: CallStage, piece: str, pos: int) -> int:
        nonlocal count
        end = original_block(self, piece, pos)
        count += end - pos + 1
        return end

    monkeypatch.setattr(CallStage, "read", counted_read)
    monkeypatch.setattr(CallStage, "_text", counted_text)
    monkeypatch.setattr(CallStage, "_in_block", counted_block)
    assert_stream_equals_batch(
        processor, text, [text[i : i + chunk] for i in range(0, len(text), chunk)]
    )
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
def test_work_is_linear_in_the_output(
    processor: OutputProcessor, unit: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for chunk in (1, 7, 10**9):
        small = _work(processor, unit * 50, chunk, monkeypatch)
        large = _work(processor, unit * 400, chunk, monkeypatch)
        assert large <= 8 * small * 1.5  # 8 times the text, at most ~8 times the work


def test_the_release_reads_json_blocks(release: Release) -> None:
    declared = get_formatter(release.model).release
    assert declared is not None and declared.tool_calls is JSON_BLOCKS
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
    processor: OutputProcessor, unit: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A block's JSON that arrives whole is read by the C decoder, from a window of at
    # most WHOLE_CHARS characters, at most once per block: bounded work per block,
    # whatever the blocks (valid, too deep, never closed).
    from granite_formatters import _jsonscan as jsonscan

    given: list[int] = []
    real = jsonscan._DECODER

    class Counting:
        def raw_decode(self, text: str, index: int = 0) -> tuple[object, int]:
            given.append(len(text) - index)
            return real.raw_decode(text, index)

    monkeypatch.setattr(jsonscan, "_DECODER", Counting())
    processor.transform(unit * 200 + "]" * 10)
    assert len(given) <= 200
    assert all(size <= jsonscan.WHOLE_CHARS for size in given)
