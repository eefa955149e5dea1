"""The OpenAI Batch API's JSONL lines: reading requests, writing results, resuming."""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs

from .._errors import InvalidRequestError, quote

__all__ = [
    "CHAT_URL",
    "BatchRequest",
    "LineError",
    "REFUSED_BY_BACKEND",
    "dumps",
    "Finished",
    "finished",
    "line_error",
    "parse_request",
    "read_requests",
    "result_line",
    "retryable",
]

#: The only endpoint a batch line may name.
CHAT_URL = "/v1/chat/completions"


@attrs.frozen
class BatchRequest:
    """One request line: its number (``None`` where records are not numbered), its
    ``custom_id`` and chat-completion ``body``."""

    number: int | None
    custom_id: str
    body: dict[str, Any]


@attrs.frozen
class LineError:
    """A line that is no request: its number, ``custom_id`` (if it has a usable one)
    and the error."""

    number: int | None
    custom_id: str | None
    error: InvalidRequestError


def dumps(data: Any) -> str:
    """One compact JSON line's text (non-ASCII as it is)."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def parse_request(number: int | None, text: str) -> BatchRequest | LineError:
    """One line's request, or what is wrong with it; ``number`` is the line's number
    (``None``: a record of unknown position, as Ray Data reads them)."""
    where = "the record" if number is None else f"line {number}"
    try:
        data = json.loads(text)
    except ValueError as exc:
        problem = InvalidRequestError(f"{where} is not valid JSON ({exc})")
        return LineError(number, None, problem)
    if not isinstance(data, dict):
        return LineError(number, None, InvalidRequestError(f"{where} must be a JSON object"))
    custom_id = data.get("custom_id")
    if not isinstance(custom_id, str) or not custom_id:
        problem = InvalidRequestError(
            f"must be a non-empty string, got {quote(custom_id)}", field="custom_id"
        )
        return LineError(number, None, problem)

    def bad(field: str, message: str) -> LineError:
        return LineError(number, custom_id, InvalidRequestError(message, field=field))

    if data.get("method") != "POST":
        return bad("method", f"must be 'POST', got {quote(data.get('method'))}")
    if data.get("url") != CHAT_URL:
        return bad("url", f"must be {CHAT_URL!r}, got {quote(data.get('url'))}")
    body = data.get("body")
    if not isinstance(body, dict):
        return bad("body", f"must be a JSON object (a chat-completion request), got {quote(body)}")
    return BatchRequest(number, custom_id, body)


def read_requests(path: str | os.PathLike[str]) -> Iterator[BatchRequest | LineError]:
    """The lines of a Batch API input file, one at a time (blank lines skipped); a
    ``custom_id`` seen before is an error of the later line."""
    seen: set[str] = set()
    with open(path, encoding="utf-8", errors="replace") as lines:
        for number, text in enumerate(lines, 1):
            if not text.strip():
                continue
            item = parse_request(number, text)
            if isinstance(item, BatchRequest):
                if item.custom_id in seen:
                    problem = InvalidRequestError(
                        f"{quote(item.custom_id)} is used by an earlier line",
                        field="custom_id",
                    )
                    item = LineError(number, None, problem)
                else:
                    seen.add(item.custom_id)
            yield item


def _new_id(prefix: str) -> str:
    return prefix + uuid.uuid4().hex


def result_line(custom_id: str, status: int, body: dict[str, Any]) -> dict[str, Any]:
    """An output line for a request the endpoint answered (``status``, ``body``): a
    completion, or the error object of a refused request or failed backend."""
    return {
        "id": _new_id("batch_req_"),
        "custom_id": custom_id,
        "response": {"status_code": status, "request_id": _new_id("req_"), "body": body},
        "error": None,
    }


def line_error(item: LineError) -> dict[str, Any]:
    """An output line for a line that is no request."""
    return {
        "id": _new_id("batch_req_"),
        "custom_id": item.custom_id,
        "response": None,
        "error": {
            "code": "invalid_request",
            "message": str(item.error),
            "param": item.error.field,
            "line": item.number,
        },
    }


#: The error ``code`` of a line the backend refused (a 4xx answer other than 408 or 429:
#: trying again would not help, and a rerun does not).
REFUSED_BY_BACKEND = "backend_refused"


def retryable(status: Any, body: Any) -> bool:
    """Whether a response (``status_code``, ``body``) records a backend failure that a
    rerun tries again: a 5xx status not marked :data:`REFUSED_BY_BACKEND`."""
    if not isinstance(status, int) or status < 500:
        return False
    error = body.get("error") if isinstance(body, dict) else None
    return not (isinstance(error, dict) and error.get("code") == REFUSED_BY_BACKEND)


def _retryable(line: dict[str, Any]) -> bool:
    response = line.get("response")
    if not isinstance(response, dict):
        return False
    return retryable(response.get("status_code"), response.get("body"))


@attrs.frozen
class Finished:
    """What an earlier run's output holds: the ``custom_id`` of each finished line, and
    the input line numbers of errors that name no ``custom_id``."""

    ids: set[str]
    lines: set[int]

    def holds(self, item: BatchRequest | LineError) -> bool:
        if item.custom_id is not None:
            return item.custom_id in self.ids
        return item.number in self.lines


def finished(path: Path) -> Finished:
    """The lines an earlier run's output at ``path`` finished.

    Lines that record a backend failure, and a last line cut short by a crash, are
    removed from the file (rewritten whole, then renamed over it), so a rerun tries
    them again and appends each once."""
    done = Finished(set(), set())
    if not path.exists():
        return done
    kept: list[str] = []
    dropped = False
    with open(path, encoding="utf-8", errors="replace") as lines:
        for text in lines:
            try:
                line = json.loads(text) if text.endswith("\n") else None
            except ValueError:
                line = None
            if not isinstance(line, dict) or _retryable(line):
                dropped = True
                continue
            custom_id = line.get("custom_id")
            error = line.get("error")
            if isinstance(custom_id, str):
                done.ids.add(custom_id)
            elif isinstance(error, dict) and isinstance(error.get("line"), int):
                done.lines.add(error["line"])
            kept.append(text)
    if dropped:
        temporary = path.with_name(path.name + ".resume")
        with open(temporary, "w", encoding="utf-8") as out:
            out.writelines(kept)
        os.replace(temporary, path)
    return done
