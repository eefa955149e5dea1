"""The benchmark harness keeps working: ``benchmarks/run.py --quick`` runs every section.

No timing is asserted anywhere (timings depend on the machine). What is checked is that
each section ran and measured real work: the prompts equal the official template's
render, and every parse found what the generated output contains. A release whose
plugin is not installed is skipped, and so is the template comparison when the shared
templates are absent.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
HARNESS = REPO / "benchmarks" / "run.py"
PLUGINS = {"3.2": "granite_formatters_granite32", "3.3": "granite_formatters_granite33"}


def shared_templates() -> Path | None:
    env = os.environ.get("GRANITE_FORMATTERS_SHARED")
    root = Path(env) if env else REPO.parent / "shared"
    return root if (root / "chat-templates").is_dir() else None


def need_plugin(release: str) -> None:
    if importlib.util.find_spec(PLUGINS[release]) is None:
        pytest.skip(f"the Granite {release} plugin ({PLUGINS[release]}) is not installed")


def harness(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(HARNESS), *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, **(env or {})},
        timeout=600,
    )


@pytest.fixture(scope="module")
def bench() -> Iterator[ModuleType]:
    """The harness module, imported from its file (``benchmarks/`` is not a package)."""
    name = "gf_benchmarks_run"
    spec = importlib.util.spec_from_file_location(name, HARNESS)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the file runs
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        del sys.modules[name]


@pytest.mark.parametrize("release", sorted(PLUGINS))
def test_quick_run_measures_every_section(release: str, tmp_path: Path) -> None:
    need_plugin(release)
    out = tmp_path / "results.json"
    proc = harness("--quick", "--release", release, "--json", str(out))
    assert proc.returncode == 0, proc.stderr
    results: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    entry = results["releases"][release]
    assert "skipped" not in entry
    for section in ("format", "parse", "stream", "roundtrip"):
        assert "error" not in entry[section], entry[section]

    for case, row in entry["format"].items():
        assert row["dict_ns"] > 0 and row["typed_ns"] > 0, case
    for case, row in entry["parse"].items():
        assert row["ns"] > 0
        assert row["check"] == "ok", f"{case}: {row['check']}"
    assert set(entry["parse"]) >= {f"RAG, {n} citations" for n in (10, 100, 1000)}
    small, large = entry["stream"]["sizes"]
    assert large == 10 * small
    for size in (small, large):
        row = entry["stream"][str(size)]
        assert row["chars"] >= size
        assert row["batch_ns"] > 0 and row["chunk50_ns"] > 0 and row["char_ns"] > 0
    trips = entry["roundtrip"]
    assert trips["kinds"][0] == "ChatCompletion"
    for case, by_kind in trips["cases"].items():
        assert set(by_kind) == set(trips["kinds"]), case
        # Counted, not timed: the processors' own request type is never re-validated.
        assert by_kind[trips["kinds"][-1]]["counts"] == {}, case
    cold = results["coldstart"]
    assert cold["python"] > 0 and cold["pydantic"] > 0 and cold[release] > 0

    for heading in ("Targets", "Format latency", "Parse latency", "Streaming", "Cold start"):
        assert f"#### {heading}" in proc.stdout


@pytest.mark.parametrize("release", sorted(PLUGINS))
def test_prompts_timed_are_the_official_template_renders(release: str, tmp_path: Path) -> None:
    need_plugin(release)
    if shared_templates() is None:
        pytest.skip(
            "the shared chat templates (../shared or $GRANITE_FORMATTERS_SHARED) are absent"
        )
    out = tmp_path / "results.json"
    proc = harness("--quick", "--release", release, "--only", "format", "--json", str(out))
    assert proc.returncode == 0, proc.stderr
    results = json.loads(out.read_text(encoding="utf-8"))
    assert results["baseline_note"] is None
    for case, row in results["releases"][release]["format"].items():
        assert row["matches_template"] is True, case
        assert row["jinja_ns"] > 0, case


def test_missing_templates_skip_the_baseline_with_a_note(tmp_path: Path) -> None:
    release = next((r for r in sorted(PLUGINS) if importlib.util.find_spec(PLUGINS[r])), None)
    if release is None:
        pytest.skip("no Granite plugin is installed")
    out = tmp_path / "results.json"
    proc = harness(
        "--quick",
        "--release",
        release,
        "--only",
        "format",
        "--json",
        str(out),
        env={"GRANITE_FORMATTERS_SHARED": str(tmp_path / "absent")},
    )
    assert proc.returncode == 0, proc.stderr
    results = json.loads(out.read_text(encoding="utf-8"))
    assert "shared templates were not found" in results["baseline_note"]
    for row in results["releases"][release]["format"].values():
        assert row["jinja_ns"] is None and row["matches_template"] is None
    assert "shared templates were not found" in proc.stdout


def test_a_missing_plugin_is_reported_not_fatal(tmp_path: Path) -> None:
    out = tmp_path / "results.json"
    proc = harness(
        "--quick",
        "--release",
        "3.2",
        "--only",
        "format",
        "--json",
        str(out),
        env={"GRANITE_FORMATTERS_DISABLE_PLUGINS": "granite-formatters-granite32"},
    )
    assert proc.returncode == 0, proc.stderr
    entry = json.loads(out.read_text(encoding="utf-8"))["releases"]["3.2"]
    assert "format" not in entry
    assert entry["skipped"]
    assert re.search(r"- Granite 3\.2: skipped \(.+\)\n", proc.stdout)


def test_write_doc_replaces_only_the_results_section(bench: ModuleType, tmp_path: Path) -> None:
    doc = tmp_path / "performance.md"
    doc.write_text(f"# Head\n\nmethod\n\n{bench.BEGIN}\nold numbers\n{bench.END}\n\n## Tail\n")
    bench.write_doc("| new | table |\n", doc)
    text = doc.read_text(encoding="utf-8")
    assert text.startswith("# Head\n\nmethod\n\n" + bench.BEGIN + "\n")
    assert text.endswith(bench.END + "\n\n## Tail\n")
    assert "old numbers" not in text
    assert "| new | table |" in text
    bench.write_doc("| newer |\n", doc)
    assert doc.read_text(encoding="utf-8").count(bench.BEGIN) == 1


def test_the_repository_doc_has_the_results_markers(bench: ModuleType) -> None:
    text = bench.DOC.read_text(encoding="utf-8")
    assert text.count(bench.BEGIN) == 1 and text.count(bench.END) == 1
    assert text.index(bench.BEGIN) < text.index(bench.END)


def test_workloads_have_the_advertised_shapes(bench: ModuleType) -> None:
    workloads = bench.workloads
    docs = workloads.rag_request()["documents"]
    assert len(docs) == 5 and all(1900 <= len(d["text"]) <= 2048 for d in docs)
    assert len(workloads.rag_request()["messages"]) == 5
    assert workloads.rag_request()["chat_template_kwargs"]["controls"] == {
        "citations": True,
        "hallucinations": True,
    }
    tools = workloads.tools_request()["tools"]
    assert len(tools) == 6
    assert all(t["function"]["parameters"]["type"] == "object" for t in tools)
    for count in (10, 100):
        old = workloads.rag_answer("3.2", count)
        assert old.text.count("</co>") == 2 * count  # tags in the answer + citation lines
        assert old.text.count("\n# Citations:\n") == 1
        new = workloads.rag_answer("3.3", count)
        assert new.text.count("<|end_of_cite|>") == count
        assert new.text.count('<|start_of_plugin|>{"id": "citation"}\n') == 1
        assert len(set(new.sentences)) == count
    assert len(workloads.stream_answer("3.3", 20_000)) >= 20_000
