"""Batch files for offline engines: the prompts out, the engine's raw outputs back in."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from .._errors import InvalidRequestError, quote
from .._serve.backends import Finish, OpenAIBackend
from .._serve.exchange import Answer, Prepared, Refusal, completion_body, parse_answer, prepare
from .._serve.responses import error_body
from .lines import BatchRequest, LineError, dumps, line_error, read_requests, result_line
from .runner import checked_body

__all__ = ["formatted", "parse_outputs", "parsed_line", "stop_strings", "write_prompts"]

#: Requests are checked by the rules of vLLM's server (the engine they are for).
_RULES = OpenAIBackend("http://offline.invalid")


def _prepared(request: BatchRequest, model: str | None, max_prompt_chars: int) -> Prepared:
    return prepare(checked_body(request.body, model), _RULES, {}, max_prompt_chars)


def _refused(custom_id: str, refused: Refusal) -> dict[str, Any]:
    body = error_body(refused.status, str(refused), refused.param, refused.code)
    return result_line(custom_id, refused.status, body)


def formatted(
    item: BatchRequest | LineError, model: str | None, max_prompt_chars: int
) -> Prepared | dict[str, Any]:
    """One input line's request formatted, or the output line (as ``batch`` writes it)
    of a line that cannot be formatted."""
    if isinstance(item, LineError):
        return line_error(item)
    try:
        return _prepared(item, model, max_prompt_chars)
    except Refusal as refused:
        return _refused(item.custom_id, refused)


def stop_strings(prepared: Prepared) -> list[str]:
    """The release's stop strings, then the request's own."""
    stops = [*getattr(prepared.formatter, "stop_strings", ())]
    return stops + [s for s in prepared.params.stop_list if s not in stops]


def write_prompts(input: Path, out: TextIO, model: str | None, max_prompt_chars: int) -> int:
    """One line per input line: ``custom_id``, ``prompt``, ``stop`` (the release's stop
    strings and the request's own) and ``max_tokens`` when the request sets it; a line
    that cannot be formatted is an error line as ``batch`` writes it. The number of
    error lines."""
    errors = 0
    for item in read_requests(input):
        prepared = formatted(item, model, max_prompt_chars)
        if isinstance(prepared, Prepared):
            assert item.custom_id is not None
            line: dict[str, Any] = {"custom_id": item.custom_id, "prompt": prepared.prompt}
            line["stop"] = stop_strings(prepared)
            if prepared.params.token_limit is not None:
                line["max_tokens"] = prepared.params.token_limit
        else:
            line = prepared
        errors += "prompt" not in line
        out.write(dumps(line) + "\n")
    return errors


def _raw_outputs(path: Path) -> Iterator[tuple[int, dict[str, Any] | InvalidRequestError]]:
    with open(path, encoding="utf-8", errors="replace") as lines:
        for number, text in enumerate(lines, 1):
            if not text.strip():
                continue
            try:
                data = json.loads(text)
            except ValueError as exc:
                yield number, InvalidRequestError(f"line {number} is not valid JSON ({exc})")
                continue
            if not isinstance(data, dict) or not isinstance(data.get("custom_id"), str):
                text = f"line {number}: must be an object with a string custom_id"
                yield number, InvalidRequestError(text, field="custom_id")
            elif not isinstance(data.get("text"), str):
                got = quote(data.get("text"))
                yield number, InvalidRequestError(f"must be a string, got {got}", field="text")
            else:
                yield number, data


def parse_outputs(
    request_file: Path, raw: Path, out: TextIO, model: str | None, max_prompt_chars: int
) -> int:
    """Parse each raw output line (``custom_id``, ``text``; optional ``finish_reason``
    and ``stop_reason``) against its request in ``request_file`` into a Batch API
    output line with a ``chat.completion`` body. The number of error lines."""
    items = read_requests(request_file)
    requests = {item.custom_id: item for item in items if isinstance(item, BatchRequest)}
    errors = 0
    for number, data in _raw_outputs(raw):
        if isinstance(data, InvalidRequestError):
            line = line_error(LineError(number, None, data))
        else:
            custom_id = data["custom_id"]
            request = requests.get(custom_id)
            if request is None:
                problem = f"{quote(custom_id)} is not in the request file"
                error = InvalidRequestError(problem, field="custom_id")
                line = line_error(LineError(number, custom_id, error))
            else:
                line = parsed_line(request, data, model, max_prompt_chars)
        errors += line["error"] is not None or line["response"]["status_code"] != 200
        out.write(dumps(line) + "\n")
    return errors


def parsed_line(
    request: BatchRequest, data: dict[str, Any], model: str | None, max_prompt_chars: int
) -> dict[str, Any]:
    """The output line of ``request`` whose raw output is ``data`` (``text``; optional
    ``finish_reason`` and ``stop_reason``)."""
    try:
        prepared = _prepared(request, model, max_prompt_chars)
    except Refusal as refused:
        return _refused(request.custom_id, refused)
    reason = data.get("finish_reason")
    stop = data.get("stop_reason")
    stop = stop if isinstance(stop, (str, int)) and not isinstance(stop, bool) else None
    finish = Finish("length" if reason == "length" else "stop", None, stop)
    answer = Answer(data["text"], [], finish)
    message = parse_answer(prepared, answer.text, stop if isinstance(stop, str) else None)
    return result_line(request.custom_id, 200, completion_body(prepared, message, answer))
