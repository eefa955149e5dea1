"""The Granite 3 output and streaming checks that are the same for every Granite 3
release, run once per release over that release's own data.

The data is in ``test_<plugin>_output.py`` (the parser, the requests, the documents, the
malformed outputs, the markers) and ``test_<plugin>_streaming.py`` (its parser, the
requests to stream for, the output strategy, the outputs holding every marker and the
leak prefixes), beside the checks that are the release's own.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from support.granite3_output_support import (
    check_consistent,
    check_every_split,
    check_spans,
    check_stream,
    comparable,
    cuts_for,
    marker_soup,
    truncations,
)
from support.per_release import not_installed
from support.releases import Release, with_feature

APPLIES_TO = "citations"


def _data(release: Release, topic: str) -> ModuleType:
    """The release's ``test_<plugin>_<topic>`` module (imports its plugin)."""
    return importlib.import_module(f"{__package__}.test_{release.plugin}_{topic}")


def _per_release(topic: str, table: str) -> list[Any]:
    """``(release, item)`` for each item of each installed release's ``table``."""
    params: list[Any] = []
    for release in with_feature(APPLIES_TO):
        if not release.installed:
            skip = pytest.mark.skip(reason=not_installed(release))
            params.append(pytest.param(release, None, id=release.version, marks=skip))
            continue
        items = getattr(_data(release, topic), table)
        params += [
            pytest.param(release, item, id=f"{release.version}-{i}") for i, item in enumerate(items)
        ]
    return params


@pytest.mark.parametrize(("release", "case"), _per_release("output", "MALFORMED"))
def test_malformed_outputs(release: Release, case: tuple[str, str, int, list[str]]) -> None:
    data = _data(release, "output")
    output, content, count, notes = case
    message = data.PARSER.transform(output, data.RAG)
    assert message.content == content
    assert len(message.citations) == count
    assert message.notes == notes
    check_consistent(message, output)
    check_spans(message, data.DOCS)


@given(st.data())
def test_fuzz_never_raises_and_stays_consistent(release: Release, draws: st.DataObject) -> None:
    data = _data(release, "output")
    output = draws.draw(st.one_of(st.text(max_size=200), marker_soup(data.OUTPUT_MARKERS)))
    request = draws.draw(
        st.sampled_from([None, data.RAG, data.THINKING, data.TOOLS, data.NOT_THINKING])
    )
    message = data.PARSER.transform(output, request)
    check_consistent(message, output)
    check_spans(message, data.DOCS if request is data.RAG else ())
    assert comparable(message) == comparable(data.PARSER.transform(output, request))


@given(st.data())
def test_realistic_outputs_any_chunking(release: Release, draws: st.DataObject) -> None:
    data = _data(release, "streaming")
    request = draws.draw(st.sampled_from(data.REQUESTS))
    text = draws.draw(data.outputs().flatmap(truncations))
    check_stream(data.PARSER, text, request, draws.draw(cuts_for(text)))


@given(st.data())
def test_random_outputs_any_chunking(release: Release, draws: st.DataObject) -> None:
    data = _data(release, "streaming")
    markers = _data(release, "output").OUTPUT_MARKERS
    request = draws.draw(st.sampled_from(data.REQUESTS))
    text = draws.draw(st.one_of(st.text(max_size=120), marker_soup(markers)))
    check_stream(data.PARSER, text, request, draws.draw(cuts_for(text)))


@given(st.data())
def test_one_character_at_a_time(release: Release, draws: st.DataObject) -> None:
    data = _data(release, "streaming")
    text = draws.draw(data.outputs())
    check_stream(data.PARSER, text, _data(release, "output").RAG, range(len(text)))


@pytest.mark.parametrize(("release", "text"), _per_release("streaming", "EVERY_MARKER"))
def test_no_delta_holds_a_partial_marker_at_any_split_point(release: Release, text: str) -> None:
    data, requests = _data(release, "streaming"), _data(release, "output")
    request = {
        **requests.RAG,
        "tools": requests.TOOLS["tools"],
        "chat_template_kwargs": {"thinking": True},
    }
    check_every_split(data.PARSER, text, request, data.LEAKS)


@pytest.mark.parametrize(
    "text",
    [
        "a <|tool_call|> x b\ud800c",
        "</think> a <tool_call> y \udfff and \ud83d",
        '<think>\ud800</think> <|tool_call|>[{"name": "f", "arguments": {"u": "\\ud83c"}}]',
    ],
)
def test_stream_equals_batch_when_lone_surrogates_are_replaced(release: Release, text: str) -> None:
    # The surrogate note used to be recorded when its chunk arrived: after the notes of
    # earlier chunks in a stream, before them in the batch parse.
    data = _data(release, "streaming")
    request = _data(release, "output").TOOLS
    message = data.PARSER.transform(text, request)
    assert message.notes[0] == (
        "replaced lone surrogates (not encodable as UTF-8) in the output with U+FFFD"
    )
    check_stream(data.PARSER, text, request, range(len(text)))


@pytest.mark.parametrize("request_kind", ["none", "no thinking key", "thinking"])
def test_an_unclosed_thought_is_reasoning_with_a_note(release: Release, request_kind: str) -> None:
    # The policy (docs/output-formats.md, "Reasoning"): text after a start marker with no
    # end marker is reasoning_content (the output was cut off inside the thought, as
    # Granite 4.2 treats it), and a note says the end marker is missing. A request
    # without a "thinking" key parses the markers as thinking=True does.
    data = _data(release, "output")
    form = data.PARSER.output_format
    start, end = form.thought_starts[0], form.thought_ends[0]
    request = {
        "none": None,
        "no thinking key": {"messages": [{"role": "user", "content": "Hi"}]},
        "thinking": data.THINKING,
    }[request_kind]
    note = (
        f"the reasoning has no end marker ({end!r}): the output ended inside it; the text "
        "after the start marker is kept as reasoning"
    )
    for text, content, reasoning, notes in [
        (f"{start} Let me think.\nStill thinking", "", "Let me think.\nStill thinking", [note]),
        (f"Lead. {start} cut", "Lead.", "cut", [note]),
        (f"{start}", "", "", [note]),
        (f"{start} Done. {end} Answer.", "Answer.", "Done.", []),
    ]:
        message = data.PARSER.transform(text, request)
        assert (message.content, message.reasoning_content, message.notes) == (
            content,
            reasoning,
            notes,
        ), text
        check_stream(data.PARSER, text, request, range(len(text)))


def test_with_thinking_off_the_markers_are_content(release: Release) -> None:
    data = _data(release, "output")
    start = data.PARSER.output_format.thought_starts[0]
    request = {
        "messages": [{"role": "user", "content": "Hi"}],
        "chat_template_kwargs": {"thinking": False},
    }
    message = data.PARSER.transform(f"{start} cut", request)
    assert (message.content, message.reasoning_content, message.notes) == (f"{start} cut", None, [])
