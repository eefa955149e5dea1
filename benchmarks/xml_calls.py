"""Granite 4.2 XML tool calls beside Granite 4.1 JSON blocks: batch parse of the same
1, 10, 100 and 1,000 calls (4.2's after a reasoning block), per call, as a ratio.

    python benchmarks/xml_calls.py            # about half a minute
    python benchmarks/xml_calls.py --quick    # tiny counts (what the smoke test runs)

The two parses are timed in alternation, repeat by repeat (the machine may be busy: a
burst affects both alike); each row gives the medians per call and their ratio, which is
the figure to compare (the target: 4.2 at most 3x 4.1).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import workloads

from granite_formatters import get_formatter

COUNTS = (1, 10, 100, 1000)
TARGET = 3.0


def _timed(fns: dict[str, Callable[[], object]], repeats: int, budget_ns: int) -> dict[str, float]:
    loops = {}
    for name, fn in fns.items():
        fn()
        start = time.perf_counter_ns()
        fn()
        loops[name] = max(1, budget_ns // max(1, time.perf_counter_ns() - start))
    samples: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            start = time.perf_counter_ns()
            for _ in range(loops[name]):
                fn()
            samples[name].append((time.perf_counter_ns() - start) / loops[name])
    return {name: statistics.median(values) for name, values in samples.items()}


def rows(repeats: int = 11, budget_ns: int = 20_000_000) -> list[dict[str, float]]:
    """Per count: nanoseconds per call for 4.2 and 4.1, and their ratio."""
    xml = get_formatter("granite-4.2-8b")
    json_blocks = get_formatter("granite-4.1-8b")
    request = workloads.tools_request()
    found = []
    for count in COUNTS:
        xml_text = workloads.granite42_calls_answer(count)
        json_text = workloads.granite41_calls_answer(count)
        for formatter, text in ((xml, xml_text), (json_blocks, json_text)):
            message = formatter.parse(text, request)
            assert len(message.tool_calls) == count and not message.notes, message.notes
        assert [c.arguments for c in xml.parse(xml_text, request).tool_calls] == [
            c.arguments for c in json_blocks.parse(json_text, request).tool_calls
        ]
        times = _timed(
            {
                "4.2": lambda t=xml_text: xml.parse(t, request),
                "4.1": lambda t=json_text: json_blocks.parse(t, request),
            },
            repeats,
            budget_ns,
        )
        found.append(
            {
                "calls": count,
                "xml_ns": times["4.2"] / count,
                "json_ns": times["4.1"] / count,
                "ratio": times["4.2"] / times["4.1"],
            }
        )
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="tiny counts (a smoke run)")
    args = parser.parse_args(argv)
    measured = rows(3, 1_000_000) if args.quick else rows()
    print("| calls | 4.2 XML per call | 4.1 JSON per call | 4.2 ÷ 4.1 | target |")
    print("|---|---|---|---|---|")
    for row in measured:
        verdict = "pass" if row["ratio"] <= TARGET else "FAIL"
        print(
            f"| {row['calls']} | {row['xml_ns'] / 1000:.1f} µs | {row['json_ns'] / 1000:.1f} µs "
            f"| {row['ratio']:.2f}× | ≤ {TARGET:g}× ({verdict}) |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
