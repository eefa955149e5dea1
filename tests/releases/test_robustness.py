"""Hostile requests, hostile model output and concurrency for each bundled formatter.

The requests and outputs are in the release's syntax: a cited answer for the releases
with citations (3.x), JSON tool-call blocks for 4.0 and 4.1.
"""

from __future__ import annotations

from typing import Any

from support import robustness
from support.release_data import CITED_ANSWER
from support.releases import Release

APPLIES_TO = ("citations", "json-tool-call-blocks")

RAG = {
    "messages": [{"role": "user", "content": "What is the capital of France?"}],
    "documents": [{"doc_id": "1", "text": "Paris is the capital of France."}],
    "tools": [{"name": "lookup", "parameters": {"type": "object"}}],
    "chat_template_kwargs": {"controls": {"citations": True, "hallucinations": True}},
}
TOOLS = {
    "messages": [{"role": "user", "content": "Weather in Paris?"}],
    "tools": [{"name": "get_weather", "parameters": {"type": "object"}}],
    "documents": [{"doc_id": 1, "text": "Paris is in France."}],
}
#: The requests formatted from many threads, by the release's tool-call syntax.
REQUESTS: dict[str, list[dict[str, Any]]] = {
    "json-list-tool-calls": [
        {"messages": [{"role": "user", "content": "Hi"}]},
        {
            "messages": [{"role": "user", "content": "Hi"}],
            "chat_template_kwargs": {"thinking": True},
        },
        RAG,
    ],
    "json-tool-call-blocks": [
        {"messages": [{"role": "user", "content": "Hi"}]},
        {"messages": [{"role": "system", "content": ""}, {"role": "user", "content": "Hi"}]},
        TOOLS,
    ],
}
#: The 4.0/4.1 outputs parsed from many threads, each with its request.
GRANITE4_OUTPUTS = [
    ('<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>', TOOLS),
    ("plain answer", None),
    ('Text <tool_call>{"name": "f", "arguments": "{\\"a\\": 1}"}</tool_call> more', None),
    ("<tool_call>{broken", None),
]


def hostile_output_request(release: Release) -> dict[str, Any]:
    return RAG if release.has("citations") else TOOLS


def outputs(release: Release) -> list[tuple[str, Any]]:
    if release.has("citations"):
        return [
            (CITED_ANSWER[release.version], RAG),
            ("plain answer", None),
            ('<|tool_call|>[{"name": "lookup", "arguments": {}}]', RAG),
        ]
    return GRANITE4_OUTPUTS


def test_hostile_requests_render_or_raise_formatter_errors(release: Release) -> None:
    robustness.check_hostile_requests(release.model)


def test_extreme_requests_are_bounded(release: Release) -> None:
    robustness.check_extreme_requests(release.model)


def test_hostile_outputs_always_parse(release: Release) -> None:
    robustness.check_hostile_outputs(release.model, hostile_output_request(release))


def test_formatting_from_32_threads_matches_serial_runs(release: Release) -> None:
    robustness.check_concurrent_formatting(release.model, REQUESTS[release.tool_call_syntax])


def test_parsing_from_32_threads_matches_serial_runs(release: Release) -> None:
    robustness.check_concurrent_parsing(release.model, outputs(release))
