"""Streaming-safe literal marker search, and bounded (prefix-aware) line patterns."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from granite_formatters.granite3._citations import BoundedPattern, Lit, PatternSet, Rep
from granite_formatters.syntax._markers import (
    MarkerMatch,
    MarkerSearch,
    partial_marker_length,
)

THOUGHT = ("Here is my thought process:", "Here's my thought process:")


def find_earliest(
    text: str, markers: list[str], start: int = 0, end: int | None = None
) -> MarkerMatch | None:
    """One search (the package's helper for this was unused outside the tests)."""
    return MarkerSearch(text, markers).next(start, end)


def test_earliest_by_position_not_by_list_order() -> None:
    text = "a Here's my thought process: b Here is my thought process: c"
    assert MarkerSearch(text, THOUGHT).next() == MarkerMatch(2, "Here's my thought process:")
    assert MarkerSearch(text, THOUGHT).next().end == 2 + len("Here's my thought process:")  # type: ignore[union-attr]


def test_tie_goes_to_the_longest_marker() -> None:
    assert find_earliest("x <think> y", ["<thin", "<think>"]) == MarkerMatch(2, "<think>")


def test_start_and_end_bounds() -> None:
    text = "<a> <a> <b>"
    assert find_earliest(text, ["<a>", "<b>"], start=1) == MarkerMatch(4, "<a>")
    assert find_earliest(text, ["<b>"], end=10) is None
    assert find_earliest(text, ["<b>"], end=11) == MarkerMatch(8, "<b>")
    assert find_earliest("", ["<a>"]) is None
    assert find_earliest("abc", []) is None


def test_repeated_searches_reuse_what_they_learned() -> None:
    text = "<a>" * 5 + "<b>"
    search = MarkerSearch(text, ["<a>", "<b>", "<c>"])
    starts = []
    position = 0
    while (found := search.next(position)) is not None:
        starts.append((found.start, found.marker))
        position = found.end
    assert starts == [(0, "<a>"), (3, "<a>"), (6, "<a>"), (9, "<a>"), (12, "<a>"), (15, "<b>")]
    # Going back is allowed.
    assert search.next(4) == MarkerMatch(6, "<a>")
    assert search.next(0) == MarkerMatch(0, "<a>")


def test_partial_marker_length() -> None:
    assert partial_marker_length("text <thi", ["<think>"]) == 4
    assert partial_marker_length("text <", ["<think>", "</think>"]) == 1
    assert partial_marker_length("text </", ["<think>", "</think>"]) == 2
    assert partial_marker_length("text Here is my", THOUGHT) == len("Here is my")
    # A complete marker is not partial; nor is text that cannot begin one.
    assert partial_marker_length("<think>", ["<think>"]) == 0
    assert partial_marker_length("text", ["<think>"]) == 0
    assert partial_marker_length("", ["<think>"]) == 0
    # Only text from ``start`` on counts.
    assert partial_marker_length("<th", ["<think>"], start=1) == 0
    assert partial_marker_length("x<th", ["<think>"], start=1) == 3


def _brute_earliest(text: str, markers: list[str], start: int) -> MarkerMatch | None:
    for position in range(start, len(text)):
        hits = [m for m in markers if m and text.startswith(m, position)]
        if hits:
            return MarkerMatch(position, max(hits, key=len))
    return None


def _brute_partial(text: str, markers: list[str]) -> int:
    return max(
        (k for m in markers for k in range(1, len(m)) if len(text) >= k and text.endswith(m[:k])),
        default=0,
    )


MARKER = st.text(alphabet="ab<>", min_size=1, max_size=4)


@given(text=st.text(alphabet="ab<> ", max_size=40), markers=st.lists(MARKER, max_size=4))
def test_find_earliest_matches_brute_force(text: str, markers: list[str]) -> None:
    search = MarkerSearch(text, markers)
    for start in range(len(text) + 1):
        assert search.next(start) == _brute_earliest(text, markers, start)


@given(text=st.text(alphabet="ab<> ", max_size=20), markers=st.lists(MARKER, max_size=4))
def test_partial_marker_length_matches_brute_force(text: str, markers: list[str]) -> None:
    assert partial_marker_length(text, markers) == _brute_partial(text, markers)


HEADER = BoundedPattern(
    "citations",
    [Rep(" \t", 0, 3), Rep("#", 1, 6), Rep(" \t", 0, 3), Lit("Citations", icase=True), Lit(":")],
)


def test_bounded_pattern_match_and_prefix() -> None:
    assert HEADER.match("# Citations: rest") == len("# Citations:")
    assert HEADER.match("  ## citations:") == len("  ## citations:")
    assert HEADER.match("x# Citations:", 1) == len("x# Citations:")
    assert HEADER.match("# Citation") is None
    assert HEADER.match("Citations:") is None
    assert HEADER.match("####### Citations:") is None  # at most six
    for prefix in ("", " ", "#", "# ", "# Cit", "## CITATIONS"):
        assert HEADER.could_match(prefix), prefix
    for text in ("# Citations:", "# X", "#\n", "x", "# Citations!"):
        assert not HEADER.could_match(text), text


def test_pattern_set_reports_which_pattern() -> None:
    other = BoundedPattern("hallucinations", [Rep("#", 1, 1), Lit(" Hallucinations:")])
    patterns = PatternSet([HEADER, other])
    hit = patterns.match("# Hallucinations: x")
    assert hit is not None and hit[0].name == "hallucinations" and hit[1] == 17
    assert patterns.could_match("# H") and patterns.could_match("# C")
    assert not patterns.could_match("# D")
    assert PatternSet([]).match("x") is None and not PatternSet([]).could_match("")


@given(st.text(alphabet=" #Citaons:x\n", max_size=20))
def test_could_match_agrees_with_match_on_extensions(text: str) -> None:
    # A prefix that cannot be completed never has a matching extension.
    if not HEADER.could_match(text) and HEADER.match(text) is None:
        for suffix in ("", ":", "s:", "ations:", " Citations:", "# Citations:"):
            assert HEADER.match(text + suffix) is None
