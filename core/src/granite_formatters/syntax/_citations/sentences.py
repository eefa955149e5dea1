"""An offline, deterministic sentence splitter for model responses.

Why not nltk's ``sent_tokenize``? Its English model (``punkt_tab``) is a separate
download that is not on PyPI, so a fresh install without network access cannot use
it, and a parser must never fail at run time for want of a data file. Granite
responses are also a narrow genre (short paragraphs, Markdown lists, the odd
abbreviation or number), for which a small rule set does as well as a trained model
and, unlike one, is predictable: the same text always splits the same way, whatever
is installed.

Rules (applied in one left-to-right pass, O(n)):

* A line break ends a sentence (list items and paragraphs are sentences of their own).
* ``!``, ``?`` and ``.`` (also ``…`` and runs such as ``?!`` or ``...``), followed by
  optional closing quotes, brackets or Markdown emphasis, then whitespace, end a
  sentence. Whatever follows without whitespace does not split: ``3.5``, ``e.g.,``,
  ``example.com``, ``"Hi."`` inside a word.
* A period does NOT end a sentence when the word before it is a known abbreviation
  (``e.g.``, ``i.e.``, ``Dr.``, ``Mr.``, ``vs.``, ``Fig.``, ...), a single letter (an
  initial, as in ``J. K. Rowling``), a dotted acronym (``U.S.``) followed by a
  lower-case word, a list number at the start of a line (``1.``), or when the next
  word starts with a lower-case letter or a digit (``approx. 3``, ``... and so on``).
  Words such as ``etc.`` or ``Inc.`` end a sentence only when a capitalised word follows.

Spans never include the whitespace around a sentence. The splitter is pluggable: the
output processors accept any callable with the signature of :func:`split_sentences`.
"""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = ["SentenceSplitter", "split_sentences"]

#: A function that splits text into ``(begin, end)`` sentence spans.
SentenceSplitter = Callable[[str], list[tuple[int, int]]]

# Never a sentence end when followed by more text (titles, Latin, references).
_ABBREVIATIONS = frozenset(
    [
        "mr",
        "mrs",
        "ms",
        "mx",
        "dr",
        "prof",
        "sr",
        "jr",
        "st",
        "mt",
        "rev",
        "hon",
        "gen",
        "col",
        "lt",
        "sgt",
        "capt",
        "cmdr",
        "gov",
        "sen",
        "rep",
        "pres",
        "e.g",
        "eg",
        "i.e",
        "ie",
        "cf",
        "vs",
        "viz",
        "al",
        "approx",
        "ca",
        "fig",
        "figs",
        "no",
        "nos",
        "vol",
        "vols",
        "pp",
        "ed",
        "eds",
        "dept",
        "est",
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
    ]
)
# End a sentence only when a capitalised word follows.
_AMBIGUOUS = frozenset(["etc", "inc", "ltd", "co", "corp", "llc", "plc", "bros"])

_CLOSERS = "\"'”’)]}*_»`"
# A sentence end candidate, found in one C-level scan: a terminator (group 1), the
# rest of its run (group 2) and the closers after it, followed by whitespace or the end
# of the text; group 3 is the character after the spaces and tabs that follow ("" at
# the end). Or a line break (groups 2 and 3 are None). A terminator run followed by
# anything else ("3.5", "e.g.,") is never a boundary, so it is not even visited. The
# pattern starts with a single character set, which lets ``re`` skip ahead fast.
_BOUNDARY = re.compile(
    r"([.!?…\n])(?:(?<=\n)|([.!?…]*)[" + re.escape(_CLOSERS) + r"]*(?=\s|\Z)(?=[ \t]*((?s:.)?)))"
)
# Tried only where a run starts (the look-behind), so no attempt inside a word backtracks.
_WORD_BEFORE = re.compile(r"(?<![\w.])[\w.]+$")


def _word_before(text: str, end: int) -> str:
    """The run of word characters and dots ending at ``end`` (bounded look-back)."""
    start = max(0, end - 32)
    # The usual case without a regex: a plain word after a space (``\w`` is exactly
    # what ``str.isalnum`` accepts, plus "_").
    space = text.rfind(" ", start, end)
    if space != -1:
        word = text[space + 1 : end]
        if not word or word.isalnum():
            return word
    # Searched in the 32-character window itself, so a run cut by the window start
    # counts from there.
    match = _WORD_BEFORE.search(text[start:end])
    return match.group(0) if match else ""


def _is_list_number(text: str, dot: int, word: str) -> bool:
    """``1.`` or ``12.`` with only indentation before it on its line (a list item)."""
    if not word.isdigit():
        return False
    begin = dot - len(word)
    window = max(0, begin - 9)
    newline = text.rfind("\n", window, begin)
    if newline == -1 and window > 0:
        return False  # more than 8 characters of this line precede the number
    return text[newline + 1 : begin].strip() == ""


def _period_ends_sentence(text: str, dot: int, next_char: str) -> bool:
    if next_char.islower() or next_char.isdigit():
        return False  # checked first: it needs no look-back
    word = _word_before(text, dot)
    if word.isalpha():  # the usual word: no dots, no digits (so no list number)
        bare = word.lower()
        if bare in _ABBREVIATIONS:
            return False
        if bare in _AMBIGUOUS:
            return next_char.isupper()
        return not (len(bare) == 1 and bare.isalpha())
    bare = word.strip(".").lower()
    if _is_list_number(text, dot, word.rstrip(".")):
        return False
    if bare in _ABBREVIATIONS or word.lower().rstrip(".") in _ABBREVIATIONS:
        return False
    if bare in _AMBIGUOUS:
        return next_char.isupper()
    return not (len(bare) == 1 and bare.isalpha())  # a single letter is an initial


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Split ``text`` into sentences, returned as ``(begin, end)`` index pairs.

    ``text[begin:end]`` is a sentence with no surrounding whitespace; the spans are
    in order and do not overlap. Empty or whitespace-only text gives ``[]``.
    """
    spans: list[tuple[int, int]] = []
    start = 0
    for match in _BOUNDARY.finditer(text):
        first, rest, next_char = match.groups()
        if rest is None:  # a line break
            end = match.start()
        else:
            end = match.end()
            if (rest[-1] if rest else first) in ".…" and next_char not in ("", "\n", "\r"):
                if first == "." and not rest:
                    if not _period_ends_sentence(text, match.start(), next_char):
                        continue
                elif next_char.islower() or next_char.isdigit():
                    continue  # "wait... and then"
        segment = text[start:end]
        stripped = segment.strip()
        if stripped:
            begin = start + len(segment) - len(segment.lstrip())
            spans.append((begin, begin + len(stripped)))
        start = end
    segment = text[start:]
    stripped = segment.strip()
    if stripped:
        begin = start + len(segment) - len(segment.lstrip())
        spans.append((begin, begin + len(stripped)))
    return spans
