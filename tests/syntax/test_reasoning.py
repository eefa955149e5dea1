"""The ``<think>`` block the prompt opens (``OPENED_THINK``): history, prompt, options.

The reading side (output that begins inside the reasoning) is tested through the
parser, per release, in tests/releases.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from granite_formatters.syntax import OPENED_THINK, XML_FUNCTIONS, HistoryCall
from granite_formatters.syntax._reasoning import effort_option_error, think_option_error

from support import oracle
from support.history_writer import PlainWriter

CALL = {"type": "function", "function": {"name": "f", "arguments": {"x": 1}}}
HEAD = "<|im_start|>system\n<|im_end|>\n<|im_start|>user\nu<|im_end|>\n"

# Text that exercises every branch: think tags, blanks, newlines around them.
_TEXTS = st.lists(
    st.sampled_from(["<think>", "</think>", "\n", " ", "a", "b c", "\t", "é"]), max_size=8
).map("".join)


def _turn(
    content: str,
    reasoning: str | None,
    options: dict[str, Any],
    *,
    historical: bool,
    with_calls: bool,
) -> str:
    text = OPENED_THINK.history(
        content, reasoning, historical=historical, tool_calls=with_calls, options=options
    )
    if with_calls:
        call = HistoryCall("f", {"x": 1}, "messages[1].tool_calls[0].function")
        text = XML_FUNCTIONS.write(text, [call], PlainWriter())
    return "<|im_start|>assistant\n" + text + "<|im_end|>\n"


@given(
    content=st.one_of(st.none(), _TEXTS),
    reasoning=st.one_of(st.none(), _TEXTS),
    historical=st.booleans(),
    truncate=st.booleans(),
    with_calls=st.booleans(),
)
def test_history_turn_matches_the_template(
    content: str | None, reasoning: str | None, historical: bool, truncate: bool, with_calls: bool
) -> None:
    oracle.require_shared()
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if reasoning is not None:
        message["reasoning_content"] = reasoning
    if with_calls:
        message["tool_calls"] = [CALL]
    messages = [{"role": "user", "content": "u"}, message]
    if historical:
        messages.append({"role": "user", "content": "v"})
    options = {"truncate_history_thinking": truncate}
    got = HEAD + _turn(
        content or "", reasoning, options, historical=historical, with_calls=with_calls
    )
    if historical:
        got += "<|im_start|>user\nv<|im_end|>\n"
    request = {"messages": messages, "chat_template_kwargs": options}
    assert got == oracle.render("4.2", request, add_generation_prompt=False)


@pytest.mark.parametrize(
    ("content", "reasoning", "historical", "with_calls", "expected"),
    [
        # The seam: a cut turn keeps the newline after </think> without tool calls only.
        ("<think>R</think>\nC", None, True, False, "<think></think>\nC"),
        ("<think>R</think>\nC", None, True, True, "<think></think>C\n"),
        ("C", "R", False, False, "<think>\nR\n</think>\nC"),
        ("C", "R", True, False, "<think></think>\nC"),
        ("C", " \n", False, False, "<think></think>C"),
        ("", None, False, True, "<think></think>\n"),
        ("<think>open", None, True, True, "<think></think>\n"),
        ("<think>open", None, True, False, "<think>open"),
        ("  spaced  ", None, False, False, "<think></think>  spaced"),
    ],
)
def test_history_cases(
    content: str, reasoning: str | None, historical: bool, with_calls: bool, expected: str
) -> None:
    assert (
        OPENED_THINK.history(
            content, reasoning, historical=historical, tool_calls=with_calls, options={}
        )
        == expected
    )


@pytest.mark.parametrize(
    ("options", "prompt", "suffix"),
    [
        ({}, "<think>\n", ""),
        ({"enable_thinking": False}, "<think></think>", ""),
        ({"low_effort": True}, "<think>\n", "\n\n{reasoning effort: low}"),
        ({"low_effort": True, "reasoning_effort": "high"}, "<think>\n", ""),
        ({"reasoning_effort": "low"}, "<think>\n", "\n\n{reasoning effort: low}"),
        # "none" as a template option does not turn thinking off (the template).
        ({"reasoning_effort": "none"}, "<think>\n", ""),
        (
            {"reasoning_effort": "low", "enable_thinking": False},
            "<think></think>",
            "\n\n{reasoning effort: low}",
        ),
    ],
)
def test_generation_prompt_and_low_effort_match_the_template(
    options: dict[str, Any], prompt: str, suffix: str
) -> None:
    assert OPENED_THINK.generation_prompt(options) == prompt
    assert OPENED_THINK.last_user_suffix(options) == suffix
    assert OPENED_THINK.starts_inside(options) is (prompt == "<think>\n")
    assert OPENED_THINK.removed_when_off(options) == ("" if prompt == "<think>\n" else prompt[:15])
    oracle.require_shared()
    request = {"messages": [{"role": "user", "content": "q"}], "chat_template_kwargs": options}
    expected = HEAD.replace("u<", "q" + suffix + "<") + "<|im_start|>assistant\n" + prompt
    assert oracle.render("4.2", request) == expected


def test_markers() -> None:
    assert (OPENED_THINK.open, OPENED_THINK.close, OPENED_THINK.after_close) == (
        "<think>",
        "</think>",
        "\n",
    )


@pytest.mark.parametrize("value", [True, False, None])
def test_flag_values_accepted(value: Any) -> None:
    assert think_option_error(value) is None


@pytest.mark.parametrize("value", ["yes", 1, 0, [], {}])
def test_flag_values_refused(value: Any) -> None:
    assert think_option_error(value) == f"must be true or false, not {value!r}"


def test_effort_values() -> None:
    assert effort_option_error("low") is None
    assert effort_option_error(None) is None
    assert effort_option_error(3) == "must be a string such as 'low' or 'high', not 3"
