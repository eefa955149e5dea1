"""The engine parser against the Granite 3 pipeline, on every 3.x output.

The engine's parser of each 3.x release against the Granite 3 pipeline configured by
the release's declarations: with its citation syntax taken out, on outputs
made of prose, whitespace (``\f``, ``\v`` too), marker beginnings, tool-call markers and
JSON lists (bare leading ones too), reasoning markers (3.2's phrases, 3.3's ``<think>``
and ``<response>``) and ``<|end_of_text|>``, with ``thinking`` on, off or not given; and
as declared, on realistic cited outputs (cut anywhere) and soups of every marker, for
requests with and without documents, tools, ``thinking`` and the controls. Batch, and
streamed in random chunks. The notes are compared by what they say (:func:`_said`): the
two parsers word them differently.
"""

from __future__ import annotations

import functools
import re
from typing import Any

import attrs
from hypothesis import given, settings
from hypothesis import strategies as st

from granite_formatters.granite3._citation_reader import CitedOutputProcessor
from granite_formatters.granite3.output import Granite3OutputProcessor, OutputFormat

from support.cited_outputs import CITED_OUTPUTS
from support.granite3_output_support import comparable, cuts_for, marker_soup, stream, truncations
from support.granite3_support import DIFFERENTIAL
from support.release_data import release_declaration
from support.releases import Release

APPLIES_TO = "citations"

_PIECES = (
    " ", "\n", "\n\n", "\t", "\u2003", "Hi", "x.", "Dr. Who", "3.5", '"', "{", "}", "[", "]",
    "<", "|", "<|", "<|tool_call", "<tool_", "</tool", ":", ",", "\u00e9", "[1, 2]",
    "<tool_call>", "</tool_call>", "<|tool_call|>", "call|>", "_call>",
    '<tool_call>\n[{"name": "f", "arguments": {"a": 1}}]\n</tool_call>',
    '[{"name": "f", "arguments": {"a": 1}}]', '{"name": "f", "arguments": {}}', "[]",
    '[{"name": "f", "arguments": {"a": ', '[{"name": "f"}, 3]',
    '<|tool_call|>[{"name": "f", "arguments": {"a": 1}}]',
    '<|tool_call|>\n[{"name": "g", "arguments": {}}, {"name": "f", "arguments": {"b": [1]}}]',
    '<|tool_call|> {"name": "h", "arguments": {"c": "<|tool_call|>"}}',
    '<|tool_call|>[{"id": "call_1", "type": "function", "function": {"name": "f", '
    '"arguments": "{\\"a\\": 2}"}}]',
    "\f", "\v", '<|tool_call|>\f\v[{"name": "f", "arguments": {}}]', "<|end_of_text|>",
    "<|end_of", "_text|>", "<think>", "</think>", "<response>", "</response>", "<thi",
    "nk>", "</resp", "Here is my thought process:", "Here is my response:",
    "Here's my thought process:", "Here\u2019s my response:", "Here is my", " thought",
    '[{"name": "f", "arguments": {"t": "<think>"}}]',
)  # fmt: skip


def _requests() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {"messages": st.just([{"role": "user", "content": "Where?"}])},
        optional={
            "tools": st.just([{"type": "function", "function": {"name": "f"}}]),
            "chat_template_kwargs": st.fixed_dictionaries({}, optional={"thinking": st.booleans()}),
        },
    )


def _pipeline(release: Any) -> Any:
    """The Granite 3 pipeline configured by ``release``'s declarations."""
    return Granite3OutputProcessor(output_format=OutputFormat.of(release))


@functools.cache
def _pair(version: str) -> tuple[Any, Any]:
    """(the engine on the release without citations, the Granite 3 pipeline)."""
    declared = release_declaration(version)
    return attrs.evolve(declared, citations=None).output_processor(), _pipeline(declared)


#: The tool-call notes, as each parser words them: (engine, Granite 3) patterns of a kind.
_WORDINGS = (
    (
        r"the (?P<m>.+?) block at offset \d+ is not followed by JSON; kept as content",
        r"(?P<m>.+?) is not followed by JSON; kept as content",
    ),
    (
        r"the (?P<m>.+?) block at offset \d+ is cut off; kept as content",
        r"(?:the tool call JSON after (?P<m>.+?) is cut off; it is kept as content|"
        r"(?P<m2>.+?) at the end of the output has no JSON after it)",
    ),
    (
        r"the (?P<m>.+?) block at offset \d+ (?:holds JSON|is not a tool call:) (?P<why>.+); "
        r"kept as content",
        r"the tool call JSON after (?P<m>.+?) is (?P<why>.+); it is kept as content",
    ),
    (
        r"removed (?P<m>.+?) at offset \d+: it closes no tool call",
        r"removed a (?P<m>.+?) that closes no tool call",
    ),
    (
        r"the (?P<m>.+?) block at offset \d+ holds no call",
        r"(?P<m>.+?) was followed by an empty list: no tool was called",
    ),
    (
        r"the reasoning has no end marker (?P<m>.+); kept as reasoning",
        r"the reasoning has no end marker \((?P<q>['\"])(?P<m2>.+)(?P=q)\): the output ended "
        r"inside it; the text after the start marker is kept as reasoning",
    ),
    (
        r"removed (?P<m>.+?) at offset \d+: no reasoning was opened before it",
        r"removed (?P<q>['\"])(?P<m2>.+?)(?P=q) that had no opening marker before it",
    ),
)


