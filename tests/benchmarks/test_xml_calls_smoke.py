"""``benchmarks/xml_calls.py --quick`` keeps working: one row per call count, each with
both timings and their ratio (no timing or threshold is asserted: they depend on the
machine). The harness itself checks that both parses read every call, with equal
arguments and no notes."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "xml_calls.py"
ROW = re.compile(r"\| (\d+) \| [\d.]+ µs \| [\d.]+ µs \| [\d.]+× \| ≤ 3× \((pass|FAIL)\) \|")


def test_quick_run_gives_a_row_per_call_count() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=True,
        timeout=600,
    )
    counts = [int(found.group(1)) for found in ROW.finditer(done.stdout)]
    assert counts == [1, 10, 100, 1000], done.stdout
