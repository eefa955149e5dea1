"""The stream parser's fast paths against the batch parse, delta by delta.

The engine's parser (every release's) lets content and block-body chunks that cannot
touch a marker skip its scans, finished in ``feed``: its stream must give the batch
parse's message, and its deltas must add up to that message, for chunkings aimed at the
fast paths' edges: cuts at every position of every marker, text made only of marker
beginnings and marker characters, one- and four-character chunks, UTF-8 bytes cut
anywhere, and chunks that end in whitespace. (The Granite 3 pipeline's lanes, compared
here with its full path until it was removed, are gone with it.)
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from granite_formatters import get_formatter
from granite_formatters._streaming import Delta

from .test_stream_fast_lane import RAG, samples
from support.cited_outputs import CITED_OUTPUTS
from support.granite3_output_support import comparable, feed_all, marker_soup
from support.release_data import CITED_ANSWER
from support.releases import Release

GRANITE4_MARKERS = ["<tool_call>", "</tool_call>", '{"name": "f", "arguments": {"a": "b"}}']
#: Blocks kept as content (their whitespace and offsets show in the content and notes).
GRANITE4_KEPT = (
    '<tool_call>\n{"name": 1}\n  </tool_call> and <tool_call> {"x": "a\\"b"} </tool_call>'
    '\n<tool_call>\n{"name": "g"}\n</tool_call> <tool_call>{"name": "h"} </tool_cal>'
)


def stream_parser(release: Release, request: Any) -> Any:
    """A stream parser of ``release`` for ``request``."""
    return get_formatter(release.model).output_processor.stream_parser(request)


def check_same(release: Release, request: Any, pieces: Sequence[Any]) -> None:
    deltas, message = feed_all(stream_parser(release, request), pieces)
    check_adds_up(release, request, pieces, deltas, message)


def check_adds_up(
    release: Release,
    request: Any,
    pieces: Sequence[Any],
    deltas: list[list[Delta]],
    message: Any,
) -> None:
    """The stream's message is the batch parse of the whole text, and its deltas add up
    to it: the content, and each call once, in order, when its block is complete."""
    whole = mixed_text(pieces)
    batch = get_formatter(release.model).output_processor.transform(whole, request)
    assert comparable(message) == comparable(batch)
    flat = [delta for feed in deltas for delta in feed]
    assert "".join(delta.content or "" for delta in flat) == batch.content
    calls = [(call.name, call.arguments) for delta in flat for call in delta.tool_calls]
    assert calls == [
        (call.name, call.to_openai()["function"]["arguments"]) for call in batch.tool_calls
    ]
    assert flat[0].role == "assistant" and flat[-1].finish_reason is not None


def cut(text: Any, cuts: Sequence[int]) -> list[Any]:
    bounds = [0, *sorted(cuts), len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


GRANITE42_MARKERS = [
    "</think>",
    "<think></think>",
    "<tool_call>",
    "</tool_call>",
    "<function=f>",
    "<parameter=a>",
    "</parameter>",
    "</function>",
]
#: Blocks kept as content (4.2: broken XML blocks after the reasoning).
GRANITE42_KEPT = (
    "r</think>\n<tool_call>\n<function=f>\ntext\n</function>\n</tool_call> and "
    "<tool_call><function=g><parameter=x>1</function></tool_call>"
)


def markers_of(release: Release) -> list[str]:
    if release.has("json-tool-call-blocks"):
        return GRANITE4_MARKERS
    if release.has("xml-tool-calls"):
        return GRANITE42_MARKERS
    return list(CITED_OUTPUTS[release.version].markers)


def requests_of(release: Release) -> list[Any]:
    if not release.has("citations"):
        return [None]
    return [None, RAG, *CITED_OUTPUTS[release.version].requests]


def all_samples(release: Release) -> list[tuple[str, Any]]:
    if release.has("json-tool-call-blocks"):
        return [*samples(release), (GRANITE4_KEPT, None)]
    if release.has("xml-tool-calls"):
        return [*samples(release), (GRANITE42_KEPT, None)]
    return samples(release)


def test_a_cut_at_every_position_of_each_sample_in_small_chunks(release: Release) -> None:
    for sample, request in all_samples(release):
        text = "Lead text é😀 " * 2 + sample + " tail 日本 " * 2
        for size in (1, 4):
            for offset in range(1, len(text)):
                # Chunks of ``size`` up to ``offset``, then chunks of ``size`` again.
                cuts = [*range(size, offset, size), *range(offset, len(text), size)]
                check_same(release, request, cut(text, cuts))


@settings(max_examples=150)
@given(data=st.data())
def test_marker_soup_in_any_chunking(release: Release, data: st.DataObject) -> None:
    text = data.draw(marker_soup(markers_of(release)))
    request = data.draw(st.sampled_from(requests_of(release)))
    cuts = data.draw(st.lists(st.integers(0, len(text)), max_size=30))
    check_same(release, request, cut(text, cuts))


@settings(max_examples=100)
@given(data=st.data())
def test_only_marker_characters_in_small_chunks(release: Release, data: st.DataObject) -> None:
    # The characters that begin or end markers and JSON, and marker beginnings: every
    # chunk touches a lane character, a held beginning is extended or broken off.
    markers = markers_of(release)
    pieces = sorted({c for marker in markers for c in marker} | {" ", "\n", "\\", '"'})
    prefixes = [marker[:size] for marker in markers for size in range(1, len(marker))]
    text = data.draw(
        st.lists(st.sampled_from(pieces) | st.sampled_from(prefixes), max_size=40).map("".join)
    )
    request = data.draw(st.sampled_from(requests_of(release)))
    size = data.draw(st.integers(1, 5))
    check_same(release, request, cut(text, range(size, len(text), size)))


@settings(max_examples=60)
@given(data=st.data(), size=st.integers(1, 6), cut_last=st.booleans())
def test_bytes_cut_anywhere(
    release: Release, data: st.DataObject, size: int, cut_last: bool
) -> None:
    # Every bundled parser takes UTF-8 bytes: a character split between chunks is decoded
    # whole, one cut off at the very end becomes U+FFFD (nothing is dropped), and the
    # stream gives the batch parse of their text.
    if release.has("citations"):
        sources, request = [CITED_ANSWER[release.version]], RAG
    else:
        sources, request = [sample for sample, _ in all_samples(release)], None
    sample = data.draw(st.sampled_from([*sources, *markers_of(release)]))
    raw = ("é😀 " + sample + " 日本.").encode() + (b"\xe6\x97" if cut_last else b"")
    pieces = cut(raw, range(size, len(raw), size))
    check_same(release, request, pieces)
    fast = stream_parser(release, request)
    feed_all(fast, pieces)
    processor = get_formatter(release.model).output_processor
    text = raw.decode("utf-8", "replace")
    assert text.endswith("\ufffd") is cut_last
    assert comparable(fast.message) == comparable(processor.transform(text, request))


def mixed_text(pieces: Sequence[Any]) -> str:
    """The text of a stream of ``bytes`` and ``str`` chunks, as documented: each run of
    consecutive ``bytes`` chunks is decoded as one UTF-8 text (an incomplete character
    at its end becomes U+FFFD), and the texts keep the order of the chunks."""
    texts: list[str] = []
    run: list[bytes] = []
    for piece in [*pieces, ""]:
        if isinstance(piece, bytes):
            run.append(piece)
            continue
        texts.append(b"".join(run).decode("utf-8", "replace") + piece)
        run = []
    return "".join(texts)


@settings(max_examples=60)
@given(data=st.data(), size=st.integers(1, 6))
def test_bytes_and_str_chunks_mixed(release: Release, data: st.DataObject, size: int) -> None:
    # A str chunk after bytes that end inside a character: that character becomes U+FFFD
    # before the str chunk's text (it used to come out after it, from the next bytes).
    sources: list[str]
    chat_request: Any
    if release.has("citations"):
        sources, chat_request = [CITED_ANSWER[release.version]], RAG
    else:
        sources, chat_request = [sample for sample, _ in all_samples(release)], None
    sample = data.draw(st.sampled_from([*sources, *markers_of(release)]))
    raw = ("é😀 " + sample + " 日本.").encode()
    as_str = data.draw(st.lists(st.booleans(), min_size=len(raw), max_size=len(raw)))
    pieces = [
        piece.decode("utf-8", "replace") if as_str[index] else piece
        for index, piece in enumerate(cut(raw, range(size, len(raw), size)))
    ]
    check_same(release, chat_request, pieces)
    fast = stream_parser(release, chat_request)
    feed_all(fast, pieces)
    processor = get_formatter(release.model).output_processor
    expected = processor.transform(mixed_text(pieces), chat_request)
    assert comparable(fast.message) == comparable(expected)


def test_a_str_chunk_ends_a_character_cut_by_the_bytes_before_it(release: Release) -> None:
    pieces: list[Any] = [b"caf\xc3", "X", b"\xa9 ok"]
    parser = stream_parser(release, None)
    feed_all(parser, pieces)
    # (A release whose output starts inside its reasoning reads this as reasoning.)
    message = parser.message
    assert (getattr(message, "reasoning_content", None) or message.content) == (
        "caf\ufffdX\ufffd ok"
    )


@settings(max_examples=60)
@given(
    words=st.lists(
        st.sampled_from(["a", "bc", " ", "  ", "\n", "\t", ".", "\x1c", "\u3000", "é"]),
        max_size=30,
    ),
    size=st.integers(1, 4),
)
def test_whitespace_at_chunk_ends(release: Release, words: list[str], size: int) -> None:
    # The steady lanes finish a chunk only when the whitespace held back by the stages is
    # what they expect (ASCII, or Unicode whitespace the trimmer holds): both kinds here.
    sample, request = samples(release)[0]
    text = "".join(words) + sample + "".join(words)
    check_same(release, request, cut(text, range(size, len(text), size)))


def test_no_fast_lane_takes_a_chunk_after_close(release: Release) -> None:
    # Closing ends every lane: a chunk that a lane would take (plain ASCII text) is
    # refused. A stream of bytes ending in a held marker beginning and a cut character
    # is flushed by close (one more write, which must not reopen a lane).
    for ending in ("plain text", "cut character"):
        fast = stream_parser(release, None)
        if ending == "cut character":
            fast.feed(b"Some text then <th\xc3")
        else:
            fast.feed("Some text then more")
        fast.close()
        with pytest.raises(RuntimeError):
            fast.feed("abcd")
        assert fast.close() == []


@settings(max_examples=100)
@given(data=st.data())
def test_a_parser_without_deltas_builds_the_same_message(
    release: Release, data: st.DataObject
) -> None:
    # A batch parse asks the engine's parser for no deltas: it returns none, from every
    # feed and from close, and builds the message the stream of deltas builds.
    from granite_formatters._engine.parse import ReleaseStreamParser
    from granite_formatters._engine.processor import ReleaseOutputProcessor

    processor = get_formatter(release.model).output_processor
    assert isinstance(processor, ReleaseOutputProcessor)
    text = data.draw(marker_soup(markers_of(release)))
    pieces = cut(text, data.draw(st.lists(st.integers(0, len(text)), max_size=30)))
    engine_release = processor.release
    quiet = ReleaseStreamParser(engine_release, None, deltas=False)
    assert [quiet.feed(piece) for piece in pieces] == [[] for _ in pieces]
    assert quiet.close() == []
    loud = ReleaseStreamParser(engine_release, None)
    feed_all(loud, pieces)
    assert comparable(quiet.message) == comparable(loud.message)
