"""Test support for the Granite 3 output parsers (shared by the core and plugin tests).

It imports no plugin, so the core tests can use it too.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import attrs
from hypothesis import strategies as st

from granite_formatters._streaming import Delta
from granite_formatters._types import Document
from granite_formatters.granite3._types import Granite3AssistantMessage

_GENERATED_ID = re.compile("call_([0-9a-f]{16})([0-9a-f]{8})")


def comparable(message: Any) -> dict[str, Any]:
    """``message`` as a dict with its generated tool-call ids made comparable.

    Generated ids are random per parser (unique across turns), so two parses of one
    output differ only there: each is replaced by its per-message counter, after
    checking that all generated ids of the message share one prefix and count up.
    Ids the model gave are kept as they are.
    """
    data: dict[str, Any] = message.model_dump()
    prefixes: set[str] = set()
    counters: list[int] = []
    for call in data.get("tool_calls", []):
        found = _GENERATED_ID.fullmatch(call["id"])
        if found is not None:
            prefixes.add(found.group(1))
            counters.append(int(found.group(2), 16))
            call["id"] = f"<generated {counters[-1]}>"
    assert len(prefixes) <= 1, prefixes
    assert counters == sorted(set(counters)), counters
    return data


def check_spans(message: Granite3AssistantMessage, documents: Sequence[Any] = ()) -> int:
    """Assert that every span of ``message`` slices back to its text; return how many.

    ``documents`` are the request's documents (dicts or :class:`Document`); each
    cited document of the message must carry a request document's full text.
    """
    checked = 0
    content = message.content
    texts = {(doc["text"] if isinstance(doc, dict) else doc.text) for doc in documents}
    by_id: dict[str | int, str] = {}
    for document in message.documents:
        assert isinstance(document, Document)
        assert document.text in texts, "a cited document must be a request document"
        assert document.doc_id is not None
        by_id[document.doc_id] = document.text  # citations join documents on equality
    for citation in message.citations:
        if citation.response_begin is not None or citation.response_end is not None:
            assert citation.response_begin is not None and citation.response_end is not None
            assert 0 <= citation.response_begin <= citation.response_end <= len(content)
            assert (
                content[citation.response_begin : citation.response_end] == citation.response_text
            )
            checked += 1
        if citation.context_begin is not None or citation.context_end is not None:
            assert citation.context_begin is not None and citation.context_end is not None
            text = by_id[citation.doc_id]
            assert text[citation.context_begin : citation.context_end] == citation.context_text
            checked += 1
    for item in message.hallucinations:
        if item.response_begin is not None or item.response_end is not None:
            assert item.response_begin is not None and item.response_end is not None
            assert content[item.response_begin : item.response_end] == item.response_text
            checked += 1
    return checked


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def check_consistent(message: Granite3AssistantMessage, output: str) -> None:
    """``raw_content`` is the output (lone surrogates replaced by U+FFFD, as documented:
    every message serialises), whatever was parsed out of it."""
    output = _LONE_SURROGATE.sub("\ufffd", output)
    assert message.raw_content == output
    assert message.content == message.content.strip()
    if message.reasoning_content is not None:
        assert message.reasoning_content == message.reasoning_content.strip()


def stream(parser: Any, text: str, cuts: Sequence[int]) -> list[Delta]:
    """Feed ``text`` to ``parser`` split at ``cuts`` (sorted indices), then close it."""
    deltas: list[Delta] = []
    previous = 0
    for cut in [*cuts, len(text)]:
        deltas.extend(parser.feed(text[previous:cut]))
        previous = cut
    deltas.extend(parser.close())
    return deltas


def joined(deltas: Sequence[Delta]) -> tuple[str, str]:
    """The concatenated content and reasoning text of ``deltas``."""
    return (
        "".join(d.content or "" for d in deltas),
        "".join(d.reasoning_content or "" for d in deltas),
    )


def marker_soup(markers: Sequence[str]) -> st.SearchStrategy[str]:
    """Strings made of markers, their prefixes and suffixes, JSON bits and plain text."""
    pieces: list[str] = []
    for marker in markers:
        pieces.append(marker)
        pieces.append(marker[: max(1, len(marker) // 2)])
        pieces.append(marker[len(marker) // 2 :])
    pieces += [
        " ", "\n", "\n\n", ".", "A.", "x", "Dr.", "3.5", '"', "{", "}", "[", "]", ":", ",",
        '{"name": "f", "arguments": {}}', '[{"name": "f", "arguments": {"a": 1}}]',
        "1. Risk low: A.", "Document 0: ", "0", "1", "\ud83d", '"\\udc00"',
    ]  # fmt: skip
    return st.lists(st.one_of(st.sampled_from(pieces), st.text(max_size=5)), max_size=40).map(
        "".join
    )


def cuts_for(text: str) -> st.SearchStrategy[list[int]]:
    """Sorted cut positions for ``text`` (any number, duplicates allowed)."""
    return st.lists(st.integers(0, len(text)), max_size=12).map(sorted)


def check_stream(processor: Any, text: str, request: Any, cuts: Sequence[int]) -> list[Delta]:
    """Stream ``text`` in pieces; check it agrees with the batch parse. Returns the deltas.

    The concatenated content and reasoning deltas equal the final message's, the final
    message equals ``transform`` of the whole text, every delta carries something, and
    the tool-call deltas describe the message's tool calls in OpenAI form.
    """
    parser = processor.stream_parser(request)
    deltas = stream(parser, text, cuts)
    message = parser.message
    assert message is not None
    assert comparable(message) == comparable(processor.transform(text, request))
    content, reasoning = joined(deltas)
    assert content == message.content
    assert reasoning == (message.reasoning_content or "")
    for delta in deltas:
        assert delta.content or delta.reasoning_content or delta.tool_calls or delta.finish_reason
    # The first delta carries the role, the last the finish reason; no other does.
    assert [d.role for d in deltas] == ["assistant"] + [None] * (len(deltas) - 1)
    finish = "tool_calls" if message.tool_calls else "stop"
    assert [d.finish_reason for d in deltas] == [None] * (len(deltas) - 1) + [finish]
    pieces = [call for delta in deltas for call in delta.tool_calls]
    assert [piece.index for piece in pieces] == list(range(len(message.tool_calls)))
    for piece, call in zip(pieces, message.tool_calls, strict=True):
        assert (piece.id, piece.name) == (call.id, call.name)
        assert piece.arguments == call.to_openai()["function"]["arguments"]
    return deltas


WORDS = ["alpha", "beta", "gamma", "delta", "Paris", "2.5", "e.g.", "Dr.", "models", "it"]


def sentences_strategy() -> st.SearchStrategy[list[str]]:
    """Short answer sentences made of harmless words."""
    sentence = st.lists(st.sampled_from(WORDS), min_size=1, max_size=6).map(
        lambda words: " ".join(words).capitalize() + "."
    )
    return st.lists(sentence, min_size=1, max_size=6)


def truncations(text: str) -> st.SearchStrategy[str]:
    """``text`` whole, or cut off anywhere (an interrupted generation)."""
    return st.one_of(st.just(text), st.integers(0, len(text)).map(lambda n: text[:n]))


def span_of(text: str, needle: str, after: int = 0) -> tuple[int, int]:
    """The span of the first ``needle`` in ``text`` at or after ``after``."""
    begin = text.index(needle, after)
    return begin, begin + len(needle)


def check_every_split(processor: Any, text: str, request: Any, leaks: Sequence[str]) -> None:
    """Split ``text`` in two at every position: no delta may show any of ``leaks``.

    ``leaks`` are strings that occur only in markers (the batch parse of ``text`` must
    not contain them), so a delta containing one shows (part of) a marker. Whatever a
    first feed emits must also be final: a prefix of the complete result.
    """
    batch = processor.transform(text, request)
    reasoning_text = batch.reasoning_content or ""
    assert not any(leak in batch.content or leak in reasoning_text for leak in leaks)
    for split in range(len(text) + 1):
        parser = processor.stream_parser(request)
        early = parser.feed(text[:split])
        content, reasoning = joined(early)
        assert batch.content.startswith(content)
        assert reasoning_text.startswith(reasoning)
        deltas = early + parser.feed(text[split:]) + parser.close()
        for delta in deltas:
            for piece in (delta.content or "", delta.reasoning_content or ""):
                assert not any(leak in piece for leak in leaks), (split, piece)
        assert joined(deltas) == (batch.content, reasoning_text)
        assert comparable(parser.message) == comparable(batch)


def _without_ids(delta: Delta) -> Delta:
    # Generated tool-call ids are random per parser (the messages are compared with
    # comparable, which checks them); the rest of each delta must be equal.
    return attrs.evolve(
        delta, tool_calls=tuple(attrs.evolve(call, id=None) for call in delta.tool_calls)
    )


def feed_all(parser: Any, pieces: Sequence[Any]) -> tuple[list[list[Delta]], Any]:
    """The deltas of each feed of ``pieces`` (and of close), tool-call ids left out, and
    the message."""
    out = [[_without_ids(d) for d in parser.feed(piece)] for piece in pieces]
    out.append([_without_ids(d) for d in parser.close()])
    return out, parser.message
