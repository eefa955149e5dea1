"""Format a large batch of requests with Dask (``pip install dask``), on local worker processes.

The requests are split into partitions; each partition looks its formatter up once and
formats its requests. The same code runs on a distributed cluster: pass a
``dask.distributed`` client's scheduler instead of ``"processes"``.

    python examples/batch/dask_bag.py granite-3.3-8b-instruct requests.jsonl > prompts.jsonl
"""

from __future__ import annotations

import datetime
import json
import sys
from collections.abc import Sequence
from typing import Any

from granite_formatters import get_formatter


def _format_partition(
    requests: list[dict[str, Any]], model: str, today: datetime.date | None
) -> list[str]:
    formatter = get_formatter(model)
    return [formatter.format(request, today=today) for request in requests]


def format_batch(
    model: str,
    requests: Sequence[dict[str, Any]],
    *,
    partitions: int = 8,
    scheduler: str = "processes",
    num_workers: int | None = None,
    today: datetime.date | None = None,
) -> list[str]:
    """The prompt of each request, in order, computed by Dask's ``scheduler``."""
    import dask.bag

    bag = dask.bag.from_sequence(list(requests), npartitions=partitions)
    prompts = bag.map_partitions(_format_partition, model, today)
    result: list[str] = prompts.compute(scheduler=scheduler, num_workers=num_workers)
    return result


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 2:
        print("usage: dask_bag.py MODEL REQUESTS.jsonl", file=sys.stderr)
        return 2
    model, path = args
    with open(path, encoding="utf-8") as handle:
        requests = [json.loads(line) for line in handle if line.strip()]
    for prompt in format_batch(model, requests):
        sys.stdout.write(json.dumps({"prompt": prompt}, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
