"""Public test cases of other parsers of the same XML tool-call format, ported to
Granite 4.2 (facts only: each case's input and the peer's expected value).

Each row names its source, the peer's expected value and ours; where they differ,
``docs/granite42.md`` ("Cases from other parsers") says why. Sources:

- ``ollama-value``: Ollama ``model/parsers/qwen3coder_test.go``, ``TestQwenToolCallValueParsing``
  (a value and the parameter's JSON schema type list);
- ``ollama-call``: the same file, ``TestQwenToolParser`` (whole ``<function=…>`` elements);
- ``vllm``: vLLM ``tests/tool_parsers/test_qwen3_xml_coder_shared.py`` (whole outputs);
- ``sglang``: SGLang ``test/srt/function_call/test_qwen3_coder_detector.py``
  (``test_full_parse``: a call without ``</function>``);
- ``llama.cpp``: Qwen3-Coder inputs of a llama.cpp parser-comparison test
  (``test_qwen3_coder_comparison``, from a stored copy that does not name its
  repository: llama.cpp or a fork). That test checks its two parsers agree, so the
  expected message here is the plain reading of the input: the prose, then the call.
- ``llama.cpp test-chat``: the Qwen3-Coder block of llama.cpp's ``tests/test-chat.cpp``
  (``peg_tester("models/templates/Qwen3-Coder.jinja")``, from a stored copy that does not
  name its repository); the tools' schemas are those its expected arguments imply.
"""

from __future__ import annotations

from typing import Any

import pytest

from granite_formatters import get_formatter
from granite_formatters.syntax import XML_FUNCTIONS

SAME = object()  # (ours is the peer's value)
NOTE = "note"  # (ours keeps the text, with a note)

