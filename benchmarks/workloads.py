"""The requests and model outputs the benchmarks run on.

Everything here is deterministic (seeded), so two runs measure the same work. The
outputs are written in each release's own format:

* Granite 3.2: ``<co>N</co>`` tags after cited sentences, then a ``# Citations:``
  section of ``<co>N</co> Document D: "quote"`` lines and a ``# Hallucinations:``
  section of ``K. Risk low: sentence`` lines; reasoning between
  ``Here is my thought process:`` and ``Here is my response:``.
* Granite 3.3: ``<|start_of_cite|>{"document_id": "D"}<|end_of_cite|>`` tags, then
  ``<|start_of_plugin|>{"id": "citation"}`` / ``{"id": "hallucination"}`` sections;
  reasoning in ``<think>...</think><response>...</response>``.

Tool calls use the ``<|tool_call|>`` token both templates ask for.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "RagAnswer",
    "documents",
    "granite4_agent_request",
    "granite4_documents_request",
    "granite4_stream_answer",
    "granite4_tool_call_answer",
    "granite42_agent_request",
    "granite42_plain_answer",
    "granite42_stream_answer",
    "granite42_tool_call_answer",
    "plain_answer",
    "rag_answer",
    "rag_history_request",
    "rag_request",
    "reasoning_answer",
    "reasoning_request",
    "small_chat_request",
    "stream_answer",
    "tool_call_answer",
    "tools",
    "tools_request",
]

_VOCABULARY = (
    "the system records every reading from the sensors and stores the values in a "
    "regional archive that engineers review each quarter to plan maintenance of pumps "
    "valves turbines pipelines reservoirs and control rooms across the northern and "
    "southern districts while auditors compare energy use water flow pressure levels "
    "and incident reports against the targets agreed with the city council in the "
    "annual budget for infrastructure renewal safety training and public information"
)
_WORDS = _VOCABULARY.split()


def _sentence(rng: random.Random, low: int = 10, high: int = 18) -> str:
    words = [rng.choice(_WORDS) for _ in range(rng.randint(low, high))]
    words[0] = words[0].capitalize()
    return " ".join(words) + "."


def _document_text(rng: random.Random, size: int) -> str:
    sentences: list[str] = []
    length = 0
    while length < size:
        sentence = _sentence(rng)
        sentences.append(sentence)
        length += len(sentence) + 1
    return " ".join(sentences)[:size].rsplit(" ", 1)[0] + "."


def documents(count: int = 5, size: int = 2048) -> list[dict[str, Any]]:
    """``count`` documents of about ``size`` characters, ids ``"1"``..``"count"``."""
    rng = random.Random(20250416)
    return [
        {"doc_id": str(i + 1), "title": f"Report {i + 1}", "text": _document_text(rng, size)}
        for i in range(count)
    ]


def small_chat_request() -> dict[str, Any]:
    """Three short turns, no tools, no documents."""
    return {
        "messages": [
            {"role": "user", "content": "Hello! Can you help me plan a weekend in Lisbon?"},
            {
                "role": "assistant",
                "content": "Of course. Do you prefer museums, food, or walking tours?",
            },
            {"role": "user", "content": "Food, mostly. And one museum."},
        ]
    }


def rag_request() -> dict[str, Any]:
    """5 documents of 2 KB, 4 turns of history plus the question, citations and
    hallucinations controls on."""
    return {
        "messages": [
            {"role": "user", "content": "Which districts had pressure incidents last year?"},
            {
                "role": "assistant",
                "content": "The northern and southern districts both reported incidents.",
            },
            {"role": "user", "content": "How were they handled?"},
            {
                "role": "assistant",
                "content": "Engineers reviewed the archive and scheduled maintenance.",
            },
            {"role": "user", "content": "Summarise the renewal plan with sources."},
        ],
        "documents": documents(),
        "chat_template_kwargs": {"controls": {"citations": True, "hallucinations": True}},
    }


def rag_history_request(count: int, *, ids: bool) -> dict[str, Any]:
    """:func:`rag_request`'s history and controls with ``count`` documents of 2 KB given
    as plain dicts: ``{"doc_id", "title", "text"}`` (``ids``) or ``{"text"}`` only, the
    shape many callers send."""
    request = rag_request()
    docs = documents(count)
    request["documents"] = docs if ids else [{"text": doc["text"]} for doc in docs]
    return request


def _function(name: str, description: str, parameters: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": parameters},
    }


def tools() -> list[dict[str, Any]]:
    """Six tools in the OpenAI form, with realistic JSON schemas."""
    return [
        _function(
            "get_current_weather",
            "Get the current weather in a given location.",
            {
                "type": "object",
                "properties": {
                    "location": {
                        "type": "string",
                        "description": "The city and country, e.g. Lisbon, Portugal",
                    },
                    "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                },
                "required": ["location"],
            },
        ),
        _function(
            "search_flights",
            "Search for flights between two airports on a date.",
            {
                "type": "object",
                "properties": {
                    "origin": {"type": "string", "description": "IATA code, e.g. LIS"},
                    "destination": {"type": "string", "description": "IATA code, e.g. JFK"},
                    "date": {"type": "string", "format": "date"},
                    "passengers": {"type": "integer", "minimum": 1, "maximum": 9},
                    "cabin": {
                        "type": "string",
                        "enum": ["economy", "premium_economy", "business", "first"],
                    },
                },
                "required": ["origin", "destination", "date"],
            },
        ),
        _function(
            "book_restaurant",
            "Reserve a table at a restaurant.",
            {
                "type": "object",
                "properties": {
                    "restaurant_id": {"type": "string"},
                    "time": {"type": "string", "format": "date-time"},
                    "party_size": {"type": "integer", "minimum": 1},
                    "requests": {
                        "type": "array",
                        "items": {"type": "string"},
                        "description": "Special requests such as 'window seat' or 'vegan'",
                    },
                },
                "required": ["restaurant_id", "time", "party_size"],
            },
        ),
        _function(
            "convert_currency",
            "Convert an amount of money from one currency to another.",
            {
                "type": "object",
                "properties": {
                    "amount": {"type": "number"},
                    "from": {"type": "string", "pattern": "^[A-Z]{3}$"},
                    "to": {"type": "string", "pattern": "^[A-Z]{3}$"},
                },
                "required": ["amount", "from", "to"],
            },
        ),
        _function(
            "create_calendar_event",
            "Create an event in the user's calendar.",
            {
                "type": "object",
                "properties": {
                    "title": {"type": "string"},
                    "start": {"type": "string", "format": "date-time"},
                    "end": {"type": "string", "format": "date-time"},
                    "attendees": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "email": {"type": "string", "format": "email"},
                                "optional": {"type": "boolean", "default": False},
                            },
                            "required": ["email"],
                        },
                    },
                    "reminder_minutes": {"type": "integer", "default": 15},
                },
                "required": ["title", "start"],
            },
        ),
        _function(
            "translate_text",
            "Translate text into another language (réponse en français possible).",
            {
                "type": "object",
                "properties": {
                    "text": {"type": "string"},
                    "target_language": {"type": "string", "description": "ISO 639-1 code"},
                    "formality": {"type": "string", "enum": ["default", "more", "less"]},
                },
                "required": ["text", "target_language"],
            },
        ),
    ]


def tools_request() -> dict[str, Any]:
    """Two turns and six tools."""
    return {
        "messages": [
            {"role": "user", "content": "I land in Lisbon on Friday."},
            {"role": "assistant", "content": "Great! How can I help with the trip?"},
            {"role": "user", "content": "What's the weather there, and book dinner for two at 8."},
        ],
        "tools": tools(),
    }


def reasoning_request() -> dict[str, Any]:
    """One question with thinking mode on."""
    return {
        "messages": [{"role": "user", "content": "Is 1001 a prime number? Explain."}],
        "chat_template_kwargs": {"thinking": True},
    }


def plain_answer() -> str:
    """About 600 characters of prose."""
    rng = random.Random(1)
    return " ".join(_sentence(rng) for _ in range(6))


def reasoning_answer(release: str) -> str:
    """About 1.5 KB of thoughts and a short answer, in the release's markers."""
    rng = random.Random(2)
    thought = "\n".join(_sentence(rng, 12, 24) for _ in range(10))
    answer = " ".join(_sentence(rng) for _ in range(4))
    if release == "3.2":
        return f"Here is my thought process:\n{thought}\n\nHere is my response:\n{answer}"
    return f"<think>{thought}</think>\n<response>{answer}</response>"


