"""The lines of a citations section, read into entries (key, document, quoted context)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from .notes import excerpt

__all__ = ["CitationEntry", "parse_citation_lines"]


class CitationEntry(NamedTuple):
    """A line of a citations section.

    ``key`` is what inline tags refer to (3.2: the citation number; 3.3: the document
    id), ``document`` names the cited document, ``context`` is the quoted text.
    """

    key: str
    document: str
    context: str


def parse_citation_lines(
    body: str, item_patterns: Sequence[re.Pattern[str]], notes: list[str]
) -> list[CitationEntry]:
    """Read a citations section: one item per line, quoted contexts may span lines.

    A line starts an item when one of ``item_patterns`` fully matches it; the match's
    named groups are ``key``, ``context`` and optionally ``document`` (defaults to
    ``key``). Other lines continue the previous item's context, and so does any line
    while a context's opening double quote is not yet closed (so a quoted line that
    happens to look like an item does not start one). One pair of surrounding double
    quotes is removed from each context.
    """
    items: list[tuple[str, str, list[str]]] = []
    # Whether the last item's context opens a double quote it has not closed yet: it
    # starts with '"' and does not also end with it (a lone '"' is open). Known from
    # its first and last visible characters and whether it has only one, kept as the
    # context grows (re-reading the joined context per line would be quadratic).
    quote_open = False
    first = last = ""
    visible = 0  # visible characters of the context, counted up to 2
    readers = [
        (p, "key" in p.groupindex, "document" in p.groupindex, "context" in p.groupindex)
        for p in item_patterns
    ]
    for line in body.splitlines():
        match = None
        if not quote_open:
            for reader in readers:
                match = reader[0].fullmatch(line)
                if match is not None:
                    break
        if match is not None:
            _, has_key, has_document, has_context = reader
            key = ((match["key"] if has_key else None) or "").strip()
            document = ((match["document"] if has_document else None) or key).strip()
            piece = (match["context"] if has_context else None) or ""
            items.append((key, document, [piece]))
            first = last = ""
            visible = 0
        elif items:
            piece = line
            items[-1][2].append(piece)
        else:
            if line.strip():
                notes.append(f"could not read citation line {excerpt(line)}")
            continue
        shown = piece.strip()
        if shown:
            first = first or shown[0]
            last = shown[-1]
            visible = min(2, visible + len(shown))
        quote_open = first == '"' and (visible == 1 or last != '"')
    entries: list[CitationEntry] = []
    for key, document, lines in items:
        text = (lines[0] if len(lines) == 1 else "\n".join(lines)).strip()
        # One pair of surrounding double quotes removed, then the spaces inside them.
        if text[:1] == '"':
            text = text[1:]
        if text[-1:] == '"':
            text = text[:-1]
        entries.append(CitationEntry(key, document, text.strip()))
    return entries
