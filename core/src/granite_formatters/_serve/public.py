"""What an HTTP client is told: library and backend errors in short, HTTP-facing texts.

Library errors speak to Python callers (``strict=False``, ``special_tokens='strip'``); a
client of the server cannot pass those, so the sentences that suggest them are left out.
Backend errors hold the backend's URL and whatever the backend sent (which may quote the
prompt): clients get the first clause only, the whole text goes to the log with
``--log-prompts``.
"""

from __future__ import annotations

import re

import attrs

from .._batch.lines import REFUSED_BY_BACKEND
from .._errors import UnknownModelError, quote
from .backends import BackendError

__all__ = [
    "RATE_LIMITED",
    "BackendReply",
    "backend_reply",
    "backend_text",
    "request_text",
    "unknown_model_text",
]

#: The error ``code`` of a backend's 429, OpenAI's own for a rate limit (clients and agent
#: frameworks that tell a rate limit by its code, not only by its status, see one).
RATE_LIMITED = "rate_limit_exceeded"

# A sentence that names a Python argument of the library.
_PYTHON_OPTION = re.compile(r"\b(?:strict|special_tokens)=")
# Where such a sentence turns from advice an HTTP client can follow to a Python argument.
_PYTHON_TURN = re.compile(r",? or pass |\s*\(or ")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def request_text(message: str) -> str:
    """``message`` without its advice about Python arguments."""
    if _PYTHON_OPTION.search(message) is None:
        return message
    kept = []
    for sentence in _SENTENCE_END.split(message):
        if _PYTHON_OPTION.search(sentence) is None:
            kept.append(sentence)
            continue
        turn = _PYTHON_TURN.search(sentence)
        if turn is not None and turn.start() > 0:
            kept.append(sentence[: turn.start()].rstrip(" ,") + ".")
    return " ".join(kept)


def backend_text(error: BackendError) -> str:
    """The client's text for ``error``: what failed, without the backend's URL or words.

    A 4xx is the server's own word about the request (a prompt that leaves no room in
    the model's context) and is given whole."""
    if error.status < 500:
        return str(error)
    head = str(error).split(": ", 1)[0]
    return re.sub(r" at \S+$", "", head)


#: Backend statuses that refuse the request itself, for good (vLLM's and llama.cpp's 400
#: for a prompt over the context or a value out of range, a 413, a 422): the client's
#: error, answered 400, which clients do not send again (they retry a 502).
REFUSED_STATUSES = frozenset({400, 413, 422})


@attrs.frozen
class BackendReply:
    """What a client is told of a backend error: the status, text, error code and headers."""

    status: int
    text: str
    code: str | None = None
    headers: dict[str, str] | None = None


def backend_reply(error: BackendError) -> BackendReply:
    """The answer to ``error``: a backend's refusal of the request is the client's 400
    (``backend_refused``), a busy backend's 429 a 429 (:data:`RATE_LIMITED`) with its
    ``Retry-After``; any other error keeps its status (a 502 for another status the
    backend answered)."""
    answered = error.backend_status
    if answered in REFUSED_STATUSES:
        return BackendReply(
            400, f"the backend refused the request (HTTP {answered})", REFUSED_BY_BACKEND
        )
    if answered == 429:
        seconds = error.retry_after
        headers = {"retry-after": str(seconds)} if seconds is not None else None
        return BackendReply(429, backend_text(error), RATE_LIMITED, headers=headers)
    return BackendReply(error.status, backend_text(error))


def unknown_model_text(name: str, error: UnknownModelError | None = None) -> str:
    """One short line for a model this server does not serve."""
    text = f"the model {quote(name)} is not served here; GET /v1/models lists the models"
    if error is not None and error.suggestions:
        text += " (did you mean " + ", ".join(quote(s) for s in error.suggestions[:3]) + "?)"
    return text
