"""The request is read once, the same way for both directions (issue 43, item 2).

For any request, what the parser assumes (the reasoning opened or not, the tools and
their schemas, a continued final message) is what the rendered prompt says, whatever
the request's shape: a dict, a JSON string or bytes, a typed ``ChatCompletion``; options
at the top level, in ``chat_template_kwargs`` or in ``extra_body``; tools in a list, a
tuple or as ``openai`` objects; vLLM's body flags. The prompt's side is read from the
prompt itself (does it end with the reasoning opener, with the final message's text;
which tool names it lists).
"""

from __future__ import annotations

import json
import re
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openai.types.chat import ChatCompletionFunctionTool
from openai.types.shared import FunctionDefinition

from granite_formatters import ChatCompletion, Release, get_formatter
from granite_formatters._errors import InvalidRequestError

from support.releases import Release as TableRelease

HI = [{"role": "user", "content": "Hi"}]
PARTIAL = [*HI, {"role": "assistant", "content": "The answer is"}]
NAMES = ("tool_alpha", "tool_beta", "tool_gamma")


def _schema(name: str) -> dict[str, object]:
    return {"type": "object", "properties": {f"count_{name}": {"type": "integer"}}}


def _tool(name: str, shape: str) -> Any:
    """The tool ``name`` in one of the shapes callers send."""
    if shape == "openai":
        return {"type": "function", "function": {"name": name, "parameters": _schema(name)}}
    if shape == "flat":
        return {"name": name, "parameters": _schema(name)}
    if shape == "sdk-object":
        return ChatCompletionFunctionTool(
            type="function", function=FunctionDefinition(name=name, parameters=_schema(name))
        )
    assert shape == "sdk-function"
    return FunctionDefinition(name=name, parameters=_schema(name))


def _core(release: TableRelease) -> Release:
    found = get_formatter(release.model).release
    assert found is not None
    return found


def _xml_call(name: str) -> str:
    return (
        f"<tool_call>\n<function={name}>\n<parameter=count_{name}>\n7\n</parameter>\n"
        "</function>\n</tool_call>"
    )


@st.composite
def requests(draw: st.DrawFn, release: Release) -> tuple[Any, str]:
    """A request in any of the shapes, and the text of its final message."""
    body: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    names = draw(st.lists(st.sampled_from(NAMES), unique=True, max_size=3))
    shape = draw(st.sampled_from(("openai", "flat", "sdk-object", "sdk-function")))
    tools = [_tool(name, shape) for name in names]
    if tools:
        body["tools"] = tools if draw(st.booleans()) else tuple(tools)
    kwargs: dict[str, Any] = {}
    for option in release.options:
        if option.name == "controls":
            continue
        if option.name == "available_tools":
            offered = draw(st.lists(st.sampled_from(NAMES), unique=True, max_size=2))
            if offered:
                kwargs["available_tools"] = [_tool(name, "openai") for name in offered]
            continue
        if option.name == "reasoning_effort":
            values: list[Any] = ["none", "low", "high", None, 3]
        else:
            values = [True, False, None, "yes"]  # ("yes" is refused: format raises)
        if draw(st.booleans()):
            kwargs[option.name] = draw(st.sampled_from(values))
    if kwargs:
        (extra if draw(st.booleans()) else body)["chat_template_kwargs"] = kwargs
    if release.option("reasoning_effort") is not None and draw(st.booleans()):
        effort = draw(st.sampled_from(["none", "low", "high", None]))
        (extra if draw(st.booleans()) else body)["reasoning_effort"] = effort
    continued = draw(st.sampled_from([None, True, False]))
    if continued is not None:
        (extra if draw(st.booleans()) else body)["continue_final_message"] = continued
    generation = draw(st.sampled_from([None, True, False]))
    if generation is not None:
        (extra if draw(st.booleans()) else body)["add_generation_prompt"] = generation
    messages = PARTIAL if draw(st.booleans()) else HI
    body["messages"] = messages
    if extra:
        body["extra_body"] = extra
    form = draw(st.sampled_from(("dict", "json", "bytes", "typed")))
    request: Any = body
    if form in ("json", "bytes") and shape in ("openai", "flat"):
        request = json.dumps(body)
        if form == "bytes":
            request = request.encode()
    elif form == "typed" and not extra and continued is None and generation is None:
        try:
            request = ChatCompletion.model_validate(body)
        except Exception:  # noqa: BLE001 - a refused request stays a dict
            request = body
    return request, messages[-1]["content"]


def _listed(prompt: str) -> set[str]:
    return {name for name in NAMES if re.search(rf"\b{name}\b", prompt)}


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(data=st.data())
def test_the_parser_assumes_what_the_prompt_says(
    release: TableRelease, data: st.DataObject
) -> None:
    core = _core(release)
    formatter = get_formatter(release.model)
    request, final = data.draw(requests(core))
    # The parser reads any request, even one the renderer refuses, without raising.
    plain = formatter.parse("Plan.", request)
    try:
        prompt = formatter.format(request)
    except InvalidRequestError:
        return
    # The reasoning: the answer starts inside it exactly when the prompt opened it (a
    # continued final message opens none).
    reasoning = core.reasoning
    opened = reasoning is not None and prompt.endswith(reasoning.open + "\n")
    if opened:
        assert (plain.reasoning_content, plain.content) == ("Plan.", "")
    else:
        assert (plain.reasoning_content, plain.content) == (None, "Plan.")
    # The tools: the parser knows those the prompt lists, with their schemas.
    listed = _listed(prompt)
    if release.has("xml-tool-calls"):
        output = ("Plan.</think>\n" if opened else "") + "\n".join(map(_xml_call, NAMES))
        message = formatter.parse(output, request)
        arguments = {call.name: call.arguments for call in message.tool_calls}
        for name in NAMES:
            expected = 7 if name in listed else "7"
            assert arguments[name] == {f"count_{name}": expected}
    if release.has("json-list-tool-calls"):
        # A bare JSON list at the start is a call only when the prompt offered tools.
        message = formatter.parse('[{"name": "tool_alpha", "arguments": {}}]', request)
        assert bool(message.tool_calls) == bool(listed)
    # The facts the parser holds, for every release: the same, stated.
    from granite_formatters._engine.prompt_facts import prompt_facts

    facts = prompt_facts(core, request)
    assert facts.opens_reasoning(core) == opened
    assert facts.continued == prompt.endswith(final)
    known = {
        (tool.get("function") or tool)["name"]: (tool.get("function") or tool).get("parameters")
        for tool in facts.tools or ()
    }
    assert set(known) == listed
    for name in listed:
        assert known[name] == _schema(name)
