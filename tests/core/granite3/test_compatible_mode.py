"""The template-compatible mode (``strict=False``) of a Granite 3 release's prompts.

The differential tests (``tests/releases/test_input_differential.py``) show the mode
byte-identical to the template on random requests that strict mode rejects; these tests
pin the warning itself.
"""

from __future__ import annotations

import datetime
import warnings
from typing import Any

import pytest

from granite_formatters import Release
from granite_formatters.errors import DroppedInputWarning
from granite_formatters.granite3 import GRANITE3_SPECIAL_TOKENS, TOOL_CALL
from granite_formatters.release import Option
from granite_formatters.syntax import (
    CONTROLS,
    GRANITE_ROLES,
    JSON_LIST,
    DatedSystemPrompt,
    DocumentsTurn,
    ToolsTurn,
)

DAY = datetime.date(2025, 4, 6)
HI = [{"role": "user", "content": "Hi"}]


#: A Granite 3 release without a thinking mode.
NO_THINKING = Release(
    name="Granite 3.x test",
    family="Granite 3",
    turns=GRANITE_ROLES,
    special_tokens=GRANITE3_SPECIAL_TOKENS,
    stop_strings=("<|end_of_text|>",),
    tool_calls=JSON_LIST,
    system_prompt=DatedSystemPrompt(
        preamble="Date: {date}.",
        tools=" T",
        tools_and_documents=" TD",
        documents=" D",
        plain=" P",
        citations=" C",
        hallucinations=" H",
    ),
    tools_turn=ToolsTurn("tools"),
    documents_turns=DocumentsTurn(),
    controls=CONTROLS,
    record_tokens=(TOOL_CALL,),
    record_tokens_lead=True,
    options=(Option("controls", None, CONTROLS.check),),
    option_hints={"thinking": "it has no thinking mode"},
    template_joins_parts=False,
    refused_roles=("developer",),
    template_writes_calls=False,
)


def dropped(request: dict[str, Any]) -> tuple[str, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        prompt = NO_THINKING.input_processor().transform(request, today=DAY, strict=False)
    return prompt, [str(w.message) for w in caught if w.category is DroppedInputWarning]


def test_a_request_strict_mode_accepts_gives_no_warning() -> None:
    prompt, messages = dropped({"messages": HI})
    assert messages == []
    assert prompt == NO_THINKING.input_processor().transform({"messages": HI}, today=DAY)


def test_every_left_out_part_is_named_in_one_warning() -> None:
    call = {"function": {"name": "f", "arguments": "{}"}}
    request = {
        "messages": [
            {"role": "system", "content": "S"},
            {"role": "developer", "content": "D"},
            {"role": "assistant", "content": "", "tool_calls": [call]},
        ],
        "chat_template_kwargs": {"thinking": True, "controls": {"citations": True}},
    }
    prompt, messages = dropped(request)
    assert prompt == (
        "<|start_of_role|>system<|end_of_role|>S<|end_of_text|>\n"
        "<|start_of_role|>developer<|end_of_role|>D<|end_of_text|>\n"
        "<|start_of_role|>assistant<|end_of_role|><|end_of_text|>\n"
        '<|start_of_role|>assistant {"citations": true}<|end_of_role|>'
    )
    assert messages == [
        "Granite 3.x test: the prompt leaves out what the official chat template drops: "
        "chat_template_kwargs.thinking: Granite 3.x test has no 'thinking' option: its chat "
        "template does not read it (it has no thinking mode).; "
        "chat_template_kwargs.controls.citations: Granite 3.x test cannot honour "
        "citations=true: a system message given as messages[0] replaces the whole default "
        "system prompt, which is where the citation instructions go. Either remove the "
        "system message to use the default one, or remove the 'citations' control.; "
        "messages[1].role: Granite 3.x test was not trained on the role 'developer'; the chat "
        "template prints it verbatim as an unknown role. Use 'system'.; "
        "messages[2].tool_calls: the Granite 3.x test chat template does not render "
        "tool_calls (1 call(s) left out)."
    ]


def test_the_warning_points_at_the_caller() -> None:
    import granite_formatters

    try:
        formatter = granite_formatters.get_formatter("granite-3.3-8b-instruct")
    except granite_formatters.UnknownModelError:
        pytest.skip("the Granite 3.3 plugin is not installed")
    with pytest.warns(DroppedInputWarning) as caught:
        formatter.format(
            {"messages": HI, "chat_template_kwargs": {"controls": {"citations": True}}},
            strict=False,
        )
    assert caught[0].filename == __file__
