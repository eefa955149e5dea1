"""The one lone-surrogate rule: which texts hold one, and each replaced by U+FFFD; and
the core modules that ask it (tool-call JSON, plain-dict keys) answer as it does."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from granite_formatters._plaindicts import are_plain_keys
from granite_formatters._surrogates import (
    first_lone_surrogate,
    has_lone_surrogate,
    replace_lone_surrogates,
)
from granite_formatters._toolcalljson import json_safe, text_safe

#: Text of any code points, surrogates (paired or not) often among them.
TEXTS = st.lists(
    st.one_of(st.characters(), st.characters(categories=["Cs"]), st.sampled_from("aé€😀")),
    max_size=40,
).map("".join)


def _is_surrogate(char: str) -> bool:
    return "\ud800" <= char <= "\udfff"


def _replaced(text: str) -> str:
    """The rule, written out a character at a time."""
    return "".join("\ufffd" if _is_surrogate(char) else char for char in text)


@given(TEXTS)
@example("")
@example("plain ASCII")
@example("Zürich \U0001f600")
@example("\ud83d\ude00")  # (a pair as two code points is two surrogates, not an emoji)
@example("x" * 2000 + "\udfff")
def test_a_text_has_a_lone_surrogate_where_a_code_point_is_one(text: str) -> None:
    holds = any(map(_is_surrogate, text))
    assert has_lone_surrogate(text) is holds
    assert first_lone_surrogate(text) == next(filter(_is_surrogate, text), None)
    replaced = replace_lone_surrogates(text)
    assert replaced == _replaced(text)
    assert len(replaced) == len(text)  # (spans hold)
    replaced.encode()  # (what UTF-8 could not carry is gone)


@given(TEXTS)
def test_tool_call_text_and_plain_keys_follow_the_rule(text: str) -> None:
    holds = any(map(_is_surrogate, text))
    assert text_safe(text) == (_replaced(text) if holds else None)
    assert json_safe({text: [text]}) == ({_replaced(text): [_replaced(text)]} if holds else None)
    assert are_plain_keys({"role": "user", text: 1}) is not holds
