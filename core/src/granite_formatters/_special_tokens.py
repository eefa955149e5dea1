"""Special tokens in caller text: found, and removed, in linear time.

A chat format's control tokens (``<|start_of_role|>``, ``<|end_of_text|>``, ...) must
not reach the model from caller-supplied text, or that text could forge turns or tool
calls. A formatter declares its token set as a :class:`SpecialTokens` and applies a
:data:`SpecialTokenPolicy` to every field it prints.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Literal

from ._errors import InvalidRequestError, quote

__all__ = [
    "SPECIAL_TOKEN_POLICIES",
    "SpecialTokenPolicy",
    "SpecialTokens",
    "find_special_token_in_json",
    "remove_special_tokens_in_json",
]

#: What to do with special tokens found in caller-supplied text: reject the request
#: (``"error"``), delete them (``"strip"``) or render them verbatim (``"keep"``).
SpecialTokenPolicy = Literal["error", "strip", "keep"]
SPECIAL_TOKEN_POLICIES: tuple[str, ...] = ("error", "strip", "keep")

_FORBIDDEN_IN_TOKENS = re.compile(r'["\\\x00-\x1f]')


class SpecialTokens:
    """A set of special-token strings, found and removed in linear time.

    Detection is one search with a compiled alternation of all tokens. Removal deletes
    every occurrence, including tokens that only appear once others are removed
    (``<|end_of<|end_of_text|>_text|>``), so the result never contains a token, and it
    never removes the text between two tokens.

    Tokens must not contain ``"``, ``\\`` or control characters (so that a token in a
    JSON string is also a token in its JSON text).
    """

    __slots__ = ("_final_chars", "_longest", "_pattern", "sentinel", "tokens")

    def __init__(self, tokens: Iterable[str]) -> None:
        unique = tuple(dict.fromkeys(tokens))
        if not unique:
            raise ValueError("SpecialTokens needs at least one token")
        for token in unique:
            if not isinstance(token, str) or not token:
                raise ValueError(f"special tokens must be non-empty strings, not {token!r}")
            if _FORBIDDEN_IN_TOKENS.search(token):
                raise ValueError(f"special token {token!r} contains a quote, backslash or control")
        self.tokens: tuple[str, ...] = unique
        self._longest = tuple(sorted(unique, key=len, reverse=True))
        self._pattern = re.compile("|".join(re.escape(token) for token in self._longest))
        self._final_chars = re.compile(
            "[" + "".join(re.escape(c) for c in sorted({t[-1] for t in unique})) + "]"
        )
        shared = set(unique[0]).intersection(*unique[1:])
        #: A character that every token contains (``""`` if there is none): text without
        #: it has no token, and ``sentinel in text`` is much faster than :meth:`search`.
        self.sentinel: str = min(shared, key=_sentinel_rank) if shared else ""

    def __repr__(self) -> str:
        return f"SpecialTokens({list(self.tokens)!r})"

    def __iter__(self) -> Iterator[str]:
        return iter(self.tokens)

    def __len__(self) -> int:
        return len(self.tokens)

    def __contains__(self, token: object) -> bool:
        return token in self.tokens

    def search(self, text: str) -> str | None:
        """The first special token in ``text``, or ``None``.

        A ``str`` subclass is read as the plain string it holds (its own ``__contains__``
        or ``__eq__`` cannot hide a token).
        """
        if type(text) is not str:
            text = str.__str__(text)
        if self.sentinel not in text:
            return None
        match = self._pattern.search(text)
        return None if match is None else match.group()

    def remove(self, text: str) -> str:
        """``text`` with every special token removed (see the class docstring).

        Always a plain ``str`` (a ``str`` subclass is read as the string it holds).
        """
        if type(text) is not str:
            text = str.__str__(text)
        if self.search(text) is None:
            return text
        # The output is kept as a stack of intervals of ``text``. A token can only end at
        # one of its final characters, so the text is pushed in chunks that each end at
        # such a character, and the end of the output is checked after each chunk. The
        # output never contains a token, so removing one from its end cannot expose
        # another, and no interval is ever copied before the final join: linear time.
        starts: list[int] = []
        ends: list[int] = []
        longest = self._longest
        width = len(longest[0])
        start = 0
        for match in self._final_chars.finditer(text):
            end = match.end()
            if ends and ends[-1] == start:
                ends[-1] = end
            else:
                starts.append(start)
                ends.append(end)
            start = end
            tail = _tail(text, starts, ends, width)
            if not tail.endswith(longest):
                continue
            for token in longest:
                if tail.endswith(token):
                    _drop_tail(starts, ends, len(token))
                    break
        starts.append(start)
        ends.append(len(text))
        return "".join([text[first:last] for first, last in zip(starts, ends, strict=True)])


def _sentinel_rank(char: str) -> tuple[bool, bool, str]:
    # Prefer characters that are rare in prose: not letters, digits, spaces or common
    # punctuation.
    return (char.isalnum() or char.isspace(), char in "<>_-.,:;!?'()/", char)


def _tail(text: str, starts: list[int], ends: list[int], width: int) -> str:
    """The last ``width`` characters (at most) of the output intervals."""
    pieces: list[str] = []
    needed = width
    index = len(ends)
    while index and needed > 0:
        index -= 1
        first = max(starts[index], ends[index] - needed)
        pieces.append(text[first : ends[index]])
        needed -= ends[index] - first
    return "".join(reversed(pieces))


def _drop_tail(starts: list[int], ends: list[int], count: int) -> None:
    """Remove ``count`` characters from the end of the output intervals."""
    while count:
        length = ends[-1] - starts[-1]
        if length <= count:
            starts.pop()
            ends.pop()
            count -= length
        else:
            ends[-1] -= count
            count = 0


def _child_path(path: str, key: object) -> str:
    if isinstance(key, int) and not isinstance(key, bool):
        return f"{path}[{key}]"
    if isinstance(key, str) and key.isidentifier():
        return f"{path}.{key}"
    if isinstance(key, str) and len(key) > _PATH_KEY_LIMIT:
        # A field name never echoes a huge caller key: its start and its length.
        shown = json.dumps(key[:_PATH_KEY_LIMIT], ensure_ascii=False)
        return f'{path}[{shown[:-1]}..." ({len(key)} characters)]'
    return f"{path}[{json.dumps(key, ensure_ascii=False, default=repr)}]"


#: How many characters of a key a field path shows at most.
_PATH_KEY_LIMIT = 80


def find_special_token_in_json(
    value: Any, tokens: SpecialTokens, path: str
) -> tuple[str, str] | None:
    """The first special token in the strings (keys and values) of a JSON value.

    Returns ``(where, token)``, ``where`` being ``path`` extended to the offending value
    or key (``tools[0].function.description``), or ``None`` when there is none.
    """
    if isinstance(value, str):
        token = tokens.search(value)
        return None if token is None else (path, token)
    if isinstance(value, Mapping):
        for key, item in value.items():
            where = _child_path(path, key)
            if isinstance(key, str):
                token = tokens.search(key)
                if token is not None:
                    return where, token
            found = find_special_token_in_json(item, tokens, where)
            if found is not None:
                return found
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            found = find_special_token_in_json(item, tokens, f"{path}[{index}]")
            if found is not None:
                return found
    return None


def remove_special_tokens_in_json(value: Any, tokens: SpecialTokens, path: str) -> Any:
    """A copy of a JSON value with special tokens removed from every key and string.

    Containers are always copied (the input is never modified). Two keys of one object
    that become equal raise :class:`InvalidRequestError` naming the object.
    """
    if isinstance(value, str):
        return tokens.remove(value)
    if isinstance(value, Mapping):
        cleaned: dict[Any, Any] = {}
        for key, item in value.items():
            new_key = tokens.remove(key) if isinstance(key, str) else key
            if new_key in cleaned:
                raise InvalidRequestError(
                    f"removing special tokens makes two keys equal ({quote(new_key)}); "
                    "rename the key that contains special tokens",
                    field=path,
                )
            cleaned[new_key] = remove_special_tokens_in_json(item, tokens, _child_path(path, key))
        return cleaned
    if isinstance(value, (list, tuple)):
        return [
            remove_special_tokens_in_json(item, tokens, f"{path}[{index}]")
            for index, item in enumerate(value)
        ]
    return value
