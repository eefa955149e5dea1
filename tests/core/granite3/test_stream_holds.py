"""The streaming shortcuts of the Granite 3 stages: a marker arriving in small chunks is
held without a rescan (``ScanningSink._holds``, built on :func:`marker_prefixes`), and
an undecided citation tag is asked again directly. Each stage fed a text in pieces must
do what it does with the text in one piece (and what it does with the shortcuts off)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from granite_formatters.granite3._cite_format import CITE_GRAMMAR, CITE_SECTION_PATTERNS
from granite_formatters.granite3._co_format import COTAG_GRAMMAR
from granite_formatters.syntax._citations.sections import SectionSplitter
from granite_formatters.syntax._citations.stages import CONTENT, ChannelSink, Outbox
from granite_formatters.syntax._citations.tag_remover import CitationTagRemover
from granite_formatters.syntax._markers import (
    MarkerSearch,
    marker_prefixes,
    partial_marker_length,
)

MARKERS = ["<think>", "</think>", "<|end_of_text|>", "<|start_of_cite|>", "<co>", "</co>"]


@given(st.lists(st.sampled_from(["<th", "<think>", "<|", "<|end", "x", "<co>", "ab", "<<"])))
def test_marker_prefixes_are_what_a_scan_holds_whole(pieces: list[str]) -> None:
    text = "".join(pieces)
    held = text in marker_prefixes(MARKERS)
    whole = (
        MarkerSearch(text, MARKERS).next() is None
        and bool(text)
        and partial_marker_length(text, MARKERS) == len(text)
    )
    assert held == whole


def test_marker_prefixes_leave_out_text_holding_a_marker() -> None:
    prefixes = marker_prefixes(["<a>", "<a>bc<d>"])
    assert "<a" in prefixes
    assert "<a>b" not in prefixes  # holds "<a>": a scan finds it


def shortcuts_off(sink: Any) -> None:
    """Turns the stage shortcuts off for one sink (the full scan on every write)."""
    sink._holds = lambda: frozenset()
    if isinstance(sink, CitationTagRemover):
        sink.write = lambda text: super(CitationTagRemover, sink).write(text)  # type: ignore[method-assign]


def _stages(kind: str, outbox: Outbox) -> tuple[Any, ChannelSink, ChannelSink]:
    content, reasoning = ChannelSink(outbox, CONTENT), ChannelSink(outbox, "reasoning")
    sink: Any
    if kind == "sections":
        sink = SectionSplitter(
            content,
            outbox,
            line_patterns=CITE_SECTION_PATTERNS,
            starters=("<|start_of_plugin|>",),
            drops=("<|end_of_plugin|>",),
        )
    elif kind == "cite":
        sink = CitationTagRemover(content, CITE_GRAMMAR)
    else:
        sink = CitationTagRemover(content, COTAG_GRAMMAR)
    return sink, content, reasoning


PIECES = [
    "<think>", "</think>", "<response>", "<|end_of_text|>", "<|tool_call|>", "<tool_call>",
    "</tool_call>", "<|start_of_plugin|>", "<|end_of_plugin|>", '{"id": "citation"}',
    "<|start_of_cite|>", '{"document_id": "1"}', "<|end_of_cite|>", "<co>", "1", "</co>",
    "<", "|", "<|", "{", "}", '"', " ", "\n", "a", "Bc.", '[{"name": "f"}]',
    # Whole tags, so that undecided tags (NEED_MORE) are decided in later chunks.
    '<|start_of_cite|>{"document_id": "2"}', '<|start_of_cite|> {"document_id": "3"}<|end_of_cite|>',
    "<co>2</co>", "<co> 3 </co>",
]  # fmt: skip


@settings(max_examples=300)
@given(
    kind=st.sampled_from(["sections", "cite", "co"]),
    pieces=st.lists(st.sampled_from(PIECES), max_size=25),
    size=st.integers(1, 4),
)
def test_a_stage_in_small_chunks_does_what_it_does_in_one_piece(
    kind: str, pieces: list[str], size: int
) -> None:
    text = "".join(pieces)
    results = []
    for mode in ("one piece", "chunks", "chunks, no shortcuts"):
        outbox = Outbox()
        sink, content, reasoning = _stages(kind, outbox)
        if mode == "one piece":
            sink.write(text)
        else:
            if mode == "chunks, no shortcuts":
                shortcuts_off(sink)
            for start in range(0, len(text), size):
                sink.write(text[start : start + size])
        sink.end()
        events = getattr(sink, "events", None)
        sections = sink.sections_text() if kind == "sections" else None
        results.append((content.text(), reasoning.text(), events, sections, outbox.notes))
    assert results[0] == results[1] == results[2]
