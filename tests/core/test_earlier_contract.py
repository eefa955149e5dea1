"""A syntax written against the earlier syntax contract (only the members it required; the
members it called optional absent or given by their old names) keeps working: adapted once
when the release is built, it parses as it did (notes worded as then); a syntax lacking a
member that was always required is refused when the release is built, naming the member."""

from __future__ import annotations

import itertools
import json
import pickle
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from granite_formatters import hookimpl, plugin_errors, register_plugin
from granite_formatters._jsonscan import JsonScanner
from granite_formatters._plugins import PluginHost
from granite_formatters.errors import PluginLoadError, PluginWarning
from granite_formatters.syntax import HistoryCall, HistoryWriter
from granite_formatters.syntax._json_blocks import decode_json_block
from granite_formatters.types import AssistantMessage, ToolCall

from support.toy_release import toy_release


class OldReader:
    """A block reader as the earlier contract asked: ``error``, ``stop``, ``scan``,
    ``take`` (no ``closed``, no ``holds``); it refuses a ``!`` in a body."""

    def __init__(self) -> None:
        self._json = JsonScanner()
        self.error: str | None = None
        self.stop = 0

    def scan(self, text: str, pos: int) -> int | None:
        bang = text.find("!", pos)
        if bang >= 0:
            self.error, self.stop = "with a bang", bang
            return None
        end = self._json.scan(text, pos)
        self.error, self.stop = self._json.error, self._json.stop
        return end

    def take(self, chunk: str) -> bool:
        return "!" not in chunk and self._json.take(chunk)


@attrs.frozen
class OldCalls:
    """A tool-call syntax with only the members the earlier contract required."""

    open: str = "<call>"
    close: str = "</call>"

    def body_start(self, char: str) -> str | None:
        return None if char == "{" else "is not followed by a JSON object"

    def reader(self) -> OldReader:
        return OldReader()

    def decode(
        self,
        body: str,
        first_index: int,
        notes: list[str],
        new_id: Callable[[], str],
        tools: Sequence[Mapping[str, Any]] | None,
    ) -> list[ToolCall] | str:
        return decode_json_block(body, first_index, notes, new_id)

    def write(self, text: str, calls: Iterable[HistoryCall], writer: HistoryWriter) -> str:
        return text + "".join(f"<call>{json.dumps(call.name)}</call>" for call in calls)


@attrs.frozen
class OldCallsWithOptions(OldCalls):
    """The same, with the members the earlier contract read with defaults, by their old
    names: ``reader_error``, ``body_name``, ``bare_body`` (``decode`` then takes
    ``bare=``) and ``prepare_tools``."""

    reader_error: str = "has a body that {}"
    body_name: str = "its object"
    bare_body: str = "{"

    def prepare_tools(self, tools: Sequence[Mapping[str, Any]] | None) -> list[str]:
        return [tool["function"]["name"] for tool in tools or ()]

    def decode(  # type: ignore[override]
        self,
        body: str,
        first_index: int,
        notes: list[str],
        new_id: Callable[[], str],
        tools: list[str],
        bare: bool = False,
    ) -> list[ToolCall] | str:
        calls = decode_json_block(body, first_index, notes, new_id)
        if isinstance(calls, list) and bare:
            notes.append(f"bare, tools {tools}")
        return calls


@attrs.frozen
class OldThink:
    """A reasoning syntax with only the members the earlier contract required (no
    ``anywhere``: reasoning only at the start, opened by the prompt)."""

    open: str = "<think>"
    close: str = "</think>"
    after_close: str = "\n"

    def generation_prompt(self, options: Mapping[str, Any]) -> str:
        return "<think>\n"

    def last_user_suffix(self, options: Mapping[str, Any]) -> str:
        return ""

    def history(
        self,
        content: str,
        reasoning: str | None,
        *,
        historical: bool,
        tool_calls: bool,
        options: Mapping[str, Any],
    ) -> str:
        return content

    def starts_inside(self, options: Mapping[str, Any]) -> bool:
        return True

    def removed_when_off(self, options: Mapping[str, Any]) -> str:
        return ""


@attrs.frozen
class OldAnywhere(OldThink):
    """A reasoning syntax with ``anywhere`` true and what the earlier contract asked of
    one: every marker, ``response_tags``, ``drop_stray_ends``, ``reads``."""

    anywhere: bool = True
    starts: tuple[str, ...] = ("<think>", "<thought>")
    ends: tuple[str, ...] = ("</think>", "</thought>")
    response_tags: tuple[str, ...] = ("<answer>", "</answer>")
    drop_stray_ends: bool = True

    def generation_prompt(self, options: Mapping[str, Any]) -> str:
        return ""

    def starts_inside(self, options: Mapping[str, Any]) -> bool:
        return False

    def reads(self, given: Mapping[str, Any]) -> bool:
        return bool(given.get("thinking", True))


