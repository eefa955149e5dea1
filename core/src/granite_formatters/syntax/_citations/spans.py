"""Character spans for citations and hallucinations.

* :func:`anchor_sentences`: which sentence of the answer each citation tag refers to,
  by position (a repeated sentence gets the copy its tag is in).
* :class:`TextLocator`: where each flagged (hallucination) sentence is in the answer,
  taking repeated texts in order, with a total search budget that keeps the work
  linear in the answer length whatever the model lists.
* :class:`ContextLocator`: where a quoted context is in a document, exactly or, failing
  that, ignoring differences in whitespace and letter case. Quotes are looked up in
  an index built once per document, so the work per citation does not grow with the
  document (many citations against a large document stay linear).

All offsets are Python ``str`` indices; a span that cannot be found is ``None``.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Sequence

__all__ = ["ContextLocator", "Span", "TextLocator", "anchor_sentences"]

Span = tuple[int, int]


def anchor_sentences(positions: Sequence[int], sentences: Sequence[Span]) -> list[Span | None]:
    """The sentence each anchor position refers to.

    An anchor refers to the last sentence that begins before it: the sentence it sits
    in, or, for a tag at the start of a sentence (after the sentence's final
    punctuation), the sentence before. An anchor before every sentence (at the very
    start of the answer) refers to the first sentence. ``None`` when there are no
    sentences. ``positions`` must be in non-decreasing order; the work is
    O(len(positions) + len(sentences)).
    """
    result: list[Span | None] = []
    current = -1
    for position in positions:
        while current + 1 < len(sentences) and sentences[current + 1][0] < position:
            current += 1
        if current >= 0:
            result.append(sentences[current])
        else:
            result.append(sentences[0] if sentences else None)
    return result


class TextLocator:
    """Finds pieces of text in ``text``, in order, within a total work budget.

    A needle that is exactly one of ``sentences`` is looked up in a table (its k-th
    request gets its k-th occurrence, or the last one if it occurs fewer times). Other
    needles are searched for from the end of the previous match, then from the start.
    Searching stops when about ``budget_factor`` times the text length has been
    scanned; later needles are then reported as not found.
    """

    def __init__(self, text: str, sentences: Sequence[Span] = (), budget_factor: int = 8) -> None:
        self.text = text
        self._occurrences: dict[str, list[int]] = {}
        for begin, end in sentences:
            self._occurrences.setdefault(text[begin:end], []).append(begin)
        self._used: dict[str, int] = {}
        self._cursor = 0
        self._budget = budget_factor * len(text) + 65_536

    def locate(self, needle: str) -> Span | None:
        """The span of ``needle`` in the text, or ``None``."""
        if not needle:
            return None
        begins = self._occurrences.get(needle)
        if begins:
            index = self._used.get(needle, 0)
            self._used[needle] = index + 1
            begin = begins[min(index, len(begins) - 1)]
            return self._found(begin, needle)
        for start in (self._cursor, 0) if self._cursor else (0,):
            if self._budget <= 0:
                return None
            found = self.text.find(needle, start)
            self._budget -= (found + len(needle) if found >= 0 else len(self.text)) - start
            if found >= 0:
                return self._found(found, needle)
        return None

    def _found(self, begin: int, needle: str) -> Span:
        end = begin + len(needle)
        self._cursor = end
        return begin, end


def _normalise(text: str) -> tuple[str, list[int]]:
    """Collapse whitespace runs to one space and lower-case each character.

    Returns the normalised text and, for each of its characters, the index of the
    character of ``text`` it came from.
    """
    chars: list[str] = []
    origin: list[int] = []
    in_space = False
    for index, char in enumerate(text):
        if char.isspace():
            if not in_space:
                chars.append(" ")
                origin.append(index)
            in_space = True
            continue
        in_space = False
        lower = char.lower()
        chars.append(lower if len(lower) == 1 else char)
        origin.append(index)
    return "".join(chars), origin


_WORD = re.compile(r"\w+")
#: Documents up to this length are searched directly (the cost per quote is bounded).
_DIRECT = 4096


class _TextIndex:
    """First occurrences of quotes in one text, through an index of its words.

    The index maps each word (a maximal ``\\w+`` run) to its start positions, built
    once. A quote that contains a complete word (one with a non-word character on
    each side *inside the quote*) can only occur where that word occurs as a whole
    word, so only those positions are checked, rarest word first; the first one that
    matches is the same answer ``str.find`` gives. Quotes without such a word, and the
    checks themselves, draw on a work budget proportional to the text, so the total
    cost stays linear however many quotes are looked up.
    """

    __slots__ = ("_budget", "_cache", "_words", "text")

    def __init__(self, text: str, budget_factor: int = 32) -> None:
        self.text = text
        self._words: dict[str, list[int]] | None = None
        self._cache: dict[str, int] = {}
        self._budget = budget_factor * len(text) + 1_000_000

    def find(self, quote: str) -> int:
        """The first index of ``quote`` in the text, or -1 (also when out of budget)."""
        cached = self._cache.get(quote)  # a passage is often quoted more than once
        if cached is None:
            text = self.text
            found = text.find(quote) if len(text) <= _DIRECT else self._search(quote)
            cached = self._cache[quote] = found
        return cached

    def _search(self, quote: str) -> int:
        text = self.text
        if self._budget <= 0:
            return -1
        anchors = [
            (m.start(), m.group())
            for m in _WORD.finditer(quote)
            if m.start() > 0 and m.end() < len(quote)
        ]
        if not anchors:
            found = text.find(quote)
            self._budget -= (found + len(quote)) if found >= 0 else len(text)
            return found
        if self._words is None:
            words: dict[str, list[int]] = {}
            for match in _WORD.finditer(text):
                words.setdefault(match.group(), []).append(match.start())
            self._words = words
        index = self._words
        offset, word = min(anchors, key=lambda anchor: len(index.get(anchor[1], ())))
        cost = len(quote) + 1
        for position in index.get(word, ()):
            start = position - offset
            self._budget -= cost
            if start >= 0 and text.startswith(quote, start):
                return start
            if self._budget <= 0:
                return -1
        return -1


class _DocumentIndex:
    """A document's exact and normalised (whitespace, case) indexes, each built lazily."""

    __slots__ = ("_exact", "_normal", "_origin", "document", "located")

    def __init__(self, document: str) -> None:
        self.document = document
        self._exact = _TextIndex(document)
        self._normal: _TextIndex | None = None
        self._origin: list[int] = []
        #: What :meth:`ContextLocator.locate` found for each context asked so far (the
        #: indexes answer a repeated quote from their caches, so this is what it would
        #: find again).
        self.located: dict[str, Span | None] = {}

    def find(self, quote: str) -> Span | None:
        found = self._exact.find(quote)
        return (found, found + len(quote)) if found >= 0 else None

    def find_normalised(self, quote: str) -> Span | None:
        normal, _ = _normalise(quote.strip())
        if not normal:
            return None
        if self._normal is None:
            text, self._origin = _normalise(self.document)
            self._normal = _TextIndex(text)
        found = self._normal.find(normal)
        if found < 0:
            return None
        origin = self._origin
        return origin[found], origin[found + len(normal) - 1] + 1


