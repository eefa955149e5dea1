"""Character spans for citations and hallucinations.

* :func:`anchor_sentences`: which sentence of the answer each citation tag refers to,
  by position (a repeated sentence gets the copy its tag is in).
* :class:`TextLocator`: where each flagged (hallucination) sentence is in the answer,
  taking repeated texts in order, with a total search budget that keeps the work
  linear in the answer length whatever the model lists.
* :class:`ContextLocator`: where a quoted context is in a document, exactly or, failing
  that, ignoring differences in whitespace and letter case.

All offsets are Python ``str`` indices; a span that cannot be found is ``None``.
"""

from __future__ import annotations

from collections.abc import Sequence

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
        self.exhausted = False

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
                self.exhausted = True
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


class ContextLocator:
    """Finds quoted contexts in documents (each document normalised at most once)."""

    def __init__(self) -> None:
        self._normalised: dict[str, tuple[str, list[int]]] = {}

    def locate(self, key: str, document: str, context: str) -> Span | None:
        """The span of ``context`` in ``document`` (cached under ``key``), or ``None``.

        The exact text is tried first, then the text with surrounding quotes and
        ellipses removed, then both ignoring whitespace and case. The span always
        slices the document: ``document[begin:end]`` is the matched text.
        """
        candidates = [context.strip()]
        unquoted = candidates[0].strip("\"'“”").strip()
        trimmed = unquoted
        if trimmed.startswith(("...", "…")):
            trimmed = trimmed.lstrip(".…").strip()
        if trimmed.endswith(("...", "…")):
            trimmed = trimmed.rstrip(".…").strip()
        for candidate in (unquoted, trimmed):
            if candidate and candidate not in candidates:
                candidates.append(candidate)
        for candidate in candidates:
            if candidate:
                found = document.find(candidate)
                if found >= 0:
                    return found, found + len(candidate)
        if key not in self._normalised:
            self._normalised[key] = _normalise(document)
        normal_document, origin = self._normalised[key]
        for candidate in candidates:
            normal, _ = _normalise(candidate.strip())
            if not normal:
                continue
            found = normal_document.find(normal)
            if found >= 0:
                return origin[found], origin[found + len(normal) - 1] + 1
        return None
