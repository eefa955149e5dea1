"""Hypothesis strategies for Granite 4 requests of every shape the templates render.

``valid_requests()`` draws requests that strict mode must render exactly as the
official template does; ``dropping_requests()`` draws requests in
which the template silently drops something, which strict mode must reject and the
template-compatible mode must render byte for byte like the template.
"""

from __future__ import annotations

import json
import os
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

#: 1,000 random requests per release in CI (HYPOTHESIS_PROFILE=ci), fewer locally.
EXAMPLES = 1000 if os.environ.get("HYPOTHESIS_PROFILE") == "ci" else 150
DIFFERENTIAL = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# Caller text: letters, digits, punctuation, whitespace, non-ASCII, lone surrogates (a
# str can hold them; a JSON escape decodes to one), and characters the JSON writer must
# not escape ( > & ' ). "<" is left out of free text so that random
# text never spells a special token; fixed strings below carry "<".
_ALPHABET = st.sampled_from([*"ab Zé中🙂\n\t.,:;!?'\"\\{}[]>&-_0", "\ud83d", "\udc00"])
TEXT = st.text(_ALPHABET, max_size=12)
SOME_TEXT = st.one_of(TEXT, st.sampled_from(["", "a < b", "Hello, world!", "x\n\ny"]))
NAMES = st.sampled_from(["get_weather", "search", "f", "lookup_stock_price", "täglich"])
KEYS = st.sampled_from(["city", "unit", "q", "ключ", "a<b", "n", "k\ud800"])

_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-1000, 1000),
    SOME_TEXT,
    st.floats(allow_nan=False, allow_infinity=False, width=32),
)
JSON_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(KEYS, inner, max_size=3)),
    max_leaves=6,
)


@st.composite
def tools(draw: st.DrawFn) -> dict[str, Any]:
    function: dict[str, Any] = {"name": draw(NAMES)}
    if draw(st.booleans()):
        function["description"] = draw(SOME_TEXT)
    if draw(st.booleans()):
        function["parameters"] = {
            "type": "object",
            "properties": draw(st.dictionaries(KEYS, st.just({"type": "string"}), max_size=2)),
        }
    items = list(function.items())
    order = draw(st.permutations(range(len(items))))
    function = {items[i][0]: items[i][1] for i in order}
    if draw(st.booleans()):
        return {"type": "function", "function": function}
    return function


@st.composite
def documents(draw: st.DrawFn) -> dict[str, Any]:
    fields: list[tuple[str, Any]] = [("text", draw(SOME_TEXT))]
    if draw(st.booleans()):
        fields.append(("doc_id", draw(st.one_of(st.integers(0, 99), TEXT))))
    if draw(st.booleans()):
        fields.append(("title", draw(SOME_TEXT)))
    if draw(st.booleans()):
        fields.append(("source", draw(SOME_TEXT)))
    order = draw(st.permutations(range(len(fields))))
    return {fields[i][0]: fields[i][1] for i in order}


def text_parts() -> st.SearchStrategy[list[dict[str, Any]]]:
    return st.lists(st.builds(lambda t: {"type": "text", "text": t}, SOME_TEXT), max_size=3)


CONTENT = st.one_of(SOME_TEXT, text_parts())


@st.composite
def tool_call(draw: st.DrawFn) -> dict[str, Any]:
    args = draw(st.dictionaries(KEYS, JSON_VALUES, max_size=3))
    arguments: Any = args
    if draw(st.booleans()):
        separators = draw(st.sampled_from([(", ", ": "), (",", ":")]))
        arguments = json.dumps(args, separators=separators, ensure_ascii=draw(st.booleans()))
    call = {"name": draw(NAMES), "arguments": arguments}
    if draw(st.booleans()):
        return {"id": "call_" + draw(TEXT), "type": "function", "function": call}
    return call


