"""Formatter: precise message types, apply_chat_template, pickling."""

from __future__ import annotations

import datetime
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any, ClassVar

import pytest

import granite_formatters
from granite_formatters._plugins import PluginHost
from granite_formatters._processors import (
    Formatter,
    InputProcessor,
    OutputProcessor,
    RequestLike,
    declared_message_type,
)
from granite_formatters._types import AssistantMessage

from support.toy_plugins import EchoInput, EchoOutput, toy_plugin

MESSAGES = [{"role": "user", "content": "Hi"}]


class NotedMessage(AssistantMessage):
    note: str = ""


class DeclaredOutput(OutputProcessor):
    message_type: ClassVar[type[AssistantMessage]] = NotedMessage

    def transform(
        self, model_output: str, chat_completion: RequestLike | None = None
    ) -> AssistantMessage:
        return NotedMessage(content=model_output, note="declared")


class AnnotatedOutput(OutputProcessor):
    def transform(
        self, model_output: str, chat_completion: RequestLike | None = None
    ) -> NotedMessage:
        return NotedMessage(content=model_output, note="annotated")


class RecordingInput(InputProcessor):
    """Returns what it was called with, as text."""

    def transform(
        self,
        chat_completion: RequestLike,
        add_generation_prompt: bool = True,
        *,
        today: datetime.date | None = None,
        special_tokens: str | None = None,
        strict: bool = True,
    ) -> str:
        return repr((chat_completion, add_generation_prompt, today, special_tokens, strict))


# -- message types -------------------------------------------------------------------------


def test_output_processors_declare_assistant_message_by_default() -> None:
    assert OutputProcessor.message_type is AssistantMessage
    assert declared_message_type(EchoOutput) is AssistantMessage
    assert declared_message_type(DeclaredOutput()) is NotedMessage
    assert declared_message_type(AnnotatedOutput) is NotedMessage


@pytest.mark.parametrize("output", [DeclaredOutput, AnnotatedOutput])
def test_get_formatter_with_a_message_type(
    default_host: PluginHost, output: type[OutputProcessor]
) -> None:
    default_host.register_plugin(
        toy_plugin({"model_id": "typed", "output_processor": output}), name="t"
    )
    formatter = granite_formatters.get_formatter("typed", NotedMessage)
    assert formatter is granite_formatters.get_formatter("typed")
    message = formatter.parse("text")
    assert isinstance(message, NotedMessage) and message.note
    assert granite_formatters.get_formatter("typed", AssistantMessage) is formatter


def test_a_message_type_the_processor_does_not_declare_is_a_type_error(
    default_host: PluginHost,
) -> None:
    default_host.register_plugin(toy_plugin({"model_id": "plain"}), name="t")
    with pytest.raises(TypeError, match="plain parses into AssistantMessage, which is not a Noted"):
        granite_formatters.get_formatter("plain", NotedMessage)
    with pytest.raises(TypeError, match="must be an AssistantMessage subclass, got <class 'int'>"):
        granite_formatters.get_formatter("plain", int)  # type: ignore[type-var]


def test_the_stream_parser_gives_the_typed_message() -> None:
    formatter = Formatter("m", EchoInput(), AnnotatedOutput()).expecting(NotedMessage)
    parser = formatter.stream_parser()
    parser.feed("ab")
    parser.close()
    assert parser.message is not None and parser.message.note == "annotated"


def test_bundled_granite3_formatters_parse_into_granite3_messages() -> None:
    pytest.importorskip("granite_formatters_granite33")
    from granite_formatters.granite3 import Granite3AssistantMessage

    formatter = granite_formatters.get_formatter(
        "granite-3.3-8b-instruct", Granite3AssistantMessage
    )
    assert formatter.parse("Hello").citations == []


README_TYPES = """
from granite_formatters import get_formatter
from granite_formatters.granite3 import Citation, Granite3AssistantMessage

formatter = get_formatter("granite-3.3-8b-instruct", Granite3AssistantMessage)
citations: list[Citation] = formatter.parse("raw").citations
parser = formatter.stream_parser()
parser.feed("raw")
parser.close()
if parser.message is not None:
    more: list[Citation] = parser.message.citations
plain = get_formatter("granite-3.3-8b-instruct").parse("raw")
plain.citations
"""


