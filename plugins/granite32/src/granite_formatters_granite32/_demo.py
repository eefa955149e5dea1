"""What ``granite-format demo`` shows for Granite 3.2:
a retrieval-augmented request with citations and hallucination flags.
"""

from __future__ import annotations

from granite_formatters.records import Demo
from granite_formatters.samples import RAG_REQUEST, SAMPLE_DAY

__all__ = ["DEMO"]

DEMO = Demo(
    request=RAG_REQUEST,
    output=(
        "The capital of France is Paris.<co>1</co> About 2.1 million people liv"
        "e in the city.<co>2</co>\n"
        "\n"
        "# Citations:\n"
        '<co>1</co> Document 1: "Its capital is Paris."\n'
        '<co>2</co> Document 0: "It has an estimated population of 2,102,650 re'
        'sidents as of January 2023."\n'
        "\n"
        "# Hallucinations:\n"
        "1. Risk low: About 2.1 million people live in the city."
    ),
    today=SAMPLE_DAY,
)
