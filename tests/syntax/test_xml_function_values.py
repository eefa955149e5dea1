"""XML function/parameter tool calls (``XML_FUNCTIONS``): values typed by ``anyOf``,
``oneOf``, type lists and ``nullable`` (as vLLM's qwen3_coder reader types them); values
holding tool-call markup; numbers JSON cannot carry; the schema map read once."""

from __future__ import annotations

import json
from typing import Any

import pytest

from granite_formatters._toolcalljson import NUMBERS_KEPT
from granite_formatters.syntax import XML_FUNCTIONS
from granite_formatters.syntax import _xml_functions as xml_functions


def _decode(body: str, tools: Any) -> tuple[Any, list[str]]:
    notes: list[str] = []
    ids = iter(range(100))
    result = XML_FUNCTIONS.decode(body, 0, notes, lambda: f"call_{next(ids)}", tools)
    if isinstance(result, str):
        return result, notes
    return [(call.name, call.arguments) for call in result], notes


def _tool(schema: Any) -> list[dict[str, Any]]:
    return [{"name": "f", "parameters": {"type": "object", "properties": {"p": schema}}}]


def _one(schema: Any, text: str) -> tuple[Any, list[str]]:
    calls, notes = _decode(
        f"<function=f>\n<parameter=p>\n{text}\n</parameter>\n</function>", _tool(schema)
    )
    assert isinstance(calls, list)
    return calls[0][1]["p"], notes


OPTIONAL_INT = {"anyOf": [{"type": "integer"}, {"type": "null"}]}


@pytest.mark.parametrize(
    ("schema", "text", "value"),
    [
        # What pydantic writes for Optional[int], Optional[list[str]], unions.
        (OPTIONAL_INT, "5", 5),
        (OPTIONAL_INT, "null", None),
        (OPTIONAL_INT, "None", None),
        (OPTIONAL_INT, "NULL", None),
        ({"oneOf": [{"type": "integer"}, {"type": "null"}]}, "7", 7),
        (
            {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}]},
            '["a"]',
            ["a"],
        ),
        ({"anyOf": [{"type": "object"}, {"type": "null"}]}, '{"a": 1}', {"a": 1}),
        ({"anyOf": [{"anyOf": [{"type": "number"}]}, {"type": "null"}]}, "2.5", 2.5),
        # nullable (OpenAPI) and type lists, tried in the order declared.
        ({"type": "integer", "nullable": True}, "None", None),
        ({"type": ["integer", "string"]}, "5", 5),
        ({"type": ["integer", "string"]}, "five", "five"),
        ({"type": ["string", "integer"]}, "5", "5"),
        ({"type": ["boolean", "integer"]}, "3", 3),
        ({"type": ["string", "null"]}, "null", None),
        # Not nullable: the text stays (a string parameter may read "null").
        ({"type": "string"}, "null", "null"),
        ({"type": "string"}, "None", "None"),
        # vLLM's type aliases.
        ({"type": "float"}, "3.14", 3.14),
        ({"type": "int"}, "42", 42),
        ({"type": "bool"}, "FALSE", False),
        ({"type": "dict"}, "{}", {}),
        # A $ref: an object or an array when it reads as one, else the text.
        ({"$ref": "#/$defs/Where"}, '{"lat": 1}', {"lat": 1}),
        ({"$ref": "#/$defs/Kind"}, "fast", "fast"),
        # A branch that admits anything: the text.
        ({"anyOf": [{"type": "integer"}, {}]}, "5", "5"),
        ({"type": "mystery"}, "5", "5"),
    ],
)
def test_values_are_typed_by_any_of_one_of_type_lists_and_nullable(
    schema: Any, text: str, value: Any
) -> None:
    assert _one(schema, text) == (value, [])


@pytest.mark.parametrize(
    ("schema", "text", "problem"),
    [
        (OPTIONAL_INT, "five", "is not of type 'integer' or 'null'; kept as text"),
        ({"type": "integer"}, "null", "is not of type 'integer'; kept as text"),
        ({"type": "boolean"}, "yes", "is not of type 'boolean'; kept as text"),
    ],
)
def test_a_value_that_fits_none_of_its_types_stays_text(
    schema: Any, text: str, problem: str
) -> None:
    assert _one(schema, text) == (text, [f"tool call 0 ('f'): the value of 'p' {problem}"])


# --------------------------------------------------------------------------- numbers


@pytest.mark.parametrize(
    ("schema", "text", "problem"),
    [
        (
            {"type": "integer"},
            "9" * 5000,
            "has too many digits to be read as a number; kept as text",
        ),
        (
            {"type": "number"},
            "9" * 5000,
            "has too many digits to be read as a number; kept as text",
        ),
        (
            OPTIONAL_INT,
            "-" + "1" * 4301,
            "has too many digits to be read as a number; kept as text",
        ),
        ({"type": "number"}, "1e999", "is out of the range of a JSON number; kept as text"),
        ({"type": "number"}, "-1E400", "is out of the range of a JSON number; kept as text"),
        ({"type": "number"}, "NaN", "is not of type 'number'; kept as text"),
        ({"type": "number"}, "Infinity", "is not of type 'number'; kept as text"),
    ],
)
def test_numbers_json_cannot_carry_stay_text(schema: Any, text: str, problem: str) -> None:
    assert _one(schema, text) == (text, [f"tool call 0 ('f'): the value of 'p' {problem}"])


