"""The offline sentence splitter, on the shapes Granite answers take."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from granite_formatters.granite3._sentences import split_sentences


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
