"""Reading the reasoning that the prompt opened (Granite 4.2): a ``<think>`` the model
writes again is markup, and a tool call the model writes without closing its thought
ends the reasoning (issue 43, 3b and 3c). Exact messages, and streaming equal to the
batch parse for every chunking, in characters and in UTF-8 bytes."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from granite_formatters import get_formatter
from granite_formatters._types import AssistantMessage

from support.granite42_output import WEATHER_TOOLS, streamed
from support.releases import with_feature

MODELS = [r.model for r in with_feature("opened-think")]

ON: dict[str, Any] = {"messages": [{"role": "user", "content": "Weather?"}], "tools": WEATHER_TOOLS}
OFF: dict[str, Any] = {**ON, "chat_template_kwargs": {"enable_thinking": False}}
CALL = (
    "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
    "<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>"
)
PARIS = ("get_weather", {"city": "Paris", "days": 3})
CUT = "the reasoning has no end marker </think>; kept as reasoning"


def _ends_at(offset: int) -> str:
    return (
        f"the reasoning has no end marker </think>; it ends at the <tool_call> at offset {offset}"
    )


def _quoted(offset: int) -> str:
    return (
        f"the <tool_call> at offset {offset} is inside the reasoning (a </think> follows it); "
        "kept as reasoning"
    )


def _in_line(offset: int) -> str:
    return (
        f"the <tool_call> at offset {offset} is inside a line of the reasoning (read as "
        "quoted); kept as reasoning"
    )


def _summary(message: AssistantMessage) -> tuple[Any, ...]:
    calls = [(call.name, call.arguments) for call in message.tool_calls]
    return (message.reasoning_content, message.content, calls, message.notes)


# (output, request, reasoning, content, calls, notes)
REEMITTED: list[tuple[str, dict[str, Any], Any, str, list[Any], list[str]]] = [
    # The two cases, and the same output with thinking off: the modes agree.
    ("<think>Plan.</think>\nHello", ON, "Plan.", "Hello", [], []),
    ("<think>Plan.</think>\nHello", OFF, "Plan.", "Hello", [], []),
    ("<think></think>\nHello", ON, "", "Hello", [], []),
    # (Thinking off: the prompt's own empty block, echoed, is no reasoning.)
    ("<think></think>\nHello", OFF, None, "Hello", [], []),
    # The template's history form: the newlines after <think> and before </think> go
    # with the reasoning's trim, the newlines after </think> are dropped.
    ("<think>\nPlan.\n</think>\n\nHello", ON, "Plan.", "Hello", [], []),
    ("\n <think>\nPlan.</think>Hello", ON, "Plan.", "Hello", [], []),
    # Only one open marker is markup; a later one is text of the reasoning.
    ("<think><think>Plan.</think>Hello", ON, "<think>Plan.", "Hello", [], []),
    ("Plan <think> more</think>Hello", ON, "Plan <think> more", "Hello", [], []),
    # An unclosed thought after a re-emitted open marker.
    ("<think>Plan.", ON, "Plan.", "", [], [CUT]),
    ("<think>", ON, "", "", [], [CUT]),
    ("<thi", ON, "<thi", "", [], [CUT]),
    # A re-emitted block followed by a call.
    ("<think>Plan.</think>\n" + CALL, ON, "Plan.", "", [PARIS], []),
]

CALLS_IN_REASONING: list[tuple[str, dict[str, Any], Any, str, list[Any], list[str]]] = [
    # The case: the model skipped </think> and called the tool.
    ("I will call it.\n" + CALL, ON, "I will call it.", "", [PARIS], [_ends_at(16)]),
    # The same after a re-emitted <think>, with blanks before the marker on its line,
    # and as the first thing of the output.
    ("<think>I will call it.\n" + CALL, ON, "I will call it.", "", [PARIS], [_ends_at(23)]),
    ("Call.\n  " + CALL, ON, "Call.", "", [PARIS], [_ends_at(8)]),
    (CALL, ON, None, "", [PARIS], [_ends_at(0)]),
    # Two calls, and prose between them: all of it after the first marker is the answer.
    (
        "Two calls.\n" + CALL + "\nand\n" + CALL,
        ON,
        "Two calls.",
        "and",
        [PARIS, PARIS],
        [_ends_at(11)],
    ),
    # Thinking off, a reasoning the model opened and did not close.
    ("<think>Hmm.\n" + CALL, OFF, "Hmm.", "", [PARIS], [_ends_at(12)]),
    # A broken block after the reasoning: content, with the block's own note.
    (
        "Try.\n<tool_call>\nget_weather(city='Paris')\n</tool_call>",
        ON,
        "Try.",
        "<tool_call>\nget_weather(city='Paris')\n</tool_call>",
        [],
        [
            _ends_at(5),
            # (The tool-call syntax words its own note: only where it says it is read.)
            "the <tool_call> block at offset 5 *",
        ],
    ),
    # A cut-off call: its text is content, noted.
    (
        "Go.\n<tool_call>\n<function=get_weather>",
        ON,
        "Go.",
        "<tool_call>\n<function=get_weather>",
        [],
        [
            _ends_at(4),
            "the <tool_call> block at offset 4 *",
        ],
    ),
    # Quoted: a </think> follows (the reasoning went on), so the call was reasoning.
    (
        "Format:\n" + CALL + "\nok.\n</think>\n\nSunny.",
        ON,
        "Format:\n" + CALL + "\nok.",
        "Sunny.",
        [],
        [_quoted(8)],
    ),
    # ... and the real call after the reasoning is read.
    (
        "Like:\n" + CALL + "\n</think>\n" + CALL,
        ON,
        "Like:\n" + CALL,
        "",
        [PARIS],
        [_quoted(6)],
    ),
    # Quoted: inside a line (backticks, mid-sentence) it never ends the reasoning.
    ("Use `<tool_call>` tags.</think>\nOK", ON, "Use `<tool_call>` tags.", "OK", [], []),
    ("Use `<tool_call>` tags.", ON, "Use `<tool_call>` tags.", "", [], [CUT, _in_line(5)]),
    (
        "I write <tool_call> then:\n" + CALL,
        ON,
        "I write <tool_call> then:",
        "",
        [PARIS],
        [_ends_at(26)],
    ),
    # A tool-call marker after the reasoning ended is the content parser's.
    (
        "R</think>\nsay `<tool_call>`",
        ON,
        "R",
        "say `<tool_call>`",
        [],
        ["the <tool_call> block at offset 15 *"],
    ),
]


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize(
    ("output", "request_", "reasoning", "content", "calls", "notes"),
    REEMITTED + CALLS_IN_REASONING,
)
def test_cases(
    model: str,
    output: str,
    request_: dict[str, Any],
    reasoning: Any,
    content: str,
    calls: list[Any],
    notes: list[str],
) -> None:
    message = get_formatter(model).parse(output, request_)
    got = _summary(message)
    assert got[:3] == (reasoning, content, calls)
    assert len(got[3]) == len(notes)
    for note, expected in zip(got[3], notes, strict=True):
        if expected.endswith(" *"):
            assert note.startswith(expected[:-1]) and note.endswith("; kept as content")
        else:
            assert note == expected
    assert message.raw_content == output
    _stream_equals_batch(model, output, request_, range(len(output) + 1))


def _stream_equals_batch(
    model: str, text: str, request: dict[str, Any], cuts: Any, as_bytes: bool = False
) -> None:
    batch = get_formatter(model).parse(text, request)
    raw: Any = text.encode() if as_bytes else text
    bounds = [0, *sorted(cuts), len(raw)]
    message = streamed(model, [raw[a:b] for a, b in itertools.pairwise(bounds)], request)
    assert _summary(message) == _summary(batch)
    assert message.raw_content == batch.raw_content
    # Fed one character (or byte) at a time too.
    if not cuts or len(cuts) == len(raw) + 1:
        return
    one_by_one = [raw[index : index + 1] for index in range(len(raw))]
    assert _summary(streamed(model, one_by_one, request)) == _summary(batch)


_PIECES = st.sampled_from(
    [
        "<think>",
        "</think>",
        "<think></think>",
        "\n",
        " ",
        "`",
        "é🙂",
        "I will call it.",
        "<tool_call>",
        "</tool_call>",
        "<function=get_weather>",
        "<parameter=city>",
        "</parameter>",
        "</function>",
        "<",
        "</thi",
        "<tool_",
        CALL,
        "\n" + CALL,
    ]
)


@pytest.mark.parametrize("model", MODELS)
@given(
    pieces=st.lists(_PIECES, max_size=10),
    request=st.sampled_from([ON, OFF]),
    as_bytes=st.booleans(),
    data=st.data(),
)
def test_stream_equals_batch_for_every_chunking(
    model: str, pieces: list[str], request: dict[str, Any], as_bytes: bool, data: st.DataObject
) -> None:
    text = "".join(pieces)
    size = len(text.encode()) if as_bytes else len(text)
    cuts = data.draw(st.lists(st.integers(0, size), max_size=10))
    _stream_equals_batch(model, text, request, cuts, as_bytes)


@pytest.mark.parametrize("model", MODELS)
@given(
    before=st.text(st.sampled_from("ab `\n<>/"), max_size=12),
    after=st.text(st.sampled_from("ab `\n<>/"), max_size=12),
    closed=st.booleans(),
)
def test_a_line_start_call_is_never_lost(model: str, before: str, after: str, closed: bool) -> None:
    """A complete call that starts a line of the reasoning is a tool call unless an end
    marker follows it; then it is kept as reasoning, with a note (never dropped)."""
    text = before + "\n" + CALL + after + ("</think>" if closed else "")
    message = get_formatter(model).parse(text, ON)
    quoted = closed or "</think>" in before or "</think>" in after
    if "</think>" in before:
        return  # (the reasoning ended before the call: the content parser's case)
    if quoted:
        assert CALL in (message.reasoning_content or "")
        assert any("is inside the reasoning (a </think> follows it)" in n for n in message.notes)
    else:
        assert [(c.name, c.arguments) for c in message.tool_calls][:1] == [PARIS]
