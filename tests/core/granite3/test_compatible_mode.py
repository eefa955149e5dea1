"""The template-compatible mode (``strict=False``) of a Granite 3 release's prompts.

The differential tests (``tests/releases/test_input_differential.py``) show the mode
byte-identical to the template on random requests that strict mode rejects; these tests
pin the warning itself.
"""

from __future__ import annotations

import datetime
import warnings
from typing import Any

import attrs
import pytest

from granite_formatters._errors import DroppedInputWarning

from support.granite31_release import GRANITE31

DAY = datetime.date(2025, 4, 6)
HI = [{"role": "user", "content": "Hi"}]


#: A Granite 3 release without a thinking mode.
NO_THINKING = attrs.evolve(GRANITE31, name="Granite 3.x test")


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
        "template does not read it (it has no thinking mode; set thinking to false).; "
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
