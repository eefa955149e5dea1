"""The stream's chunk events, written from a per-stream template, are byte for byte the JSON
of the whole chunk object (what the server sent before the template)."""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from granite_formatters._serve.responses import ChunkMaker, sse_event

SPECIAL = st.sampled_from(["\ud800", "\udfff", '"', "\\", "\n", "\x00", "\u2028", "é", "😀"])
TEXT = st.text(st.one_of(st.characters(), SPECIAL), max_size=12)
DELTA = st.dictionaries(
    st.sampled_from(["role", "content", "reasoning_content", "reasoning", "citations"]),
    st.one_of(st.none(), TEXT, st.lists(st.dictionaries(TEXT, TEXT, max_size=2), max_size=2)),
    max_size=4,
)
LOGPROBS = st.one_of(
    st.none(),
    st.lists(
        st.fixed_dictionaries(
            {"token": TEXT, "logprob": st.floats(-50, 0), "bytes": st.lists(st.integers(0, 255))}
        ),
        max_size=3,
    ),
)
CALL = st.tuples(
    DELTA, st.one_of(st.none(), st.sampled_from(["stop", "length", "tool_calls"])), LOGPROBS
)


@given(model=TEXT, calls=st.lists(CALL, min_size=1, max_size=5))
def test_chunk_events_are_the_json_of_the_chunk(model: str, calls: list[Any]) -> None:
    maker = ChunkMaker(model)
    reference = copy.deepcopy(maker)
    for delta, finish, logprobs in calls:
        got = maker.event(copy.deepcopy(delta), finish, logprobs)
        assert got == sse_event(reference.chunk(copy.deepcopy(delta), finish, logprobs))


def test_chunk_event_exact_bytes() -> None:
    maker = ChunkMaker('gr"anite\ud800 Zürich')
    head = (
        f'data: {{"id":"{maker.id}","object":"chat.completion.chunk","created":{maker.created},'
        '"model":"gr\\"anite? Zürich","choices":[{"index":0,"delta":'
    ).encode()
    first = maker.event({"content": "é\ud800"})
    assert (
        first
        == head
        + '{"role":"assistant","content":"é?"},"finish_reason":null,"logprobs":null}]}\n\n'.encode()
    )
    last = maker.event({"role": "assistant", "reasoning_content": "r"}, "stop", [])
    assert last == head + (
        b'{"reasoning_content":"r","reasoning":"r"},"finish_reason":"stop",'
        b'"logprobs":{"content":[]}}]}\n\n'
    )
    assert json.loads(last[len("data: ") :])["choices"][0]["finish_reason"] == "stop"
