"""``granite-format batch``: the command's options and what it runs."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

from .._serve_args import (
    BACKEND_TYPES,
    DEFAULT_MAX_OUTPUT_BYTES,
    DEFAULT_MAX_PROMPT_CHARS,
    add_backend_key_argument,
    backend_key,
)

__all__ = ["OptionError", "add_batch_arguments", "run"]


class OptionError(ValueError):
    """Options that do not fit together."""


def add_batch_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``batch`` options (importable without the ``serve`` extra)."""
    parser.add_argument(
        "paths", nargs="+", metavar="INPUT.jsonl",
        help="the Batch API input file; or 'parse RAW.jsonl' to parse an offline "
        "engine's raw outputs (with --request-file)",
    )  # fmt: skip
    parser.add_argument("-o", "--output", metavar="OUTPUT.jsonl", help="the output file")
    parser.add_argument("--backend", metavar="URL", help="the completions server (as serve's)")
    parser.add_argument(
        "--backend-type", choices=BACKEND_TYPES, default="openai",
        help="openai = /v1/completions (vLLM, SGLang, llama.cpp); llamacpp = native "
        "/completion; ollama = /api/generate (default: openai)",
    )  # fmt: skip
    add_backend_key_argument(parser)
    parser.add_argument(
        "-m", "--model", help="format every line for this model (default: each body's model)"
    )
    parser.add_argument(
        "--concurrency", type=int, default=8, metavar="N",
        help="requests in flight at once (default 8)",
    )  # fmt: skip
    parser.add_argument(
        "--retries", type=int, default=3, metavar="N",
        help="tries again after a backend failure or timeout (default 3)",
    )  # fmt: skip
    parser.add_argument(
        "--backoff", type=float, default=1.0, metavar="SECONDS",
        help="the wait before the first retry; it doubles for each further one (default 1)",
    )  # fmt: skip
    parser.add_argument(
        "--timeout", type=float, default=300.0, metavar="SECONDS",
        help="seconds to wait for the backend's next bytes (default 300)",
    )  # fmt: skip
    parser.add_argument(
        "--default-max-tokens", type=int, default=None, metavar="N",
        help="token limit for requests that set none when the backend does not list its "
        "context length",
    )  # fmt: skip
    parser.add_argument(
        "--prompts-only", action="store_true",
        help="write the prompts and stop strings (for vllm.LLM.generate) instead of calling "
        "a backend",
    )  # fmt: skip
    parser.add_argument(
        "--request-file", metavar="INPUT.jsonl",
        help="with 'parse': the Batch API input file the raw outputs answer",
    )  # fmt: skip
    parser.add_argument(
        "--no-progress", action="store_true", help="no progress bar, even on a terminal"
    )


def _positive(value: float, option: str) -> None:
    if not value > 0:
        raise OptionError(f"{option} must be positive, got {value}")


def _check(args: argparse.Namespace) -> None:
    """Raise :class:`OptionError` for options that do not fit together."""
    parse = args.paths[0] == "parse"
    if parse and (len(args.paths) != 2 or args.request_file is None):
        raise OptionError("usage: granite-format batch parse --request-file INPUT.jsonl RAW.jsonl")
    if not parse and len(args.paths) != 1:
        raise OptionError(f"expected one input file, got {len(args.paths)}")
    if not parse and not args.prompts_only:
        if args.backend is None:
            raise OptionError("--backend URL is required (or --prompts-only)")
        if args.output is None:
            raise OptionError("-o OUTPUT.jsonl is required (the file that makes a rerun resume)")
    _positive(args.concurrency, "--concurrency")
    _positive(args.timeout, "--timeout")
    if args.backoff < 0:
        raise OptionError(f"--backoff must be 0 or more, got {args.backoff}")
    if args.retries < 0:
        raise OptionError(f"--retries must be 0 or more, got {args.retries}")


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Run ``granite-format batch``; the exit status (1 when lines failed on the backend
    after every try, so that a rerun is due)."""
    _check(args)
    from .offline import parse_outputs, write_prompts

    if args.paths[0] == "parse" or args.prompts_only:
        with _output(args.output, out) as sink:
            if args.paths[0] == "parse":
                parse_outputs(
                    Path(args.request_file), Path(args.paths[1]), sink, args.model,
                    DEFAULT_MAX_PROMPT_CHARS,
                )  # fmt: skip
            else:
                write_prompts(Path(args.paths[0]), sink, args.model, DEFAULT_MAX_PROMPT_CHARS)
        return 0
    return _run_backend(args)


@contextlib.contextmanager
def _output(path: str | None, out: TextIO) -> Iterator[TextIO]:
    """The file at ``path`` (``None``: ``out``) to write to."""
    if path is None:
        yield out
        return
    with open(path, "w", encoding="utf-8") as sink:
        yield sink


def _run_backend(args: argparse.Namespace) -> int:
    from .._serve.options import backend_problem
    from .progress import progress_bar, summary
    from .runner import BatchOptions, Tally, run_batch

    problem = backend_problem(args.backend)
    if problem is not None:
        raise OptionError(problem)
    try:
        key = backend_key(args.backend_api_key, os.environ)
    except ValueError as exc:
        raise OptionError(str(exc)) from None
    options = BatchOptions(
        input=Path(args.paths[0]),
        output=Path(args.output),
        backend=args.backend,
        backend_type=args.backend_type,
        model=args.model,
        concurrency=args.concurrency,
        retries=args.retries,
        timeout=args.timeout,
        backoff=args.backoff,
        default_max_tokens=args.default_max_tokens,
        max_output_bytes=DEFAULT_MAX_OUTPUT_BYTES,
        backend_api_key=key,
    )
    started = time.monotonic()
    tally = Tally()
    try:
        with progress_bar(sys.stderr, not args.no_progress) as show:
            asyncio.run(run_batch(options, tally, show))
    finally:  # (also when interrupted: what was written is in the output, whole lines)
        sys.stderr.write(f"granite-format batch: {summary(tally, time.monotonic() - started)}\n")
    if tally.backend_failed:
        sys.stderr.write(
            f"granite-format batch: {tally.backend_failed} lines failed on the backend after "
            "every try; run the same command again to retry them\n"
        )
        return 1
    return 0
