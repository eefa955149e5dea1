"""The special-token check of caller text: a text kept, stripped or refused by the
policy, the refusal naming the field."""

from __future__ import annotations

from .._errors import InvalidRequestError
from .._special_tokens import SpecialTokenPolicy, SpecialTokens

__all__: list[str] = []


def _special_token_error(token: str, field: str) -> InvalidRequestError:
    return InvalidRequestError(
        f"contains the special token {token!r}. Special tokens in caller text can forge turns "
        "or tool calls of the prompt (see docs/security.md). Remove it, or pass "
        "special_tokens='strip' to delete special tokens, or special_tokens='keep' to render "
        "the text verbatim (only for trusted text).",
        field=field,
    )


def _checked(text: str, field: str, policy: SpecialTokenPolicy, tokens: SpecialTokens) -> str:
    if policy == "keep":
        return text
    if policy == "strip":
        return tokens.remove(text)
    token = tokens.search(text)
    if token is not None:
        raise _special_token_error(token, field)
    return text
