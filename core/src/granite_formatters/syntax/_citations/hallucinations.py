"""Hallucination sections: their ``1. Risk low: sentence`` items, and where each flagged
text is in the answer."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from ...granite3._types import Hallucination
from .notes import excerpt
from .spans import Span, TextLocator

__all__ = ["add_hallucination_response_spans", "parse_hallucinations_text"]


_HALLUCINATION_ITEM = re.compile(
    r"[ \t]*(?:(\d{1,9})[.)]|[-*•])[ \t]*risk[ \t]*[:=-]?[ \t]*"
    r"(low|medium|high|unanswerable|\d{1,3}(?:\.\d{1,6})?%?|[a-z]{1,20})[ \t]*:[ \t]*(.*)",
    re.IGNORECASE,
)


def parse_hallucinations_text(text: str, notes: list[str] | None = None) -> list[Hallucination]:
    """Read a hallucinations list (``1. Risk low: sentence`` items, one per line).

    Tolerant of case (``risk LOW``), spacing, ``1)`` / ``-`` bullets, ``Risk: low`` and
    any risk word or number (normalised to lower case). An item's text continues on
    following lines until the next item. Spans are left ``None`` (see
    :func:`add_hallucination_response_spans`). Lines that are not part of an item are
    reported in ``notes``.
    """
    items: list[tuple[str, str, list[str]]] = []
    for line in text.splitlines():
        match = _HALLUCINATION_ITEM.fullmatch(line)
        if match is not None:
            number = match.group(1) or str(len(items) + 1)
            items.append((number, match.group(2).lower(), [match.group(3)]))
        elif items:
            items[-1][2].append(line)
        elif line.strip() and notes is not None:
            notes.append(f"could not read hallucination line {excerpt(line)}")
    return [
        Hallucination(hallucination_id=number, risk=risk, response_text="\n".join(lines).strip())
        for number, risk, lines in items
    ]


def add_hallucination_response_spans(
    hallucinations: Sequence[Hallucination],
    response_text: str,
    clean: Callable[[str], str] | None = None,
    *,
    sentences: Sequence[Span] = (),
    notes: list[str] | None = None,
) -> list[Hallucination]:
    """Locate each flagged text in the (cleaned) response.

    ``clean`` removes citation tags from a flagged text before it is searched for.
    Returns new objects; ``response_begin``/``response_end`` are ``None`` (and a note is
    made) when the text is not in the response. Repeated texts are matched in order.
    The total work is linear in the response length (see :class:`~.spans.TextLocator`).
    """
    locator = TextLocator(response_text, sentences)
    located: list[Hallucination] = []
    for item in hallucinations:
        text = (clean(item.response_text) if clean is not None else item.response_text).strip()
        span = locator.locate(text)
        if span is None and notes is not None:
            notes.append(
                f"hallucination {item.hallucination_id}: {excerpt(text)} is not in the response"
            )
        located.append(
            item.model_copy(
                update={
                    "response_text": text,
                    "response_begin": span[0] if span else None,
                    "response_end": span[1] if span else None,
                }
            )
        )
    return located
