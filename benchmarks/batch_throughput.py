#!/usr/bin/env python3
"""Records per second of ``granite-format batch`` against a backend that answers at once.

    python benchmarks/batch_throughput.py               # 400 records, concurrency 1 and 8
    python benchmarks/batch_throughput.py --records 2000 --concurrency 1 2 8

The fake completions backend of the serve tests (``tests/serve/servers.py``) runs in a
process of its own on 127.0.0.1, replaying a Granite 3.3 answer with a tool call (in
4-character events) for each of ``--records`` distinct requests. The command runs as
users run it (``python -m granite_formatters batch IN -o OUT --no-progress``), once per
concurrency, a fresh output each time. Reported per concurrency: records per second
(wall clock, the command's start to its exit, interpreter start-up included) and the
command's CPU milliseconds per record. For where the time goes, the same records are
formatted and parsed in this process without any HTTP (the library's share of the
work); the rest is the HTTP hop, the event loop, JSON and the files. The host's other
load blurs wall-clock figures; CPU time much less.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from serve_overhead import free_port, wait_for

ROOT = Path(__file__).resolve().parent.parent
MODEL = "granite-3.3-8b-instruct"
ANSWER = '<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Paris"}}]'
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "The current weather in a city.",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }
]


def requests(count: int) -> list[dict[str, object]]:
    return [
        {
            "custom_id": f"r{i}",
            "method": "POST",
            "url": "/v1/chat/completions",
            "body": {
                "model": MODEL,
                "messages": [{"role": "user", "content": f"Weather in Paris? (request {i})"}],
                "tools": TOOLS,
                "max_tokens": 200,
            },
        }
        for i in range(count)
    ]


def library_only(lines: list[dict[str, object]]) -> float:
    """Records per second of format + parse alone, in this process."""
    from granite_formatters import get_formatter

    formatter = get_formatter(MODEL)
    start = time.perf_counter()
    for line in lines:
        body = line["body"]
        assert isinstance(body, dict)
        request = {"messages": body["messages"], "tools": body["tools"]}
        formatter.format(request)
        formatter.parse(ANSWER, request)
    return len(lines) / (time.perf_counter() - start)


def start_backend(
    lines: list[dict[str, object]], folder: Path
) -> tuple[subprocess.Popen[bytes], str, Path]:
    """The fake backend, in a process of its own, answering ``lines`` (written to
    ``folder/in.jsonl``) with :data:`ANSWER`: the process, its ``/v1`` URL, the file."""
    from granite_formatters import get_formatter

    formatter = get_formatter(MODEL)
    prompts = {}
    for line in lines:
        body = line["body"]
        assert isinstance(body, dict)
        prompt = formatter.format({"messages": body["messages"], "tools": body["tools"]})
        prompts[prompt] = ANSWER
    scripts = folder / "scripts.json"
    scripts.write_text(json.dumps(prompts), encoding="utf-8")
    source = folder / "in.jsonl"
    source.write_text("".join(json.dumps(line) + "\n" for line in lines), "utf-8")
    port = free_port()
    backend = subprocess.Popen(
        [sys.executable, "-c",
         "import sys; sys.path.insert(0, sys.argv[1]); import serve_overhead as s; "
         "s.run_backend(int(sys.argv[2]), sys.argv[3])",
         str(Path(__file__).resolve().parent), str(port), str(scripts)],
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}/v1"
    try:
        wait_for(url + "/models", backend)
    except BaseException:
        backend.terminate()
        raise
    return backend, url, source


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=400)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 8])
    args = parser.parse_args(argv)
    lines = requests(args.records)
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        backend, url, source = start_backend(lines, folder)
        try:
            print(f"{args.records} records, Granite 3.3 tool-call answers, fake instant backend")
            print("| concurrency | records/s (wall) | CPU ms per record | failed |")
            print("|---:|---:|---:|---:|")
            for concurrency in args.concurrency:
                out = folder / f"out{concurrency}.jsonl"
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                start = time.perf_counter()
                subprocess.run(
                    [sys.executable, "-m", "granite_formatters", "batch", str(source),
                     "--backend", url, "-o", str(out),
                     "--concurrency", str(concurrency), "--no-progress"],
                    check=True, stderr=subprocess.DEVNULL,
                )  # fmt: skip
                wall = time.perf_counter() - start
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
                written = [json.loads(t) for t in out.read_text("utf-8").splitlines()]
                failed = sum(w["error"] is not None for w in written)
                failed += sum(w["response"]["status_code"] != 200 for w in written if w["response"])
                assert len(written) == args.records
                print(f"| {concurrency} | {args.records / wall:.0f} | "
                      f"{1000 * cpu / args.records:.2f} | {failed} |")  # fmt: skip
        finally:
            backend.terminate()
            backend.wait()
    print(f"format + parse alone (no HTTP, one core): {library_only(lines):.0f} records/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