def test_numbers_inside_objects_that_json_cannot_carry_stay_text() -> None:
    text = '{"a": NaN, "b": [Infinity, -Infinity, 1e999, 1.5], "c": ' + "7" * 4400 + "}"
    value, notes = _one({"type": "object"}, text)
    assert value == {"a": "NaN", "b": ["Infinity", "-Infinity", "1e999", 1.5], "c": "7" * 4400}
    assert notes == [f"tool call 0 ('f'): the value of 'p' is read, but its {NUMBERS_KEPT}"]
    json.dumps(value, allow_nan=False)


# --------------------------------------------------------------------------- markup in values

WRITE_FILE = [
    {
        "type": "function",
        "function": {
            "name": "write_file",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
                "required": ["path", "content"],
            },
        },
    }
]
WEATHER = [
    {
        "type": "function",
        "function": {
            "name": "get_current_weather",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "state": {"type": "string"}},
                "required": ["city", "state"],
            },
        },
    }
]
UNCLOSED = (
    "<function=get_current_weather>\n<parameter=city>\nDallas\n<parameter=state>\nTX\n"
    "</parameter>\n</function>"
)


def test_a_missing_closing_parameter_tag_is_recovered_by_the_schema() -> None:
    assert _decode(UNCLOSED, WEATHER) == (
        [("get_current_weather", {"city": "Dallas", "state": "TX"})],
        [
            "tool call 0 ('get_current_weather'): <parameter=city> has no </parameter>; "
            "it ends where <parameter=state> starts"
        ],
    )


REFUSED = (
    "the value of {} holds <parameter=…> before its </parameter>: a </parameter> left "
    "out, or tool-call markup inside a value"
)


@pytest.mark.parametrize(
    ("body", "tools", "key"),
    [
        # Without a schema, or naming no parameter of it: no call.
        (UNCLOSED, None, "'city'"),
        (UNCLOSED.replace("state>", "zip>"), WEATHER, "'city'"),
        # A value holding a whole tool call (a file an agent writes): no call.
        (
            "<function=write_file>\n<parameter=path>\nfixture.py\n</parameter>\n"
            '<parameter=content>\nEXAMPLE = """<tool_call>\n<function=write_file>\n'
            "<parameter=content>\nhello\n</parameter>\n</function>",
            WRITE_FILE,
            "'content'",
        ),
    ],
)
def test_an_unclosed_or_marked_up_value_gives_no_call(body: str, tools: Any, key: str) -> None:
    assert _decode(body, tools) == (REFUSED.format(key), [])


@pytest.mark.parametrize(
    ("value", "read"),
    [
        ("a</parameter>b", "a</parameter>b"),
        ("x\n</parameter>\nmore", "x\n</parameter>\nmore"),
        ("<function=g>\n</function>", "<function=g>\n</function>"),
        ("</parameter> </func", "</parameter> </func"),
        ("</parameter>\n</tool_callx", "</parameter>\n</tool_callx"),
    ],
)
def test_a_closing_parameter_tag_not_followed_by_a_tag_is_part_of_the_value(
    value: str, read: str
) -> None:
    body = f"<function=write_file>\n<parameter=content>\n{value}\n</parameter>\n</function>"
    end = xml_functions.XmlBlockReader().scan(body + "\n")
    assert end == len(body)
    assert _decode(body, WRITE_FILE) == ([("write_file", {"content": read})], [])


# --------------------------------------------------------------------------- schema map


def test_the_schema_map_is_built_once_per_output(monkeypatch: pytest.MonkeyPatch) -> None:
    from granite_formatters import get_formatter

    built: list[int] = []
    original = xml_functions._properties

    def counted(tools: Any) -> Any:
        built.append(len(tools or ()))
        return original(tools)

    monkeypatch.setattr(xml_functions, "_properties", counted)
    tools = WEATHER + [{"name": f"t{i}", "parameters": {"properties": {}}} for i in range(200)]
    call = (
        "<tool_call>\n<function=get_current_weather>\n<parameter=city>\nDallas\n</parameter>\n"
        "</function>\n</tool_call>\n"
    )
    request = {"messages": [{"role": "user", "content": "?"}], "tools": tools}
    formatter = get_formatter("granite-4.2-8b")
    message = formatter.parse("ok</think>\n" + call * 50, request)
    assert len(message.tool_calls) == 50
    assert built == [201]
    parser = formatter.stream_parser(request)
    for piece in "ok</think>\n" + call * 20:
        parser.feed(piece)
    parser.close()
    assert built == [201, 201]


def test_a_close_marker_where_the_function_end_was_due_ends_the_element() -> None:
    body = "<function=f>\n<parameter=a>\n1\n</parameter>\n</tool_call>"
    reader = xml_functions.XmlBlockReader()
    assert (reader.scan(body + "\nmore"), reader.closed) == (len(body), True)
    chunked = xml_functions.XmlBlockReader()
    assert [chunked.scan(body[:-5]), chunked.scan(body[-5:])] == [None, 5]
    assert chunked.closed
    assert _decode(body, None) == (
        [("f", {"a": "1"})],
        ["tool call 0 ('f'): </tool_call> came where </function> was due"],
    )