# (source, case, type list (None: no type), raw value, the peer's value, ours)
VALUES: list[tuple[str, str, list[str] | None, str, Any, Any]] = [
    ("ollama-value", "default string value", None, "some-string", "some-string", SAME),
    ("ollama-value", "numeric type", ["number"], "123", 123, SAME),
    ("ollama-value", "integer type", ["integer"], "42", 42, SAME),
    ("ollama-value", "negative integer", ["integer"], "-100", -100, SAME),
    ("ollama-value", "zero integer", ["integer"], "0", 0, SAME),
    ("ollama-value", "integer with leading zeros", ["integer"], "007", 7, NOTE),
    ("ollama-value", "large integer", ["integer"], "2147483648", 2147483648, SAME),
    ("ollama-value", "float type", ["number"], "3.14", 3.14, SAME),
    ("ollama-value", "negative float", ["number"], "-273.15", -273.15, SAME),
    ("ollama-value", "float without decimal part", ["number"], "100.0", 100, SAME),
    ("ollama-value", "scientific notation positive", ["number"], "1.23e5", 123000, SAME),
    ("ollama-value", "scientific notation negative", ["number"], "1.5e-3", 0.0015, SAME),
    ("ollama-value", "very small float", ["number"], "0.00000001", 0.00000001, SAME),
    ("ollama-value", "explicit string type", ["string"], "hello world", "hello world", SAME),
    ("ollama-value", "string with special characters", ["string"],
     "/usr/local/bin/test-file_v2.0.sh", "/usr/local/bin/test-file_v2.0.sh", SAME),
    ("ollama-value", "string with quotes", ["string"], 'He said "hello" to me',
     'He said "hello" to me', SAME),
    ("ollama-value", "multiline string", ["string"], "line one\nline two", "line one\nline two",
     SAME),
    ("ollama-value", "empty string", ["string"], "", "", SAME),
    ("ollama-value", "string that looks like a number", ["string"], "12345", "12345", SAME),
    ("ollama-value", "boolean true", ["boolean"], "true", True, SAME),
    ("ollama-value", "boolean false", ["boolean"], "false", False, SAME),
    ("ollama-value", "boolean case insensitive true", ["boolean"], "True", True, SAME),
    ("ollama-value", "boolean case insensitive false", ["boolean"], "FALSE", False, SAME),
    ("ollama-value", "null value lowercase", ["string"], "null", None, "null"),
    ("ollama-value", "null value case insensitive", ["integer"], "NULL", None, NOTE),
    ("ollama-value", "array of strings", ["array"], '["foo", "bar", "baz"]',
     ["foo", "bar", "baz"], SAME),
    ("ollama-value", "array of numbers", ["array"], "[1, 2.5, 3]", [1, 2.5, 3], SAME),
    ("ollama-value", "array of mixed types", ["array"], '["string", 123, true, null]',
     ["string", 123, True, None], SAME),
    ("ollama-value", "empty array", ["array"], "[]", [], SAME),
    ("ollama-value", "simple object", ["object"], '{"key": "value", "number": 42}',
     {"key": "value", "number": 42}, SAME),
    ("ollama-value", "nested object", ["object"], '{"outer": {"inner": "value"}}',
     {"outer": {"inner": "value"}}, SAME),
    ("ollama-value", "empty object", ["object"], "{}", {}, SAME),
    ("ollama-value", "invalid integer falls back to string", ["integer"], "not-a-number",
     "not-a-number", NOTE),
    ("ollama-value", "invalid float falls back to string", ["number"], "3.14.159", "3.14.159",
     NOTE),
    ("ollama-value", "invalid boolean falls back to false", ["boolean"], "yes", False, NOTE),
    ("ollama-value", "invalid JSON array falls back to string", ["array"], "[1, 2, unclosed",
     "[1, 2, unclosed", NOTE),
    ("ollama-value", "invalid JSON object falls back to string", ["object"], '{"key": unclosed',
     '{"key": unclosed', NOTE),
    ("ollama-value", "float with many decimal places", ["number"], "3.141592653589793",
     3.141592653589793, SAME),
    ("ollama-value", "string with JSON-like content", ["string"], '{"this": "is"}',
     '{"this": "is"}', SAME),
    ("ollama-value", "whitespace-only string", ["string"], "   ", "   ", SAME),
    ("ollama-value", "string or number union - valid number", ["string", "number"], "42.5",
     42.5, "42.5"),
    ("ollama-value", "string or number union - non-numeric string", ["string", "number"],
     "hello", "hello", SAME),
    ("ollama-value", "number or string union - valid number", ["number", "string"], "42.5",
     42.5, SAME),
    ("ollama-value", "integer or null union - valid integer", ["integer", "null"], "123", 123,
     SAME),
    ("ollama-value", "integer or null union - null value", ["integer", "null"], "null", None,
     SAME),
    ("ollama-value", "null or integer union - null value", ["null", "integer"], "null", None,
     SAME),
    ("ollama-value", "boolean or string union - valid boolean", ["boolean", "string"], "true",
     True, SAME),
    ("ollama-value", "boolean or string union - non-boolean", ["boolean", "string"], "yes",
     "yes", SAME),
    ("ollama-value", "string or boolean union - valid boolean", ["string", "boolean"], "false",
     False, "false"),
    ("ollama-value", "integer or number union - integer value", ["integer", "number"], "42", 42,
     SAME),
    ("ollama-value", "integer or number union - float value", ["integer", "number"], "42.5",
     42.5, SAME),
    ("ollama-value", "number or integer union - integer value", ["number", "integer"], "42", 42,
     SAME),
    ("ollama-value", "array or object union - valid array", ["array", "object"], "[1, 2, 3]",
     [1, 2, 3], SAME),
    ("ollama-value", "array or object union - valid object", ["array", "object"],
     '{"key": "value"}', {"key": "value"}, SAME),
    ("ollama-value", "object or array union - valid array", ["object", "array"], "[1, 2, 3]",
     [1, 2, 3], SAME),
    ("ollama-value", "complex multi-type union - null", ["string", "number", "boolean", "null"],
     "null", None, SAME),
    ("ollama-value", "complex multi-type union - boolean",
     ["string", "number", "boolean", "null"], "true", True, "true"),
    ("ollama-value", "complex multi-type union - number",
     ["string", "number", "boolean", "null"], "3.14", 3.14, "3.14"),
    ("ollama-value", "complex multi-type union - string",
     ["string", "number", "boolean", "null"], "hello", "hello", SAME),
    ("ollama-value", "integer string union", ["integer", "string"], "123", 123, SAME),
    ("ollama-value", "string integer union", ["string", "integer"], "123", 123, "123"),
    ("ollama-value", "anyOf array or string - with array of objects", ["array", "string"],
     '[{"content": "task 1", "id": "1"}]', [{"content": "task 1", "id": "1"}], SAME),
    ("ollama-value", "anyOf array or string - with plain string", ["array", "string"],
     "Error: could not load data", "Error: could not load data", SAME),
    ("vllm", "type conversion: float alias", ["float"], "3.14", 3.14, SAME),
    ("vllm", "complex type with single quote", ["object"], "{'key': 'value'}",
     {"key": "value"}, NOTE),
]  # fmt: skip


