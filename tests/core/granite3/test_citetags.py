"""Citation tag removal: positions, whitespace repair, chunking invariance (toy grammars)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from granite_formatters.granite3._citations import (
    ANCHOR,
    CLOSE,
    NEED_MORE,
    OPEN,
    NeedMore,
    TagEvent,
    TagMatch,
)
from granite_formatters.syntax._citations.tag_remover import (
    CitationTagRemover,
    remove_citation_tags,
)

from support.granite3_output_support import cuts_for


class PointTags:
    """``<c>N</c>`` anchors (N: digits), like Granite 3.2's ``<co>``."""

    markers: tuple[str, ...] = ("<c>",)

    def match(self, text: str, pos: int, final: bool) -> TagMatch | NeedMore | None:
        end = text.find("</c>", pos + 3, pos + 20)
        if end == -1:
            return NEED_MORE if not final and len(text) < pos + 20 else None
        inner = text[pos + 3 : end]
        return TagMatch(end + 4 - pos, ANCHOR, inner) if inner.isdigit() else None


class WrapTags:
    """``<w>`` opens and ``</w>`` closes a wrapped citation; ``<p>`` is a point."""

    markers: tuple[str, ...] = ("<w>", "</w>", "<p>")

    def match(self, text: str, pos: int, final: bool) -> TagMatch | NeedMore | None:
        if text.startswith("<w>", pos):
            return TagMatch(3, OPEN, "d")
        if text.startswith("</w>", pos):
            return TagMatch(4, CLOSE)
        return TagMatch(3, ANCHOR, "p")


POINT = PointTags()


@pytest.mark.parametrize(
    ("tagged", "clean"),
    [
        ("Fact one.<c>1</c> Fact two <c>2</c> here.", "Fact one. Fact two here."),
        ("capabilities <c>1</c>.", "capabilities."),
        ("word <c>1</c>next", "word next"),
        ("word<c>1</c> next", "word next"),
        ("word<c>1</c>next", "wordnext"),
        ("word <c>1</c> <c>2</c> next", "word next"),
        ("word <c>1</c><c>2</c>, next", "word, next"),
        ("end <c>1</c>", "end"),
        ("<c>1</c> Start.", "Start."),
        ("Para one. <c>1</c>\n\nPara two.", "Para one.\n\nPara two."),
        ("Line one.\n<c>1</c> Line two.", "Line one.\nLine two."),
        ('He said "yes <c>1</c>" then.', 'He said "yes" then.'),
        ("fact <c>1</c> (see)", "fact (see)"),
        ("a <c>x</c> b", "a <c>x</c> b"),
        ("a <c>1 b", "a <c>1 b"),
        ("no tags here", "no tags here"),
        ("", ""),
    ],
)
def test_whitespace_is_repaired(tagged: str, clean: str) -> None:
    assert remove_citation_tags(tagged, POINT)[0] == clean


def test_positions_point_into_the_clean_text() -> None:
    clean, events = remove_citation_tags("A b.<c>1</c> C d <c>2</c>. E.<c>3</c>", POINT)
    assert clean == "A b. C d. E."
    assert events == [
        TagEvent(ANCHOR, "1", 4),
        TagEvent(ANCHOR, "2", 8),
        TagEvent(ANCHOR, "3", 12),
    ]
    assert clean[:4] == "A b." and clean[:8] == "A b. C d"


def test_wrapped_citations() -> None:
    clean, events = remove_citation_tags("Intro <w>the cited fact</w> and more.", WrapTags())
    assert clean == "Intro the cited fact and more."
    assert events == [TagEvent(OPEN, "d", 6), TagEvent(CLOSE, None, 20)]
    assert clean[6:20] == "the cited fact"
    # An empty wrap is a point reference.
    clean, events = remove_citation_tags("Fact <w></w>. Next", WrapTags())
    assert clean == "Fact. Next"
    assert events == [TagEvent(ANCHOR, "d", 4)]


class _Sink:
    def __init__(self) -> None:
        self.parts: list[str] = []

    def write(self, text: str) -> None:
        self.parts.append(text)

    def end(self) -> None:
        pass


def _chunked(text: str, cuts: list[int], grammar: object) -> tuple[str, list[TagEvent]]:
    sink = _Sink()
    remover = CitationTagRemover(sink, grammar)  # type: ignore[arg-type]
    previous = 0
    for cut in [*cuts, len(text)]:
        remover.write(text[previous:cut])
        previous = cut
    remover.end()
    return "".join(sink.parts), remover.events


TAGGED = st.lists(
    st.sampled_from(["<c>1</c>", "<c>22</c>", "<c>", "</c>", "<c>x</c>", " ", "\n", ".", ",",
                     "word", "<w>", "</w>", "<p>", '"', "<"]),
    max_size=25,
).map("".join)  # fmt: skip


@given(data=st.data(), text=TAGGED)
def test_chunking_never_changes_the_result(data: st.DataObject, text: str) -> None:
    cuts = data.draw(cuts_for(text))
    for grammar in (POINT, WrapTags()):
        assert _chunked(text, cuts, grammar) == remove_citation_tags(text, grammar)


@given(text=TAGGED)
def test_no_double_spaces_and_positions_in_range(text: str) -> None:
    clean, events = remove_citation_tags(text, POINT)
    if "  " not in text:
        assert "  " not in clean
    assert all(0 <= e.position <= len(clean) for e in events)
    assert [e.position for e in events] == sorted(e.position for e in events)
