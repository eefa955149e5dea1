"""What ``granite-format demo`` shows for Granite 3.2:
a retrieval-augmented request with citations and hallucination flags.
"""

from __future__ import annotations

import datetime

from granite_formatters.records import Demo

__all__ = ["DEMO"]

DEMO = Demo(
    request={
        "messages": [
            {
                "role": "user",
                "content": "What is the capital of France, and how many people live there?",
            }
        ],
        "documents": [
            {
                "doc_id": "1",
                "title": "Paris",
                "text": "Paris is the capital and largest city of France. It has an "
                "estimated population of 2,102,650 residents as of January "
                "2023.",
            },
            {
                "doc_id": "2",
                "title": "France",
                "text": "France is a country in Western Europe. Its capital is Paris.",
            },
        ],
        "chat_template_kwargs": {"controls": {"citations": True, "hallucinations": True}},
        "temperature": 0,
    },
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
    today=datetime.date(2025, 4, 16),
)