def _read(kinds: list[str] | None, raw: str) -> tuple[Any, list[str]]:
    schema: dict[str, Any] = {} if kinds is None else {"type": kinds}
    tools = [{"name": "f", "parameters": {"properties": {"p": schema}}}]
    notes: list[str] = []
    body = f"<function=f>\n<parameter=p>\n{raw}\n</parameter>\n</function>"
    calls = XML_FUNCTIONS.decode(body, 0, notes, lambda: "id", tools)
    assert not isinstance(calls, str)
    return calls[0].arguments["p"], notes


@pytest.mark.parametrize(
    ("source", "case", "kinds", "raw", "peer", "ours"),
    VALUES,
    ids=[f"{row[0]}: {row[1]}" for row in VALUES],
)
def test_value_cases(
    source: str, case: str, kinds: list[str] | None, raw: str, peer: Any, ours: Any
) -> None:
    del source, case
    value, notes = _read(kinds, raw)
    if ours is NOTE:
        assert (value, len(notes)) == (raw, 1)
    else:
        assert (value, notes) == (peer if ours is SAME else ours, [])


WEATHER = {
    "name": "get_current_weather",
    "parameters": {
        "properties": {
            "city": {"type": "string"},
            "state": {"type": "string"},
            "unit": {"type": "string", "enum": ["fahrenheit", "celsius"]},
        }
    },
}
AREA = {
    "name": "calculate_area",
    "parameters": {
        "properties": {
            "shape": {"type": "string"},
            "dimensions": {"type": "object"},
            "precision": {"type": "integer"},
        }
    },
}
CALCULATE = {
    "name": "calculate",
    "parameters": {
        "properties": {
            "x": {"type": "number"},
            "y": {"type": "integer"},
            "enabled": {"type": "boolean"},
            "items": {"type": "array"},
        }
    },
}


def _weather(city: str, state: str) -> str:
    return (
        f"<tool_call>\n<function=get_current_weather>\n<parameter=city>\n{city}\n</parameter>\n"
        f"<parameter=state>\n{state}\n</parameter>\n<parameter=unit>\nfahrenheit\n</parameter>\n"
        "</function>\n</tool_call>"
    )


def _tool(tool: str, /, **properties: dict[str, Any]) -> dict[str, Any]:
    return {"name": tool, "parameters": {"type": "object", "properties": properties}}


