"""Reasoning the model marks anywhere (``MarkedReasoning``: ``THINK_RESPONSE``,
``THOUGHT_PHRASES``) and a release's dropped tokens, read by the engine's parser."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from granite_formatters import Release
from granite_formatters._streaming import Delta
from granite_formatters._types import AssistantMessage
from granite_formatters.syntax import (
    JSON_LIST,
    THINK_RESPONSE,
    THOUGHT_PHRASES,
)
from granite_formatters.syntax._marked_reasoning import MarkedReasoning

from support.toy_release import toy_release

#: A release with 3.3's reasoning markers, JSON-list tool calls and a dropped token.
THINKS = toy_release(
    "Toy thinks",
    tool_calls=JSON_LIST,
    reasoning=THINK_RESPONSE,
    tool_call_markers=("<tool_call>",),
    dropped_tokens=("<|end_of_text|>",),
)
#: The same with 3.2's phrases.
PHRASES = toy_release(
    "Toy phrases",
    tool_calls=JSON_LIST,
    reasoning=THOUGHT_PHRASES,
)
LIST = '[{"name": "f", "arguments": {"t": "<think>"}}]'
OFF = {"messages": [{"role": "user", "content": "q"}], "chat_template_kwargs": {"thinking": False}}
ON = {"messages": [{"role": "user", "content": "q"}], "chat_template_kwargs": {"thinking": True}}
TOOLS = {"messages": [{"role": "user", "content": "q"}], "tools": [{"name": "f"}]}


def _streamed(
    output: str, cuts: list[int], release: Release, request: Any = None
) -> tuple[AssistantMessage, list[Delta]]:
    """The message and deltas of ``output`` streamed in the pieces ``cuts`` make."""
    parser = release.output_processor().stream_parser(request)
    bounds = [0, *sorted(c % (len(output) + 1) for c in cuts), len(output)]
    deltas = [d for a, b in itertools.pairwise(bounds) for d in parser.feed(output[a:b])]
    deltas += parser.close()
    assert parser.message is not None
    return parser.message, deltas


def _check(
    release: Release, output: str, request: Any, cuts: list[int], expected: tuple[Any, ...]
) -> None:
    message, deltas = _streamed(output, cuts, release, request)
    assert _read(message) == expected
    assert message.raw_content == output
    assert "".join(d.content or "" for d in deltas) == message.content
    assert "".join(d.reasoning_content or "" for d in deltas) == (message.reasoning_content or "")
    assert _read(release.output_processor().transform(output, request)) == expected


def _read(message: AssistantMessage) -> tuple[Any, ...]:
    names = [c.name for c in message.tool_calls]
    return (message.content, message.reasoning_content, names, message.notes)


STRAY = "removed </think> at offset {}: no reasoning was opened before it"
CUT = "the reasoning has no end marker </think>; kept as reasoning"


@pytest.mark.parametrize(
    ("output", "request_", "expected"),
    [
        # Text before the start marker is content; the seams are not doubled.
        ("Hi <think>plan</think> <response>ok</response>", None, ("Hi ok", "plan", [], [])),
        ("Hi<think>plan</think> ok", None, ("Hi ok", "plan", [], [])),
        ("<think></think>ok", None, ("ok", "", [], [])),
        ("<think>a <|end_of_text|> b</think>c", None, ("c", "a  b", [], [])),
        ("a <|end_of_text|> b<|end_of_text|>", None, ("a b", None, [], [])),
        # Read only when thinking is on or not given.
        ("<think>plan</think>ok", ON, ("ok", "plan", [], [])),
        ("<think>plan</think>ok", OFF, ("<think>plan</think>ok", None, [], [])),
        ("<think>plan</think>ok<|end_of_text|>", OFF, ("<think>plan</think>ok", None, [], [])),
        # A stray end marker (noted), a second block (content), a cut one (noted).
        ("a </think> b", None, ("a b", None, [], [STRAY.format(2)])),
        ("<think>x</think>y<think>z</think>", None, ("y<think>z</think>", "x", [], [])),
        ("Hi <think>cut", None, ("Hi", "cut", [], [CUT])),
        # No reasoning markers after a tool call or a bare list.
        ("<|tool_call|>" + LIST + " <think>", None, ("<think>", None, ["f"], [])),
        ("<tool_call>\f\v" + LIST, None, ("", None, ["f"], [])),
        (LIST + "<response>x</response>", TOOLS, ("<response>x</response>", None, ["f"], [])),
        ("<think>t</think>" + LIST, TOOLS, ("", "t", ["f"], [])),
    ],
)
@given(cuts=st.lists(st.integers(min_value=0), max_size=5))
def test_think_response(
    output: str, request_: Any, expected: tuple[Any, ...], cuts: list[int]
) -> None:
    _check(THINKS, output, request_, cuts, expected)


@pytest.mark.parametrize("cuts", [[], [8], [9], [4, 12]])
def test_stray_end_offsets(cuts: list[int]) -> None:
    # A note's offset counts the text before it once, whichever chunk the marker ends.
    output = "</think>a</think>"
    _check(THINKS, output, None, cuts, ("a", None, [], [STRAY.format(0), STRAY.format(9)]))


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("Here is my thought process: a Here is my response: b", ("b", "a", [], [])),
        ("Intro. Here\u2019s my thought process:\na\nHere's my response:\nb", ("Intro. b", "a", [], [])),
        ("Here is my response: b", ("Here is my response: b", None, [], [])),
    ],
)  # fmt: skip
@given(cuts=st.lists(st.integers(min_value=0), max_size=5))
def test_thought_phrases(output: str, expected: tuple[Any, ...], cuts: list[int]) -> None:
    _check(PHRASES, output, None, cuts, expected)


def test_the_thinking_option_as_given_decides() -> None:
    assert THINK_RESPONSE.reads({}) and THINK_RESPONSE.reads({"thinking": True})
    assert not THINK_RESPONSE.reads({"thinking": False})
    assert not THINK_RESPONSE.reads({"thinking": None})
    custom = MarkedReasoning(starts=("<t>",), ends=("</t>",))
    assert (custom.open, custom.close, custom.marked()) == ("<t>", "</t>", custom)


def test_a_note_said_twice_is_kept_once() -> None:
    call = '<|tool_call|>[{"name": "f", "arguments": {"a": "\\ud83d"}}]'
    message = THINKS.output_processor().transform(call + call)
    assert len(message.tool_calls) == 2
    assert message.notes == ["replaced lone surrogates in a tool call with U+FFFD"]
    # Notes that differ (here by their offsets) are all kept.
    message = THINKS.output_processor().transform("</think> </think>")
    assert message.notes == [STRAY.format(0), STRAY.format(9)]
