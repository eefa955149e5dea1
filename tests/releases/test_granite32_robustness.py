"""Hostile requests, hostile model output and concurrency for the Granite 3.2 formatter."""

from __future__ import annotations

from support import robustness

MODEL = "granite-3.2-8b-instruct"
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


def test_hostile_requests_render_or_raise_formatter_errors() -> None:
    robustness.check_hostile_requests(MODEL)


def test_extreme_requests_are_bounded() -> None:
    robustness.check_extreme_requests(MODEL)


def test_hostile_outputs_always_parse() -> None:
    robustness.check_hostile_outputs(MODEL, RAG)


def test_formatting_from_32_threads_matches_serial_runs() -> None:
    robustness.check_concurrent_formatting(MODEL, REQUESTS)


def test_parsing_from_32_threads_matches_serial_runs() -> None:
    robustness.check_concurrent_parsing(
        MODEL,
        [
            (
                'The capital of France is Paris.<co>1</co>\n\n# Citations:\n<co>1</co> Document 0: "Paris is the capital of France."',
                RAG,
            ),
            ("plain answer", None),
            ('<|tool_call|>[{"name": "lookup", "arguments": {}}]', RAG),
        ],
    )
