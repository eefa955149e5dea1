"""The benchmark harness keeps working: ``benchmarks/run.py --quick`` runs every section.

No timing and no ratio threshold is asserted anywhere (both depend on the machine). What
is checked is the report's structure (every target row of the performance issue for
every installed release, with a number or a stated reason) and that each section measured
real work: the prompts equal the official template's render, every parse found what the
generated output contains, the old-commit comparison ran the old code. A release whose
plugin is not installed is skipped, and so is the template comparison when the shared
templates are absent.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from support.releases import RELEASES

REPO = Path(__file__).resolve().parents[2]
HARNESS = REPO / "benchmarks" / "run.py"
INSTALLED = [r for r in RELEASES if r.installed]
OLD_COMMIT = "b5e8081"


def shared_templates() -> Path | None:
    env = os.environ.get("GRANITE_FORMATTERS_SHARED")
    root = Path(env) if env else REPO.parent / "shared"
    return root if (root / "chat-templates").is_dir() else None


def old_commit_available() -> bool:
    git = shutil.which("git")
    if git is None:
        return False
    probe = subprocess.run(
        [git, "-C", str(REPO), "rev-parse", "--verify", "--quiet", f"{OLD_COMMIT}^{{commit}}"],
        capture_output=True,
    )
    return probe.returncode == 0


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


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], str]:
    """One ``--quick`` run of every section for every bundled release: (JSON, stdout)."""
    if not INSTALLED:
        pytest.skip("no bundled plugin is installed")
    out = tmp_path_factory.mktemp("bench") / "results.json"
    proc = harness("--quick", "--json", str(out))
    assert proc.returncode == 0, proc.stderr
    return json.loads(out.read_text(encoding="utf-8")), proc.stdout


def test_the_releases_come_from_the_release_table(bench: ModuleType) -> None:
    assert list(bench.RELEASES) == [r.version for r in RELEASES]


def test_every_target_row_is_present_for_every_installed_release(
    bench: ModuleType, quick: tuple[dict[str, Any], str]
) -> None:
    results, stdout = quick
    rows = results["targets"]
    keys = [(row["id"], row["release"]) for row in rows]
    assert len(keys) == len(set(keys))
    expected = {(target, r.version) for target in bench.TARGETS for r in INSTALLED}
    expected.add((bench.PICKLE_TARGET, "all"))
    assert set(keys) >= expected
    for row in rows:
        assert row["kind"] in ("min", "max")
        assert isinstance(row["threshold"], float)
        if row["ratio"] is None:
            # Not measurable: the row says why, and gives no verdict.
            assert row["passed"] is None and row["note"], row
        else:
            assert isinstance(row["ratio"], float) and row["ratio"] > 0, row
            assert isinstance(row["passed"], bool), row
            assert row["note"] is None
            # The verdict is the ratio against the threshold (whatever the numbers are).
            if row["kind"] == "min":
                met = row["ratio"] >= row["threshold"]
            else:
                met = row["ratio"] <= row["threshold"]
            assert row["passed"] is met, row
        assert row["target"] in stdout
    assert "#### Targets" in stdout


def test_granite42_four_char_streaming_is_judged_against_its_own_threshold(
    bench: ModuleType, quick: tuple[dict[str, Any], str]
) -> None:
    # (Issue 43: Granite 4.2 at 4-character chunks at most 2.5x its batch parse; the
    # other releases keep the target's threshold.)
    results, _ = quick
    thresholds = {
        row["release"]: row["threshold"] for row in results["targets"] if row["id"] == "stream-4"
    }
    expected = {r.version: 2.5 if r.version == "4.2" else 3.0 for r in INSTALLED}
    assert thresholds == expected


def test_measurable_targets_are_measured(
    bench: ModuleType, quick: tuple[dict[str, Any], str]
) -> None:
    """Where nothing is missing, every target row has a number (only the old-commit row
    of a release without citations, or not in the old commit, may have none)."""
    results, _ = quick
    templates = shared_templates() is not None
    for row in results["targets"]:
        target = row["id"]
        skipped = results["releases"].get(row["release"], {}).get("skipped")
        if skipped:  # a plugin not installed: every row of the release says so
            assert row["ratio"] is None and skipped in row["note"], row
            continue
        release = bench.RELEASES.get(row["release"])  # (None: the row of all releases)
        cases = {key for key, _ in bench.format_cases(release).values()} if release else set()
        if target in ("dict-rag", "typed-rag") and "rag" not in cases:
            # A release whose template renders no documents (Granite 4.2) has no RAG case.
            assert row["ratio"] is None and "does not render" in row["note"], row
        elif target in ("dict-rag-text", "dict-rag-ids") and not bench.rag_cases(release):
            assert row["ratio"] is None and "no such case" in row["note"], row
        elif target == "first-prompt-rag" and release is not None and not release.has("controls"):
            # (Without the templates the row says that first.)
            assert row["ratio"] is None, row
            assert "no RAG case" in row["note"] or not templates, row
        elif target in (
            "dict-rag",
            "dict-tools",
            "typed-rag",
            "typed-tools",
            "dict-rag-text",
            "dict-rag-ids",
            "first-prompt",
            "first-prompt-rag",
        ):
            assert (row["ratio"] is not None) is templates, row
        elif target == "parse-1000":
            release = bench.RELEASES[row["release"]]
            if not release.has("citations"):
                assert row["ratio"] is None and "no citation" in row["note"]
            elif old_commit_available() and release.plugin in ("granite32", "granite33"):
                assert row["ratio"] is not None, row
        else:
            assert row["ratio"] is not None, row


def test_quick_run_measures_every_section(quick: tuple[dict[str, Any], str]) -> None:
    results, stdout = quick
    for release in INSTALLED:
        entry = results["releases"][release.version]
        assert "skipped" not in entry
        for section in ("format", "parse", "stream", "roundtrip", "firstprompt"):
            assert "error" not in entry[section], entry[section]
        for case, row in entry["format"].items():
            assert row["dict_ns"] > 0 and row["typed_ns"] > 0, case
            shapes = {f"rag-{shape}-{n}" for shape in ("text", "ids") for n in (1, 5, 10)}
            assert row["key"] in {"small", "rag", "tools", "agent", *shapes}
        assert {row["key"] for row in entry["format"].values()} >= {"tools"}
        for case, row in entry["parse"].items():
            assert row["ns"] > 0
            assert row["check"] == "ok", f"{release.version} {case}: {row['check']}"
        if release.has("citations"):
            assert set(entry["parse"]) >= {f"RAG, {n} citations" for n in (10, 100, 1000)}
        else:
            assert set(entry["parse"]) >= {f"{n} tool calls" for n in (10, 100, 1000)}
        stream = entry["stream"]
        assert stream["chars"] > 0 and stream["equals_batch"] is True
        for key in ("batch_ns", "chunk4_ns", "char_ns", "chunk50_ns", "feed4_ns", "floor4_ns"):
            assert stream[key] > 0, key
        small, large = sorted(stream["linearity"], key=int)
        assert int(large) == 10 * int(small)
        trips = entry["roundtrip"]
        assert trips["kinds"][0] == "ChatCompletion"
        for case, by_kind in trips["cases"].items():
            assert set(by_kind) == set(trips["kinds"]), case
            if release.has("controls"):
                # Counted, not timed: the processors' own request type is never re-validated.
                assert by_kind[trips["kinds"][-1]]["counts"] == {}, case
    cold = results["coldstart"]
    assert cold["python"]["wall"] > 0
    for release in INSTALLED:
        assert len(cold[release.version]["cpu"]) == len(cold["steps"]) == 3
        assert min(cold[release.version]["wall"]) >= 0
    pickled = results["pickle"]
    assert pickled["models"] >= len(INSTALLED)
    assert pickled["works"] + len(pickled["failures"]) == pickled["models"]
    for heading in ("Format latency", "Parse latency", "Streaming", "Cold start stages"):
        assert f"#### {heading}" in stdout


def test_the_cold_start_program_is_the_first_prompt_with_clocks(bench: ModuleType) -> None:
    # The stage table is honest only if its program is the first-prompt rows' program,
    # with only the clock readings added between the steps.
    request = bench.workloads.small_chat_request()
    release = next(iter(bench.RELEASES.values()))
    program = bench.coldstart_program(release.model, request).splitlines()
    assert program.count(bench.COLD_MARK) == len(bench.COLD_STEPS) + 1
    body = [line for line in program[3:-2] if line != bench.COLD_MARK]
    assert "\n".join(body) == bench.COLD_LIBRARY.format(model=release.model, request=request)


def test_the_old_commit_comparison_runs_each_tree(quick: tuple[dict[str, Any], str]) -> None:
    if not old_commit_available():
        pytest.skip(f"commit {OLD_COMMIT} is not in this repository")
    old = quick[0]["old"]
    assert "skipped" not in old, old
    measured = [r for r in INSTALLED if r.plugin in ("granite32", "granite33")]
    for release in measured:
        row = old["releases"][release.version]
        assert row["old_ns"] > 0 and row["new_ns"] > 0, row
        # Both trees parsed the same output completely.
        assert row["citations_found"] == {"old_ns": 1000, "new_ns": 1000}


def test_prompts_timed_are_the_official_template_renders(
    quick: tuple[dict[str, Any], str],
) -> None:
    if shared_templates() is None:
        pytest.skip(
            "the shared chat templates (../shared or $GRANITE_FORMATTERS_SHARED) are absent"
        )
    results, _ = quick
    assert results["baseline_note"] is None
    for release in INSTALLED:
        for case, row in results["releases"][release.version]["format"].items():
            assert row["matches_template"] is True, f"{release.version} {case}"
            assert row["jinja_ns"] > 0, case
        first = results["releases"][release.version]["firstprompt"]
        cases = ["small chat", *(["RAG"] if release.has("controls") else [])]
        assert [case for case in first if case in ("small chat", "RAG")] == cases
        for case in cases:
            assert first[case]["library_ns"] > 0 and first[case]["jinja_ns"] > 0


def test_missing_templates_skip_the_baseline_with_a_note(tmp_path: Path) -> None:
    if not INSTALLED:
        pytest.skip("no Granite plugin is installed")
    release = INSTALLED[0].version
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
    rows = [r for r in results["targets"] if r["release"] == release]
    ids = {"dict-rag", "dict-tools", "typed-rag", "typed-tools", "dict-rag-text", "dict-rag-ids"}
    assert {r["id"] for r in rows} == ids
    assert all(r["ratio"] is None and "shared templates" in r["note"] for r in rows)


def test_a_missing_plugin_is_reported_not_fatal(tmp_path: Path) -> None:
    release = RELEASES[0]
    out = tmp_path / "results.json"
    proc = harness(
        "--quick",
        "--release",
        release.version,
        "--only",
        "format",
        "--json",
        str(out),
        env={"GRANITE_FORMATTERS_DISABLE_PLUGINS": release.distribution},
    )
    assert proc.returncode == 0, proc.stderr
    results = json.loads(out.read_text(encoding="utf-8"))
    entry = results["releases"][release.version]
    assert "format" not in entry
    assert entry["skipped"]
    version = re.escape(release.version)
    assert re.search(rf"- Granite {version}: skipped \(.+\)\n", proc.stdout)
    assert all(r["ratio"] is None and r["note"] for r in results["targets"])


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
    assert workloads.granite4_tool_call_answer(100).count("<tool_call>") == 100
    assert len(workloads.granite4_stream_answer(20_000)) >= 20_000


def test_an_unknown_old_commit_is_a_reason_not_a_failure(bench: ModuleType) -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not available")
    with bench.old_checkout("0123456789abcdef0123456789abcdef01234567") as (root, reason):
        assert root is None
        assert "is not in this repository" in reason


def test_the_old_checkout_holds_the_old_sources(bench: ModuleType) -> None:
    if not old_commit_available():
        pytest.skip(f"commit {OLD_COMMIT} is not in this repository")
    with bench.old_checkout() as (root, reason):
        assert reason is None and root is not None
        assert (root / "core" / "src" / "granite_formatters" / "__init__.py").is_file()
        # b5e8081 predates the Granite 4 plugin.
        assert (root / "plugins" / "granite33" / "src").is_dir()
        assert not (root / "plugins" / "granite4").exists()
    assert not root.exists()


def test_compare_places_both_trees_at_one_path_length_per_round(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location(
        "granite_compare", REPO / "benchmarks" / "compare.py"
    )
    assert spec is not None and spec.loader is not None
    compare = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(compare)
    trees = {}
    for name, plugin in (("old", "granite33"), ("new", "granite4")):
        tree = tmp_path / f"tree-of-{name}"
        for source in (tree / "core" / "src" / "pkg", tree / "plugins" / plugin / "src" / "p"):
            source.mkdir(parents=True)
            (source / "__init__.py").write_text(name, encoding="utf-8")
            (source / "__pycache__").mkdir()
        trees[name] = tree
    lengths = set()
    for number in range(3):
        placed = compare._placed(trees, tmp_path / "scratch", number)
        old, new = (placed[name].split(os.pathsep) for name in ("old", "new"))
        assert [len(path) for path in old[:1]] == [len(path) for path in new[:1]]
        assert (Path(old[0]) / "pkg" / "__init__.py").read_text(encoding="utf-8") == "old"
        assert (Path(new[1]) / "p" / "__init__.py").read_text(encoding="utf-8") == "new"
        assert not (Path(new[0]) / "pkg" / "__pycache__").exists()
        lengths.add(len(old[0]))
    assert len(lengths) == 3
