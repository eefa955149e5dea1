"""Span computation: sentence per citation tag, flagged text lookup, context lookup."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from granite_formatters.granite3._citations import anchor_sentences, split_sentences
from granite_formatters.syntax._citations.spans import ContextLocator, TextLocator

TEXT = "S one. S two. S one. Tail"
SENTENCES = split_sentences(TEXT)  # [(0, 6), (7, 13), (14, 20), (21, 25)]


def test_anchor_sentences_by_position() -> None:
    assert SENTENCES == [(0, 6), (7, 13), (14, 20), (21, 25)]
    # at the start, inside, right after a sentence, between sentences, at the very end
    positions = [0, 3, 6, 7, 13, 14, 20, 25]
    assert anchor_sentences(positions, SENTENCES) == [
        (0, 6), (0, 6), (0, 6), (0, 6), (7, 13), (7, 13), (14, 20), (21, 25),
    ]  # fmt: skip
    assert anchor_sentences([0, 5], []) == [None, None]
    assert anchor_sentences([], SENTENCES) == []


def test_repeated_sentence_gets_the_copy_its_tag_is_in() -> None:
    # The #851 residual case: "S C1 C2 S C3" -> spans (0,L), (0,L), (L+1, 2L+1).
    text = "Same. Same."
    spans = anchor_sentences([5, 5, 11], split_sentences(text))
    assert spans == [(0, 5), (0, 5), (6, 11)]
    assert [text[b:e] for b, e in spans] == ["Same.", "Same.", "Same."]  # type: ignore[misc]


def test_text_locator_takes_repeats_in_order() -> None:
    locator = TextLocator(TEXT, SENTENCES)
    assert locator.locate("S one.") == (0, 6)
    assert locator.locate("S one.") == (14, 20)
    assert locator.locate("S one.") == (14, 20)  # more requests than copies: the last
    assert locator.locate("two. S") == (9, 15)  # not a sentence: searched for
    assert locator.locate("Tail") == (21, 25)  # from the last match on ...
    assert locator.locate("S") == (0, 1)  # ... then from the start
    assert locator.locate("nope") is None
    assert locator.locate("") is None


def test_text_locator_budget_keeps_work_linear() -> None:
    text = "a" * 1000
    locator = TextLocator(text, budget_factor=2)
    locator._budget = 2 * len(text)  # no slack, for the test
    results = [locator.locate("b") for _ in range(10)]
    assert results == [None] * 10
    assert locator._budget <= 0  # the searches stopped once it ran out
    assert locator.locate("a") is None


def test_context_locator() -> None:
    document = "Intro.\nThe  quick brown\nFox jumps. End."
    locator = ContextLocator()
    assert locator.locate("d", document, "Intro.") == (0, 6)
    assert locator.locate("d", document, '  "Intro."  ') == (0, 6)
    # whitespace and case differences
    span = locator.locate("d", document, "the quick brown fox jumps.")
    assert span is not None and document[span[0] : span[1]] == "The  quick brown\nFox jumps."
    # surrounding ellipsis from a truncated quote
    span = locator.locate("d", document, "...quick brown")
    assert span is not None and document[span[0] : span[1]] == "quick brown"
    assert locator.locate("d", document, "absent") is None
    assert locator.locate("d", document, "   ") is None


@given(
    document=st.text(alphabet="ab \nAB.", max_size=40),
    data=st.data(),
)
def test_context_locator_spans_always_slice_the_document(
    document: str, data: st.DataObject
) -> None:
    begin = data.draw(st.integers(0, len(document)))
    end = data.draw(st.integers(begin, len(document)))
    quote = data.draw(st.sampled_from([str.upper, str.lower, lambda s: " ".join(s.split())]))(
        document[begin:end]
    )
    span = ContextLocator().locate("k", document, quote)
    if quote.strip(" \n\"'“”.…"):
        assert span is not None
    if span is not None:
        found = document[span[0] : span[1]]
        assert " ".join(found.lower().split()) in " ".join(document.lower().split())
        assert found == found.strip()
