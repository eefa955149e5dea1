#!/usr/bin/env python3
"""A Ray Data pipeline: Batch API requests in, Granite prompts, an OpenAI-compatible
completions server, parsed chat completions out.

    pip install "./core[ray]"    # from a clone: ray[data] and the serve extra
    python examples/batch/ray_pipeline.py requests.jsonl \\
        --backend http://127.0.0.1:8001/v1 -o results.jsonl

Reads an OpenAI Batch API input file (the format ``granite-format batch`` reads),
formats each line on the Ray workers (``FormatStage``), sends each prompt to the
server's ``/v1/completions`` (vLLM's, not streamed; ``CompletionsStage`` below, some
requests at a time per worker, a failing request retried with backoff), parses each
answer (``ParseStage``) and writes one Batch API output line per input line, as the
batch command does (in the input's order here). A line that cannot be formatted, or
whose request fails after every try, gets its error line: nothing is dropped.
Without a running cluster, ``ray.init`` starts a local one.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import ray

from granite_formatters.batch import FormatStage, ParseStage

#: The columns CompletionsStage adds (ParseStage reads them).
GENERATED = ("generated_text", "finish_reason", "stop_reason", "generation_error")


class CompletionsStage:
    """Sends each formatted record to ``BACKEND/completions`` and adds :data:`GENERATED`."""

    def __init__(self, backend: str, concurrency: int = 8, retries: int = 3) -> None:
        self.url = backend.rstrip("/") + "/completions"
        limits = httpx.Limits(max_connections=concurrency)
        self.client = httpx.Client(timeout=httpx.Timeout(300.0, connect=10.0), limits=limits)
        self.pool = ThreadPoolExecutor(concurrency)
        self.retries = retries

    def generate(self, row: dict[str, Any]) -> dict[str, Any]:
        answer: dict[str, Any] = dict.fromkeys(GENERATED)
        if not isinstance(row["prompt"], str):  # (not formatted: ParseStage keeps its error)
            return answer
        payload = {"model": row["model"], "prompt": row["prompt"]}
        payload.update(json.loads(row["sampling_params"]))
        for attempt in range(self.retries + 1):
            if attempt:
                time.sleep(min(2.0 ** (attempt - 1), 30.0))
            try:
                response = self.client.post(self.url, json=payload)
            except httpx.HTTPError as exc:
                answer["generation_error"] = f"the backend did not answer ({exc!r})"
                continue
            if response.status_code == 200:
                choice = response.json()["choices"][0]
                stop = choice.get("stop_reason")
                return {
                    "generated_text": choice["text"],
                    "finish_reason": choice.get("finish_reason"),
                    # (a stop token id is no text: one column type)
                    "stop_reason": stop if isinstance(stop, str) else None,
                    "generation_error": None,
                }
            status = response.status_code
            answer["generation_error"] = f"the backend answered {status}: {response.text[:300]}"
            if 400 <= status < 500 and status not in (408, 429):
                break  # refused: trying again would not help
        return answer

    def __call__(self, batch: dict[str, Any]) -> dict[str, Any]:
        names = list(batch)
        rows = [
            dict(zip(names, values, strict=True)) for values in zip(*batch.values(), strict=True)
        ]
        answers = list(self.pool.map(self.generate, rows))
        return {**batch, **{name: [a[name] for a in answers] for name in GENERATED}}


def pipeline(
    source: str,
    backend: str,
    model: str | None = None,
    workers: int = 2,
    concurrency: int = 8,
    batch_size: int = 64,
    retries: int = 3,
    cpus: float = 0.25,
    default_max_tokens: int | None = None,
) -> ray.data.Dataset:
    """The dataset of output lines (column ``result``) for the requests in ``source``:
    ``workers`` actors per stage, each reserving ``cpus`` (Ray reserves one by default,
    so three stages of two actors would wait forever on a two-core machine)."""
    each: dict[str, Any] = {"batch_size": batch_size, "batch_format": "numpy", "num_cpus": cpus}
    each["compute"] = ray.data.ActorPoolStrategy(size=workers)
    # One record per non-empty line, in a column "text".
    requests = ray.data.read_text(source, num_cpus=cpus)
    settings = {"model": model, "default_max_tokens": default_max_tokens}
    formatted = requests.map_batches(FormatStage, fn_constructor_kwargs=settings, **each)
    generated = formatted.map_batches(
        CompletionsStage,
        fn_constructor_kwargs={"backend": backend, "concurrency": concurrency, "retries": retries},
        **each,
    )
    return generated.map_batches(ParseStage, **each).select_columns(["result"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("input", help="a Batch API input file (JSONL)")
    parser.add_argument("--backend", required=True, help="the server's /v1 URL")
    parser.add_argument("-o", "--output", required=True, help="where to write the results")
    parser.add_argument("-m", "--model", help="format every line for this model")
    parser.add_argument("--workers", type=int, default=2, help="actors per stage")
    parser.add_argument("--concurrency", type=int, default=8, help="requests per worker")
    parser.add_argument(
        "--max-tokens", type=int, default=1024,
        help="the limit sent for requests that set none (default 1024; the server's own "
        "default may be as low as 16 tokens)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    ray.init(ignore_reinit_error=True, include_dashboard=False, log_to_driver=False)
    ray.data.DataContext.get_current().execution_options.preserve_order = True
    ray.data.DataContext.get_current().enable_progress_bars = sys.stderr.isatty()
    # (absolute: Ray's workers do not run in this process's folder)
    source = str(Path(args.input).resolve())
    results = pipeline(
        source, args.backend, args.model, args.workers, args.concurrency,
        default_max_tokens=args.max_tokens,
    )  # fmt: skip
    failed = 0
    with open(args.output, "w", encoding="utf-8") as out:
        for row in results.iter_rows():
            line = json.loads(row["result"])
            response = line["response"]
            failed += line["error"] is not None or response["status_code"] != 200
            out.write(row["result"] + "\n")
    print(f"written to {args.output}; {failed} failed", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
