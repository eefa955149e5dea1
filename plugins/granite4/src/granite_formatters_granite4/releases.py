"""Granite 4.0 and 4.1 as data: their release declarations.

Both use Granite's role-token turns and ``<tool_call>`` JSON blocks, list tools and
documents in the system turn, and differ only in what an empty system turn becomes
(4.0 prints a default system message, 4.1 none). See ``docs/granite4.md``.
"""

from __future__ import annotations

from typing import Any

import attrs

from granite_formatters import Release
from granite_formatters.release import Option
from granite_formatters.special_tokens import SpecialTokens
from granite_formatters.syntax import GRANITE_ROLES, JSON_BLOCKS, SystemBlock, SystemBlocksLayout

__all__ = [
    "GRANITE4_DEFAULT_SYSTEM_MESSAGE",
    "GRANITE4_MODEL_RECORD_TOKENS",
    "GRANITE4_SPECIAL_TOKENS",
    "GRANITE40",
    "GRANITE41",
]

#: Every added token of the Granite 4 tokenizer (ids 100256-100283; see
#: docs/granite4.md). A tokenizer maps each of them to its own id wherever it appears in
#: the text, whether or not it is flagged special, so each can forge structure.
GRANITE4_SPECIAL_TOKENS = SpecialTokens(
    (
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

#: The tokens the model itself writes into an assistant turn to call tools: a past
#: assistant turn that contains them is the model's record, not an injection.
GRANITE4_MODEL_RECORD_TOKENS = ("<tool_call>", "</tool_call>")

GRANITE4_DEFAULT_SYSTEM_MESSAGE = (
    "You are a helpful assistant. Please ensure responses are professional, accurate, and safe."
)

_TOOLS = SystemBlock(
    prefix=(
        "You are a helpful assistant with access to the following tools. You may call one or "
        "more tools to assist with the user query.\n\nYou are provided with function signatures "
        "within <tools></tools> XML tags:\n<tools>"
    ),
    suffix=(
        "\n</tools>\n\nFor each tool call, return a json object with function name and "
        'arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{"name": '
        '<function-name>, "arguments": <args-json-object>}\n</tool_call>. If a tool does not '
        "exist in the provided list of tools, notify the user that you do not have the "
        "ability to fulfill the request."
    ),
)

_DOCUMENTS = SystemBlock(
    prefix=(
        "You are a helpful assistant with access to the following documents. You may use one "
        "or more documents to assist with the user query.\n\nYou are given a list of documents "
        "within <documents></documents> XML tags:\n<documents>"
    ),
    suffix=(
        "\n</documents>\n\nWrite the response to the user's input by strictly aligning with "
        "the facts in the provided documents. If the information needed to answer the question "
        "is not available in the documents, inform the user that the question cannot be "
        "answered based on the available data."
    ),
)


def _tool_list(value: Any) -> str | None:
    return None if value is None or isinstance(value, list) else "must be a list of tools"


_GRANITE3_OPTION = "thinking, controls, citations and hallucinations are Granite 3 options"

_LAYOUT = SystemBlocksLayout(
    tools_block=_TOOLS,
    documents_block=_DOCUMENTS,
    default_system_message=GRANITE4_DEFAULT_SYSTEM_MESSAGE,
)

#: Granite 4.0 (current template revision): an empty system text prints the default.
GRANITE40 = Release(
    name="Granite 4.0",
    family="Granite 4",
    turns=GRANITE_ROLES,
    special_tokens=GRANITE4_SPECIAL_TOKENS,
    stop_strings=("<|end_of_text|>",),
    tool_calls=JSON_BLOCKS,
    layout=_LAYOUT,
    record_tokens=GRANITE4_MODEL_RECORD_TOKENS,
    options=(Option("available_tools", None, _tool_list),),
    option_hints=dict.fromkeys(("thinking", "controls", "enable_thinking"), _GRANITE3_OPTION),
)

#: Granite 4.1: an empty system text prints no system turn.
GRANITE41 = attrs.evolve(
    GRANITE40,
    name="Granite 4.1",
    layout=attrs.evolve(_LAYOUT, default_system_message=None),
)
