"""The one-piece deltas of a stream (``content_delta``, ``reasoning_delta``) are built
through a slot twin of :class:`Delta` (see ``streaming._DeltaBuilder``): each must be an
ordinary, frozen ``Delta``, equal to the constructor's in every respect."""

from __future__ import annotations

import pickle

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from granite_formatters._streaming import Delta, content_delta, reasoning_delta


@given(st.text(max_size=20), st.booleans())
def test_a_built_delta_is_the_constructors(text: str, reasoning: bool) -> None:
    built = reasoning_delta(text) if reasoning else content_delta(text)
    made = Delta(reasoning_content=text) if reasoning else Delta(content=text)
    assert type(built) is Delta
    assert built == made and hash(built) == hash(made) and repr(built) == repr(made)
    assert attrs.asdict(built) == attrs.asdict(made)
    assert built.to_openai_choice() == made.to_openai_choice()
    assert pickle.loads(pickle.dumps(built)) == made
    assert attrs.evolve(built, role="assistant") == attrs.evolve(made, role="assistant")


def test_a_built_delta_is_frozen() -> None:
    built = content_delta("x")
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        built.content = "y"  # type: ignore[misc]
    assert built.content == "x"


def test_token_sized_deltas_are_shared_and_long_ones_are_not() -> None:
    # A frozen Delta is a value, so equal token-sized deltas may be one instance.
    assert content_delta(" the") is content_delta(" the")
    assert reasoning_delta(" the") is reasoning_delta(" the")
    assert content_delta(" the") is not reasoning_delta(" the")
    assert content_delta(" the") == Delta(content=" the")
    assert reasoning_delta(" the") == Delta(reasoning_content=" the")
    long_text = "a sentence longer than any token"
    assert content_delta(long_text) is not content_delta(long_text)
    assert content_delta(long_text) == Delta(content=long_text)


def test_the_shared_deltas_stay_bounded() -> None:
    from granite_formatters import _streaming as streaming

    for number in range(3 * streaming._SHARED_KEPT):
        text = f"t{number}"
        assert content_delta(text).content == text
        assert reasoning_delta(text).reasoning_content == text
    assert 0 < len(streaming._content_deltas) <= streaming._SHARED_KEPT
    assert 0 < len(streaming._reasoning_deltas) <= streaming._SHARED_KEPT
