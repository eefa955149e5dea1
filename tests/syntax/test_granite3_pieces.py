"""The Granite 3.x system-turn pieces: dated system prompt, tools/documents turns, controls."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from granite_formatters.syntax import (
    CONTROLS,
    GRANITE_ROLES,
    DatedSystemPrompt,
    DocumentsTurn,
    DocumentTurnPerDocument,
    ToolsTurn,
)
from granite_formatters.syntax._controls import controls_problem, valid_control_items
from granite_formatters.syntax._system_prompt import format_date

PROMPT = DatedSystemPrompt(
    preamble="Date: {date}.",
    tools=" T",
    tools_and_documents=" TD",
    documents=" D",
    plain=" P",
    citations=" +C",
    hallucinations=" +H",
    thinking=" K",
)
DAY = datetime.date(2025, 4, 6)


@pytest.mark.parametrize(
    ("tools", "documents", "thinking", "controls", "expected"),
    [
        (False, False, False, None, "Date: April 06, 2025. P"),
        (False, False, True, None, "Date: April 06, 2025. K"),
        (True, False, True, None, "Date: April 06, 2025. T"),
        (True, True, False, None, "Date: April 06, 2025. TD"),
        (False, True, True, None, "Date: April 06, 2025. D"),
        # The controls' instructions need documents; a key counts whatever its value.
        (False, False, False, {"citations": True}, "Date: April 06, 2025. P"),
        (
            False,
            True,
            False,
            {"hallucinations": None, "citations": False},
            "Date: April 06, 2025. D +C +H",
        ),
        (False, True, False, {"length": "short"}, "Date: April 06, 2025. D"),
    ],
)
def test_the_system_text_takes_the_first_branch_that_applies(
    tools: bool, documents: bool, thinking: bool, controls: dict[str, object] | None, expected: str
) -> None:
    text = PROMPT.text(DAY, tools=tools, documents=documents, thinking=thinking, controls=controls)
    assert text == expected


def test_a_release_without_thinking_mode_prints_the_plain_branch_and_says_so() -> None:
    prompt = DatedSystemPrompt(
        preamble="{date}",
        tools="",
        tools_and_documents="",
        documents="",
        plain=" P",
        citations="",
        hallucinations="",
    )
    assert prompt.text(DAY, tools=False, documents=False, thinking=True, controls=None) == (
        "April 06, 2025 P"
    )
    found = prompt.unhonoured(
        "Granite X",
        custom_system=False,
        tools=False,
        documents=False,
        thinking=True,
        controls=None,
    )
    assert found == [("chat_template_kwargs.thinking", "Granite X has no thinking mode.")]


def test_the_preamble_holds_the_date_once() -> None:
    with pytest.raises(ValueError, match="exactly once"):
        DatedSystemPrompt("no date", "", "", "", "", "", "")


def test_unhonoured_options_name_their_field_and_the_release() -> None:
    found = PROMPT.unhonoured(
        "Granite 3.2",
        custom_system=True,
        tools=False,
        documents=False,
        thinking=True,
        controls={"citations": True, "hallucinations": False},
    )
    assert [field for field, _ in found] == [
        "chat_template_kwargs.thinking",
        "chat_template_kwargs.controls.citations",
    ]
    assert all(message.startswith("Granite 3.2 cannot honour ") for _, message in found)
    flags = dict(custom_system=False, tools=False, documents=True, thinking=False)
    assert PROMPT.unhonoured("Granite 3.2", controls={"citations": True}, **flags) == []


@given(st.dates())
def test_dates_print_as_strftime_in_english(day: datetime.date) -> None:
    months = "January February March April May June July August September October November December"
    expected = f"{months.split()[day.month - 1]} {day.day:02d}, {day.year}"
    assert format_date(day) == expected


def test_documents_share_one_turn_or_get_one_turn_each() -> None:
    texts, ids = ["A", "B\nb"], ["1", "x"]
    assert DocumentsTurn().write(GRANITE_ROLES, texts, ids) == (
        "<|start_of_role|>documents<|end_of_role|>Document 0\nA\n\nDocument 1\nB\nb<|end_of_text|>\n"
    )
    assert DocumentTurnPerDocument().write(GRANITE_ROLES, texts, ids) == (
        '<|start_of_role|>document {"document_id": "1"}<|end_of_role|>\nA<|end_of_text|>\n'
        '<|start_of_role|>document {"document_id": "x"}<|end_of_role|>\nB\nb<|end_of_text|>\n'
    )
    assert (DocumentsTurn().reads_ids, DocumentTurnPerDocument().reads_ids) == (False, True)
    assert ToolsTurn("available_tools") == ToolsTurn(role="available_tools", indent=4)


def test_controls_are_printed_verbatim_in_key_order_after_the_role() -> None:
    controls = {"length": "short", "citations": False, "hallucinations": None}
    suffix = ' {"length": "short", "citations": false, "hallucinations": null}'
    assert CONTROLS.role_suffix(controls) == suffix
    assert CONTROLS.role_suffix(controls) == suffix  # (from the memo)
    assert CONTROLS.role_suffix({}) == ""
    assert CONTROLS.role_suffix(None) == ""


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"length": "medium"}, ("length", "must be 'short' or 'long' (or null), not 'medium'")),
        ({"citations": 1}, ("citations", "must be true or false (or null), not 1")),
        (
            {"tone": "dry"},
            (
                "tone",
                "unknown control 'tone'; the controls are citations, hallucinations, length, "
                "originality",
            ),
        ),
        (
            {1: True},
            "unknown control 1; the controls are citations, hallucinations, length, originality",
        ),
        ("short", "must be an object, not str"),
    ],
)
def test_invalid_controls_are_refused_naming_the_control(
    value: object, message: str | tuple[str, str]
) -> None:
    assert CONTROLS.check(value) == message


def test_valid_controls_are_accepted() -> None:
    assert CONTROLS.check(None) is None
    assert CONTROLS.check({"citations": True, "originality": None}) is None


# -- the controls' quick check (``valid_control_items``) against the full one


class _PlainStr(str):
    """A ``str`` subclass that changes nothing: it only fails the exact-type checks."""


class _Dict(dict):  # type: ignore[type-arg]
    """A ``dict`` subclass: never read by the quick check or the suffix memo."""


_CONTROL_KEYS = st.sampled_from(
    ["citations", "hallucinations", "length", "originality", "bogus", _PlainStr("citations")]
)
_CONTROL_VALUES = st.sampled_from(
    [
        *(True, False, None, "short", "long", "extractive", "abstractive"),
        *(1, 0, 1.0, "medium", "true", _PlainStr("short"), _PlainStr("long")),
    ]
)


@given(st.dictionaries(_CONTROL_KEYS, _CONTROL_VALUES, max_size=4))
def test_the_controls_quick_check_agrees_with_the_full_check(controls: dict[str, Any]) -> None:
    slow = _Dict(controls)
    assert controls_problem(controls) == controls_problem(slow)
    assert (valid_control_items(controls) is not None) == (controls_problem(slow) is None)
    assert CONTROLS.check(controls) == CONTROLS.check(slow)
    for _ in range(2):  # (the second call is served by the memo)
        assert CONTROLS.role_suffix(controls) == CONTROLS.role_suffix(slow)


def test_the_suffix_memo_tells_true_from_1() -> None:
    assert CONTROLS.role_suffix({"citations": True}) == ' {"citations": true}'
    assert CONTROLS.role_suffix({"citations": 1}) == ' {"citations": 1}'
    assert CONTROLS.role_suffix({"citations": True}) == ' {"citations": true}'
