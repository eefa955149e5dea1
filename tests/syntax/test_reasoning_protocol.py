"""The engine asks a release's reasoning syntax (a toy one here: ``<think>`` opened by the
prompt, on ChatML turns) what to write and how to read: both directions, streamed."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

import attrs
from hypothesis import given, settings
from hypothesis import strategies as st

from granite_formatters._types import AssistantMessage
from granite_formatters.release import Option
from granite_formatters.syntax import JSON_BLOCKS, ReasoningSyntax, SystemBlocksLayout

from support.toy_release import toy_release


@attrs.frozen
class OpenedThink:
    """A toy ``ReasoningSyntax``: the prompt opens ``<think>`` when thinking is on."""

    open: str = "<think>"
    close: str = "</think>"
    after_close: str = "\n"

    def generation_prompt(self, options: Mapping[str, Any]) -> str:
        return "<think>\n" if options["enable_thinking"] else "<think></think>"

    def last_user_suffix(self, options: Mapping[str, Any]) -> str:
        effort = options["reasoning_effort"]
        return f" (think {effort})" if effort else " (think)" if options["enable_thinking"] else ""

    def history(
        self,
        content: str,
        reasoning: str | None,
        *,
        historical: bool,
        tool_calls: bool,
        options: Mapping[str, Any],
    ) -> str:
        if reasoning and not historical:
            return f"<think>\n{reasoning}\n</think>\n{content}"
        return content

    def starts_inside(self, options: Mapping[str, Any]) -> bool:
        return bool(options["enable_thinking"])

    def removed_when_off(self, options: Mapping[str, Any]) -> str:
        return "" if options["enable_thinking"] else "<think></think>"

    def marked(self) -> None:
        return None


REASONING: ReasoningSyntax = OpenedThink()
TOY = toy_release(
    "Toy 2",
    tool_calls=JSON_BLOCKS,
    reasoning=REASONING,
    layout=SystemBlocksLayout(always_system=True),
    options=(Option("enable_thinking", True), Option("reasoning_effort", None)),
)
RENDER = TOY.input_processor()
PARSE = TOY.output_processor()
OFF = {
    "messages": [{"role": "user", "content": "q"}],
    "chat_template_kwargs": {"enable_thinking": False},
}


def test_the_prompt_asks_the_reasoning_syntax() -> None:
    request = {
        "messages": [
            {"role": "user", "content": "a"},
            {"role": "assistant", "content": "A", "reasoning_content": "old"},
            {"role": "user", "content": "b"},
            {"role": "assistant", "content": "B", "reasoning_content": "new"},
        ]
    }
    assert RENDER.transform(request) == (
        "<|im_start|>system\n<|im_end|>\n"
        "<|im_start|>user\na<|im_end|>\n"
        "<|im_start|>assistant\nA<|im_end|>\n"
        "<|im_start|>user\nb (think)<|im_end|>\n"
        "<|im_start|>assistant\n<think>\nnew\n</think>\nB<|im_end|>\n"
        "<|im_start|>assistant\n<think>\n"
    )
    assert RENDER.transform(OFF).endswith("q<|im_end|>\n<|im_start|>assistant\n<think></think>")


def test_chatml_tool_results_first_after_the_system_turn_have_no_header() -> None:
    request = {
        "messages": [
            {"role": "system", "content": "S"},
            {"role": "tool", "content": "r1"},
            {"role": "tool", "content": "r2"},
            {"role": "user", "content": "u"},
            {"role": "tool", "content": "r3"},
        ]
    }
    assert RENDER.transform(request, add_generation_prompt=False) == (
        "<|im_start|>system\nS<|im_end|>\n"
        "<tool_response>\nr1\n</tool_response>\n<tool_response>\nr2\n</tool_response>\n"
        "<|im_end|>\n"
        "<|im_start|>user\nu (think)<|im_end|>\n"
        "<|im_start|>user\n<tool_response>\nr3\n</tool_response>\n<|im_end|>\n"
    )


def test_output_starts_inside_reasoning_when_the_prompt_opened_it() -> None:
    text = 'Let me see.\n</think>\n\nIt is 4. <tool_call>{"name": "f", "arguments": {}}</tool_call>'
    message = PARSE.transform(text)
    assert message.reasoning_content == "Let me see."
    assert message.content == "It is 4."
    assert [call.name for call in message.tool_calls] == ["f"]
    assert message.raw_content == text and message.notes == []


def test_with_thinking_off_an_empty_block_is_removed() -> None:
    message = PARSE.transform("<think></think>\nAnswer.", OFF)
    assert (message.reasoning_content, message.content) == (None, "Answer.")
    message = PARSE.transform("Answer <think></think>", OFF)
    assert message.content == "Answer <think></think>"


def test_reasoning_without_an_end_marker_is_kept_with_a_note() -> None:
    message = PARSE.transform("still thinking <tool_call>")
    assert message.reasoning_content == "still thinking <tool_call>"
    assert message.content == ""
    assert message.notes == [
        "the reasoning has no end marker </think>; kept as reasoning",
        # (The tool-call marker inside a line was read as quoted: said, since the
        # reasoning never ended.)
        "the <tool_call> at offset 15 is inside a line of the reasoning (read as quoted); "
        "kept as reasoning",
    ]
    # At the start of a line, a tool-call marker in a reasoning that never ends ends it.
    message = PARSE.transform(
        'still thinking\n<tool_call>{"name": "f", "arguments": {}}</tool_call>'
    )
    assert (message.reasoning_content, message.content) == ("still thinking", "")
    assert [call.name for call in message.tool_calls] == ["f"]
    assert message.notes == [
        "the reasoning has no end marker </think>; it ends at the <tool_call> at offset 15"
    ]


SAMPLES = [
    ("Let me see.\n</think>\n\nIt is 4.", None),
    (
        'a </thi </think>\n<tool_call>{"name": "f", "arguments": {"x": "</think>"}}</tool_call> b',
        None,
    ),
    ("never closed </thin", None),
    ('a\n<tool_call>{"name": "f", "arguments": {}}</tool_call>\n</think>\nb', None),
    ('<think>a `<tool_call>`\n<tool_call>{"name": "f", "arguments": {}}</tool_call>', None),
    ("  <think></think>\n\nAnswer é😀 <tool_call>oops</tool_call>", OFF),
    ("<think>\nthought\n</think>\nAnswer.", OFF),
    ("<thi", OFF),
    ("", None),
]


def _stream(pieces: list[Any], request: Any) -> tuple[AssistantMessage, str, str]:
    parser = PARSE.stream_parser(request)
    deltas = [delta for piece in pieces for delta in parser.feed(piece)] + parser.close()
    assert parser.message is not None
    content = "".join(delta.content or "" for delta in deltas)
    reasoning = "".join(delta.reasoning_content or "" for delta in deltas)
    return parser.message, content, reasoning


def _same(stream: AssistantMessage, batch: AssistantMessage) -> None:
    def view(message: AssistantMessage) -> Any:
        calls = [(call.name, call.arguments) for call in message.tool_calls]
        return (message.content, message.reasoning_content, calls, message.notes)

    assert view(stream) == view(batch)


@settings(max_examples=200)
@given(data=st.data(), as_bytes=st.booleans())
def test_stream_equals_batch_for_every_chunking(data: st.DataObject, as_bytes: bool) -> None:
    text, request = data.draw(st.sampled_from(SAMPLES))
    raw: Any = text.encode() if as_bytes else text
    cuts = sorted(data.draw(st.lists(st.integers(0, len(raw)), max_size=12)))
    pieces = [raw[a:b] for a, b in itertools.pairwise([0, *cuts, len(raw)])]
    batch = PARSE.transform(text, request)
    message, content, reasoning = _stream(pieces, request)
    _same(message, batch)
    assert content == batch.content
    assert reasoning == (batch.reasoning_content or "")
    assert message.raw_content == text


def test_a_body_reasoning_effort_is_an_option_of_a_release_that_reads_it() -> None:
    base = {"messages": [{"role": "user", "content": "q"}]}
    assert "q (think)<|im_end|>" in RENDER.transform(base)
    assert "q (think low)<|im_end|>" in RENDER.transform({**base, "reasoning_effort": "low"})
    extra = {**base, "extra_body": {"reasoning_effort": "low"}}
    assert "q (think low)<|im_end|>" in RENDER.transform(extra)
    # chat_template_kwargs wins over the body, as in vLLM.
    both = {**base, "reasoning_effort": "low", "chat_template_kwargs": {"reasoning_effort": "high"}}
    assert "q (think high)<|im_end|>" in RENDER.transform(both)