CALLS = toy_release("Old calls", tool_calls=OldCalls()).output_processor()
OPTIONS = toy_release("Old options", tool_calls=OldCallsWithOptions()).output_processor()
THINK = toy_release("Old think", tool_calls=OldCalls(), reasoning=OldThink()).output_processor()
ANYWHERE = toy_release(
    "Old anywhere", tool_calls=OldCalls(), reasoning=OldAnywhere()
).output_processor()
TOOLS = {
    "messages": [{"role": "user", "content": "q"}],
    "tools": [{"type": "function", "function": {"name": "f", "parameters": {}}}],
}


def _seen(message: AssistantMessage) -> tuple[Any, ...]:
    calls = [(call.name, call.arguments) for call in message.tool_calls]
    return message.reasoning_content, message.content, calls, message.notes


# The expected values are what main's parser (before the protocol members were required)
# gives for the same syntaxes and texts.
@pytest.mark.parametrize(
    ("text", "seen"),
    [
        (
            'Hi <call>{"name": "f", "arguments": {"a": 1}}</call>',
            (None, "Hi", [("f", {"a": 1})], []),
        ),
        (
            'Hi <call>{"name": }</call>',
            (
                None,
                'Hi <call>{"name": }</call>',
                [],
                [
                    "the <call> block at offset 3 is not a tool call: its JSON is invalid "
                    "(Expecting value: line 1 column 10 (char 9)); kept as content"
                ],
            ),
        ),
        (
            'Hi <call>{"name": "f!"}</call>',
            (
                None,
                'Hi <call>{"name": "f!"}</call>',
                [],
                ["the <call> block at offset 3 holds JSON with a bang; kept as content"],
            ),
        ),
        (
            'Hi <call>{"name": "f", "arguments": {}} x</call>',
            (
                None,
                'Hi <call>{"name": "f", "arguments": {}} x</call>',
                [],
                [
                    "the <call> block at offset 3 is not closed by </call> after its JSON; "
                    "kept as content"
                ],
            ),
        ),
        (
            'Hi <call>{"name": "f"',
            (
                None,
                'Hi <call>{"name": "f"',
                [],
                ["the <call> block at offset 3 is not closed by </call>; kept as content"],
            ),
        ),
    ],
)
def test_an_earlier_tool_call_syntax_parses_as_before(text: str, seen: tuple[Any, ...]) -> None:
    assert _seen(CALLS.transform(text)) == seen


def test_the_members_it_gave_by_their_old_names_are_read() -> None:
    message = OPTIONS.transform('Hi <call>{"name": "f!"}</call>')
    assert message.notes == [
        "the <call> block at offset 3 has a body that with a bang; kept as content"
    ]
    message = OPTIONS.transform('Hi <call>{"name": "f", "arguments": {}} x</call>')
    assert message.notes == [
        "the <call> block at offset 3 is not closed by </call> after its object; kept as content"
    ]
    message = OPTIONS.transform('{"name": "f", "arguments": {}}</call>', TOOLS)
    assert _seen(message) == (None, "", [("f", {})], ["bare, tools ['f']"])


def test_an_earlier_reasoning_syntax_parses_as_before() -> None:
    assert _seen(THINK.transform("Plan.</think>\nHi")) == ("Plan.", "Hi", [], [])
    assert _seen(THINK.transform("Plan.")) == (
        "Plan.",
        "",
        [],
        ["the reasoning has no end marker </think>; kept as reasoning"],
    )


def test_an_earlier_anywhere_reasoning_syntax_parses_as_before() -> None:
    text = "Hi <think>Plan.</think><answer>Yes</answer>"
    assert _seen(ANYWHERE.transform(text)) == ("Plan.", "Hi Yes", [], [])
    assert _seen(ANYWHERE.transform("Hi </thought> there")) == (
        None,
        "Hi there",
        [],
        ["removed </thought> at offset 3: no reasoning was opened before it"],
    )
    assert _seen(ANYWHERE.transform("Hi <thought>Plan.")) == (
        "Plan.",
        "Hi",
        [],
        ["the reasoning has no end marker </think>; kept as reasoning"],
    )
    off = {
        "messages": [{"role": "user", "content": "q"}],
        "chat_template_kwargs": {"thinking": False},
    }
    text = "Hi <think>Plan.</think>"
    assert _seen(ANYWHERE.transform(text, off)) == (None, text, [], [])


