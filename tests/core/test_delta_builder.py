"""The one-piece deltas of a stream (``content_delta``, ``reasoning_delta``) are built
through a slot twin of :class:`Delta` (see ``streaming._DeltaBuilder``): each must be an
ordinary, frozen ``Delta``, equal to the constructor's in every respect."""

from __future__ import annotations

import pickle

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from granite_formatters.streaming import Delta, content_delta, reasoning_delta


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
