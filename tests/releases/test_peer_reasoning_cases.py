"""The public reasoning-parser cases of other runtimes, ported to Granite 4.2's
``<think>`` format (issue 43 item 5): vLLM's ``granite_thinking``, ``deepseek_r1`` and
``qwen3`` reasoning-parser tests, Ollama's ``granite_thinking`` parser test and its
generic thinking parser's test (a block the model opens: Granite 4.2 with thinking off).

Each case names its source (file and test or case id) and holds the output, how it
is chunked where the peer streams it in given deltas, whether thinking is on, the
peer's expected reasoning and content, and ours. The facts (inputs, expected values)
carry over; the peers' code does not. A case where we choose differently says why
(docs/granite42.md, "Cases from the field: reasoning"); the test checks that such a
case really differs, and that every other case agrees, under the one normalisation we
document: both fields trimmed, a content of ``None`` read as ``""``, and a tool call
that the peer leaves in the content for its tool parser read by that tool parser.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import pytest

from granite_formatters import get_formatter

from support.granite42_output import streamed
from support.releases import with_feature

MODELS = [r.model for r in with_feature("opened-think")]

VLLM_GT = "vllm tests/reasoning/test_granite_thinking_reasoning_parser.py"
VLLM_R1 = "vllm tests/reasoning/test_deepseekr1_reasoning_parser.py"
VLLM_Q3 = "vllm tests/reasoning/test_qwen3_reasoning_parser.py"
OLLAMA = "ollama model/parsers/granite_thinking_test.go"
OLLAMA_THINK = "ollama thinking/parser_test.go"

# Why we choose differently (the headings of the docs section's list). (Whitespace at
# either end of a field is no difference: ours are trimmed, docs/granite42.md.)
NONEMPTY = "force_nonempty_content"
NO_COPY = "no text in both fields"
EMPTY_NONE = "empty reasoning is None"

BASH = "<tool_call>\n<function=bash>\n<parameter=command>\ncat /etc/hosts\n</parameter>\n</function>\n</tool_call>"
WEATHER = (
    "<tool_call>\n<function=get_weather>\n<parameter=location>\nParis\n</parameter>\n"
    "</function>\n</tool_call>\n"
)
BASH_CALL = ("bash", {"command": "cat /etc/hosts"})
WEATHER_CALL = ("get_weather", {"location": "Paris"})
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "bash",
            "parameters": {"type": "object", "properties": {"command": {"type": "string"}}},
        },
    },
    {"type": "function", "function": {"name": "get_weather"}},
]


class Case(NamedTuple):
    source: str
    output: str
    #: The peer's (reasoning, content, calls read by its tool parser).
    peer: tuple[str | None, str | None, tuple[Any, ...]]
    #: Ours (reasoning, content, calls).
    ours: tuple[str | None, str, tuple[Any, ...]]
    thinking: bool = True
    #: The deltas the peer feeds (``()``: the output whole).
    chunks: tuple[str, ...] = ()
    #: Why we choose differently (``""``: we agree).
    differs: str = ""
    #: Options the peer reads that the Granite 4.2 template does not.
    kwargs: tuple[tuple[str, Any], ...] = ()


def _agree(source: str, output: str, reasoning: str | None, content: str, **more: Any) -> Case:
    return Case(source, output, (reasoning, content, ()), (reasoning, content, ()), **more)


CASES = [
    # vLLM granite_thinking (the peer for this very format).
    _agree(
        f"{VLLM_GT}::leading_newline_stripped",
        "<think>reasoning</think>\nHello",
        "reasoning",
        "Hello",
    ),
    _agree(f"{VLLM_GT}::simple_reasoning", "<think>r</think>c", "r", "c"),
    _agree(
        f"{VLLM_GT}::without_start_token",
        "This is a reasoning section</think>This is the rest",
        "This is a reasoning section",
        "This is the rest",
    ),
    _agree(
        f"{VLLM_GT}::with_start_token",
        "<think>This is a reasoning section</think>This is the rest",
        "This is a reasoning section",
        "This is the rest",
    ),
    _agree(
        f"{VLLM_GT}::multiple_leading_newlines_stripped",
        "<think>reasoning</think>\n\n\nHello",
        "reasoning",
        "Hello",
    ),
    _agree(
        f"{VLLM_GT}::multiline_reasoning_and_content",
        "<think>line1\nline2</think>\nresult1\nresult2",
        "line1\nline2",
        "result1\nresult2",
    ),
    _agree(
        f"{VLLM_GT}::test_granite_thinking_no_content_after_end_token",
        "<think>reasoning</think>",
        "reasoning",
        "",
    ),
    _agree(
        f"{VLLM_GT}::test_granite_thinking_whitespace_only_content",
        "<think>reasoning</think>\n\n",
        "reasoning",
        "",
    ),
    _agree(
        f"{VLLM_GT}::test_granite_thinking_unterminated_think_block",
        "<think>reasoning only",
        "reasoning only",
        "",
    ),
    _agree(
        f"{VLLM_GT}::test_granite_thinking_disabled_moves_into_content",
        "This is plain content",
        None,
        "This is plain content",
        thinking=False,
    ),
    Case(
        f"{VLLM_GT}::test_granite_thinking_disabled_with_leading_newline",
        "\nThis is plain content",
        (None, "\nThis is plain content", ()),
        (None, "This is plain content", ()),
        thinking=False,
    ),
    Case(
        f"{VLLM_GT}::test_granite_thinking_force_nonempty_content_moves_into_content",
        "<think>This is plain content",
        (None, "This is plain content", ()),
        ("This is plain content", "", ()),
        differs=NONEMPTY,
        kwargs=(("force_nonempty_content", True),),
    ),
    _agree(
        f"{VLLM_GT}::test_granite_thinking_force_nonempty_no_swap_when_newlines_only",
        "<think>reasoning</think>\n\n",
        "reasoning",
        "",
        kwargs=(("force_nonempty_content", True),),
    ),
    Case(
        f"{VLLM_GT}::test_granite_thinking_force_nonempty_swaps_when_content_absent",
        "<think>reasoning</think>",
        (None, "reasoning", ()),
        ("reasoning", "", ()),
        differs=NONEMPTY,
        kwargs=(("force_nonempty_content", True),),
    ),
    _agree(
        f"{VLLM_GT}::test_granite_thinking_force_nonempty_keeps_real_content",
        "<think>reasoning here</think>real answer",
        "reasoning here",
        "real answer",
        kwargs=(("force_nonempty_content", True),),
    ),
    _agree(
        f"{VLLM_GT}::test_granite_thinking_keeps_truncated_reasoning",
        "This is truncated reasoning",
        "This is truncated reasoning",
        "",
    ),
    Case(
        f"{VLLM_GT}::test_granite_thinking_streaming_enable_thinking_false",
        "This is plain content",
        ("This is plain content", "This is plain content", ()),
        (None, "This is plain content", ()),
        thinking=False,
        chunks=("This is plain content",),
        differs=NO_COPY,
    ),
    _agree(
        f"{VLLM_GT}::test_granite_thinking_streaming_strips_leading_newline",
        "<think>reason</think>\nHello",
        "reason",
        "Hello",
        chunks=("<think>", "reason", "</think>", "\nHello"),
    ),
    Case(
        f"{VLLM_GT}::test_granite_thinking_streaming_promotes_reasoning_to_content",
        "<think>4",
        ("4", "4", ()),
        ("4", "", ()),
        chunks=("<think>", "4"),
        differs=NONEMPTY,
        kwargs=(("force_nonempty_content", True),),
    ),
    _agree(
        f"{VLLM_GT}::test_granite_thinking_streaming_no_promotion_with_real_content",
        "<think>reason</think>real answer",
        "reason",
        "real answer",
        chunks=("<think>", "reason", "</think>", "real answer"),
        kwargs=(("force_nonempty_content", True),),
    ),
    _agree(
        f"{VLLM_GT}::test_granite_thinking_streaming_no_promotion_without_opt_in",
        "<think>4",
        "4",
        "",
        chunks=("<think>", "4"),
    ),
    # (The peer accepts None or "": ours is "", the block was opened.)
    _agree(
        f"{VLLM_GT}::test_granite_thinking_empty_think_block",
        "<think></think>\nHello",
        "",
        "Hello",
        chunks=("<think>", "</think>", "\n", "Hello"),
    ),
    _agree(
        f"{VLLM_GT}::test_granite_thinking_streaming_chunking_independent[r]",
        "<think>r</think>\nHello",
        "r",
        "Hello",
        chunks=("<think>r</think>", "\nHello"),
    ),
    _agree(
        f"{VLLM_GT}::test_granite_thinking_streaming_chunking_independent[empty]",
        "<think></think>\nHello",
        "",
        "Hello",
        chunks=("<think></think>", "\nHello"),
    ),
    # vLLM deepseek_r1 (the prompt opens <think>, as Granite 4.2's does).
    _agree(
        f"{VLLM_R1}::SIMPLE_REASONING",
        "This is a reasoning section</think>This is the rest",
        "This is a reasoning section",
        "This is the rest",
    ),
    _agree(
        f"{VLLM_R1}::COMPLETE_REASONING",
        "This is a reasoning section</think>",
        "This is a reasoning section",
        "",
    ),
    _agree(f"{VLLM_R1}::NO_CONTENT", "This is content", "This is content", ""),
    _agree(
        f"{VLLM_R1}::MULTIPLE_LINES",
        "This\nThat</think>This is the rest\nThat",
        "This\nThat",
        "This is the rest\nThat",
    ),
    _agree(f"{VLLM_R1}::SHORTEST_REASONING", "</think>This is the rest", None, "This is the rest"),
    Case(
        f"{VLLM_R1}::SHORTEST_REASONING_NO_STREAMING",
        "</think>This is the rest",
        ("", "This is the rest", ()),
        (None, "This is the rest", ()),
        differs=EMPTY_NONE,
    ),
    _agree(
        f"{VLLM_R1}::REASONING_WITH_THINK",
        "<think>This is a reasoning section</think>This is the rest",
        "This is a reasoning section",
        "This is the rest",
    ),
    _agree(
        f"{VLLM_R1}::COMPLETE_REASONING_WITH_THINK",
        "<think>This is a reasoning section</think>",
        "This is a reasoning section",
        "",
    ),
    _agree(
        f"{VLLM_R1}::MULTIPLE_LINES_WITH_THINK",
        "<think>This\nThat</think>This is the rest\nThat",
        "This\nThat",
        "This is the rest\nThat",
    ),
    _agree(
        f"{VLLM_R1}::THINK_NO_END",
        "<think>This is a reasoning section",
        "This is a reasoning section",
        "",
    ),
    _agree(f"{VLLM_R1}::EMPTY_STREAMING", "", None, ""),
    Case(f"{VLLM_R1}::EMPTY", "", ("", None, ()), (None, "", ()), differs=EMPTY_NONE),
    Case(
        f"{VLLM_R1}::NEW_LINE",
        "\n<think>This is a reasoning section</think>\nThis is the rest",
        ("This is a reasoning section", "\nThis is the rest", ()),
        ("This is a reasoning section", "This is the rest", ()),
    ),
    Case(
        f"{VLLM_R1}::NEW_LINE_STREAMING",
        "\n<think>This is a reasoning section</think>\nThis is the rest",
        ("\nThis is a reasoning section", "\nThis is the rest", ()),
        ("This is a reasoning section", "This is the rest", ()),
    ),
    # vLLM qwen3 (same <think> format; the tool-call block in its content is what its
    # qwen3_coder tool parser then reads).
    _agree(
        f"{VLLM_Q3}::WITHOUT_START_TOKEN",
        "This is a reasoning section</think>This is the rest",
        "This is a reasoning section",
        "This is the rest",
    ),
    _agree(
        f"{VLLM_Q3}::WITHOUT_START_TOKEN_COMPLETE_REASONING",
        "This is a reasoning section</think>",
        "This is a reasoning section",
        "",
    ),
    _agree(
        f"{VLLM_Q3}::WITH_THINK",
        "<think>This is a reasoning section</think>This is the rest",
        "This is a reasoning section",
        "This is the rest",
    ),
    _agree(f"{VLLM_Q3}::WITHOUT_THINK", "This is the rest", "This is the rest", ""),
    Case(
        f"{VLLM_Q3}::TOOL_CALL_NO_THINK_END",
        "I need to read the file.\n\n" + BASH,
        ("I need to read the file.\n\n", "", (BASH_CALL,)),
        ("I need to read the file.", "", (BASH_CALL,)),
    ),
    Case(
        f"{VLLM_Q3}::TOOL_CALL_WITH_THINK_NO_END",
        "<think>I need to read the file.\n\n" + BASH,
        ("I need to read the file.\n\n", "", (BASH_CALL,)),
        ("I need to read the file.", "", (BASH_CALL,)),
    ),
    _agree(
        f"{VLLM_Q3}::COMPLETE_REASONING",
        "<think>This is a reasoning section</think>",
        "This is a reasoning section",
        "",
    ),
    _agree(
        f"{VLLM_Q3}::MULTILINE_REASONING",
        "<think>This is a reasoning\nsection</think>This is the rest\nThat",
        "This is a reasoning\nsection",
        "This is the rest\nThat",
    ),
    _agree(
        f"{VLLM_Q3}::ONLY_OPEN_TAG",
        "<think>This is a reasoning section",
        "This is a reasoning section",
        "",
    ),
    _agree(
        f"{VLLM_Q3}::TRUNCATED_NO_START_TOKEN",
        "This is a reasoning section",
        "This is a reasoning section",
        "",
    ),
    _agree(
        f"{VLLM_Q3}::start_token_grouped_with_text",
        "<think>This is a reasoning section</think>This is the rest",
        "This is a reasoning section",
        "This is the rest",
        chunks=("<think>This is a reasoning section", "</think>", "This is the rest"),
    ),
    _agree(
        f"{VLLM_Q3}::end_token_grouped_with_content",
        "reasoning section</think>This is the rest",
        "reasoning section",
        "This is the rest",
        chunks=("reasoning section", "</think>This is the rest"),
    ),
    _agree(
        f"{VLLM_Q3}::start_and_end_in_one_delta_no_content",
        "<think>reasoning</think>",
        "reasoning",
        "",
        chunks=("<think>reasoning</think>",),
    ),
    _agree(
        f"{VLLM_Q3}::no_start_end_grouped_with_content",
        "reasoning section</think>content",
        "reasoning section",
        "content",
        chunks=("reasoning section", "</think>content"),
    ),
    # (A block cut off: the peer's content holds its text, as ours does, noted.)
    Case(
        f"{VLLM_Q3}::tool_call_implicit_reasoning_end",
        "I need to read the file.\n\n<tool_call>\n<function=bash>",
        ("I need to read the file.\n\n", "<tool_call>\n<function=bash>", ()),
        ("I need to read the file.", "<tool_call>\n<function=bash>", ()),
        chunks=("I need to read the file.\n\n", "<tool_call>\n<function=bash>"),
    ),
    _agree(
        f"{VLLM_Q3}::thinking_disabled_plain_content",
        "This is plain content",
        None,
        "This is plain content",
        thinking=False,
    ),
    _agree(
        f"{VLLM_Q3}::thinking_disabled_no_think_tokens",
        "Some output without think tokens",
        None,
        "Some output without think tokens",
        thinking=False,
    ),
    Case(
        f"{VLLM_Q3}::thinking_disabled_with_tool_call",
        "I need to read the file.\n\n" + BASH,
        (None, "I need to read the file.", (BASH_CALL,)),
        (None, "I need to read the file.", (BASH_CALL,)),
        thinking=False,
    ),
    # Ollama granite_thinking.
    _agree(
        f"{OLLAMA}::TestGraniteThinkingParserThinkingSplit",
        "reasoning here</think>\nhello world",
        "reasoning here",
        "hello world",
    ),
    _agree(
        f"{OLLAMA}::TestGraniteThinkingParserThinkingDisabled",
        "hello world",
        None,
        "hello world",
        thinking=False,
    ),
    Case(
        f"{OLLAMA}::TestGraniteThinkingParserToolCall",
        WEATHER,
        (None, "", (WEATHER_CALL,)),
        (None, "", (WEATHER_CALL,)),
        thinking=False,
    ),
    _agree(
        f"{OLLAMA}::TestGraniteThinkingParserStreamingAcrossChunks",
        "partial reasoning</think>\nfinal content",
        "partial reasoning",
        "final content",
        chunks=("partial reason", "ing</thi", "nk>\nfinal ", "content"),
    ),
    # Ollama's generic thinking parser: the model opens its own block (Granite 4.2 with
    # thinking off). (Go has no None: its "" thinking is "none" where no block opened.)
    _agree(
        f"{OLLAMA_THINK}::TestExtractThinking[0]",
        "<think> internal </think> world",
        "internal",
        "world",
        thinking=False,
    ),
    _agree(
        f"{OLLAMA_THINK}::TestExtractThinking[1]",
        "<think>a</think><think>b</think>c",
        "a",
        "<think>b</think>c",
        thinking=False,
    ),
    _agree(f"{OLLAMA_THINK}::TestExtractThinking[2]", "no think", None, "no think", thinking=False),
    _agree(
        f"{OLLAMA_THINK}::content without a thinking tag",
        "  abcdef",
        None,
        "abcdef",
        thinking=False,
        chunks=("  abc", "def"),
    ),
    _agree(
        f"{OLLAMA_THINK}::content before a thinking tag nerfs the thinking tag",
        "  abc <think>def</think> ghi",
        None,
        "abc <think>def</think> ghi",
        thinking=False,
    ),
    _agree(
        f"{OLLAMA_THINK}::building up a thinking tag partially",
        "  <think>a",
        "a",
        "",
        thinking=False,
        chunks=("  <th", "in", "k>a"),
    ),
    _agree(
        f"{OLLAMA_THINK}::partial closing tag",
        "<think>abc</think>def",
        "abc",
        "def",
        thinking=False,
        chunks=("<think>abc</th", "ink>def"),
    ),
    _agree(
        f"{OLLAMA_THINK}::partial closing tag fakeout",
        "<think>abc</thing>defghi</think>jkl",
        "abc</thing>defghi",
        "jkl",
        thinking=False,
        chunks=("<think>abc</th", "ing>def", "ghi</thi", "nk>jkl"),
    ),
    _agree(
        f"{OLLAMA_THINK}::whitespace after thinking tag",
        "  <think>abc</think>\n\ndef",
        "abc",
        "def",
        thinking=False,
    ),
    _agree(
        f"{OLLAMA_THINK}::whitespace after thinking tag (incremental)",
        "  <think>abc</think>\n\ndef",
        "abc",
        "def",
        thinking=False,
        chunks=("  <think>abc</think>", "\n\ndef"),
    ),
    _agree(
        f"{OLLAMA_THINK}::whitespace after thinking tag with content and more whitespace",
        "  <think>abc</think>\n\ndef  ghi",
        "abc",
        "def  ghi",
        thinking=False,
        chunks=("  <think>abc</think>\n\ndef ", " ghi"),
    ),
    _agree(
        f"{OLLAMA_THINK}::token by token",
        "<think>\n</think>\n\nHi there",
        "",
        "Hi there",
        thinking=False,
        chunks=("<think>", "\n", "</think>", "\n\n", "Hi", " there"),
    ),
    _agree(
        f"{OLLAMA_THINK}::leading thinking whitespace",
        "  <think>   \t   these are some thoughts </think>    more content",
        "these are some thoughts",
        "more content",
        thinking=False,
        chunks=("  <think>   \t ", "  these are some ", "thoughts </think>  ", "  more content"),
    ),
]


def _normal(values: tuple[Any, ...]) -> tuple[Any, ...]:
    reasoning, content, calls = values
    if isinstance(reasoning, str):
        reasoning = reasoning.strip()
    return (reasoning, (content or "").strip(), tuple(calls))


def _request(case: Case) -> dict[str, Any]:
    kwargs: dict[str, Any] = {"enable_thinking": case.thinking, **dict(case.kwargs)}
    return {
        "messages": [{"role": "user", "content": "q"}],
        "tools": TOOLS,
        "chat_template_kwargs": kwargs,
    }


def test_the_table_names_each_source_once() -> None:
    sources = [case.source for case in CASES]
    assert len(sources) == len(set(sources))
    assert all(
        case.source.startswith((VLLM_GT, VLLM_R1, VLLM_Q3, OLLAMA, OLLAMA_THINK)) for case in CASES
    )
    # The count the docs give.
    agree = sum(not case.differs for case in CASES)
    assert (len(CASES), agree) == (73, 67)


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("case", CASES, ids=[case.source.split("::")[-1] for case in CASES])
def test_peer_case(model: str, case: Case) -> None:
    request = _request(case)
    message = get_formatter(model).parse(case.output, request)
    calls = tuple((call.name, call.arguments) for call in message.tool_calls)
    got = (message.reasoning_content, message.content, calls)
    assert got == case.ours
    if case.differs:
        assert _normal(case.peer) != _normal(got), "marked as differing, yet agrees"
    else:
        assert _normal(case.peer) == _normal(got)
    # Fed in the peer's deltas (or one character at a time): the same message.
    pieces = list(case.chunks) or list(case.output)
    assert "".join(pieces) == case.output
    stream = streamed(model, pieces, request)
    assert (stream.reasoning_content, stream.content, stream.notes) == (
        message.reasoning_content,
        message.content,
        message.notes,
    )
