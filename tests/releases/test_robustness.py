"""Hostile requests, hostile model output and concurrency for each Granite 3 formatter."""

from __future__ import annotations

from support import robustness
from support.release_data import CITED_ANSWER
from support.releases import Release

APPLIES_TO = "citations"
RAG = {
    "messages": [{"role": "user", "content": "What is the capital of France?"}],
    "documents": [{"doc_id": "1", "text": "Paris is the capital of France."}],
    "tools": [{"name": "lookup", "parameters": {"type": "object"}}],
    "chat_template_kwargs": {"controls": {"citations": True, "hallucinations": True}},
}
REQUESTS = [
    {"messages": [{"role": "user", "content": "Hi"}]},
    {"messages": [{"role": "user", "content": "Hi"}], "chat_template_kwargs": {"thinking": True}},
    RAG,
]


def test_hostile_requests_render_or_raise_formatter_errors(release: Release) -> None:
    robustness.check_hostile_requests(release.model)


def test_extreme_requests_are_bounded(release: Release) -> None:
    robustness.check_extreme_requests(release.model)


def test_hostile_outputs_always_parse(release: Release) -> None:
    robustness.check_hostile_outputs(release.model, RAG)


def test_formatting_from_32_threads_matches_serial_runs(release: Release) -> None:
    robustness.check_concurrent_formatting(release.model, REQUESTS)


def test_parsing_from_32_threads_matches_serial_runs(release: Release) -> None:
    robustness.check_concurrent_parsing(
        release.model,
        [
            (CITED_ANSWER[release.version], RAG),
            ("plain answer", None),
            ('<|tool_call|>[{"name": "lookup", "arguments": {}}]', RAG),
        ],
    )