INT: dict[str, Any] = {"type": "integer"}
TEXT: dict[str, Any] = {"type": "string"}
SPECIAL = _tool("special_function", arg1=INT)
SPECIAL_OPT = _tool("special_function_with_opt", arg1=INT, arg2=INT)
PYTHON = _tool("python", code=TEXT)
HTML = _tool("html", markup=TEXT)
TODO = _tool("todo_list", todos={"type": "array"})
REQ2_OPT4 = _tool("tool_2req_4opt", req1=TEXT, req2=INT, opt1=TEXT, opt2=INT, opt3=TEXT, opt4=INT)
REQ2_OPT5 = _tool(
    "tool_2req_5opt", req1=TEXT, req2=INT, opt1=TEXT, opt2=INT, opt3=TEXT, opt4=INT, opt5=TEXT
)
NULLABLE_TEXT = _tool("set_nullable_str", name={"type": ["string", "null"]})
NULLABLE_TEXT_NULL_FIRST = _tool("set_nullable_str_nf", name={"type": ["null", "string"]})
NULLABLE_INT = _tool("set_nullable_int", count={"type": ["integer", "null"]})
ENUM_NO_TYPE = _tool("set_unit", unit={"enum": ["celsius", "fahrenheit"]})


def _call(name: str, *parameters: tuple[str, str]) -> str:
    inner = "".join(f"<parameter={key}>\n{value}\n</parameter>\n" for key, value in parameters)
    return f"<tool_call>\n<function={name}>\n{inner}</function>\n</tool_call>"


