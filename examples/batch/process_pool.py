"""Format a large batch of requests on every core with :mod:`concurrent.futures`.

Each worker process looks its formatter up once (in the pool's initializer) and then
formats the requests it is sent; only requests and prompt strings cross process
boundaries. Run it on a file of JSON lines (one chat request per line)::

    python examples/batch/process_pool.py granite-3.3-8b-instruct requests.jsonl > prompts.jsonl
"""

from __future__ import annotations

import datetime
import json
import sys
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from granite_formatters import Formatter, get_formatter

_formatter: Formatter | None = None
_today: datetime.date | None = None


def _start_worker(model: str, today: datetime.date | None) -> None:
    global _formatter, _today
    _formatter = get_formatter(model)
    _today = today


def _format_one(request: dict[str, Any]) -> str:
    assert _formatter is not None, "the pool's initializer did not run"
    return _formatter.format(request, today=_today)


def format_batch(
    model: str,
    requests: Sequence[dict[str, Any]],
    *,
    workers: int | None = None,
    chunksize: int = 64,
    today: datetime.date | None = None,
) -> list[str]:
    """The prompt of each request, in order, formatted by a pool of worker processes."""
    with ProcessPoolExecutor(
        max_workers=workers, initializer=_start_worker, initargs=(model, today)
    ) as pool:
        return list(pool.map(_format_one, requests, chunksize=chunksize))


def _read_requests(lines: Iterable[str]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in lines if line.strip()]


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 2:
        print("usage: process_pool.py MODEL REQUESTS.jsonl", file=sys.stderr)
        return 2
    model, path = args
    with open(path, encoding="utf-8") as handle:
        requests = _read_requests(handle)
    for prompt in format_batch(model, requests):
        sys.stdout.write(json.dumps({"prompt": prompt}, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
