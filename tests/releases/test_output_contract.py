"""The output contract every release shares: ``close(finish_reason, *, stop_reason)``,
``raw_content`` always the text received, ``close``'s arguments checked by the formatter's
stream with one wording (and before the stream is closed)."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from granite_formatters import AssistantMessage, Formatter, get_formatter
from granite_formatters._errors import InvalidRequestError
from granite_formatters._processors import OutputProcessor
from granite_formatters._streaming import Delta, StreamParser

from support.releases import Release
from support.toy_plugins import EchoInput

OUTPUTS = ["", "  Hello there.  ", "Hello", '<|tool_call|>[{"name": "f", "arguments": {}}]']


def _formatter(release: Release) -> Formatter[AssistantMessage]:
    return get_formatter(release.model)


@pytest.mark.parametrize("output", OUTPUTS)
def test_stop_reason_reaches_the_message_in_batch_and_stream(release: Release, output: str) -> None:
    formatter = _formatter(release)
    processor: Any = formatter.output_processor
    assert processor.transform(output).stop_reason is None
    assert processor.transform(output, stop_reason="</s>").stop_reason == "</s>"
    parser = formatter.stream_parser()
    parser.feed(output)
    deltas = parser.close("length", stop_reason="<|end_of_text|>")
    assert deltas[-1].finish_reason == "length"
    assert parser.message is not None
    assert parser.message.stop_reason == "<|end_of_text|>"
    batch = formatter.parse(output)  # (the same text; tool-call ids are new per parse)
    assert (parser.message.content, parser.message.raw_content, len(parser.message.tool_calls)) == (
        batch.content,
        batch.raw_content,
        len(batch.tool_calls),
    )


@given(output=st.text(max_size=40), cut=st.integers(min_value=0, max_value=40))
@settings(max_examples=40, deadline=None)
def test_raw_content_is_always_the_text(release: Release, output: str, cut: int) -> None:
    formatter = _formatter(release)
    assert formatter.parse(output).raw_content == output.encode("utf-8", "replace").decode()
    parser = formatter.stream_parser()
    parser.feed(output[:cut])
    parser.feed(output[cut:])
    parser.close()
    assert parser.message is not None
    assert parser.message.raw_content == formatter.parse(output).raw_content


@pytest.mark.parametrize(
    ("arguments", "field", "shown"),
    [
        ({"finish_reason": 3}, "finish_reason", "3"),
        ({"finish_reason": ""}, "finish_reason", "''"),
        ({"stop_reason": 128001}, "stop_reason", "128001"),
        ({"finish_reason": "stop", "stop_reason": b"</s>"}, "stop_reason", "b'</s>'"),
    ],
)
@pytest.mark.parametrize("direct", [False, True], ids=["formatter", "processor"])
def test_bad_close_arguments_are_refused_before_the_stream_closes(
    release: Release, arguments: dict[str, Any], field: str, shown: str, direct: bool
) -> None:
    formatter = _formatter(release)
    parser = formatter.output_processor.stream_parser() if direct else formatter.stream_parser()
    deltas = parser.feed("Hello")
    with pytest.raises(InvalidRequestError) as raised:
        parser.close(**arguments)
    assert raised.value.field == field
    assert str(raised.value) == f"{field}: must be a non-empty string or None, not {shown}"
    assert parser.message is None
    deltas += parser.close()
    assert deltas[-1].finish_reason == "stop"
    batch = _formatter(release).parse("Hello")
    message: AssistantMessage | None = parser.message
    assert message is not None
    assert (message.content, message.reasoning_content) == (
        batch.content,
        batch.reasoning_content,
    )
    assert "".join((d.reasoning_content or "") + (d.content or "") for d in deltas) == "Hello"


def test_a_bad_stop_reason_is_refused_by_the_batch_parse_too(release: Release) -> None:
    processor: Any = _formatter(release).output_processor
    with pytest.raises(InvalidRequestError) as raised:
        processor.transform("Hello", stop_reason=3)
    assert str(raised.value) == "stop_reason: must be a non-empty string or None, not 3"


class _FirstContractParser(StreamParser):
    """A stream parser written before ``stop_reason``: ``close(finish_reason)`` only."""

    def __init__(self) -> None:
        self._text: list[str] = []
        self._message: AssistantMessage | None = None

    def feed(self, chunk: str) -> list[Delta]:
        self._text.append(chunk)
        return []

    def close(self, finish_reason: str | None = None) -> list[Delta]:  # type: ignore[override]
        self._message = AssistantMessage(content="".join(self._text))
        return [Delta(content=self._message.content, finish_reason=finish_reason or "stop")]

    @property
    def message(self) -> AssistantMessage | None:
        return self._message


class _FirstContractOutput(OutputProcessor):
    def transform(self, model_output: str, chat_completion: Any = None) -> AssistantMessage:
        return AssistantMessage(content=model_output)

    def stream_parser(self, chat_completion: Any = None) -> StreamParser:
        return _FirstContractParser()


def test_a_parser_without_stop_reason_gets_it_on_its_message() -> None:
    parser = Formatter("m", EchoInput(), _FirstContractOutput()).stream_parser()
    parser.feed("ab")
    assert parser.close("length", stop_reason="</s>") == [
        Delta(content="ab", finish_reason="length")
    ]
    assert parser.message == AssistantMessage(content="ab", stop_reason="</s>")
    plain = Formatter("m", EchoInput(), _FirstContractOutput()).stream_parser()
    plain.feed("ab")
    plain.close()
    assert plain.message == AssistantMessage(content="ab")


@given(cuts=st.lists(st.integers(min_value=0), max_size=4))
def test_lone_surrogates_are_replaced_and_noted_first(release: Release, cuts: list[int]) -> None:
    # Every message serialises: one rule for every release (the 3.x parser's).
    output = "Hi \ud83d there </tool_call> \udc00."
    formatter = _formatter(release)
    parser = formatter.stream_parser()
    bounds = [0, *sorted(c % (len(output) + 1) for c in cuts), len(output)]
    for begin, end in itertools.pairwise(bounds):
        parser.feed(output[begin:end])
    parser.close()
    message = parser.message
    assert message is not None
    assert message.raw_content == "Hi \ufffd there </tool_call> \ufffd."
    assert message.notes[0] == (
        "replaced lone surrogates (not encodable as UTF-8) in the output with U+FFFD"
    )
    assert message.model_dump_json()
    assert formatter.parse(output).notes == message.notes
