"""Sample chat requests a plugin may show as its demo (``register(..., demo=...)``).

Plain OpenAI chat-completions bodies without ``"model"``, not tied to any release: each
plugin pairs one with a raw output in its own release's format.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any

__all__ = ["RAG_REQUEST", "SAMPLE_DAY", "TOOL_REQUEST"]

#: The date the bundled demos render their prompts with (so a demo prints the same
#: prompt every day).
SAMPLE_DAY = datetime.date(2025, 4, 16)

#: A question with two documents, asking for citations and hallucination flags.
RAG_REQUEST: Mapping[str, Any] = {
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
            "estimated population of 2,102,650 residents as of January 2023.",
        },
        {
            "doc_id": "2",
            "title": "France",
            "text": "France is a country in Western Europe. Its capital is Paris.",
        },
    ],
    "chat_template_kwargs": {"controls": {"citations": True, "hallucinations": True}},
    "temperature": 0,
}

#: A question with one weather tool offered.
TOOL_REQUEST: Mapping[str, Any] = {
    "messages": [{"role": "user", "content": "What is the weather like in Paris right now?"}],
    "tools": [
        {
            "type": "function",
            "function": {
                "name": "get_current_weather",
                "description": "Get the current weather for a city",
                "parameters": {
                    "type": "object",
                    "properties": {"city": {"type": "string"}},
                    "required": ["city"],
                },
            },
        }
    ],
}
