"""The offline sentence splitter, on the shapes Granite answers take."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from granite_formatters.granite3._citations import split_sentences
from granite_formatters.syntax._citations import sentences as _sentences


def sentences(text: str) -> list[str]:
    return [text[begin:end] for begin, end in split_sentences(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("One. Two! Three? Four", ["One.", "Two!", "Three?", "Four"]),
        (
            "Use a salt, e.g. sea salt, i.e. coarse. Then stir.",
            ["Use a salt, e.g. sea salt, i.e. coarse.", "Then stir."],
        ),
        (
            "Dr. Smith met Mr. Jones and Prof. Lee. They talked.",
            ["Dr. Smith met Mr. Jones and Prof. Lee.", "They talked."],
        ),
        ("Version 3.5 is out. It costs $2.50 now.", ["Version 3.5 is out.", "It costs $2.50 now."]),
        ("Wait... what? Well... Maybe.", ["Wait... what?", "Well...", "Maybe."]),
        ("It was… fine. Then… Nothing.", ["It was… fine.", "Then…", "Nothing."]),
        ('He said "Stop." Then he left.', ['He said "Stop."', "Then he left."]),
        ("(See above.) Next one.", ["(See above.)", "Next one."]),
        ("**Note.** Bold ends here.", ["**Note.**", "Bold ends here."]),
        (
            "Steps:\n1. Mix the flour.\n2. Add water.\n- A bullet\n\nNew paragraph",
            ["Steps:", "1. Mix the flour.", "2. Add water.", "- A bullet", "New paragraph"],
        ),
        ("  10. Indented item. Second.", ["10. Indented item.", "Second."]),
        ("J. K. Rowling wrote it. Yes.", ["J. K. Rowling wrote it.", "Yes."]),
        ("See fig. 3 for details. Done.", ["See fig. 3 for details.", "Done."]),
        (
            "Apples, pears, etc. are fruit. We sell etc. Then more.",
            ["Apples, pears, etc. are fruit.", "We sell etc.", "Then more."],
        ),
        ("Visit example.com today. Or not.", ["Visit example.com today.", "Or not."]),
        ("Really?! Yes.", ["Really?!", "Yes."]),
        ("No terminator at all", ["No terminator at all"]),
        ("Trailing spaces.   \n\n  ", ["Trailing spaces."]),
        ("", []),
        (" \n\t ", []),
    ],
)
def test_realistic_shapes(text: str, expected: list[str]) -> None:
    assert sentences(text) == expected


def test_spans_index_the_text() -> None:
    text = "  First one.  Second one.\nThird"
    assert split_sentences(text) == [(2, 12), (14, 25), (26, 31)]


def test_lower_case_after_a_period_continues_the_sentence() -> None:
    assert sentences("It weighs approx. three kilos. Fine.") == [
        "It weighs approx. three kilos.",
        "Fine.",
    ]
    assert sentences("Unknown abbrev. continues here. Yes.") == [
        "Unknown abbrev. continues here.",
        "Yes.",
    ]


def test_a_long_line_of_numbers_stays_linear() -> None:
    text = "5. " * 20_000 + "End."
    spans = split_sentences(text)
    assert spans[-1] == (len(text) - 4, len(text))


@given(st.text(alphabet=st.sampled_from(list("ab. !?\n\"')…1A")), max_size=60))
def test_spans_are_ordered_stripped_and_cover_every_visible_character(text: str) -> None:
    spans = split_sentences(text)
    covered: set[int] = set()
    previous_end = 0
    for begin, end in spans:
        assert previous_end <= begin < end <= len(text)
        piece = text[begin:end]
        assert piece == piece.strip() and piece
        covered.update(range(begin, end))
        previous_end = end
    visible = {i for i, c in enumerate(text) if not c.isspace()}
    assert visible <= covered
    assert split_sentences(text) == spans  # deterministic


# ----------------------------------------------------------------------------------------
# The one-scan splitter against the rule-by-rule loop it replaced (kept here as the
# reference): the boundary regex skips terminator runs that cannot end a sentence and
# reads the next character itself, which must change no split.

_REFERENCE_BOUNDARY = re.compile(r"[.!?…]+|\n")
_REFERENCE_CLOSERS = "\"'”’)]}*_»`"


def _reference_word_before(text: str, end: int) -> str:
    match = re.search(r"[\w.]+$", text[:end][max(0, end - 32) :])
    return match.group(0) if match else ""


def _reference_period_ends_sentence(text: str, dot: int, next_char: str) -> bool:
    word = _reference_word_before(text, dot)
    bare = word.strip(".").lower()
    if _sentences._is_list_number(text, dot, word.rstrip(".")):
        return False
    if bare in _sentences._ABBREVIATIONS or word.lower().rstrip(".") in _sentences._ABBREVIATIONS:
        return False
    if next_char.islower() or next_char.isdigit():
        return False
    if bare in _sentences._AMBIGUOUS:
        return next_char.isupper()
    return not (len(bare) == 1 and bare.isalpha())


def reference_split_sentences(text: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    length = len(text)
    start = 0

    def close(end: int) -> None:
        nonlocal start
        segment = text[start:end]
        stripped = segment.strip()
        if stripped:
            lead = len(segment) - len(segment.lstrip())
            spans.append((start + lead, start + lead + len(stripped)))
        start = end

    for match in _REFERENCE_BOUNDARY.finditer(text):
        if match.start() < start:
            continue
        if match.group(0) == "\n":
            close(match.start())
            continue
        end = match.end()
        while end < length and text[end] in _REFERENCE_CLOSERS:
            end += 1
        if end < length and not text[end].isspace():
            continue
        rest = end
        while rest < length and text[rest] in " \t":
            rest += 1
        next_char = text[rest] if rest < length else ""
        terminators = match.group(0)
        if terminators[-1] in ".…" and next_char not in ("", "\n", "\r"):
            if terminators == "." and not _reference_period_ends_sentence(
                text, match.start(), next_char
            ):
                continue
            if terminators != "." and (next_char.islower() or next_char.isdigit()):
                continue
        close(end)
    close(length)
    return spans


_SENTENCE_WORDS = ["e.g", "Dr", "etc", "U.S", "J", "12", "Inc", "approx", "x" * 40, "ß", "İ", "aZq",
                   "a_b", "x" * 29 + ".dr", "\ndr"]  # fmt: skip
_SENTENCE_PUNCTUATION = [".", "..", "!", "?", "…", "?!", "", "'", '"', ")", "*", "”", "»", "`"]
_SENTENCE_SPACES = [" ", "  ", "\t", "\n", "\r", "\r\n", "\u00a0", "\u2028", "\x0c", "", " \n "]
# Words, then terminators and closers, then whitespace: the shapes every rule looks at.
_SENTENCE_PIECES = st.tuples(
    st.sampled_from(_SENTENCE_WORDS),
    st.sampled_from(_SENTENCE_PUNCTUATION),
    st.sampled_from(_SENTENCE_PUNCTUATION),
    st.sampled_from(_SENTENCE_SPACES),
).map("".join)


@settings(max_examples=400)
@given(
    st.lists(st.one_of(_SENTENCE_PIECES, st.sampled_from(list(". 1a\n"))), max_size=30).map("".join)
)
def test_the_one_scan_splitter_splits_as_the_reference_loop(text: str) -> None:
    assert split_sentences(text) == reference_split_sentences(text)


@pytest.mark.parametrize(
    "text",
    [
        "A.. b. C.)x. D.\u00a0E.\u2028F.' g. 1. Two. Dr. No. etc. Q.\r\nR…  s. T?! u",
        "  3. Item.\n   12. Item. x" + "y" * 40 + ". Z. e.g.: U.S. now. A.B. C",
    ],
)
def test_the_one_scan_splitter_on_mixed_shapes(text: str) -> None:
    assert split_sentences(text) == reference_split_sentences(text)


def test_the_one_scan_splitter_on_every_word_terminator_and_space() -> None:
    # Each word, terminator run, closer and whitespace, before a capital, a small
    # letter, a digit and the end: every branch of the rules, exhaustively.
    for word in _SENTENCE_WORDS:
        for first in _SENTENCE_PUNCTUATION:
            for second in _SENTENCE_PUNCTUATION:
                for space in _SENTENCE_SPACES:
                    for after in ("Next", "next", "3", ""):
                        text = f"Lead {word}{first}{second}{space}{after}"
                        assert split_sentences(text) == reference_split_sentences(text), text


@settings(max_examples=500)
@given(st.lists(st.sampled_from([*"ab Z1²٣_.\n\t-ßİ\u00a0", "x" * 20]), max_size=40).map("".join))
def test_the_word_before_a_period_is_the_regex_run(text: str) -> None:
    # The space-and-isalnum shortcut against the bounded regex search.
    for end in range(len(text) + 1):
        assert _sentences._word_before(text, end) == _reference_word_before(text, end)