def _said(note: str) -> tuple[str, ...]:
    """A note as what it says: its kind and marker (and reason), whichever wording."""
    for kind, patterns in enumerate(_WORDINGS):
        for pattern in patterns:
            found = re.fullmatch(pattern, note)
            if found is not None:
                groups = found.groupdict()
                marker = groups.get("m") or groups.get("m2") or ""
                return (str(kind), marker, groups.get("why") or "")
    return (note,)


def _shared(message: Any) -> dict[str, Any]:
    """What both message types hold (the 3.x extras are empty here), notes as said."""
    data = comparable(message)
    for extra in ("citations", "documents", "hallucinations"):
        assert data.pop(extra, []) == []
    data["notes"] = list(dict.fromkeys(_said(note) for note in data["notes"]))
    return data


def _streamed(deltas: list[Any]) -> tuple[str, str, list[str | None], str | None]:
    """The content and reasoning text, the tool-call names and the finish reason of a
    stream."""
    content = "".join(d.content or "" for d in deltas)
    reasoning = "".join(d.reasoning_content or "" for d in deltas)
    names = [c.name for d in deltas for c in d.tool_calls]
    return content, reasoning, names, deltas[-1].finish_reason


@settings(DIFFERENTIAL, max_examples=300)
@given(data=st.data(), request=_requests())
def test_the_engine_reads_what_the_granite3_parser_reads(
    release: Release, data: st.DataObject, request: dict[str, Any]
) -> None:
    engine, granite3 = _pair(release.version)
    output = data.draw(st.lists(st.sampled_from(_PIECES), max_size=12).map("".join), label="output")
    assert _shared(engine.transform(output, request)) == _shared(
        granite3.transform(output, request)
    )
    cuts = data.draw(cuts_for(output), label="cuts")
    parsers = (engine.stream_parser(request), granite3.stream_parser(request))
    deltas = [stream(parser, output, cuts) for parser in parsers]
    assert _shared(parsers[0].message) == _shared(parsers[1].message)
    assert _streamed(deltas[0]) == _streamed(deltas[1])


@functools.cache
def _cited_pair(version: str) -> tuple[Any, Any]:
    """(the engine on the release as declared, citations and all; the Granite 3
    pipeline)."""
    declared = release_declaration(version)
    return CitedOutputProcessor(declared), _pipeline(declared)


def _cited(message: Any) -> dict[str, Any]:
    """Everything of a 3.x message, the notes as said."""
    data = comparable(message)
    data["notes"] = list(dict.fromkeys(_said(note) for note in data["notes"]))
    return data


#: Markers of both citation syntaxes, and the reasoning and tool-call ones.
_MARKERS = (
    "<|tool_call|>", "<tool_call>", "</tool_call>", "<|end_of_text|>",
    "Here is my thought process:", "Here\u2019s my response:", "<think>", "</think>",
    "<response>", "</response>", "<co>0</co>", "<co>1</co>", "\n# Citations:\n",
    "\n# Hallucinations:\n", '<co>0</co> Document 0: "Paris is the capital."\n',
    "<|start_of_cite|>", '{"document_id": "1"}', "<|end_of_cite|>",
    '<|start_of_plugin|>{"id": "citation"}\n', '1: "Paris is the capital."\n',
    '<|start_of_plugin|>{"id": "hallucination"}\n', "<|end_of_plugin|>",
    "1. Risk low: Paris.",
)  # fmt: skip
_DOCUMENTS = [
    {"doc_id": "1", "text": "Paris is the capital. It is in France."},
    {"text": "Berlin is the capital of Germany."},
]
_TOOLS = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]


def _cited_requests(version: str) -> st.SearchStrategy[dict[str, Any] | None]:
    """The release's test requests, or any mix of documents, tools, thinking and
    controls."""
    return st.one_of(
        st.sampled_from(CITED_OUTPUTS[version].requests),
        st.fixed_dictionaries(
            {"messages": st.just([{"role": "user", "content": "Where?"}])},
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


@settings(DIFFERENTIAL, max_examples=400)
@given(data=st.data())
def test_the_engine_reads_citations_as_the_granite3_parser_does(
    release: Release, data: st.DataObject
) -> None:
    engine, granite3 = _cited_pair(release.version)
    cited = CITED_OUTPUTS[release.version]
    output = data.draw(
        st.one_of(
            cited.outputs().flatmap(truncations),
            marker_soup(cited.every_marker),
            marker_soup(_MARKERS),
        ),
        label="output",
    )
    request = data.draw(_cited_requests(release.version), label="request")
    assert _cited(engine.transform(output, request)) == _cited(granite3.transform(output, request))
    cuts = data.draw(cuts_for(output), label="cuts")
    parsers = (engine.stream_parser(request), granite3.stream_parser(request))
    deltas = [stream(parser, output, cuts) for parser in parsers]
    assert _cited(parsers[0].message) == _cited(parsers[1].message)
    assert _streamed(deltas[0]) == _streamed(deltas[1])
