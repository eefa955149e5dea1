"""Property tests of the request-body decoder and of the log-line escaping."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from granite_formatters._errors import FIELD_LIMIT, InvalidRequestError
from granite_formatters._serve.accesslog import loggable
from granite_formatters._serve.jsonbody import MAX_DEPTH, load_body

# Valid Unicode text: every code point but the surrogates.
TEXT = st.text(st.characters(exclude_categories=["Cs"]), max_size=20)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | TEXT
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=30,
)
# A step into a value: a key of an object or an index of an array.
STEPS = st.lists(
    st.one_of(st.integers(0, 2), st.from_regex(r"[a-z_]{1,8}", fullmatch=True)), max_size=6
)


def embed(value: Any, steps: list[int | str]) -> tuple[Any, str | None]:
    """``value`` placed at ``steps`` inside fresh arrays and objects, and its field path."""
    path = ""
    for step in reversed(steps):
        value = [None] * step + [value] if isinstance(step, int) else {step: value}
    for step in steps:
        path += f"[{step}]" if isinstance(step, int) else (f".{step}" if path else step)
    return value, path or None


@given(VALUES)
def test_valid_bodies_decode_as_json_does(value: Any) -> None:
    for ensure_ascii in (True, False):
        assert load_body(json.dumps(value, ensure_ascii=ensure_ascii).encode()) == value


@given(
    st.from_regex(r"-?(0|[1-9][0-9]{0,119})(\.[0-9]{1,120})?([eE][+-]?[0-9]{1,4})?", fullmatch=True)
)
def test_a_number_is_refused_exactly_when_it_is_not_a_finite_float(literal: str) -> None:
    """Whether the walk is skipped or not, a number is refused exactly when Python reads
    it as an infinite float (the text screen before the walk misses none)."""
    value = json.loads(literal)
    body = f'{{"model":"m","temperature":{literal}}}'.encode()
    if isinstance(value, float) and not math.isfinite(value):
        with pytest.raises(InvalidRequestError) as info:
            load_body(body)
        assert info.value.field == "temperature"
    else:
        assert load_body(body) == {"model": "m", "temperature": value}


def test_a_body_that_cannot_fail_the_walk_is_not_walked(monkeypatch: pytest.MonkeyPatch) -> None:
    """The walk runs only for a body that may fail it: a non-finite number (a constant, or
    a float out of range), a surrogate's escape, or as many brackets as MAX_DEPTH; words
    and digits that only look like those inside strings, or finite floats, skip it."""
    from granite_formatters._serve import jsonbody

    walked: list[object] = []
    monkeypatch.setattr(jsonbody, "_check", walked.append)
    plain = {"model": "m", "messages": [{"role": "user", "content": "Zürich 😀"}], "top_p": 0.5}
    load_body(json.dumps(plain, ensure_ascii=False).encode())
    load_body(json.dumps({"content": "Zürich", "top_p": 0.5}).encode())  # (as \u00fc)
    for harmless in ("Infinity", "NaN", "1e999", "9" * 400):
        load_body(b'{"content":"' + harmless.encode() + b'","x":1e300,"n":' + b"9" * 400 + b"}")
    assert walked == []
    for risky in ("Infinity", "-Infinity", "NaN", "1e999", "-1e400", "1" * 400 + ".0"):
        load_body(b'{"x":[1.5,' + risky.encode() + b"]}")
    load_body(b'{"content":"\\ud83d\\ude00"}')
    load_body(json.dumps({"a": [[[1]]] * MAX_DEPTH}).encode())
    assert len(walked) == 8


@given(
    STEPS,
    st.sampled_from(
        [("\ud800", "\\ud800"), ("a\udfff", "\\udfff"), ("\udbff\udbff", "\\udbff"),
         ("é \udc00\ud800", "\\udc00"), ("\U0001f600 \udfff", "\\udfff")]
    ),
)  # fmt: skip
def test_a_lone_surrogate_anywhere_is_named(steps: list[int | str], bad: tuple[str, str]) -> None:
    """The field is named, and the message quotes the text's first surrogate as an escape."""
    body, field = embed(bad[0], steps)
    with pytest.raises(InvalidRequestError, match="lone surrogate") as info:
        load_body(json.dumps(body).encode())
    assert info.value.field == field
    assert f"lone surrogate escape ({bad[1]})" in str(info.value)


@given(STEPS, st.sampled_from(["1e999", "-1e400", "Infinity", "-Infinity", "NaN"]))
def test_a_non_finite_number_anywhere_is_named(steps: list[int | str], literal: str) -> None:
    body, field = embed("PLACE", steps)
    text = json.dumps(body).replace('"PLACE"', literal)
    with pytest.raises(InvalidRequestError, match="finite number") as info:
        load_body(text.encode())
    assert info.value.field == field


@given(st.integers(1, 3 * MAX_DEPTH), st.booleans())
def test_depth_is_bounded_and_named(depth: int, objects: bool) -> None:
    opened, closed = ('{"k":' * depth, "}" * depth) if objects else ("[" * depth, "]" * depth)
    text = opened + "1" + closed
    if depth <= MAX_DEPTH:
        assert load_body(text.encode()) is not None
        return
    with pytest.raises(InvalidRequestError, match=f"more than {MAX_DEPTH} levels") as info:
        load_body(text.encode())
    step = ".k" if objects else "[0]"
    field = info.value.field
    assert field is not None
    # The path of the object one level too deep (cut, as every field, at FIELD_LIMIT).
    assert field.partition("...")[0] == (step * MAX_DEPTH).removeprefix(".")[:FIELD_LIMIT]


def test_huge_depth_is_a_400_not_a_recursion_error() -> None:
    with pytest.raises(InvalidRequestError, match="nested more than"):
        load_body(b"[" * 200_000 + b"]" * 200_000)


@given(st.text(max_size=300), st.integers(1, 100))
def test_loggable_text_is_one_safe_bounded_line(value: str, limit: int) -> None:
    text = loggable(value, limit)
    assert not any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F or c in "\u2028\u2029" for c in text)
    assert not any(0xD800 <= ord(c) <= 0xDFFF for c in text)
    text.encode("utf-8")  # writable by any UTF-8 log stream
    assert len(text) <= 6 * limit + 30
    if value.isprintable() and "\\" not in value and len(value) <= limit:
        assert text == value


def test_isfinite_is_the_rule() -> None:
    assert load_body(b'{"x": 1.7976931348623157e308}') == {"x": 1.7976931348623157e308}
    assert not math.isfinite(float("1e999"))
