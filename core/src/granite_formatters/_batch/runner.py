"""Running a Batch API file through a completions backend, some requests at a time."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import attrs
import httpx

from .._serve.aiohttp_transport import BackendClient
from .._serve.backends import Backend, BackendError, make_backend
from .._serve.exchange import (
    SPECIAL_TOKENS_DROPPED,
    Prepared,
    Refusal,
    completion_body,
    dropped_tokens_text,
    open_answer,
    parse_answer,
    prepare,
    read_answer,
    text_stop,
)
from .._serve.public import backend_text
from .._serve.responses import error_body
from .._serve_args import DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_MAX_PROMPT_CHARS
from .lines import (
    REFUSED_BY_BACKEND,
    BatchRequest,
    LineError,
    dumps,
    finished,
    line_error,
    read_requests,
    result_line,
    retryable,
)

__all__ = ["BatchOptions", "Tally", "checked_body", "count_lines", "run_batch"]

#: The longest wait between two tries of a request, in seconds.
_MAX_BACKOFF = 30.0


@attrs.frozen
class BatchOptions:
    """What ``granite-format batch`` was asked to do."""

    input: Path
    output: Path
    backend: str
    backend_type: str = "openai"
    #: The model for every line (``None``: each body's ``model``).
    model: str | None = None
    concurrency: int = 8
    retries: int = 3
    #: Seconds to wait for the backend's next bytes before a try counts as failed.
    timeout: float = 300.0
    connect_timeout: float = 10.0
    #: The wait before the first retry, in seconds; it doubles for each further one.
    backoff: float = 1.0
    default_max_tokens: int | None = None
    max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES
    max_prompt_chars: int = DEFAULT_MAX_PROMPT_CHARS
    #: The key sent to the backend as ``Authorization: Bearer`` (``None``: none); never
    #: in the repr.
    backend_api_key: str | None = attrs.field(default=None, repr=False)


@attrs.define
class Tally:
    """How far a run is: the input's lines, those finished in this run, failed (of the
    finished), tries repeated, and lines an earlier run had finished (skipped)."""

    total: int = 0
    done: int = 0
    failed: int = 0
    retried: int = 0
    skipped: int = 0
    #: Lines whose backend failed after every try (a rerun tries them again).
    backend_failed: int = 0


def count_lines(path: Path) -> int:
    """The number of non-blank lines in ``path`` (for the progress bar)."""
    with open(path, "rb") as lines:
        return sum(1 for line in lines if line.strip())


def checked_body(body: dict[str, Any], model: str | None) -> dict[str, Any]:
    """A line's body with ``model`` forced (when given); a streamed request is refused."""
    if body.get("stream"):
        raise Refusal(400, "a batch request cannot be streamed: leave it out or false", "stream")
    return body if model is None else {**body, "model": model}


class _Run:
    def __init__(self, options: BatchOptions, tally: Tally) -> None:
        self.options = options
        self.tally = tally
        self.backend: Backend = make_backend(
            options.backend_type, options.backend, options.default_max_tokens
        )
        self.client = BackendClient(
            httpx.Timeout(options.timeout, connect=options.connect_timeout),
            max_connections=options.concurrency,
            api_key=options.backend_api_key,
        )

    async def answer(self, request: BatchRequest) -> tuple[int, dict[str, Any]]:
        """The status and body the chat endpoint gives ``request``."""
        try:
            prepared = prepare(
                checked_body(request.body, self.options.model),
                self.backend,
                {},
                self.options.max_prompt_chars,
            )
        except Refusal as refused:
            return refused.status, error_body(
                refused.status, str(refused), refused.param, refused.code
            )
        for attempt in range(self.options.retries + 1):
            try:
                return 200, await self._generate(prepared)
            except BackendError as exc:
                if not exc.transient or attempt == self.options.retries:
                    code = None if exc.transient else REFUSED_BY_BACKEND
                    return exc.status, error_body(exc.status, backend_text(exc), exc.param, code)
            self.tally.retried += 1
            wait = self.options.backoff * 2**attempt
            await asyncio.sleep(min(wait * random.uniform(0.5, 1.0), _MAX_BACKOFF))
        raise AssertionError("unreachable")  # pragma: no cover

    async def _generate(self, prepared: Prepared) -> dict[str, Any]:
        response = await open_answer(self.client, self.backend, prepared)
        try:
            answer = await read_answer(
                self.backend, response, prepared, self.options.max_output_bytes
            )
        finally:
            await response.aclose()
        self.backend.observe(prepared.prompt, answer.finish.usage)
        message = parse_answer(prepared, answer.text, text_stop(answer.finish))
        text = dropped_tokens_text(message, self.backend)
        warnings = [{"code": SPECIAL_TOKENS_DROPPED, "message": text}] if text else None
        return completion_body(prepared, message, answer, warnings)

    async def line(self, item: BatchRequest | LineError) -> dict[str, Any]:
        if isinstance(item, LineError):
            self.tally.failed += 1
            return line_error(item)
        status, body = await self.answer(item)
        if status != 200:
            self.tally.failed += 1
            self.tally.backend_failed += retryable(status, body)
        return result_line(item.custom_id, status, body)


async def run_batch(
    options: BatchOptions,
    tally: Tally | None = None,
    on_line: Callable[[Tally], None] | None = None,
) -> Tally:
    """Answer every line of ``options.input`` not yet in ``options.output``, appending one
    output line per input line as it finishes (in the order they finish), counted in
    ``tally`` (also when interrupted). ``on_line`` is called after each line is written."""
    done = finished(options.output)
    tally = Tally() if tally is None else tally

    def items() -> Iterator[BatchRequest | LineError]:
        for item in read_requests(options.input):
            if done.holds(item):
                tally.skipped += 1
            else:
                yield item

    tally.total = count_lines(options.input)
    run = _Run(options, tally)
    source = items()
    with open(options.output, "a", encoding="utf-8") as out:

        async def worker() -> None:
            for item in source:
                line = await run.line(item)
                out.write(dumps(line) + "\n")
                out.flush()  # (each line whole on disk as soon as it is done)
                tally.done += 1
                if on_line is not None:
                    on_line(tally)

        tasks = [asyncio.ensure_future(worker()) for _ in range(options.concurrency)]
        try:
            await asyncio.gather(*tasks)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await run.client.aclose()
    return tally
