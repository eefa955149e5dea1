"""Random requests for the releases with ChatML turns, reasoning and XML tool calls
(Granite 4.2), and what the official template is given for them.

Every feature the template reads: tools (OpenAI wrapper or flat, ``strict`` and
``defer_loading`` keys, deferred tools, caller key order), a system message or none,
user text and text parts, assistant history with ``reasoning_content`` and ``<think>``
in its content, tool calls with every JSON value type (arguments as an object or a JSON
string), grouped tool results, later system turns, and every template option, also the
OpenAI top-level ``reasoning_effort``.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import strategies as st

from support.granite4_strategies import DIFFERENTIAL, TEXT

__all__ = ["DIFFERENTIAL", "dropping_requests", "valid_requests"]

_THINK_TEXT = st.lists(
    st.one_of(TEXT, st.sampled_from(["<think>", "</think>", "\n", " ", "<think>\nR\n</think>\n"])),
    max_size=4,
).map("".join)
_JSON_VALUE = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 10**6) | st.floats(-1e3, 1e3) | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=5,
)
_NAMES = st.sampled_from(["get_weather", "book", "search_ü", "f"])


@st.composite
def _tool(draw: st.DrawFn) -> dict[str, Any]:
    function: dict[str, Any] = {"name": draw(_NAMES)}
    extra = draw(
        st.lists(
            st.sampled_from(["description", "parameters", "strict", "defer_loading", "x-note"]),
            unique=True,
        )
    )
    for key in extra:
        if key == "parameters":
            function[key] = {"type": "object", "properties": {"city": {"type": "string"}}}
        elif key in ("strict", "defer_loading"):
            function[key] = draw(st.booleans())
        else:
            function[key] = draw(TEXT)
    if draw(st.booleans()):
        wrapper: dict[str, Any] = {"type": "function", "function": function}
        if draw(st.booleans()):
            wrapper["defer_loading"] = True  # beside the wrapper: ignored by the template
        return wrapper
    return function


@st.composite
def _call(draw: st.DrawFn) -> dict[str, Any]:
    arguments = draw(
        st.dictionaries(st.sampled_from(["a", "b", "city", "ß"]), _JSON_VALUE, max_size=3)
    )
    given: Any = (
        json.dumps(arguments, ensure_ascii=draw(st.booleans()))
        if draw(st.booleans())
        else arguments
    )
    function = {"name": draw(_NAMES), "arguments": given}
    if draw(st.booleans()):
        return {"id": "call_1", "type": "function", "function": function}
    return function


@st.composite
def _assistant(draw: st.DrawFn) -> dict[str, Any]:
    message: dict[str, Any] = {
        "role": "assistant",
        "content": draw(st.one_of(st.none(), _THINK_TEXT)),
    }
    if draw(st.booleans()):
        # Each name servers use; the first non-null one counts (as transformers reads it).
        for key in draw(
            st.lists(
                st.sampled_from(["reasoning_content", "reasoning", "thinking"]),
                min_size=1,
                max_size=2,
                unique=True,
            )
        ):
            message[key] = draw(st.one_of(st.none(), _THINK_TEXT))
    if draw(st.booleans()):
        message["tool_calls"] = draw(st.lists(_call(), min_size=1, max_size=2))
    return message


@st.composite
def _user(draw: st.DrawFn) -> dict[str, Any]:
    if draw(st.booleans()):
        parts = draw(
            st.lists(TEXT.map(lambda t: {"type": "text", "text": t}), min_size=1, max_size=3)
        )
        return {"role": "user", "content": parts}
    return {"role": "user", "content": draw(TEXT)}


@st.composite
def valid_requests(draw: st.DrawFn) -> dict[str, Any]:
    """A request the template renders whole."""
    messages: list[dict[str, Any]] = []
    if draw(st.booleans()):
        messages.append({"role": "system", "content": draw(TEXT)})
    kinds = draw(
        st.lists(st.sampled_from(["user", "assistant", "tool", "system"]), min_size=1, max_size=7)
    )
    for kind in kinds:
        if kind == "user":
            messages.append(draw(_user()))
        elif kind == "assistant":
            messages.append(draw(_assistant()))
        elif kind == "tool":
            messages.append({"role": "tool", "tool_call_id": "call_1", "content": draw(TEXT)})
        elif messages:  # a later system turn
            messages.append({"role": "system", "content": draw(TEXT)})
    if not messages:
        messages.append({"role": "user", "content": "Hi"})
    request: dict[str, Any] = {"messages": messages}
    if draw(st.booleans()):
        request["tools"] = draw(st.lists(_tool(), max_size=3))
    options = draw(
        st.fixed_dictionaries(
            {},
            optional={
                "enable_thinking": st.one_of(st.none(), st.booleans()),
                "low_effort": st.booleans(),
                "reasoning_effort": st.one_of(
                    st.none(), st.sampled_from(["low", "medium", "high", "none"])
                ),
                "truncate_history_thinking": st.booleans(),
            },
        )
    )
    if options:
        request["chat_template_kwargs"] = options
    if draw(st.booleans()):
        request["reasoning_effort"] = draw(st.sampled_from(["low", "medium", "high", "none"]))
    return request


@st.composite
def dropping_requests(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any], str]:
    """``(request, what the template is given, field)``: a valid request with one thing
    the template renders only in part, or in a way the model was not trained on."""
    request = draw(valid_requests())
    oracle = copy.deepcopy(request)
    kind = draw(st.sampled_from(["documents", "role", "part", "user_calls"]))
    messages = request["messages"]
    index = draw(st.integers(0, len(messages)))
    if kind == "documents":
        request["documents"] = [{"doc_id": 1, "text": "Paris is in France."}]
        return request, oracle, "documents"
    if kind == "role":
        message = {
            "role": draw(st.sampled_from(["developer", "document", "critic"])),
            "content": "x",
        }
        messages.insert(index, message)
        oracle["messages"].insert(index, dict(message))
        return request, oracle, f"messages[{index}].role"
    if kind == "part":
        parts = [{"type": "text", "text": "see"}, {"type": "image_url", "image_url": {"url": "u"}}]
        messages.insert(index, {"role": "user", "content": parts})
        oracle["messages"].insert(index, {"role": "user", "content": [parts[0]]})
        return request, oracle, f"messages[{index}].content[1]"
    user: dict[str, Any] = {"role": "user", "content": "q", "tool_calls": [{"name": "f"}]}
    user["tool_calls"][0]["arguments"] = {}
    messages.insert(index, user)
    oracle["messages"].insert(index, {"role": "user", "content": "q"})
    return request, oracle, f"messages[{index}].tool_calls"
