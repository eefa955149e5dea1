"""Test support: real tool-call outputs in ``<tool_call>`` JSON blocks (Granite 4.0/4.1),
from public test suites (sources named at each sample)."""

from __future__ import annotations

import json

# llama.cpp, tests/test-chat.cpp (PR ggml-org/llama.cpp#20686, "add Granite 4 template to
# autoparser test suite"): the tool-call output of the Granite 4.0 template test.
LLAMA_CPP_SAMPLE = (
    '<tool_call>\n{"name": "special_function", "arguments": {"arg1": 1}}\n</tool_call>'
)

# vLLM, tests/tool_parsers/test_granite4_tool_parser.py (test_tool_call_parser_complex,
# model ibm-granite/granite-4.0-h-tiny): prose interleaved with blocks written as
# "<tool_call> " + json.dumps(call) + " </tool_call>", arguments given as a JSON string
# ("test granite behavior").
COORDS = {"coordinates": [[23.54, 43.1], [-12.2, 54.3], [4, 5]], "coordinate_type": "latlong"}
STOCK = {"symbol": "AAPL", "start_date": "2021-01-01", "end_date": "2021-12-31"}
_VLLM_CALLS = [
    {"name": "find_bbox", "arguments": json.dumps(COORDS)},
    {"name": "get_stock_price", "arguments": STOCK},
    {"name": "find_bbox", "arguments": json.dumps(COORDS)},
]
_VLLM_TEXT = [
    "Here goes the bbox call: \n",
    " Now the stock price call: \n ",
    " Now another bbox call: \n ",
    " See? I'm a helpful assistant.",
]
VLLM_SAMPLE = "".join(
    text + ("<tool_call> " + json.dumps(call) + " </tool_call>" if i < 3 else "")
    for i, (text, call) in enumerate(zip(_VLLM_TEXT, [*_VLLM_CALLS, {}], strict=True))
)

# A C++ agent project's regression test for ggml-org/llama.cpp#18675 (tool calls returned
# as raw text), parsing a Granite 4.0 (ibm-granite-granite-4.0.jinja) response.
AGENT_CPP_SAMPLE = (
    '<tool_call>\n{"name": "calculator", "arguments": {"a": 3, "b": 4, "operation": "add"}}'
    "\n</tool_call>"
)
