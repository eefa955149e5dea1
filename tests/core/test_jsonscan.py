"""The JSON scanner's steady case: a whole value in one text is read by the C decoder
and ends (or fails) exactly where the character scan does."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from granite_formatters import _jsonscan as jsonscan
from granite_formatters._jsonscan import JsonScanner

_STATE = ("_depth", "_in_string", "_escape", "consumed", "error")

_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=12,
)
_JSON = st.builds(
    json.dumps,
    st.dictionaries(st.text(max_size=4), _VALUES, max_size=3) | st.lists(_VALUES, max_size=3),
)
_SOUP = st.lists(
    st.sampled_from(["{", "}", "[", "]", '"', "\\", "a", " ", ":", ",", "1", "\n", '"\\u00e9"']),
    max_size=20,
).map("".join)


def by_characters(text: str, pos: int) -> tuple[int | None, list[Any]]:
    """The scan of ``text[pos:]`` one character at a time (never the steady case)."""
    scanner = JsonScanner()
    end = None
    for index in range(pos, len(text)):
        found = scanner.scan(text[index])
        if found is not None:
            end = index + found
            break
        if scanner.error is not None:
            break
    return end, [getattr(scanner, name) for name in _STATE]


@given(
    lead=st.sampled_from(["", "x ", "<tool_call>\n"]),
    value=_JSON | _SOUP.map(lambda soup: "{" + soup) | _SOUP.map(lambda soup: "[" + soup),
    tail=st.sampled_from(["", " rest", "}]", '"']),
)
@example(lead="", value="[" * 64 + "]" * 64, tail="")
@example(lead="", value="[" * 65 + "]" * 65, tail="")
@example(lead="", value='{"a": [' + "1, " * 40 + "{}]}", tail="")
@example(lead="", value='{"a": "\\u00e9\\"]}", "b": [[], {}]}', tail="]")
@example(lead="", value='{"a": NaN, "b": -Infinity}', tail="")
@example(lead="", value='{"a": "' + "x" * jsonscan.WHOLE_CHARS + '"}', tail="]")
@example(lead="", value='{"a": "\x01"}', tail="")
def test_a_whole_text_is_scanned_as_one_character_at_a_time(
    lead: str, value: str, tail: str
) -> None:
    text = lead + value + tail
    scanner = JsonScanner()
    end = scanner.scan(text, len(lead))
    assert (end, [getattr(scanner, name) for name in _STATE]) == by_characters(text, len(lead))
    if end is not None:
        assert scanner.stop == end


def test_the_size_limit_holds_for_a_whole_value(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jsonscan, "MAX_JSON_CHARS", 20)
    for text in ('{"a": "' + "b" * 11 + '"}', '{"a": "' + "b" * 12 + '"}  '):
        scanner = JsonScanner()
        end = scanner.scan(text)
        assert (end, [getattr(scanner, name) for name in _STATE]) == by_characters(text, 0)
    assert JsonScanner().scan('{"a": "' + "b" * 11 + '"}') == 20


class _NoCharacterScan:
    def search(self, *args: object) -> None:
        raise AssertionError("the character scan ran")


def test_a_valid_whole_value_is_not_scanned_character_by_character(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(jsonscan, "_STRUCTURE", _NoCharacterScan())
    monkeypatch.setattr(jsonscan, "_IN_STRING", _NoCharacterScan())
    text = 'A <tool_call>{"name": "f", "arguments": {"s": "]}\\"", "n": [1, 2]}}</tool_call>'
    scanner = JsonScanner()
    end = scanner.scan(text, 13)
    assert end is not None and text[end:] == "</tool_call>"
    assert (scanner.consumed, scanner.stop, scanner.error) == (end - 13, end, None)
