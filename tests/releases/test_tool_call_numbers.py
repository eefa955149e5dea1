"""Numbers in tool-call arguments, in every release: an integer of any length never
makes a parser raise, and ``NaN``, ``Infinity``, ``1e999`` and integers past Python's
int-string limit stay their text (a string, with a note), so arguments are always valid
JSON (``json.dumps(arguments, allow_nan=False)``), batch and streamed alike."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from granite_formatters import get_formatter
from granite_formatters._toolcalljson import NUMBERS_KEPT

from support.releases import Release

KINDS = {"n": {"type": "number"}, "i": {"type": "integer"}, "o": {"type": "object"}}
TOOLS = [{"type": "function", "function": {"name": "f", "parameters": {"properties": KINDS}}}]
REQUEST: dict[str, Any] = {
    "messages": [{"role": "user", "content": "?"}],
    "tools": TOOLS,
    "chat_template_kwargs": {"enable_thinking": False},
}
LONG = "9" * 5000


def _output(release: Release, arguments: dict[str, str]) -> str:
    """A call of ``f`` with ``arguments`` (key: the value's JSON text), as the release's
    model writes it."""
    syntax = release.tool_call_syntax
    if syntax == "xml-tool-calls":
        params = "".join(f"<parameter={k}>\n{v}\n</parameter>\n" for k, v in arguments.items())
        return f"<tool_call>\n<function=f>\n{params}</function>\n</tool_call>"
    body = (
        '{"name": "f", "arguments": {'
        + ", ".join(f'"{k}": {v}' for k, v in arguments.items())
        + "}}"
    )
    if syntax == "json-list-tool-calls":
        return f"<|tool_call|>[{body}]"
    return f"<tool_call>\n{body}\n</tool_call>"


def _parse(release: Release, output: str) -> Any:
    request = REQUEST if release.has("opened-think") else {**REQUEST, "chat_template_kwargs": {}}
    return get_formatter(release.model).parse(output, request)


def test_numbers_json_cannot_carry_stay_text(release: Release) -> None:
    arguments = {"n": "NaN", "i": LONG, "o": '{"a": [Infinity, -Infinity, 1e999, 1.5]}'}
    message = _parse(release, _output(release, arguments))
    (call,) = message.tool_calls
    assert call.arguments == {
        "n": "NaN",
        "i": LONG,
        "o": {"a": ["Infinity", "-Infinity", "1e999", 1.5]},
    }
    json.dumps(call.arguments, allow_nan=False)
    if release.tool_call_syntax == "xml-tool-calls":
        assert message.notes == [
            "tool call 0 ('f'): the value of 'n' is not of type 'number'; kept as text",
            "tool call 0 ('f'): the value of 'i' has too many digits to be read as a number; "
            "kept as text",
            f"tool call 0 ('f'): the value of 'o' is read, but its {NUMBERS_KEPT}",
        ]
    else:
        assert message.notes == [f"the tool-call JSON: {NUMBERS_KEPT}"]


def test_arguments_given_as_a_json_string_too(release: Release) -> None:
    if release.tool_call_syntax == "xml-tool-calls":
        return  # (XML values are not JSON strings)
    inner = json.dumps('{"x": NaN, "y": ' + LONG + "}")
    syntax = release.tool_call_syntax
    body = '{"name": "f", "arguments": ' + inner + "}"
    output = (
        f"<|tool_call|>[{body}]"
        if syntax == "json-list-tool-calls"
        else (f"<tool_call>\n{body}\n</tool_call>")
    )
    message = _parse(release, output)
    (call,) = message.tool_calls
    assert call.arguments == {"x": "NaN", "y": LONG}
    assert any(NUMBERS_KEPT in note for note in message.notes)


NUMBERS = st.sampled_from(
    ["NaN", "Infinity", "-Infinity", "1e999", "-1E+400", "1e-999", LONG, "-" + LONG, "1.5", "0",
     "-7", "123456789012345678901234567890", "2.5e10"]
)  # fmt: skip


@given(
    numbers=st.lists(NUMBERS, min_size=1, max_size=4),
    nested=st.booleans(),
    data=st.data(),
)
def test_arguments_are_always_strict_json_batch_and_streamed(
    release: Release, numbers: list[str], nested: bool, data: st.DataObject
) -> None:
    value = '{"a": [' + ", ".join(numbers) + "]}" if nested else numbers[0]
    arguments = {("o" if nested else data.draw(st.sampled_from(["n", "i"]))): value}
    output = _output(release, arguments)
    batch = _parse(release, output)
    assert len(batch.tool_calls) == 1
    for call in batch.tool_calls:
        json.dumps(call.arguments, allow_nan=False)
        json.loads(call.to_openai()["function"]["arguments"])
    cuts = sorted(data.draw(st.lists(st.integers(0, len(output)), max_size=6)))
    request = REQUEST if release.has("opened-think") else {**REQUEST, "chat_template_kwargs": {}}
    parser = get_formatter(release.model).stream_parser(request)
    for start, end in zip([0, *cuts], [*cuts, len(output)], strict=True):
        parser.feed(output[start:end])
    parser.close()
    assert parser.message is not None
    assert [(c.name, c.arguments) for c in parser.message.tool_calls] == [
        (c.name, c.arguments) for c in batch.tool_calls
    ]
    assert parser.message.notes == batch.notes
