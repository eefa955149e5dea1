"""Granite 4.2 as a release value: ChatML turns, a ``<think>`` block opened by the
prompt, XML function/parameter tool calls (see docs/granite42.md)."""

from __future__ import annotations

from granite_formatters import Release
from granite_formatters.release import Option
from granite_formatters.special_tokens import SpecialTokens
from granite_formatters.syntax import (
    CHATML,
    OPENED_THINK,
    XML_FUNCTIONS,
    SystemBlock,
    SystemBlocksLayout,
    effort_option_error,
    listed_function,
    think_option_error,
)

__all__ = ["GRANITE42", "GRANITE42_SPECIAL_TOKENS"]

#: The Granite 4.x added tokens plus the ChatML turn markers (see docs/granite42.md):
#: caller text holding one of them could forge structure.
GRANITE42_SPECIAL_TOKENS = SpecialTokens(
    (
        "<|im_start|>",
        "<|im_end|>",
        "<|start_of_role|>",
        "<|end_of_role|>",
        "<|end_of_text|>",
        "<|pad|>",
        "<|unk|>",
        "<|unused_1|>",
        "<|start_of_plugin|>",
        "<|end_of_plugin|>",
        "<|fim_prefix|>",
        "<|fim_middle|>",
        "<|fim_suffix|>",
        "<|fim_pad|>",
        "<|filename|>",
        "<|reponame|>",
        "<tool_call>",
        "</tool_call>",
        "<tool_response>",
        "</tool_response>",
        "<tools>",
        "</tools>",
        "<documents>",
        "</documents>",
        "<think>",
        "</think>",
        "<think_on>",
        "<think_off>",
        "<schema>",
        "</schema>",
    )
)

_TOOLS = SystemBlock(
    prefix="# Tools\n\nYou have access to the following functions:\n\n<tools>",
    suffix=(
        "\n</tools>\n\nIf you choose to call a function ONLY reply in the following format "
        "with NO suffix:\n\n<tool_call>\n<function=example_function_name>\n"
        "<parameter=example_parameter_1>\nvalue_1\n</parameter>\n"
        "<parameter=example_parameter_2>\nThis is the value for the second parameter\n"
        "that can span\nmultiple lines\n</parameter>\n</function>\n</tool_call>\n\n"
        "<IMPORTANT>\nReminder:\n- Function calls MUST follow the specified format: an inner "
        "<function=...></function> block must be nested within <tool_call></tool_call> XML "
        "tags\n- Required parameters MUST be specified\n- You may provide optional reasoning "
        "for your function call in natural language BEFORE the function call, but NOT after\n"
        "- If there is no function call available, answer the question like normal with your "
        "current knowledge and do not tell the user about function calls\n</IMPORTANT>"
    ),
    item=listed_function,
)

#: Granite 4.2 (granite-4.2.jinja).
GRANITE42 = Release(
    name="Granite 4.2",
    family="Granite 4.2",
    turns=CHATML,
    special_tokens=GRANITE42_SPECIAL_TOKENS,
    stop_strings=("<|im_end|>",),
    tool_calls=XML_FUNCTIONS,
    reasoning=OPENED_THINK,
    layout=SystemBlocksLayout(
        tools_block=_TOOLS,
        always_system=True,
        empty_system_separated=False,  # "\n\n" only after a non-empty system text
        renders_other_roles=True,  # a "developer" message becomes a "developer" turn
    ),
    template_joins_parts=False,  # the template prints strings; servers join the text parts
    # What the model itself writes into its turns: reasoning and tool-call blocks.
    record_tokens=("<tool_call>", "</tool_call>", "<think>", "</think>"),
    options=(
        Option("enable_thinking", True, think_option_error),
        Option("low_effort", False, think_option_error),
        Option("reasoning_effort", None, effort_option_error),
        Option("truncate_history_thinking", True, think_option_error),
    ),
    option_hints={
        "thinking": "Granite 4.2 thinks by default; use enable_thinking",
        "controls": "Granite 4.2 has no citation or hallucination controls",
    },
)
