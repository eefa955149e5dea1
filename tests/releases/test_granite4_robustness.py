"""Hostile requests, hostile model output and concurrency for the Granite 4 formatters."""

from __future__ import annotations

from support import robustness

MODELS = ["granite-4.0-h-small", "granite-4.1-8b"]
TOOLS = {
    "messages": [{"role": "user", "content": "Weather in Paris?"}],
    "tools": [{"name": "get_weather", "parameters": {"type": "object"}}],
    "documents": [{"doc_id": 1, "text": "Paris is in France."}],
}
REQUESTS = [
    {"messages": [{"role": "user", "content": "Hi"}]},
    {"messages": [{"role": "system", "content": ""}, {"role": "user", "content": "Hi"}]},
    TOOLS,
]
OUTPUTS = [
    ('<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>', TOOLS),
    ("plain answer", None),
    ('Text <tool_call>{"name": "f", "arguments": "{\\"a\\": 1}"}</tool_call> more', None),
    ("<tool_call>{broken", None),
]


def test_hostile_requests_render_or_raise_formatter_errors() -> None:
    for model in MODELS:
        robustness.check_hostile_requests(model)


def test_extreme_requests_are_bounded() -> None:
    for model in MODELS:
        robustness.check_extreme_requests(model)


def test_hostile_outputs_always_parse() -> None:
    robustness.check_hostile_outputs(MODELS[0], TOOLS)


def test_formatting_from_32_threads_matches_serial_runs() -> None:
    for model in MODELS:
        robustness.check_concurrent_formatting(model, REQUESTS)


def test_parsing_from_32_threads_matches_serial_runs() -> None:
    robustness.check_concurrent_parsing(MODELS[0], OUTPUTS)
