"""``benchmarks/format_instructions.py`` keeps working: its measured process formats the
row it names (3.2's, and 3.3's documents without ids under ``strict=False``), and with
valgrind installed the count is a positive figure per call (no figure is asserted: it
depends on the interpreter)."""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "format_instructions.py"


@pytest.mark.parametrize(
    ("model", "plugin"),
    [
        ("granite-3.2-8b-instruct", "granite_formatters_granite32"),
        ("granite-3.3-8b-instruct", "granite_formatters_granite33"),
    ],
)
@pytest.mark.parametrize("shape", ["text", "ids"])
def test_the_measured_process_formats_the_row(model: str, plugin: str, shape: str) -> None:
    if importlib.util.find_spec(plugin) is None:
        pytest.skip(f"{plugin} is not installed")
    command = [sys.executable, str(SCRIPT), model, shape, "2", "--child", "--calls", "3"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
def test_the_count_is_per_call() -> None:
    if importlib.util.find_spec("granite_formatters_granite32") is None:
        pytest.skip("granite_formatters_granite32 is not installed")
    command = [sys.executable, str(SCRIPT), "granite-3.2-8b-instruct", "text", "1"]
    done = subprocess.run([*command, "--calls", "20"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    found = re.fullmatch(
        r"granite-3\.2-8b-instruct text 1: ([\d.]+)k instructions per format\n", done.stdout
    )
    assert found is not None, done.stdout
    assert float(found.group(1)) > 0