class ContextLocator:
    """Finds quoted contexts in documents (each document indexed at most once)."""

    def __init__(self) -> None:
        self._documents: dict[Hashable, _DocumentIndex] = {}

    def locate(self, key: Hashable, document: str, context: str) -> Span | None:
        """The span of ``context`` in ``document`` (indexed under ``key``), or ``None``.

        The exact text is tried first, then the text with surrounding quotes and
        ellipses removed, then both ignoring whitespace and case. The span always
        slices the document: ``document[begin:end]`` is the matched text. The first
        occurrence is returned, as ``str.find`` would find it.
        """
        index = self._documents.get(key)
        if index is None or index.document is not document:
            index = self._documents[key] = _DocumentIndex(document)
        try:
            return index.located[context]
        except KeyError:
            span = index.located[context] = self._locate(index, context)
            return span

    @staticmethod
    def _locate(index: _DocumentIndex, context: str) -> Span | None:
        stripped = context.strip()
        if stripped:
            span = index.find(stripped)  # the usual case: the context is quoted exactly
            if span is not None:
                return span
        candidates = [stripped]
        unquoted = stripped.strip("\"'“”").strip()
        trimmed = unquoted
        if trimmed.startswith(("...", "…")):
            trimmed = trimmed.lstrip(".…").strip()
        if trimmed.endswith(("...", "…")):
            trimmed = trimmed.rstrip(".…").strip()
        for candidate in (unquoted, trimmed):
            if candidate and candidate not in candidates:
                candidates.append(candidate)
        for candidate in candidates[1:]:
            if candidate:
                span = index.find(candidate)
                if span is not None:
                    return span
        for candidate in candidates:
            span = index.find_normalised(candidate)
            if span is not None:
                return span
        return None
