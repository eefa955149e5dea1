"""Lone surrogates: the code points U+D800 to U+DFFF, which a Python ``str`` can hold
(a ``"\\ud83d"`` JSON escape decodes to one) and no UTF-8 encoder writes.
"""

from __future__ import annotations

import re

__all__ = ["first_lone_surrogate", "has_lone_surrogate", "replace_lone_surrogates"]

_SURROGATE = re.compile("[\ud800-\udfff]")


def has_lone_surrogate(text: str) -> bool:
    """Whether ``text`` holds a lone surrogate.

    (ASCII text cannot; other text is encoded as UTF-8, which fails on one: a quarter
    of the instructions of a search for one in 2 KB of text.)
    """
    if text.isascii():
        return False
    try:
        text.encode()
    except UnicodeEncodeError:
        return True
    return False


def replace_lone_surrogates(text: str) -> str:
    """``text`` with each lone surrogate replaced by U+FFFD (one character for one, so
    spans hold)."""
    return _SURROGATE.sub("\ufffd", text)


def first_lone_surrogate(text: str) -> str | None:
    """The first lone surrogate in ``text``, or ``None``."""
    if not has_lone_surrogate(text):
        return None
    found = _SURROGATE.search(text)
    return None if found is None else found.group()