# (source, case, output, tools, the peer's content, the peer's calls, ours: SAME or
# (content, calls))
OUTPUTS: list[tuple[str, str, str, list[Any], str, list[Any], Any]] = [
    ("vllm", "single_tool", _weather("Dallas", "TX"), [WEATHER], "",
     [("get_current_weather", {"city": "Dallas", "state": "TX", "unit": "fahrenheit"})], SAME),
    ("vllm", "single_tool_with_content",
     "Sure! Let me check the weather for you." + _weather("Dallas", "TX"), [WEATHER],
     "Sure! Let me check the weather for you.",
     [("get_current_weather", {"city": "Dallas", "state": "TX", "unit": "fahrenheit"})], SAME),
    ("vllm", "single_tool_multiline_param",
     "<tool_call>\n<function=calculate_area>\n<parameter=shape>\nrectangle\n</parameter>\n"
     '<parameter=dimensions>\n{"width": 10,\n "height": 20}\n</parameter>\n'
     "<parameter=precision>\n2\n</parameter>\n</function>\n</tool_call>", [AREA], "",
     [("calculate_area", {"shape": "rectangle", "dimensions": {"width": 10, "height": 20},
                          "precision": 2})], SAME),
    ("vllm", "parallel_tools", _weather("Dallas", "TX") + "\n" + _weather("Orlando", "FL"),
     [WEATHER], "",
     [("get_current_weather", {"city": "Dallas", "state": "TX", "unit": "fahrenheit"}),
      ("get_current_weather", {"city": "Orlando", "state": "FL", "unit": "fahrenheit"})], SAME),
    ("vllm", "fallback_no_tags",
     "<function=get_current_weather>\n<parameter=city>\nDallas\n</parameter>\n"
     "<parameter=state>\nTX\n</parameter>\n</function>", [WEATHER], "",
     [("get_current_weather", {"city": "Dallas", "state": "TX"})],
     ("<function=get_current_weather>\n<parameter=city>\nDallas\n</parameter>\n"
      "<parameter=state>\nTX\n</parameter>\n</function>", [])),
    ("ollama-call", "simple tool call",
     "<tool_call>\n<function=get_current_temperature>\n<parameter=location>\nSan Francisco\n"
     "</parameter>\n<parameter=unit>\ncelsius\n</parameter>\n</function>\n</tool_call>", [], "",
     [("get_current_temperature", {"location": "San Francisco", "unit": "celsius"})], SAME),
    ("ollama-call", "names with spaces",
     "<tool_call>\n<function=get current temperature>\n<parameter=location with spaces>\n"
     "San Francisco\n</parameter>\n</function>\n</tool_call>", [], "",
     [("get current temperature", {"location with spaces": "San Francisco"})], SAME),
    ("ollama-call", "names with quotes",
     '<tool_call>\n<function="get current temperature">\n<parameter="unit with spaces">\n'
     '"celsius"\n</parameter>\n</function>\n</tool_call>', [], "",
     [('"get current temperature"', {'"unit with spaces"': '"celsius"'})], SAME),
    ("ollama-call", "tool call with typed parameters",
     "<tool_call>\n<function=calculate>\n<parameter=x>\n3.14\n</parameter>\n<parameter=y>\n42\n"
     "</parameter>\n<parameter=enabled>\ntrue\n</parameter>\n<parameter=items>\n"
     '["a", "b", "c"]\n</parameter>\n</function>\n</tool_call>', [CALCULATE], "",
     [("calculate", {"x": 3.14, "y": 42, "enabled": True, "items": ["a", "b", "c"]})], SAME),
    ("ollama-call", "ampersands in parameter values",
     '<tool_call>\n<function=exec>\n<parameter=command>\nls && echo "done"\n</parameter>\n'
     "</function>\n</tool_call>", [], "", [("exec", {"command": 'ls && echo "done"'})], SAME),
    ("ollama-call", "angle brackets in parameter values",
     '<tool_call>\n<function=exec>\n<parameter=command>\nls && echo "a > b and a < b"\n'
     "</parameter>\n</function>\n</tool_call>", [], "",
     [("exec", {"command": 'ls && echo "a > b and a < b"'})], SAME),
    ("ollama-call", "unicode in function names and parameters",
     "<tool_call>\n<function=获取天气>\n<parameter=城市>\n北京\n</parameter>\n"
     "<parameter=message>\nHello! 你好! 🌟 مرحبا\n</parameter>\n</function>\n</tool_call>", [], "",
     [("获取天气", {"城市": "北京", "message": "Hello! 你好! 🌟 مرحبا"})], SAME),
    ("sglang", "full parse",
     "<tool_call><function=get_weather><parameter=city>Shanghai</parameter>"
     "<parameter=unit>celsius</parameter></tool_call>", [], "",
     [("get_weather", {"city": "Shanghai", "unit": "celsius"})], SAME),
    ("llama.cpp", "Qwen3-Coder content only",
     "Let me search the knowledge base for cat pictures.", [],
     "Let me search the knowledge base for cat pictures.", [], SAME),
    ("llama.cpp", "Qwen3-Coder with tool call",
     "Let me search the knowledge base for cat pictures.<tool_call>\n"
     "<function=search_knowledge_base>\n<parameter=query>cat pictures</parameter>\n"
     "<parameter=category>general</parameter>\n</function>\n</tool_call>", [],
     "Let me search the knowledge base for cat pictures.",
     [("search_knowledge_base", {"query": "cat pictures", "category": "general"})], SAME),
    ("llama.cpp test-chat", "content only", "Hello, world!\nWhat's up?", [],
     "Hello, world!\nWhat's up?", [], SAME),
    ("llama.cpp test-chat", "one call", _call("special_function", ("arg1", "1")), [SPECIAL], "",
     [("special_function", {"arg1": 1})], SAME),
    ("llama.cpp test-chat", "parallel calls",
     _call("special_function", ("arg1", "1")) + "\n"
     + _call("special_function_with_opt", ("arg1", "1"), ("arg2", "2")),
     [SPECIAL, SPECIAL_OPT], "",
     [("special_function", {"arg1": 1}), ("special_function_with_opt", {"arg1": 1, "arg2": 2})],
     SAME),
    ("llama.cpp test-chat", "code content (multiline)",
     _call("python", ("code", 'def hello():\n    print("Hello, world!")\n\nhello()')), [PYTHON],
     "", [("python", {"code": 'def hello():\n    print("Hello, world!")\n\nhello()'})], SAME),
    ("llama.cpp test-chat", "code content (asian unicode chars)", _call("python", ("code", "格")),
     [PYTHON], "", [("python", {"code": "格"})], SAME),
    ("llama.cpp test-chat", "HTML tag content",
     _call("html", ("markup", "<html>\n <head>\n  <title>Hello!</title>\n </head>\n</html>")),
     [HTML], "",
     [("html", {"markup": "<html>\n <head>\n  <title>Hello!</title>\n </head>\n</html>"})], SAME),
    ("llama.cpp test-chat", "TODO list (array of objects)",
     _call("todo_list", ("todos", '[{"item": "Check stuff", "selected": false}, '
                                  '{"item": "Prepare stuff", "selected": true}]')),
     [TODO], "",
     [("todo_list", {"todos": [{"item": "Check stuff", "selected": False},
                               {"item": "Prepare stuff", "selected": True}]})], SAME),
    ("llama.cpp test-chat", "optional arguments reversed (2 required, 4 optional)",
     _call("tool_2req_4opt", ("req1", "hello"), ("req2", "42"), ("opt4", "100"), ("opt2", "200")),
     [REQ2_OPT4], "",
     [("tool_2req_4opt", {"req1": "hello", "req2": 42, "opt4": 100, "opt2": 200})], SAME),
    ("llama.cpp test-chat", "optional arguments reversed (2 required, 5 optional)",
     _call("tool_2req_5opt", ("req1", "world"), ("req2", "7"), ("opt5", "last"),
           ("opt3", "middle"), ("opt1", "first")),
     [REQ2_OPT5], "",
     [("tool_2req_5opt", {"req1": "world", "req2": 7, "opt5": "last", "opt3": "middle",
                          "opt1": "first"})], SAME),
    ("llama.cpp test-chat", "optional arguments shuffled (2 required, 5 optional)",
     _call("tool_2req_5opt", ("req1", "test"), ("req2", "99"), ("opt3", "c"), ("opt1", "a"),
           ("opt5", "e"), ("opt4", "4"), ("opt2", "2")),
     [REQ2_OPT5], "",
     [("tool_2req_5opt", {"req1": "test", "req2": 99, "opt3": "c", "opt1": "a", "opt5": "e",
                          "opt4": 4, "opt2": 2})], SAME),
    ("llama.cpp test-chat", "nullable string", _call("set_nullable_str", ("name", "hello world")),
     [NULLABLE_TEXT], "", [("set_nullable_str", {"name": "hello world"})], SAME),
    ("llama.cpp test-chat", "nullable string, null first",
     _call("set_nullable_str_nf", ("name", "hello world")), [NULLABLE_TEXT_NULL_FIRST], "",
     [("set_nullable_str_nf", {"name": "hello world"})], SAME),
    ("llama.cpp test-chat", "nullable integer", _call("set_nullable_int", ("count", "42")),
     [NULLABLE_INT], "", [("set_nullable_int", {"count": 42})], SAME),
    ("llama.cpp test-chat", "enum without a type", _call("set_unit", ("unit", "celsius")),
     [ENUM_NO_TYPE], "", [("set_unit", {"unit": "celsius"})], SAME),
]  # fmt: skip


@pytest.mark.parametrize(
    ("source", "case", "output", "tools", "content", "calls", "ours"),
    OUTPUTS,
    ids=[f"{row[0]}: {row[1]}" for row in OUTPUTS],
)
def test_output_cases(
    source: str,
    case: str,
    output: str,
    tools: list[Any],
    content: str,
    calls: list[Any],
    ours: Any,
) -> None:
    del source, case
    request: dict[str, Any] = {
        "messages": [{"role": "user", "content": "?"}],
        "chat_template_kwargs": {"enable_thinking": False},
    }
    if tools:
        request["tools"] = tools
    message = get_formatter("granite-4.2-8b").parse(output, request)
    got = (message.content, [(call.name, call.arguments) for call in message.tool_calls])
    assert got == ((content, calls) if ours is SAME else ours)


def test_how_many_cases_agree() -> None:
    """The counts docs/granite42.md gives ("Cases from other parsers")."""
    # (A value kept as text with a note agrees when the peer keeps the text too.)
    agree = [ours is SAME or (ours is NOTE and peer == raw) for *_, raw, peer, ours in VALUES]
    agree += [ours is SAME for *_, ours in OUTPUTS]
    assert (len(agree), sum(agree)) == (94, 83)
