"""What ``granite-format demo`` shows for Granite 3.3:
a retrieval-augmented request with citations and hallucination flags.
"""

from __future__ import annotations

from granite_formatters.records import Demo
from granite_formatters.samples import RAG_REQUEST, SAMPLE_DAY

__all__ = ["DEMO"]

DEMO = Demo(
    request=RAG_REQUEST,
    output=(
        'The capital of France is Paris.<|start_of_cite|>{"document_id": "2"}<|'
        "end_of_cite|> About 2.1 million people live in the city.<|start_of_cit"
        'e|>{"document_id": "1"}<|end_of_cite|>\n'
        '<|start_of_plugin|>{"id": "citation"}\n'
        '2: "Its capital is Paris."\n'
        '1: "It has an estimated population of 2,102,650 residents as of Januar'
        'y 2023."<|end_of_plugin|>\n'
        '<|start_of_plugin|>{"id": "hallucination"}\n'
        "1. Risk low: About 2.1 million people live in the city.<|end_of_plugin|>"
    ),
    today=SAMPLE_DAY,
)
