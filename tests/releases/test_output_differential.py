"""Each Granite 3 release's declaration reads as the output format its plugin declared.

The Granite 3 pipeline configured by the release's declarations (``OutputFormat.of``)
against the pipeline given the output format each plugin declared before its output
processor class was removed (below, as data), on random outputs made of the release's
markers, with and without a request, in batch and streamed in random chunks. (The
release's own parser, the engine's, is held to the pipeline of its declarations by
``test_engine_granite3_differential``.)
"""

from __future__ import annotations

import functools
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from granite_formatters import get_formatter
from granite_formatters.granite3 import (
    CITE_TOKEN_CITATIONS,
    CO_CITATIONS,
    Granite3AssistantMessage,
    Granite3OutputProcessor,
    OutputFormat,
)
from granite_formatters.processors import declared_message_type

from support.granite3_output_support import comparable, cuts_for, marker_soup, stream
from support.granite3_support import DIFFERENTIAL
from support.release_data import release_declaration
from support.releases import Release

APPLIES_TO = "citations"

_MARKERS = (
    "<|tool_call|>",
    "<tool_call>",
    "</tool_call>",
    "<|end_of_text|>",
    "Here is my thought process:",
    "Here\u2019s my response:",
    "<think>",
    "</think>",
    "<response>",
    "</response>",
    "<co>0</co>",
    "<co>1</co>",
    "\n# Citations:\n",
    "\n# Hallucinations:\n",
    '<co>0</co> Document 0: "Paris is the capital."\n',
    "<|start_of_cite|>",
    '{"document_id": "1"}',
    "<|end_of_cite|>",
    '<|start_of_plugin|>{"id": "citation"}\n',
    '1: "Paris is the capital."\n',
    '<|start_of_plugin|>{"id": "hallucination"}\n',
    "<|end_of_plugin|>",
    "1. Risk low: Paris.",
)

_DOCUMENTS = [
    {"doc_id": "1", "text": "Paris is the capital. It is in France."},
    {"text": "Berlin is the capital of Germany."},
]
_TOOLS = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]


def _requests() -> st.SearchStrategy[dict[str, Any] | None]:
    messages = [{"role": "user", "content": "Where?"}]
    return st.one_of(
        st.none(),
        st.fixed_dictionaries(
            {"messages": st.just(messages)},
            optional={
                "documents": st.just(_DOCUMENTS),
                "tools": st.just(_TOOLS),
                "chat_template_kwargs": st.fixed_dictionaries(
                    {},
                    optional={
                        "thinking": st.booleans(),
                        "controls": st.sampled_from(
                            [{}, {"citations": True}, {"hallucinations": True}]
                        ),
                    },
                ),
            },
        ),
    )


_HERE = ("Here is", "Here's", "Here\u2019s")

#: What the plugins' output processor classes declared (``output_format``).
_FORMATS = {
    "3.2": OutputFormat(
        release="Granite 3.2",
        citations=CO_CITATIONS,
        thought_starts=tuple(f"{here} my thought process:" for here in _HERE),
        thought_ends=tuple(f"{here} my response:" for here in _HERE),
    ),
    "3.3": OutputFormat(
        release="Granite 3.3",
        citations=CITE_TOKEN_CITATIONS,
        thought_starts=("<think>",),
        thought_ends=("</think>",),
        response_tags=("<response>", "</response>"),
        drop_stray_thought_ends=True,
    ),
}


@functools.cache
def _pair(version: str) -> tuple[Any, Any]:
    """(the Granite 3 parser of the declaration, that of the former format)."""
    former = Granite3OutputProcessor(output_format=_FORMATS[version])
    declared = Granite3OutputProcessor(output_format=OutputFormat.of(release_declaration(version)))
    return declared, former


@settings(DIFFERENTIAL, max_examples=400)
@given(data=st.data(), request=_requests())
def test_declaration_parses_as_the_processor_class(
    release: Release, data: st.DataObject, request: dict[str, Any] | None
) -> None:
    declared, former = _pair(release.version)
    output = data.draw(marker_soup(_MARKERS), label="output")
    assert comparable(declared.transform(output, request)) == comparable(
        former.transform(output, request)
    )
    cuts = data.draw(cuts_for(output), label="cuts")
    parsers = (declared.stream_parser(request), former.stream_parser(request))
    deltas = [stream(parser, output, cuts) for parser in parsers]
    messages = [comparable(parser.message) for parser in parsers]
    assert messages[0] == messages[1]
    assert _without_ids(deltas[0]) == _without_ids(deltas[1])


def _without_ids(deltas: list[Any]) -> list[Any]:
    """The deltas with generated tool-call ids blanked (random per parser)."""
    return [
        (
            d.role,
            d.content,
            d.reasoning_content,
            d.finish_reason,
            *((c.index, c.name, c.arguments) for c in d.tool_calls),
        )
        for d in deltas
    ]


def test_the_registered_output_processor_is_the_declarations(release: Release) -> None:
    processor = get_formatter(release.model).output_processor
    declared = release_declaration(release.version)
    assert processor == declared.output_processor()
    assert declared_message_type(processor) is Granite3AssistantMessage
    assert OutputFormat.of(declared) == _FORMATS[release.version]