def tool_call_answer() -> str:
    """Two tool calls after the ``<|tool_call|>`` token."""
    calls = [
        {
            "name": "get_current_weather",
            "arguments": {"location": "Lisbon, Portugal", "unit": "celsius"},
        },
        {
            "name": "book_restaurant",
            "arguments": {
                "restaurant_id": "lx-0042",
                "time": "2025-04-18T20:00:00+01:00",
                "party_size": 2,
                "requests": ["window seat"],
            },
        },
    ]
    return "<|tool_call|>" + json.dumps(calls)


@dataclass
class RagAnswer:
    """A generated RAG answer and what a correct parse must find in it."""

    text: str
    citations: int
    hallucinations: int
    #: The cited response sentences, in order (what each citation's span must cover).
    sentences: list[str] = field(default_factory=list)
    #: The quoted document text of each citation, in order.
    quotes: list[str] = field(default_factory=list)


def _document_sentences(docs: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """(doc_id, sentence) for every whole sentence of every document."""
    out: list[tuple[str, str]] = []
    for doc in docs:
        for piece in doc["text"].split(". "):
            piece = piece.strip().rstrip(".")
            if piece:
                out.append((str(doc["doc_id"]), piece + "."))
    return out


def rag_answer(release: str, citations: int, docs: list[dict[str, Any]] | None = None) -> RagAnswer:
    """An answer of ``citations`` cited sentences plus its citation and hallucination
    sections, in the release's format, quoting ``docs`` (default: :func:`documents`).

    Each response sentence is distinct, so a correct parser finds exactly one span
    for each. One sentence in ten is also listed as a (low-risk) hallucination.
    """
    docs = documents() if docs is None else docs
    rng = random.Random(citations)
    pool = _document_sentences(docs)
    sentences: list[str] = []
    quotes: list[tuple[str, str]] = []
    for i in range(citations):
        sentences.append(f"Finding {i + 1}: {_sentence(rng)}")
        quotes.append(pool[rng.randrange(len(pool))])
    flagged = sentences[::10]
    if release == "3.2":
        # 3.2 numbers documents from 0 in the prompt ("Document 0" is the first one).
        index = {str(doc["doc_id"]): n for n, doc in enumerate(docs)}
        body = " ".join(f"{s}<co>{i + 1}</co>" for i, s in enumerate(sentences))
        cites = "\n".join(
            f'<co>{i + 1}</co> Document {index[d]}: "{q}"' for i, (d, q) in enumerate(quotes)
        )
        halls = "\n".join(f"{k + 1}. Risk low: {s}" for k, s in enumerate(flagged))
        text = f"{body}\n\n# Citations:\n{cites}\n\n# Hallucinations:\n{halls}"
    else:
        body = " ".join(
            f'{s}<|start_of_cite|>{{"document_id": "{d}"}}<|end_of_cite|>'
            for s, (d, _) in zip(sentences, quotes, strict=True)
        )
        cites = "\n".join(f'{d}: "{q}"' for d, q in quotes)
        halls = "\n".join(f"{k + 1}. Risk low: {s}" for k, s in enumerate(flagged))
        text = (
            f"{body}\n\n"
            f'<|start_of_plugin|>{{"id": "citation"}}\n{cites}\n<|end_of_plugin|>\n'
            f'<|start_of_plugin|>{{"id": "hallucination"}}\n{halls}\n<|end_of_plugin|>'
        )
    return RagAnswer(
        text=text,
        citations=citations,
        hallucinations=len(flagged),
        sentences=sentences,
        quotes=[q for _, q in quotes],
    )


def stream_answer(release: str, size: int) -> str:
    """A RAG answer (cited sentences and sections) of at least ``size`` characters."""
    per_citation = len(rag_answer(release, 100).text) / 100
    count = max(1, int(size / per_citation) + 1)
    return rag_answer(release, count).text


# --------------------------------------------------------------------------- Granite 4.0 / 4.1
#
# Granite 4 has no reasoning, citation or hallucination syntax: its requests carry tools
# and documents as JSON lines in the system turn, and its answers call tools with
# ``<tool_call>{"name": ..., "arguments": ...}</tool_call>`` blocks.


def granite4_documents_request() -> dict[str, Any]:
    """One question over five 2 KB documents (no Granite 3 controls)."""
    request = rag_request()
    request.pop("chat_template_kwargs", None)
    return request


def granite4_agent_request() -> dict[str, Any]:
    """A tool-using conversation: six tools, a past call, its result, a follow-up."""
    request = tools_request()
    request["messages"] = [
        {"role": "system", "content": "You are a travel assistant."},
        *request["messages"],
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {
                        "name": "get_current_weather",
                        "arguments": '{"location": "Lisbon, Portugal", "unit": "celsius"}',
                    },
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": '{"temperature": 22}'},
        {"role": "user", "content": "Thanks. And tomorrow?"},
    ]
    return request


def granite4_tool_call_answer(count: int = 2) -> str:
    """A sentence, then ``count`` ``<tool_call>`` blocks (the first two as in 3.x)."""
    rng = random.Random(4)
    calls = json.loads(tool_call_answer()[len("<|tool_call|>") :])
    blocks = ["I will check the weather and book the table."]
    for index in range(count):
        call = (
            calls[index]
            if index < len(calls)
            else {
                "name": "lookup",
                "arguments": {"query": _sentence(rng, 4, 8), "page": index},
            }
        )
        blocks.append("<tool_call>\n" + json.dumps(call) + "\n</tool_call>")
    return "\n".join(blocks)


def granite4_stream_answer(size: int) -> str:
    """Prose with a tool call after every few sentences, of at least ``size`` characters."""
    rng = random.Random(5)
    parts: list[str] = []
    length = 0
    index = 0
    while length < size:
        text = " ".join(_sentence(rng) for _ in range(3))
        call = json.dumps(
            {"name": "lookup", "arguments": {"query": _sentence(rng, 3, 6), "n": index}}
        )
        piece = f"{text}\n<tool_call>\n{call}\n</tool_call>\n"
        parts.append(piece)
        length += len(piece)
        index += 1
    return "".join(parts)


def granite42_agent_request() -> dict[str, Any]:
    """:func:`granite4_agent_request` with the past call's arguments as an object (what
    the Granite 4.2 template iterates; servers decode a JSON string before rendering)."""
    request = granite4_agent_request()
    for message in request["messages"]:
        for call in message.get("tool_calls") or ():
            call["function"]["arguments"] = json.loads(call["function"]["arguments"])
    return request


def granite42_plain_answer() -> str:
    """:func:`plain_answer` after a short reasoning (the prompt opened ``<think>``)."""
    return "The user asks a simple question.\n</think>\n\n" + plain_answer()


def _xml_call(name: str, arguments: dict[str, Any]) -> str:
    params = "".join(
        f"<parameter={key}>\n"
        + (json.dumps(value) if isinstance(value, (dict, list)) else str(value))
        + "\n</parameter>\n"
        for key, value in arguments.items()
    )
    return f"<tool_call>\n<function={name}>\n{params}</function>\n</tool_call>"


def granite42_tool_call_answer(count: int = 2) -> str:
    """Reasoning (the prompt opened ``<think>``), a sentence, then ``count`` XML tool-call
    blocks (the first two as in :func:`granite4_tool_call_answer`)."""
    rng = random.Random(4)
    calls = json.loads(tool_call_answer()[len("<|tool_call|>") :])
    blocks = [_sentence(rng) + "\n</think>\n\nI will check the weather and book the table."]
    for index in range(count):
        call = (
            calls[index]
            if index < len(calls)
            else {
                "name": "get_current_weather",
                "arguments": {"location": _sentence(rng, 4, 8), "page": index},
            }
        )
        blocks.append(_xml_call(call["name"], call["arguments"]))
    return "\n".join(blocks)


def granite42_stream_answer(size: int) -> str:
    """Reasoning, then prose with an XML tool call after every few sentences, of at least
    ``size`` characters."""
    rng = random.Random(5)
    parts = [" ".join(_sentence(rng) for _ in range(3)) + "\n</think>\n\n"]
    length = len(parts[0])
    index = 0
    while length < size:
        text = " ".join(_sentence(rng) for _ in range(3))
        piece = (
            f"{text}\n"
            + _xml_call("get_current_weather", {"location": _sentence(rng, 3, 6), "n": index})
            + "\n"
        )
        parts.append(piece)
        length += len(piece)
        index += 1
    return "".join(parts)


def same_calls(count: int) -> list[dict[str, Any]]:
    """``count`` calls of the tools of :func:`tools` (string and integer arguments), the
    same for every release's output format."""
    rng = random.Random(6)
    found: list[dict[str, Any]] = []
    for index in range(count):
        if index % 2:
            arguments: dict[str, Any] = {
                "origin": "LIS",
                "destination": "JFK",
                "date": "2026-07-01",
                "passengers": 1 + index % 9,
            }
            found.append({"name": "search_flights", "arguments": arguments})
        else:
            arguments = {"location": _sentence(rng, 3, 6), "unit": "celsius"}
            found.append({"name": "get_current_weather", "arguments": arguments})
    return found


def granite42_calls_answer(count: int) -> str:
    """Reasoning (the prompt opened ``<think>``), a sentence, then the XML blocks of
    :func:`same_calls`."""
    blocks = ["I need the weather and a flight.\n</think>\n\nLet me look those up."]
    blocks += [_xml_call(call["name"], call["arguments"]) for call in same_calls(count)]
    return "\n".join(blocks)


def granite41_calls_answer(count: int) -> str:
    """A sentence, then the JSON ``<tool_call>`` blocks of :func:`same_calls`."""
    blocks = ["Let me look those up."]
    blocks += ["<tool_call>\n" + json.dumps(call) + "\n</tool_call>" for call in same_calls(count)]
    return "\n".join(blocks)
