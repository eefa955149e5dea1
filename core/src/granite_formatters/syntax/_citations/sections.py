"""Separating the answer from the trailing citation / hallucination sections.

With the ``citations`` or ``hallucinations`` controls, a Granite 3 answer is followed
by sections: ``# Citations:`` / ``# Hallucinations:`` headers in 3.2,
``<|start_of_plugin|>{"id": "citation"}`` ... ``<|end_of_plugin|>`` blocks in 3.3.
:class:`SectionSplitter` passes the answer on and collects everything from the first
section header on, for parsing once the output is complete;
:func:`split_section_blocks` then splits what it collected into :class:`SectionBlock` s.

A header is recognised either at the start of a line (``line_patterns``, tolerant
:class:`~.linepatterns.BoundedPattern` s) or anywhere (``starters``, literal markers
such as a special token). A line that could still become a header is held back until
it is decided. The same header text inside a sentence is not a header.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import NamedTuple

from .._markers import MarkerSearch, marker_first_chars, marker_prefixes, partial_marker_length
from .line_patterns import PatternSet
from .stages import NOTHING, Outbox, ScanningSink, TextSink

__all__ = ["SectionBlock", "SectionSplitter", "split_section_blocks"]


class SectionSplitter(ScanningSink):
    """A :class:`~.stages.TextSink` passing the answer on and keeping the sections."""

    def __init__(
        self,
        next_sink: TextSink,
        outbox: Outbox,
        *,
        line_patterns: PatternSet,
        starters: Sequence[str] = (),
        drops: Sequence[str] = (),
    ) -> None:
        self.next = next_sink
        self.outbox = outbox
        self._patterns = line_patterns
        self._starters = tuple(starters)
        self._drops = tuple(drops)
        self._markers = self._starters + self._drops
        # A chunk without these (marker starts, or a line break that may start a
        # header) passes through while no line start or partial marker is pending.
        self._lane_chars = marker_first_chars(self._markers) | {"\n"}
        # Held whole away from a line start (a line break may start a header: scanned).
        self._prefixes = frozenset(p for p in marker_prefixes(self._markers) if "\n" not in p)
        self._pending = ""
        self._at_line_start = True
        self._sections: list[str] | None = None
        #: Called at the end with the collected sections text; returns the text that
        #: belongs to the answer after all (written on before the end).
        self.recover: Callable[[str], str] | None = None

    def sections_text(self) -> str:
        """Everything from the first section header on ("" when there was none)."""
        return "".join(self._sections) if self._sections is not None else ""

    def write(self, text: str) -> None:
        if not text:
            return
        if self._sections is not None:
            self._sections.append(text)
        elif self._pending or self._at_line_start or not self._lane_chars.isdisjoint(text):
            super().write(text)
        else:
            # The steady case (see lane): the answer goes on, away from a line start,
            # and nothing in ``text`` can start a header: passed on whole.
            self.next.write(text)

    def _holds(self) -> frozenset[str]:
        return NOTHING if self._at_line_start else self._prefixes

    def holds(self) -> frozenset[str]:
        """The texts a scan keeps whole away from a line start, with nothing pending."""
        return self._prefixes

    @property
    def markers(self) -> tuple[str, ...]:
        """The markers found anywhere in the answer (section starters, dropped tokens)."""
        return self._markers

    def collector(self) -> Callable[[str], None]:
        """Once the sections have started: what :meth:`write` does with a non-empty text
        (it is collected), as a callable."""
        assert self._sections is not None
        return self._sections.append

    @property
    def collecting(self) -> bool:
        """Whether the sections have started (every later chunk is only collected)."""
        return self._sections is not None

    def lane(self) -> frozenset[str] | None:
        """The characters that need this sink's scan now, or ``None`` if every chunk does.

        While the answer goes on, not at a line start and with nothing pending, a chunk
        holding none of them is passed on to ``next_sink`` unchanged.
        """
        if self._sections is not None or self._pending or self._at_line_start:
            return None
        return self._lane_chars

    def end(self) -> None:
        self._flush()
        if self._sections is not None and self.recover is not None:
            # Whatever the sections do not account for goes back to the answer.
            recovered = self.recover(self.sections_text())
            if recovered:
                self.next.write(recovered)
        self.next.end()

    def _start_sections(self, text: str) -> None:
        self._sections = [text]

    def _scan(self, buffer: str, final: bool) -> None:
        position = 0
        length = len(buffer)
        search = MarkerSearch(buffer, self._markers)
        line_starts = self._patterns.line_starts
        # The answer text of this scan is passed on in one write (the next sinks are
        # chunking-invariant), so their per-write cost is not paid per line.
        out: list[str] = []
        try:
            self._scan_into(buffer, final, position, length, search, line_starts, out)
        finally:
            if out:
                self.next.write("".join(out))

    def _scan_into(
        self,
        buffer: str,
        final: bool,
        position: int,
        length: int,
        search: MarkerSearch,
        line_starts: re.Pattern[str],
        out: list[str],
    ) -> None:
        while position < length:
            if self._at_line_start:
                if self._patterns.match(buffer, position) is not None:
                    self._start_sections(buffer[position:])
                    return
                if not final and self._patterns.could_match(buffer, position):
                    self._pending = buffer[position:]
                    return
                self._at_line_start = False
            # The lines up to the next one that could start a header go on in one piece
            # (a budget on per-line work: a line that cannot be a header costs nothing).
            found_line = line_starts.search(buffer, position)
            stop = length if found_line is None else found_line.end()
            found = search.next(position, stop)
            if found is not None:
                out.append(buffer[position : found.start])
                if found.marker in self._starters:
                    self._start_sections(buffer[found.start :])
                    return
                self.outbox.note(f"removed a stray {found.marker!r} from the answer")
                position = found.end
                continue
            if found_line is None:
                keep = 0 if final else partial_marker_length(buffer, self._markers, position)
                out.append(buffer[position : length - keep])
                self._pending = buffer[length - keep :]
                return
            out.append(buffer[position:stop])
            position = stop
            self._at_line_start = True


class SectionBlock(NamedTuple):
    """One citation or hallucination section: its kind (``None`` if unknown) and body."""

    kind: str | None
    body: str
    #: Whether the section was opened by a special token (3.3 ``<|start_of_plugin|>``).
    token: bool
    #: The header line's text before ``body`` ("" when the block has no header).
    header: str = ""


def _lines(text: str) -> list[str]:
    """``text`` split after each ``\\n`` (the separators kept)."""
    lines = text.split("\n")
    return [line + "\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])


def split_section_blocks(
    text: str, patterns: PatternSet, *, open_token: str = "", close_token: str = ""
) -> tuple[list[SectionBlock], list[str]]:
    """Split collected section text into blocks, in one pass.

    A block starts at a header (a ``patterns`` match at the start of a line, or the
    first line after ``open_token``, whose kind is then ``None`` if it is not a known
    header) and runs to the next header, ``close_token`` or the end. Returns the
    blocks and the text that belongs to no block (between a ``close_token`` and the
    next block), as it was written.
    """
    blocks: list[SectionBlock] = []
    strays: list[str] = []
    kind: str | None = None
    header = ""
    body: list[str] | None = None
    token = False

    def finish() -> None:
        nonlocal body
        if body is not None:
            blocks.append(SectionBlock(kind, "".join(body), token, header))
            body = None

    search = MarkerSearch(text, [t for t in (open_token, close_token) if t])
    line_starts = patterns.line_starts
    position = 0
    opened = False
    while True:
        found = search.next(position)
        stop = len(text) if found is None else found.start
        at_line_start = opened or position == 0 or text[position - 1] == "\n"
        chunk = text[position:stop]
        size = len(chunk)
        begin = 0
        while begin < size:
            newline = chunk.find("\n", begin)
            end = size if newline == -1 else newline + 1
            line = chunk[begin:end]
            hit = patterns.match(line) if at_line_start else None
            if hit is not None:
                finish()
                kind, header, body, token = hit[0].name, line[: hit[1]], [line[hit[1] :]], opened
            elif opened:
                finish()
                kind, header, body, token = None, "", [line], True
            elif body is not None:
                body.append(line)
            else:
                strays.append(line)
            opened = False
            at_line_start = True  # every later line of the chunk starts after a "\n"
            # The lines up to the next one that could start a header, in one piece
            # (strays stay one per line: each is noted).
            begin = end
            if begin < size:
                candidate = line_starts.search(chunk, begin - 1)
                skip_to = size if candidate is None else candidate.end()
                if skip_to > begin:
                    if body is not None:
                        body.append(chunk[begin:skip_to])
                    else:
                        strays.extend(_lines(chunk[begin:skip_to]))
                    begin = skip_to
        if opened:  # an open token with nothing after it
            finish()
            kind, header, body, token = None, "", [], True
        finish()
        if found is None:
            break
        opened = found.marker == open_token
        position = found.end
    return blocks, strays
