#!/usr/bin/env python3
"""Records per second of format + generate + parse: the Ray Data example pipeline on 1
and 2 local workers beside ``granite-format batch`` at concurrency 1 and 2, against a
backend that answers at once; and where a record's time goes.

    pip install "./core[ray]"
    python benchmarks/ray_throughput.py                 # 2000 records
    python benchmarks/ray_throughput.py --records 500 --repeats 1

The fake vLLM backend of the serve tests runs in a process of its own (as in
``batch_throughput.py``, whose requests and answers are used: Granite 3.3, a tool call
each). Each configuration runs ``--repeats`` times, interleaved, and its best is
reported: the batch command as users run it (a fresh process: interpreter start-up
included), the Ray pipeline (``examples/batch/ray_pipeline.py``: ``workers`` actors per
stage, one request in flight per worker) on a local Ray started once with 2 CPUs,
timed from building the dataset to its last row (actor start-up included). The split
per record is measured in this process, one record at a time: ``FormatStage.row``, one
unstreamed HTTP request to the backend, ``ParseStage.row`` (which formats the request
again: a record carries JSON text between stages, not the formatter's objects). On a
loaded machine wall-clock figures move by tens of percent; CPU time less.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from batch_throughput import requests, start_backend  # noqa: E402

ROOT = HERE.parent
EXAMPLE = ROOT / "examples" / "batch" / "ray_pipeline.py"


def batch_command(source: Path, out: Path, url: str, concurrency: int) -> tuple[float, float]:
    """Wall seconds and CPU seconds of one run of the batch command."""
    out.unlink(missing_ok=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "granite_formatters", "batch", str(source), "--backend", url,
         "-o", str(out), "--concurrency", str(concurrency), "--no-progress"],
        check=True, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def ray_pipeline(example: Any, source: Path, url: str, workers: int, count: int) -> float:
    """Wall seconds of one run, from building the dataset to its last row."""
    start = time.perf_counter()
    dataset = example.pipeline(str(source), url, workers=workers, concurrency=1, batch_size=64)
    results = [json.loads(row["result"]) for row in dataset.iter_rows()]
    wall = time.perf_counter() - start
    assert len(results) == count
    assert all(r["response"]["status_code"] == 200 for r in results), "a record failed"
    return wall


def split(lines: list[dict[str, Any]], url: str) -> dict[str, tuple[float, float]]:
    """Per record, in this process: (wall ms, CPU ms) of each step."""
    import httpx

    from granite_formatters.batch import FormatStage, ParseStage

    fmt, parse = FormatStage(), ParseStage()
    client = httpx.Client()
    totals = {name: [0.0, 0.0] for name in ("format", "HTTP request", "parse")}

    def timed(name: str, work: Any) -> Any:
        wall, cpu = time.perf_counter(), time.process_time()
        result = work()
        totals[name][0] += time.perf_counter() - wall
        totals[name][1] += time.process_time() - cpu
        return result

    for line in lines:
        row = timed("format", lambda line=line: fmt.row({"text": json.dumps(line)}))
        payload = {"model": row["model"], "prompt": row["prompt"]}
        payload.update(json.loads(row["sampling_params"]))
        answer = timed(
            "HTTP request",
            lambda payload=payload: client.post(url + "/completions", json=payload).json(),
        )
        row["generated_text"] = answer["choices"][0]["text"]
        row["finish_reason"] = answer["choices"][0]["finish_reason"]
        result = timed("parse", lambda row=row: json.loads(parse.row(row)["result"]))
        assert result["response"]["status_code"] == 200
    client.close()
    n = len(lines)
    return {name: (1000 * w / n, 1000 * c / n) for name, (w, c) in totals.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    import ray

    spec = importlib.util.spec_from_file_location("ray_pipeline", EXAMPLE)
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    sys.modules["ray_pipeline"] = example
    spec.loader.exec_module(example)

    lines = requests(args.records)
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        backend, url, source = start_backend(lines, folder)
        ray.init(
            num_cpus=2, include_dashboard=False, log_to_driver=False,
            runtime_env={"env_vars": {"PYTHONPATH": str(EXAMPLE.parent)}},
        )  # fmt: skip
        context = ray.data.DataContext.get_current()
        context.execution_options.preserve_order = True
        context.enable_progress_bars = False
        try:
            best: dict[str, float] = {}
            cpu: dict[str, float] = {}
            fixed: dict[str, float] = {}
            for _ in range(args.repeats):
                for n in (1, 2):
                    wall, used = batch_command(source, folder / "out.jsonl", url, n)
                    key = f"granite-format batch, --concurrency {n}"
                    if wall < best.get(key, float("inf")):
                        best[key], cpu[key] = wall, used
                    key = f"Ray Data pipeline, {n} worker{'s' if n > 1 else ''} per stage"
                    wall = ray_pipeline(example, source, url, n, args.records)
                    best[key] = min(wall, best.get(key, float("inf")))
                small = folder / "small.jsonl"
                small.write_text("".join(json.dumps(line) + "\n" for line in lines[:8]), "utf-8")
                for n in (1, 2):
                    key = f"Ray Data pipeline, {n} worker{'s' if n > 1 else ''} per stage"
                    wall = ray_pipeline(example, small, url, n, 8)
                    fixed[key] = min(wall, fixed.get(key, float("inf")))
            steps = split(lines[: min(500, args.records)], url)
        finally:
            ray.shutdown()
            backend.terminate()
            backend.wait()
    print(f"{args.records} records (Granite 3.3, a tool call each), fake instant backend, "
          f"best of {args.repeats}")  # fmt: skip
    print("| run | records/s (wall) | 8 records (s) | net records/s | CPU ms per record |")
    print("|---|---:|---:|---:|---:|")
    for key, wall in best.items():
        used = f"{1000 * cpu[key] / args.records:.2f}" if key in cpu else "n/a"
        # (net: the rate once the actors are up, estimated as the extra records over
        # the extra time beside a run of 8 records; as noisy as the two runs it joins)
        small_run = f"{fixed[key]:.1f}" if key in fixed else "n/a"
        net = f"{(args.records - 8) / (wall - fixed[key]):.0f}" if key in fixed else "n/a"
        print(f"| {key} | {args.records / wall:.0f} | {small_run} | {net} | {used} |")
    print("\nOne record at a time, in one process:")
    print("| step | wall ms | CPU ms |")
    print("|---|---:|---:|")
    for name, (wall_ms, cpu_ms) in steps.items():
        print(f"| {name} | {wall_ms:.3f} | {cpu_ms:.3f} |")
    total = sum(wall_ms for wall_ms, _ in steps.values())
    print(f"| all three | {total:.3f} | {sum(c for _, c in steps.values()):.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
