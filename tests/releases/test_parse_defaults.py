"""A request that sets nothing the parser reads (``defaults_only``): its parser gets the
release's default prompt facts, made once per output processor, and no citation stages,
without reading the request's facts or validating it for citations anew (a short answer's
parse in ``serve`` paid about a third of its cost there). The message, notes, spans and
deltas are those of the parser that reads the request, for any output and chunking."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from granite_formatters import get_formatter
from granite_formatters._engine.parse import ReleaseStreamParser
from granite_formatters._engine.processor import ReleaseOutputProcessor
from granite_formatters._engine.prompt_facts import defaults_only, prompt_facts

from support.granite3_output_support import comparable, cuts_for, feed_all, marker_soup
from support.releases import Release

MESSAGES = [{"role": "user", "content": "Weather in Zürich?"}]
#: What serve passes: the client's body (model, messages and generation options).
SERVED = {"model": "m", "messages": MESSAGES, "stream": False, "max_tokens": 7}
MARKERS = [
    "<think>", "</think>", "<response>", "</response>", "<tool_call>", "</tool_call>",
    "<|tool_call|>", "<|end_of_text|>", "<|start_of_cite|>", "<|end_of_cite|>",
    '{"document_id": "1"}', "<|start_of_plugin|>", "<|end_of_plugin|>", "# Citations:",
    "<function=f>", "<parameter=a>", "</parameter>", "</function>", "Document 0: ",
]  # fmt: skip
TOOLS = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]
#: Requests that set something the parser reads (or that are not plain): read anew.
NOT_DEFAULTS: list[Any] = [
    {"messages": MESSAGES, "tools": TOOLS},
    {"messages": MESSAGES, "tools": []},
    {"messages": MESSAGES, "documents": [{"text": "Zürich is in Switzerland."}]},
    {"messages": MESSAGES, "chat_template_kwargs": {"thinking": True}},
    {"messages": MESSAGES, "add_generation_prompt": False},
    {"messages": MESSAGES, "continue_final_message": False},
    {"messages": MESSAGES, "extra_body": {}},
    {"messages": MESSAGES, "reasoning_effort": "low"},
    {"messages": [{"role": "user", "content": [{"type": "text", "text": "Hi"}]}]},
    {"messages": []},
    {"messages": MESSAGES, "no_such_field": 1},
    None,
    '{"messages": []}',
]
DEFAULTS = [
    {"messages": MESSAGES},
    SERVED,
    {**SERVED, "documents": [], "chat_template_kwargs": {}, "reasoning_effort": None},
]


def _processor(release: Release) -> ReleaseOutputProcessor:
    processor = get_formatter(release.model).output_processor
    assert isinstance(processor, ReleaseOutputProcessor)
    return processor


def _reading(release: Release, request: Any, deltas: bool) -> ReleaseStreamParser:
    """The parser that reads ``request`` (no default facts given)."""
    engine = _processor(release)
    return ReleaseStreamParser(engine.release, request, deltas=deltas, table=engine._markers())


def formatter_parser(release: Release, request: Any) -> ReleaseStreamParser:
    """The stream parser a formatter gives for ``request`` (unwrapped)."""
    parser = _processor(release).stream_parser(request)
    assert isinstance(parser, ReleaseStreamParser)
    return parser


@pytest.mark.parametrize("request_", NOT_DEFAULTS)
def test_a_request_that_sets_something_is_read(request_: Any) -> None:
    assert not defaults_only(request_)


@pytest.mark.parametrize("request_", DEFAULTS)
def test_a_request_of_defaults_gets_the_default_facts_made_once(
    release: Release, request_: dict[str, Any]
) -> None:
    assert defaults_only(request_)
    processor = _processor(release)
    first = processor._facts(request_)
    assert first is not None
    assert first == prompt_facts(processor.release, request_)
    assert processor._facts(dict(request_)) is first
    assert formatter_parser(release, request_)._prompt_facts() is first
    for other in NOT_DEFAULTS[:8]:
        assert processor._facts(other) is None
        assert formatter_parser(release, other)._prompt_facts() is not first


@settings(max_examples=60, deadline=None)
@given(output=marker_soup(MARKERS), request_=st.sampled_from(DEFAULTS), data=st.data())
def test_the_parse_of_a_request_of_defaults_is_the_reading_parsers(
    release: Release, output: str, request_: dict[str, Any], data: st.DataObject
) -> None:
    formatter = get_formatter(release.model)
    reading = _reading(release, request_, False)
    reading.feed(output)
    reading.close(stop_reason="END")
    parsed = _processor(release).transform(output, request_, stop_reason="END")
    assert reading.message is not None
    assert comparable(parsed) == comparable(reading.message)
    assert parsed.notes == reading.message.notes
    cuts = data.draw(cuts_for(output))
    pieces = [output[a:b] for a, b in zip([0, *cuts], [*cuts, len(output)], strict=True)]
    streamed, message = feed_all(formatter.stream_parser(request_), pieces)
    expected, read = feed_all(_reading(release, request_, True), pieces)
    assert streamed == expected
    assert comparable(message) == comparable(read)


#: Outputs that may pass every stage unread: text without markers, with whitespace, and
#: the words and characters a release may read at the start (3.2's "Here is my thought
#: process:"), JSON and lone surrogates.
PLAIN = st.lists(
    st.one_of(
        st.text(max_size=8),
        st.sampled_from(
            [" ", "\n", "\t", "  \n", "Hello", "Here is my thought process:", "Here is my "
             "response:", "{", "[", '[{"name": "f", "arguments": {}}]', "\ud83d", "Zürich",
             "\u2028", "\xa0", "# Citations:", "Document 0: ", ">", "|"]
        ),
    ),
    max_size=12,
).map("".join)  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(output=PLAIN, request_=st.sampled_from(DEFAULTS))
def test_an_output_no_stage_reads_gives_the_parsers_message(
    release: Release, output: str, request_: dict[str, Any]
) -> None:
    """A whole output with none of the characters the stages' lanes name is content,
    trimmed: the message the parser gives (fields set included), without building one."""
    processor = _processor(release)
    reading = _reading(release, request_, False)
    reading.feed(output)
    reading.close()
    parsed = processor.transform(output, request_)
    expected = reading.message
    assert expected is not None
    assert type(parsed) is type(expected)
    assert parsed.model_dump() == expected.model_dump()
    assert parsed.model_fields_set == expected.model_fields_set


def test_the_unread_output_builds_no_parser(
    release: Release, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the release's stages read no plain text at the start (its lane), a plain
    answer is parsed without a parser: only the one that learned the lane is built."""
    from granite_formatters._engine import processor as module

    processor = ReleaseOutputProcessor(_processor(release).release)
    built: list[object] = []

    class Counted(ReleaseStreamParser):
        __slots__ = ()

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            built.append(args)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(module, "ReleaseStreamParser", Counted)
    answer = "  Zürich is mild in spring, around 15 °C.\n"
    for _ in range(3):
        assert processor.transform(answer, SERVED).raw_content == answer
    lane = processor._lane
    if lane is None:  # (a reasoning phase reads every output from its start: 4.2)
        assert release.reasoning_syntax is not None
        assert len(built) == 4
        return
    assert "<" in lane[0]
    assert len(built) == 1
    assert processor.transform(answer, SERVED).content == answer.strip()
    processor.transform("<tool_call>", SERVED)  # (a marker: the parser reads it)
    processor.transform(answer, {"messages": MESSAGES, "tools": TOOLS})  # (not defaults)
    assert len(built) == 3
