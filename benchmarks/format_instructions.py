"""Instructions per ``formatter.format`` call of one plain-dict RAG row, counted by
valgrind's callgrind: the same process run with 0 and with ``--calls`` formats (after 50
unmeasured ones), the difference divided by ``--calls``. Exact where timings are noisy;
it needs ``valgrind`` on ``PATH``.

    python benchmarks/format_instructions.py granite-3.2-8b-instruct text 1

The rows are :func:`benchmarks.run.rag_cases`' (``text``: documents as ``{"text"}`` only;
``ids``: with ``doc_id`` and ``title``), a five-message history, the controls on. A row a
release refuses in strict mode (3.3's documents without ids) runs with ``strict=False``,
as ``run.py`` runs it.
"""

from __future__ import annotations

import argparse
import datetime
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
TODAY = datetime.date(2025, 4, 16)


def child(model: str, shape: str, count: int, calls: int) -> None:
    """The measured process: warm up, then ``calls`` formats."""
    sys.path.insert(0, str(HERE))
    import workloads

    from granite_formatters import get_formatter
    from granite_formatters._errors import DroppedInputWarning, InvalidRequestError

    formatter = get_formatter(model)
    request = workloads.rag_history_request(count, ids=shape == "ids")
    options: dict[str, object] = {"today": TODAY}
    try:
        formatter.format(request, **options)
    except InvalidRequestError:
        options["strict"] = False
        warnings.filterwarnings("ignore", category=DroppedInputWarning)
    for _ in range(50):
        formatter.format(request, **options)
    for _ in range(calls):
        formatter.format(request, **options)


def collected(args: argparse.Namespace, calls: int) -> int:
    """The instructions callgrind counts for a child of ``calls`` formats."""
    command = [
        "valgrind",
        "--tool=callgrind",
        "--callgrind-out-file=/dev/null",
        sys.executable,
        __file__,
        "--child",
        args.model,
        args.shape,
        str(args.count),
        "--calls",
        str(calls),
    ]
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=True)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise SystemExit(f"no callgrind total in valgrind's output:\n{done.stderr[-2000:]}")
    return int(found.group(1))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model")
    parser.add_argument("shape", choices=("text", "ids"))
    parser.add_argument("count", type=int)
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.model, args.shape, args.count, args.calls)
        return 0
    per_call = (collected(args, args.calls) - collected(args, 0)) / args.calls
    print(f"{args.model} {args.shape} {args.count}: {per_call / 1000:.1f}k instructions per format")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