@st.composite
def message(draw: st.DrawFn) -> dict[str, Any]:
    role = draw(st.sampled_from(["user", "assistant", "tool", "system"]))
    if role == "assistant":
        msg: dict[str, Any] = {
            "role": role,
            "content": draw(st.one_of(st.none(), st.just(""), CONTENT)),
        }
        calls = draw(st.lists(tool_call(), max_size=3))
        if calls:
            msg["tool_calls"] = calls
        return msg
    if role == "tool":
        return {"role": role, "content": draw(CONTENT), "tool_call_id": "call_" + draw(TEXT)}
    return {"role": role, "content": draw(st.one_of(CONTENT, st.none()))}


@st.composite
def valid_requests(draw: st.DrawFn) -> dict[str, Any]:
    messages: list[dict[str, Any]] = []
    if draw(st.booleans()):
        messages.append({"role": "system", "content": draw(CONTENT)})
    messages += draw(st.lists(message(), min_size=0 if messages else 1, max_size=6))
    request: dict[str, Any] = {"messages": messages}
    tool_list = draw(st.one_of(st.none(), st.lists(tools(), max_size=3)))
    if tool_list is not None:
        request["tools"] = tool_list
    docs = draw(st.one_of(st.none(), st.lists(documents(), max_size=3)))
    if docs is not None:
        where = draw(st.sampled_from(["top", "extra_body", "kwargs"]))
        if where == "top":
            request["documents"] = docs
        elif where == "extra_body":
            request["extra_body"] = {"documents": docs}
        else:
            request["chat_template_kwargs"] = {"documents": docs}
    if draw(st.integers(0, 9)) == 0:
        kwargs = request.setdefault("chat_template_kwargs", {})
        kwargs["available_tools"] = draw(st.lists(tools(), min_size=1, max_size=2))
        request.pop("tools", None)
    if draw(st.integers(0, 9)) == 0:
        # Granite 3 options set to "off" ask for nothing and are accepted.
        request.setdefault("chat_template_kwargs", {})["thinking"] = False
    return request


#: Additions the template drops silently, each with the field strict mode must name.
@st.composite
def dropping_requests(draw: st.DrawFn) -> tuple[dict[str, Any], str]:
    request = draw(valid_requests())
    messages = request["messages"]
    kind = draw(
        st.sampled_from(
            [
                "role",
                "part",
                "string_part",
                "thinking",
                "controls",
                "option",
                "calls_on_user",
                "name",
            ]
        )
    )
    position = draw(st.integers(0, len(messages)))
    if kind == "role":
        role = draw(st.sampled_from(["developer", "document", "User", "function", "ipython"]))
        messages.insert(position, {"role": role, "content": draw(SOME_TEXT)})
        return request, f"messages[{position}].role"
    if kind in ("part", "string_part"):
        part: Any = (
            {"type": "image_url", "image_url": {"url": "http://x/y.png"}}
            if kind == "part"
            else "plain string part"
        )
        parts = draw(text_parts())
        at = draw(st.integers(0, len(parts)))
        parts.insert(at, part)
        messages.insert(position, {"role": "user", "content": parts})
        return request, f"messages[{position}].content[{at}]"
    if kind in ("thinking", "controls", "option"):
        key = {"thinking": "thinking", "controls": "controls", "option": "foo"}[kind]
        value = {"thinking": True, "controls": {"citations": True}, "option": 1}[kind]
        request.setdefault("chat_template_kwargs", {})[key] = value
        return request, f"chat_template_kwargs.{key}"
    if kind == "calls_on_user":
        messages.insert(
            position,
            {"role": "user", "content": "q", "tool_calls": [{"name": "f", "arguments": "{}"}]},
        )
        return request, f"messages[{position}].tool_calls"
    bad = draw(st.sampled_from(['a"b', "back\\slash", "new\nline"]))
    messages.insert(
        position,
        {"role": "assistant", "content": "", "tool_calls": [{"name": bad, "arguments": {}}]},
    )
    return request, f"messages[{position}].tool_calls[0].name"
