"""The probe set: requests that exercise every feature of a Granite chat template.

Each probe is an OpenAI chat-completions body as vLLM accepts it; together they cover
plain turns, a system message, tools, a history with tool calls and their results,
documents (tool-call arguments as objects, as servers hand them to templates),
thinking on and off (both option spellings: ``thinking`` for 3.x, ``enable_thinking``
for 4.2), reasoning in the history, 4.2's ``reasoning_effort``, the 3.x ``controls``,
no generation prompt, and ``continue_final_message``. A release that does not know an
option renders as its official template does: it drops it.
"""

from __future__ import annotations

from typing import Any

import attrs

__all__ = ["PROBES", "Probe", "TOOL_NAME"]

#: The tool the tool probes declare; a template "supports tools" when it renders it.
TOOL_NAME = "get_current_weather"

_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": TOOL_NAME,
            "description": "Get the current weather for a city",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string", "description": "The city, e.g. Boston"},
                    "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                },
                "required": ["city"],
            },
        },
    }
]
_DOCUMENTS = [
    {"doc_id": "1", "text": "Paris is the capital and largest city of France."},
    {"doc_id": "2", "text": "Rome is the capital city of Italy.\nIt has 2.8 million residents."},
]
_ASK = {"role": "user", "content": "What's the weather in Boston?"}
_CALL = {
    "role": "assistant",
    "content": "",
    "tool_calls": [
        {
            "id": "call_1",
            "type": "function",
            # an object, as servers hand the template decoded arguments
            "function": {"name": TOOL_NAME, "arguments": {"city": "Boston", "unit": "celsius"}},
        }
    ],
}
_RESULT = {"role": "tool", "tool_call_id": "call_1", "content": '{"temperature": 21}'}
_ON = {"thinking": True, "enable_thinking": True}
_OFF = {"thinking": False, "enable_thinking": False}


@attrs.frozen
class Probe:
    """A named request, and how it is rendered (generation prompt, or the final message
    continued)."""

    name: str
    request: dict[str, Any]
    add_generation_prompt: bool = True
    continue_final_message: bool = False


PROBES: tuple[Probe, ...] = (
    Probe("hi", {"messages": [{"role": "user", "content": "Hi"}]}),
    Probe(
        "system",
        {
            "messages": [
                {"role": "system", "content": "You are a terse assistant."},
                {"role": "user", "content": "Hi"},
            ]
        },
    ),
    Probe(
        "conversation",
        {
            "messages": [
                {"role": "user", "content": "Hi"},
                {"role": "assistant", "content": "Hello! How can I help?"},
                {"role": "user", "content": "Tell me a joke."},
            ]
        },
    ),
    Probe("tools", {"messages": [_ASK], "tools": _TOOLS}),
    Probe(
        "tools_with_system",
        {
            "messages": [{"role": "system", "content": "Use tools when useful."}, _ASK],
            "tools": _TOOLS,
        },
    ),
    Probe("tool_call_history", {"messages": [_ASK, _CALL, _RESULT], "tools": _TOOLS}),
    Probe(
        "documents",
        {
            "messages": [{"role": "user", "content": "What are the capitals?"}],
            "documents": _DOCUMENTS,
        },
    ),
    Probe("thinking_on", {"messages": [_ASK], "chat_template_kwargs": _ON}),
    Probe("thinking_off", {"messages": [_ASK], "chat_template_kwargs": _OFF}),
    Probe(
        "thinking_with_tools",
        {"messages": [_ASK], "tools": _TOOLS, "chat_template_kwargs": _ON},
    ),
    Probe(
        "reasoning_in_history",
        {
            "messages": [
                {"role": "user", "content": "Hi"},
                {"role": "assistant", "content": "Hello!", "reasoning_content": "Greet back."},
                {"role": "user", "content": "And now?"},
            ],
            "chat_template_kwargs": _ON,
        },
    ),
    Probe(
        "controls",
        {
            "messages": [{"role": "user", "content": "What are the capitals?"}],
            "documents": _DOCUMENTS,
            "chat_template_kwargs": {
                "controls": {"citations": True, "hallucinations": True, "length": "short"}
            },
        },
    ),
    Probe(
        "reasoning_effort",
        {"messages": [_ASK], "chat_template_kwargs": {**_ON, "reasoning_effort": "low"}},
    ),
    Probe(
        "no_generation_prompt",
        {"messages": [{"role": "user", "content": "Hi"}]},
        add_generation_prompt=False,
    ),
    Probe(
        "continue_final_message",
        {
            "messages": [
                {"role": "user", "content": "Count to three."},
                {"role": "assistant", "content": "One, two,"},
            ]
        },
        add_generation_prompt=False,
        continue_final_message=True,
    ),
)