def test_the_typed_lookup_passes_mypy_strict(tmp_path: Path) -> None:
    pytest.importorskip("mypy")
    source = tmp_path / "example.py"
    source.write_text(textwrap.dedent(README_TYPES), encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", source.name],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
    )
    # Exactly one error: the untyped lookup's message has no citations.
    errors = [line for line in proc.stdout.splitlines() if ": error:" in line]
    assert len(errors) == 1, proc.stdout
    assert errors[0].startswith("example.py:13: error: ") and "citations" in errors[0]


# -- apply_chat_template -----------------------------------------------------------------


def test_apply_chat_template_builds_the_request() -> None:
    formatter = Formatter("m", RecordingInput(), EchoOutput())
    tools = [{"type": "function", "function": {"name": "f"}}]
    documents = [{"text": "d"}]
    rendered = formatter.apply_chat_template(
        MESSAGES, tools, documents, thinking=True, controls={"length": "short"}
    )
    request: dict[str, Any] = {
        "messages": MESSAGES,
        "tools": tools,
        "documents": documents,
        "chat_template_kwargs": {"thinking": True, "controls": {"length": "short"}},
    }
    assert rendered == repr((request, False, None, None, True))


def test_apply_chat_template_passes_the_options_on() -> None:
    formatter = Formatter("m", RecordingInput(), EchoOutput())
    day = datetime.date(2025, 4, 16)
    rendered = formatter.apply_chat_template(
        iter(MESSAGES),
        add_generation_prompt=True,
        today=day,
        special_tokens="strip",
        strict=False,
    )
    assert rendered == repr(({"messages": MESSAGES}, True, day, "strip", False))


def test_apply_chat_template_equals_format_for_a_bundled_model() -> None:
    pytest.importorskip("granite_formatters_granite33")
    formatter = granite_formatters.get_formatter("granite-3.3-8b-instruct")
    day = datetime.date(2025, 4, 16)
    documents = [{"doc_id": 1, "title": "T", "text": "Paris is in France."}]
    assert formatter.apply_chat_template(
        MESSAGES, documents=documents, add_generation_prompt=True, today=day, controls={}
    ) == formatter.format(
        {"messages": MESSAGES, "documents": documents, "chat_template_kwargs": {"controls": {}}},
        today=day,
    )
    assert formatter.apply_chat_template(MESSAGES, today=day) == formatter.format(
        {"messages": MESSAGES}, today=day, add_generation_prompt=False
    )


# -- pickling ----------------------------------------------------------------------------


def test_a_formatter_pickles_to_an_equal_working_formatter() -> None:
    formatter = Formatter("m", EchoInput("p"), DeclaredOutput, None)
    for touched in (False, True):
        if touched:
            assert formatter.parse("x").content == "x"
        copy = pickle.loads(pickle.dumps(formatter))
        assert copy == formatter and hash(copy) == hash(formatter)
        assert copy.format({"messages": MESSAGES}) == "[p]"
        assert copy.parse("x") == formatter.parse("x")
    assert Formatter("other", EchoInput("p"), DeclaredOutput) != formatter


def test_a_registry_formatter_pickles(host: PluginHost) -> None:
    host.register_plugin(toy_plugin({"model_id": "m"}), name="t")
    formatter = host.registry().get_formatter("m")
    copy = pickle.loads(pickle.dumps(formatter))
    assert copy == formatter and copy.plugin == formatter.plugin
    assert copy.parse("x").content == "X"


@pytest.mark.parametrize(
    ("plugin", "name"),
    [
        ("granite_formatters_granite33", "granite-3.3-8b-instruct"),
        ("granite_formatters_granite32", "granite-3.2-8b-instruct"),
    ],
)
def test_a_bundled_formatter_pickles(plugin: str, name: str) -> None:
    pytest.importorskip(plugin)
    formatter = granite_formatters.get_formatter(name)
    fresh = pickle.loads(pickle.dumps(formatter))  # output processor not created yet
    request = {"messages": MESSAGES}
    day = datetime.date(2025, 4, 16)
    assert fresh == formatter
    assert fresh.format(request, today=day) == formatter.format(request, today=day)
    assert fresh.parse("Hello.") == formatter.parse("Hello.")
    again = pickle.loads(pickle.dumps(formatter))  # output processor created
    assert again.parse("Hello.") == formatter.parse("Hello.")
