"""Output of the releases with a pre-opened ``<think>`` block and XML tool calls
(Granite 4.2): reasoning, content, typed tool calls and notes, exactly; streaming equal
to the batch parse for every chunking and for UTF-8 bytes cut anywhere."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from granite_formatters import get_formatter
from granite_formatters._types import AssistantMessage

from support import oracle
from support.granite42_output import WEATHER_TOOLS, streamed
from support.releases import RELEASES, with_feature

MODELS = [r.model for r in with_feature("opened-think")]

TOOLS = WEATHER_TOOLS
ON: dict[str, Any] = {"messages": [{"role": "user", "content": "Weather?"}], "tools": TOOLS}
OFF: dict[str, Any] = {**ON, "chat_template_kwargs": {"enable_thinking": False}}
CALL = (
    "<tool_call>\n<function=get_weather>\n<parameter=city>\n007\n</parameter>\n"
    "<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>"
)
CUT_NOTE = "the reasoning has no end marker </think>; kept as reasoning"


def _calls(message: AssistantMessage) -> list[tuple[str, Any]]:
    return [(call.name, call.arguments) for call in message.tool_calls]


def _summary(message: AssistantMessage) -> tuple[Any, ...]:
    return (message.reasoning_content, message.content, _calls(message), message.notes)


# (output, request, reasoning, content, calls, notes)
CASES: list[tuple[str, dict[str, Any], Any, str, list[Any], list[str]]] = [
    ("I should check.\n</think>\n\nIt is sunny.", ON, "I should check.", "It is sunny.", [], []),
    ("R</think>A", ON, "R", "A", [], []),
    ("Just thinking", ON, "Just thinking", "", [], [CUT_NOTE]),
    ("", ON, None, "", [], [CUT_NOTE]),
    ("<think></think>\n\nHello.", OFF, None, "Hello.", [], []),
    ("<think></think>Hello.", OFF, None, "Hello.", [], []),
    ("Hello.", OFF, None, "Hello.", [], []),
    # A second </think> is content.
    ("R</think>\nA</think>B", ON, "R", "A</think>B", [], []),
    # Reasoning, prose, then a call whose string parameter stays a string.
    (
        "Need data.\n</think>\n\nLet me look.\n" + CALL,
        ON,
        "Need data.",
        "Let me look.",
        [("get_weather", {"city": "007", "days": 3})],
        [],
    ),
    # A call straight after the reasoning, and two calls.
    (
        "x</think>\n" + CALL + "\n" + CALL,
        ON,
        "x",
        "",
        [("get_weather", {"city": "007", "days": 3})] * 2,
        [],
    ),
    # Multi-line values, object and boolean typing.
    (
        "</think>\n<tool_call>\n<function=get_weather>\n<parameter=city>\nNew\nYork\n</parameter>\n"
        '<parameter=metric>\nFalse\n</parameter>\n<parameter=where>\n{"lat": 1.5}\n</parameter>\n'
        "</function>\n</tool_call>",
        ON,
        None,
        "",
        [("get_weather", {"city": "New\nYork", "metric": False, "where": {"lat": 1.5}})],
        [],
    ),
    # A value that fails its type stays text, with a note.
    (
        "<tool_call>\n<function=get_weather>\n<parameter=days>\nthree\n</parameter>\n</function>\n</tool_call>",
        OFF,
        None,
        "",
        [("get_weather", {"days": "three"})],
        ["tool call 0 ('get_weather'): the value of 'days' is not of type 'integer'; kept as text"],
    ),
    # A function the request does not offer: values kept as text, with a note.
    (
        "<tool_call>\n<function=search>\n<parameter=q>\n42\n</parameter>\n</function>\n</tool_call>",
        OFF,
        None,
        "",
        [("search", {"q": "42"})],
        ["tool call 0 ('search'): not one of the request's tools; its values are kept as text"],
    ),
]


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize(("output", "request_", "reasoning", "content", "calls", "notes"), CASES)
def test_parse_cases(
    model: str,
    output: str,
    request_: dict[str, Any],
    reasoning: Any,
    content: str,
    calls: list[Any],
    notes: list[str],
) -> None:
    message = get_formatter(model).parse(output, request_)
    assert _summary(message) == (reasoning, content, calls, notes)
    assert message.raw_content in (output, None)


BROKEN = [
    "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</function>\n</tool_call>",
    "<tool_call>\nget_weather(city='Paris')\n</tool_call>",
    "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n",
    "<tool_call>\n<function=get_weather\n>\n</function>\n</tool_call>",
]


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("output", BROKEN)
def test_broken_or_cut_off_blocks_keep_their_text(model: str, output: str) -> None:
    message = get_formatter(model).parse(output, OFF)
    assert message.tool_calls == []
    assert message.content == output.strip()
    assert len(message.notes) == 1 and "kept as content" in message.notes[0]


_PIECES = st.sampled_from(
    [
        "</think>",
        "<think></think>",
        "\n",
        "é",
        "🙂",
        "text ",
        "<tool_call>",
        "</tool_call>",
        "<function=get_weather>",
        "</function>",
        "<parameter=days>",
        "</parameter>",
        "3",
        "<",
        "</thi",
        CALL,
    ]
)


_stream = streamed


@pytest.mark.parametrize("model", MODELS)
@given(
    pieces=st.lists(_PIECES, max_size=10),
    request=st.sampled_from([ON, OFF]),
    data=st.data(),
)
def test_stream_equals_batch(
    model: str, pieces: list[str], request: dict[str, Any], data: st.DataObject
) -> None:
    text = "".join(pieces)
    batch = get_formatter(model).parse(text, request)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(text)), max_size=8)))
    chunks = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
    streamed = _stream(model, list(chunks), request)
    assert _summary(streamed) == _summary(batch)
    assert streamed.raw_content == batch.raw_content
    raw = text.encode("utf-8")
    cuts = sorted(data.draw(st.lists(st.integers(0, len(raw)), max_size=8)))
    byte_chunks: list[str | bytes] = [
        raw[a:b] for a, b in zip([0, *cuts], [*cuts, len(raw)], strict=True)
    ]
    assert _summary(_stream(model, byte_chunks, request)) == _summary(batch)


@pytest.mark.parametrize("model", MODELS)
@given(text=st.text(), thinking=st.booleans())
def test_parse_never_raises_and_loses_no_text(model: str, text: str, thinking: bool) -> None:
    message = get_formatter(model).parse(text, ON if thinking else OFF)
    message.model_dump_json()
    kept = (message.reasoning_content or "") + message.content
    if not message.tool_calls and "<think></think>" not in text and "</think>" not in text:
        expected = text.strip()
        if thinking and expected.startswith("<think>"):
            expected = expected[len("<think>") :].lstrip()  # (a re-emitted open marker)
        if "<tool_call>" in text:
            # (The reasoning may end at a tool-call marker: the blanks at the seam go
            # with the trims of the reasoning and of the content.)
            assert "".join(kept.split()) == "".join(expected.split())
        else:
            assert kept.strip() == expected or kept == expected


# Three model turns of an agent: each parsed message is appended as to_openai() gives
# it, then a tool result; the next prompt must be what the template renders.
AGENT_OUTPUTS = [
    "The user wants weather.\n</think>\n\nI'll check.\n" + CALL,
    "Got it. Now the forecast.\n</think>\n\n<tool_call>\n<function=get_weather>\n"
    "<parameter=city>\nParis\n</parameter>\n<parameter=days>\n5\n</parameter>\n"
    '<parameter=where>\n{"lat": 48.9, "tags": ["é", "<b>"]}\n</parameter>\n'
    "<parameter=metric>\ntrue\n</parameter>\n</function>\n</tool_call>",
    "All done.\n</think>\n\nSunny for five days.",
]


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize(
    "options", [{}, {"truncate_history_thinking": False}, {"low_effort": True}]
)
def test_agent_loop_over_three_turns(model: str, options: dict[str, Any]) -> None:
    oracle.require_shared()
    release = next(r for r in RELEASES if r.model == model)
    formatter = get_formatter(model)
    request: dict[str, Any] = {
        **ON,
        "messages": list(ON["messages"]),
        "chat_template_kwargs": options,
    }
    for turn, output in enumerate(AGENT_OUTPUTS):
        prompt = formatter.format(request)
        assert prompt == oracle.render(release.version, oracle.server_request(request)), turn
        message = formatter.parse(output, request)
        assert message.reasoning_content and not message.notes
        request["messages"].append(message.to_openai())
        for call in message.tool_calls:
            request["messages"].append(
                {"role": "tool", "tool_call_id": call.id, "content": f"result of {call.name}"}
            )
        if turn == 1:
            request["messages"].append({"role": "user", "content": "And tomorrow?"})
    final = formatter.format(request, add_generation_prompt=False)
    assert final == oracle.render(release.version, oracle.server_request(request), False)
    # The last turn comes after the last user message: its reasoning is kept whole, as
    # the model wrote it.
    assert final.endswith(
        "<|im_start|>assistant\n<think>\nAll done.\n</think>\nSunny for five days.<|im_end|>\n"
    )
