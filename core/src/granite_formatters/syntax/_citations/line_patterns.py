"""Short, bounded patterns that can be tested on incomplete text.

Section headers such as ``# Citations:`` are recognised with some tolerance (case,
``##``, spaces), so they are not plain literals. Python's ``re`` cannot say whether a
string is a *prefix* of a possible match, which a streaming parser needs in order to
hold back ``"# Cit"`` until it knows whether a header is coming. A
:class:`BoundedPattern` is a sequence of literals and bounded character repeats; it
answers both "does a match start here, and where does it end?" and "could a match
still start here if more text came?". Every pattern has a maximum length, so both
questions cost O(that length), independent of the text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import NamedTuple

__all__ = ["SPACES", "BoundedPattern", "Element", "Lit", "PatternSet", "Rep"]


class Lit(NamedTuple):
    """A literal string (``icase``: compared case-insensitively)."""

    text: str
    icase: bool = False


class Rep(NamedTuple):
    """Between ``low`` and ``high`` characters taken from ``chars``."""

    chars: str
    low: int
    high: int


Element = Lit | Rep

#: Up to three spaces or tabs: the indentation the section headers tolerate.
SPACES = Rep(" \t", 0, 3)

# A simulation state: (element index, characters consumed inside that element).
_State = tuple[int, int]


class BoundedPattern:
    """A sequence of :class:`Lit` and :class:`Rep` elements, matched from a position."""

    __slots__ = ("_initial", "_moves", "elements", "firsts", "max_length", "name")

    def __init__(self, name: str, elements: Sequence[Element]) -> None:
        self.name = name
        self.elements = tuple(
            Lit(e.text.lower(), True) if isinstance(e, Lit) and e.icase else e for e in elements
        )
        self.max_length = sum(len(e.text) if isinstance(e, Lit) else e.high for e in elements)
        # The initial state, computed once (it was recomputed on every call).
        self._initial = frozenset(self._closure([(0, 0)]))
        # (states, character) -> next states: the simulation becomes a lazily built DFA.
        self._moves: dict[tuple[frozenset[_State], str], frozenset[_State]] = {}
        #: The characters a match can begin with, or ``None`` when that set is not a
        #: plain set (an empty match, or a case-insensitive first letter).
        self.firsts = self._first_chars()

    def _first_chars(self) -> frozenset[str] | None:
        firsts: set[str] = set()
        for index, done in self._initial:
            if index >= len(self.elements):
                return None  # the empty string matches
            element = self.elements[index]
            if isinstance(element, Lit):
                if done < len(element.text):
                    if element.icase and element.text[done].upper() != element.text[done]:
                        return None
                    firsts.add(element.text[done])
            elif done < element.high:
                firsts.update(element.chars)
        return frozenset(firsts)

    def _closure(self, states: Iterable[_State]) -> set[_State]:
        todo = list(states)
        seen: set[_State] = set()
        while todo:
            state = todo.pop()
            if state in seen:
                continue
            seen.add(state)
            index, done = state
            if index >= len(self.elements):
                continue
            element = self.elements[index]
            if isinstance(element, Lit):
                if done == len(element.text):
                    todo.append((index + 1, 0))
            elif done >= element.low:
                todo.append((index + 1, 0))
        return seen

    def _step(self, states: set[_State] | frozenset[_State], char: str) -> set[_State]:
        moved: list[_State] = []
        for index, done in states:
            if index >= len(self.elements):
                continue
            element = self.elements[index]
            if isinstance(element, Lit):
                if done < len(element.text):
                    expected = element.text[done]
                    if char == expected or (element.icase and char.lower() == expected):
                        moved.append((index, done + 1))
            elif done < element.high and char in element.chars:
                moved.append((index, done + 1))
        return self._closure(moved)

    def _move(self, states: frozenset[_State], char: str) -> frozenset[_State]:
        key = (states, char)
        moved = self._moves.get(key)
        if moved is None:
            moved = frozenset(self._step(states, char))
            if len(self._moves) < 4096:  # bounded: characters are unbounded
                self._moves[key] = moved
        return moved

    def match(self, text: str, pos: int = 0) -> int | None:
        """The end of the shortest match starting at ``pos``, or ``None``."""
        final = len(self.elements)
        firsts = self.firsts
        if firsts is not None and (pos >= len(text) or text[pos] not in firsts):
            return None
        states = self._initial
        if (final, 0) in states:
            return pos
        for offset in range(self.max_length):
            if pos + offset >= len(text) or not states:
                return None
            states = self._move(states, text[pos + offset])
            if (final, 0) in states:
                return pos + offset + 1
        return None

    def could_match(self, text: str, pos: int = 0) -> bool:
        """Whether ``text[pos:]`` is a proper prefix of some match (more text could complete it)."""
        rest = text[pos : pos + self.max_length + 1]
        if len(rest) >= self.max_length:
            return False
        if rest and self.firsts is not None and rest[0] not in self.firsts:
            return False
        states = self._initial
        for char in rest:
            states = self._move(states, char)
            if not states:
                return False
        return any(self._can_grow(index, done) for index, done in states)

    def _can_grow(self, index: int, done: int) -> bool:
        if index >= len(self.elements):
            return False
        element = self.elements[index]
        return done < (len(element.text) if isinstance(element, Lit) else element.high)


class PatternSet:
    """Several :class:`BoundedPattern` tested together at one position."""

    __slots__ = ("line_starts", "max_length", "patterns")

    def __init__(self, patterns: Sequence[BoundedPattern]) -> None:
        self.patterns = tuple(patterns)
        self.max_length = max((p.max_length for p in self.patterns), default=0)
        firsts: set[str] | None = set()
        for pattern in self.patterns:
            if pattern.firsts is None or firsts is None:
                firsts = None
            else:
                firsts.update(pattern.firsts)
        #: Finds the next line start (just after a ``\\n``) where a match could begin:
        #: one followed by a possible first character, or by the end of the text
        #: (undecided). Lines that cannot start a match are skipped in one C-level scan.
        self.line_starts: re.Pattern[str] = re.compile(
            r"\n"
            if firsts is None
            else r"\n(?=[" + "".join(map(re.escape, sorted(firsts))) + r"]|\Z)"
            if firsts
            else r"\n(?=\Z)"
        )

    def match(self, text: str, pos: int = 0) -> tuple[BoundedPattern, int] | None:
        """The first pattern (in order) matching at ``pos`` and the end of its match."""
        for pattern in self.patterns:
            end = pattern.match(text, pos)
            if end is not None:
                return pattern, end
        return None

    def could_match(self, text: str, pos: int = 0) -> bool:
        """Whether more text could complete a match of any pattern starting at ``pos``."""
        return any(p.could_match(text, pos) for p in self.patterns)
