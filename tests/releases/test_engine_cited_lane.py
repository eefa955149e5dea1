"""The engine parser's cited lane against its full path, delta by delta.

For a release with citations, ``ReleaseStreamParser.feed`` finishes a chunk that none of
the stages can find a marker in at its top (the marked stage's and the content parser's
bookkeeping, then the citation stages' own steady case). A test-only subclass whose lane
never opens takes the full path for every chunk: both must give the same deltas, feed by
feed, and the same message, for realistic cited outputs and marker soups cut anywhere
(and in one- and four-character chunks, the lane's usual chunks). The lane also holds
back the beginning of a marker at the top of ``feed`` until a chunk decides it, stays
open inside a tag waiting for the text that decides it, and leaves the bookkeeping of
the chunks it takes to the next full path; the full-path parser does none of this.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from granite_formatters._engine.parse import ReleaseStreamParser

from support.cited_outputs import CITED_OUTPUTS
from support.granite3_output_support import comparable, cuts_for, feed_all, marker_soup, truncations
from support.release_data import release_declaration
from support.releases import Release

APPLIES_TO = "citations"


class _FullPath(ReleaseStreamParser):
    """The engine's parser with its cited lane closed: every chunk takes the full path."""

    __slots__ = ()

    def _settle(self) -> None:
        self._settled = None


def _pieces(text: str, cuts: Sequence[int]) -> list[str]:
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


def check_same(release: Release, request: Any, pieces: Sequence[str]) -> None:
    declared = release_declaration(release.version)
    lane = ReleaseStreamParser(declared, request)
    full = _FullPath(declared, request)
    lane_deltas, lane_message = feed_all(lane, pieces)
    full_deltas, full_message = feed_all(full, pieces)
    assert lane_deltas == full_deltas
    assert comparable(lane_message) == comparable(full_message)


def test_the_full_path_parser_never_takes_the_lane(release: Release) -> None:
    cited = CITED_OUTPUTS[release.version]
    declared = release_declaration(release.version)
    parser = _FullPath(declared, cited.rag)
    for piece in _pieces(cited.rag_output, range(4, len(cited.rag_output), 4)):
        parser.feed(piece)
        assert parser._settled is None
        assert not parser._hold
    lane = ReleaseStreamParser(declared, cited.rag)
    opened = 0
    for piece in _pieces(cited.rag_output, range(4, len(cited.rag_output), 4)):
        lane.feed(piece)
        opened += lane._settled is not None
    assert opened  # (the lane is taken on a realistic answer)


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_the_cited_lane_gives_the_full_paths_deltas(release: Release, data: st.DataObject) -> None:
    cited = CITED_OUTPUTS[release.version]
    output = data.draw(
        st.one_of(cited.outputs().flatmap(truncations), marker_soup(cited.every_marker)),
        label="output",
    )
    request = data.draw(st.sampled_from(cited.requests), label="request")
    size = data.draw(st.sampled_from([0, 1, 4]), label="chunk size")
    if size:
        cuts = list(range(size, len(output), size))
    else:
        cuts = data.draw(cuts_for(output), label="cuts")
    check_same(release, request, _pieces(output, cuts))


def test_the_realistic_answer_in_small_chunks(release: Release) -> None:
    cited = CITED_OUTPUTS[release.version]
    for request in cited.requests:
        for size in (1, 2, 3, 4, 5, 7):
            text = cited.rag_output
            check_same(release, request, _pieces(text, range(size, len(text), size)))


def _one_char_feeds(release: Release, seen: Callable[[ReleaseStreamParser], bool]) -> int:
    """Feed the realistic answer a character at a time; how many feeds ``seen`` was true
    for (asked before and after each), and the message is the batch parse's."""
    cited = CITED_OUTPUTS[release.version]
    declared = release_declaration(release.version)
    parser = ReleaseStreamParser(declared, cited.rag)
    text = cited.rag_output
    count = 0
    for piece in _pieces(text, range(1, len(text))):
        before = seen(parser)
        parser.feed(piece)
        count += before and seen(parser)
    batch = ReleaseStreamParser(declared, cited.rag, deltas=False)
    batch.feed(text)
    batch.close()
    parser.close()
    assert comparable(parser.message) == comparable(batch.message)
    return count


def test_the_lane_holds_back_the_beginning_of_a_tag(release: Release) -> None:
    # (test_the_realistic_answer_in_small_chunks checks the deltas)
    assert _one_char_feeds(release, lambda parser: bool(parser._hold))


def test_the_lane_stays_open_inside_a_tag(release: Release) -> None:
    # A tag's text that cannot decide it (waiting for its "}" or "</co>") takes the lane.
    def inside(parser: ReleaseStreamParser) -> bool:
        cite = parser._cite
        return (
            cite is not None
            and cite._tags._waiting
            and parser._settled is not None
            and parser._c_lane is not None
        )

    assert _one_char_feeds(release, inside)


def _tag_open(version: str) -> str:
    """The beginning of an inline tag that waits for its end (3.3 cite token or 3.2 co)."""
    return '<|start_of_cite|>{"document_id": "' if version == "3.3" else "<co>"


def test_a_tag_too_long_to_wait_is_decided_on_the_lane(release: Release) -> None:
    # The grammar's size limit decides a tag whose end never comes; the text after it
    # may come on the lane, still holding none of the characters that could end it.
    cited = CITED_OUTPUTS[release.version]
    opened = "Some answer." + _tag_open(release.version)
    for filler in ("x" * 300, "a b " * 80, "ab" * 15 + "  cd"):
        text = opened + filler + " and more.\nNext line.</co> <|end_of_cite|> done"
        for size in (1, 3, 4):
            check_same(release, cited.rag, _pieces(text, range(size, len(text), size)))


def test_offsets_in_notes_after_chunks_on_the_lane(release: Release) -> None:
    # The lane's chunks are counted when the full path next runs: the offsets in the
    # notes are the full path's.
    cited = CITED_OUTPUTS[release.version]
    text = (
        "An answer that goes on. " * 4
        + "Here is my response: then </think> and <|tool_call|>[oops and </response> again."
    )
    declared = release_declaration(release.version)
    parser = ReleaseStreamParser(declared, cited.rag)
    feed_all(parser, _pieces(text, range(4, len(text), 4)))
    assert parser.message is not None
    assert any("block at offset 135" in note for note in parser.message.notes)
    for size in (1, 3, 4):
        check_same(release, cited.rag, _pieces(text, range(size, len(text), size)))