TEXTS = [
    'Hi <call>{"name": "f", "arguments": {"a": "x}"}}</call> and <call>{"name": }</call>',
    'Hi <call>{"name": "f", "arguments": {"a": "x!"}}</call> <call>{"name": "g"} x</call>',
    'Hi <thought>Plan.</thought> yes <call>{"name": "f", "arguments": {}}</call> </think>',
]


@given(st.sampled_from(TEXTS), st.lists(st.integers(0, 90), max_size=12))
def test_stream_equals_batch_for_every_chunking(text: str, cuts: list[int]) -> None:
    points = sorted({0, len(text), *(min(cut, len(text)) for cut in cuts)})
    chunks = [text[a:b] for a, b in itertools.pairwise(points)]
    for processor in (CALLS, OPTIONS, ANYWHERE):
        parser = processor.stream_parser()
        for chunk in chunks:
            parser.feed(chunk)
        parser.close()
        assert parser.message is not None
        assert _seen(parser.message) == _seen(processor.transform(text))  # (ids are random)


def test_an_adapted_release_pickles_equal() -> None:
    release = toy_release("Old", tool_calls=OldCallsWithOptions(), reasoning=OldAnywhere())
    copy = pickle.loads(pickle.dumps(release))
    syntaxes = (release.tool_calls, release.reasoning)
    assert (copy.tool_calls, copy.reasoning) == syntaxes
    assert hash((copy.tool_calls, copy.reasoning)) == hash(syntaxes)
    assert copy.tool_calls is not None and copy.tool_calls.bare_body == "{"


def test_adapting_is_done_once_and_a_current_syntax_is_kept_as_is() -> None:
    release = toy_release("Old", tool_calls=OldCalls(), reasoning=OldThink())
    again = attrs.evolve(release, name="Again")
    assert again.tool_calls is release.tool_calls and again.reasoning is release.reasoning
    from granite_formatters.syntax import JSON_BLOCKS, OPENED_THINK

    current = toy_release("New", tool_calls=JSON_BLOCKS, reasoning=OPENED_THINK)
    assert current.tool_calls is JSON_BLOCKS and current.reasoning is OPENED_THINK


@attrs.frozen
class NoReader:
    open: str = "<call>"
    close: str = "</call>"

    def body_start(self, char: str) -> str | None:
        return None

    def decode(self, *args: Any) -> str:
        return "never"

    def write(self, text: str, calls: Iterable[HistoryCall], writer: HistoryWriter) -> str:
        return text


def test_a_syntax_missing_a_required_member_is_refused_when_built() -> None:
    with pytest.raises(TypeError) as caught:
        toy_release("Broken", tool_calls=NoReader())
    assert str(caught.value) == (
        "Release.tool_calls: NoReader has no 'reader', which every ToolCallSyntax gives "
        "(see docs/syntaxes.md)"
    )
    with pytest.raises(TypeError, match=r"Release.reasoning: OldCalls has no 'generation_prompt'"):
        toy_release("Broken", reasoning=OldCalls())


@attrs.frozen
class AnywhereWithoutMarkers(OldThink):
    anywhere: bool = True

    def reads(self, given: Mapping[str, Any]) -> bool:
        return True


def test_an_anywhere_syntax_without_its_markers_is_refused_when_built() -> None:
    with pytest.raises(TypeError) as caught:
        toy_release("Broken", reasoning=AnywhereWithoutMarkers())
    assert str(caught.value) == (
        "Release.reasoning: AnywhereWithoutMarkers has no 'starts', 'ends', 'response_tags', "
        "'drop_stray_ends', which every ReasoningSyntax with anywhere gives "
        "(see docs/syntaxes.md)"
    )


class _BrokenPlugin:
    @hookimpl
    def register_formatters(self, register: Any) -> None:
        register("broken-1.0", release=toy_release("Broken", tool_calls=NoReader()))


def test_a_plugin_declaring_such_a_syntax_gets_a_clear_error_at_load(
    default_host: PluginHost,
) -> None:
    with pytest.warns(PluginWarning, match="gf-broken: register_formatters hook raised TypeError"):
        register_plugin(_BrokenPlugin(), name="gf-broken")
        errors = plugin_errors()
    assert [error.plugin for error in errors] == ["gf-broken"]
    assert isinstance(errors[0], PluginLoadError)
    assert "NoReader has no 'reader'" in errors[0].problem
