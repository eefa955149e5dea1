"""The template-compatible mode (``strict=False``) of the Granite 3 input processors.

The differential tests (``tests/releases/test_input_differential.py``) show the mode
byte-identical to the template on random requests that strict mode rejects; these tests
pin the warning itself.
"""

from __future__ import annotations

import datetime
import warnings
from typing import Any

import pytest

from granite_formatters.errors import DroppedInputWarning
from granite_formatters.granite3 import Granite3InputProcessor, Granite3PromptFormat

DAY = datetime.date(2025, 4, 6)
HI = [{"role": "user", "content": "Hi"}]


class NoThinking(Granite3InputProcessor):
    prompt_format = Granite3PromptFormat(
        release="Granite 3.x test",
        tools_instruction=" T",
        tools_and_documents_instruction=" TD",
        citations_instruction=" C",
        hallucinations_instruction=" H",
    )


def dropped(request: dict[str, Any]) -> tuple[str, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        prompt = NoThinking().transform(request, today=DAY, strict=False)
    return prompt, [str(w.message) for w in caught if w.category is DroppedInputWarning]


def test_a_request_strict_mode_accepts_gives_no_warning() -> None:
    prompt, messages = dropped({"messages": HI})
    assert messages == []
    assert prompt == NoThinking().transform({"messages": HI}, today=DAY)


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
        "Granite 3.x test template-compatible mode: the model will not see "
        "chat_template_kwargs.thinking (no thinking mode); "
        "chat_template_kwargs.controls.citations (the caller's system message replaces the "
        "citation instructions); "
        "messages[1].role as intended ('developer' is printed verbatim, a role the model was "
        "not trained on); "
        "messages[2].tool_calls (1 call(s), not rendered)"
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
