"""Side-by-side timings of this tree and an older commit, in one run.

    python benchmarks/compare.py aff744c                  format, parse and stream sections
    python benchmarks/compare.py aff744c --rounds 3 --quick
    python benchmarks/compare.py aff744c --only format --release 4.1

The older commit is unpacked with ``git archive`` into a scratch folder. Each round runs
this tree's ``benchmarks/run.py --json`` twice, once with the old commit's ``core/src``
and ``plugins/*/src`` first on ``PYTHONPATH`` and once with this tree's, alternating which
goes first, so a slow spell of a shared host falls on both. Every timed row of the
format, parse and stream sections is reported as the median over the rounds, old and
new, with the change; a row more than ``--limit`` percent slower is marked. Only the
releases both trees provide are measured.

Each round copies both trees' sources to folders of one path length, a different length
each round. CPython's attribute cache is indexed by object addresses, which shift with
the length of every path a process reads, so one fixed layout can favour one tree by
several percent on a row and keep doing so in every round; the medians are taken over
layouts instead.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[1]
HARNESS = REPO / "benchmarks" / "run.py"
SECTIONS = ("format", "parse", "stream")
# The format rows compare with the template in the same run (a ratio: higher is better);
# the others are times (lower is better).
_FORMAT_KEYS = ("dict_ns", "typed_ns")
_STREAM_KEYS = ("batch_ns", "chunk4_ns", "char_ns")


def _unpack(commit: str, into: Path) -> Path:
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", "--format=tar", commit],
        check=True,
        capture_output=True,
    ).stdout
    tree = into / commit
    tree.mkdir()
    tar_path = into / "tree.tar"
    tar_path.write_bytes(archive)
    with tarfile.open(tar_path) as tar:
        tar.extractall(tree, filter="data")
    return tree


def _source_dirs(tree: Path) -> list[Path]:
    return [tree / "core" / "src", *sorted((tree / "plugins").glob("*/src"))]


def _sources(tree: Path) -> str:
    return os.pathsep.join(str(path) for path in _source_dirs(tree))


def _placed(trees: dict[str, Path], scratch: Path, number: int) -> dict[str, str]:
    """Each tree's sources copied for round ``number`` under one folder whose name's
    length depends on the round (the names in ``trees`` are of one length), as
    ``PYTHONPATH`` values."""
    folder = scratch / ("round" + "-" * (number * 5 % 17) + str(number))
    placed = {}
    for name, tree in trees.items():
        for source in _source_dirs(tree):
            target = folder / name / source.relative_to(tree)
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
        placed[name] = _sources(folder / name)
    return placed


def _releases(tree: Path) -> set[str]:
    """The release labels that a tree's plugin folders declare."""
    found: set[str] = set()
    for path in (tree / "plugins").glob("*/pyproject.toml"):
        with path.open("rb") as file:
            table = tomllib.load(file).get("tool", {}).get("granite-formatters", {})
        found.update(table.get("releases", {}))
    return found


def _run(
    sources: str, releases: list[str], sections: list[str], quick: bool, out: Path
) -> dict[str, Any]:
    command = [sys.executable, str(HARNESS), "--json", str(out)]
    command += [arg for section in sections for arg in ("--only", section)]
    command += [arg for release in releases for arg in ("--release", release)]
    if quick:
        command.append("--quick")
    env = {**os.environ, "PYTHONPATH": sources}
    subprocess.run(command, check=True, env=env, cwd=REPO, stdout=subprocess.DEVNULL)
    data: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return data


def _rows(result: dict[str, Any]) -> Iterator[tuple[str, float]]:
    """(row label, value) for every timed row; format rows are template ÷ library."""
    for version, release in result["releases"].items():
        for case, row in release.get("format", {}).items():
            for key in _FORMAT_KEYS:
                if row.get(key) and row.get("jinja_ns"):
                    yield (
                        f"{version} format {case} ({key[:-3]}, ×template)",
                        row["jinja_ns"] / row[key],
                    )
        for case, row in release.get("parse", {}).items():
            if row.get("ns"):
                yield f"{version} parse {case} (µs)", row["ns"] / 1000
        stream = release.get("stream", {})
        for key in _STREAM_KEYS:
            if stream.get(key):
                yield f"{version} stream {key[:-3]} (µs)", stream[key] / 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("commit", help="the older commit to compare with")
    parser.add_argument("--rounds", type=int, default=2, help="alternating rounds (default 2)")
    parser.add_argument("--quick", action="store_true", help="the harness's tiny iteration counts")
    parser.add_argument("--limit", type=float, default=10.0, help="percent slower to flag")
    parser.add_argument(
        "--only",
        action="append",
        choices=SECTIONS,
        help="compare only this section (repeatable; default: format, parse and stream)",
    )
    parser.add_argument(
        "--release",
        action="append",
        help="compare only this release label, e.g. 4.1 (repeatable; default: every shared one)",
    )
    args = parser.parse_args(argv)
    sections = args.only or list(SECTIONS)
    with tempfile.TemporaryDirectory() as scratch:
        old_tree = _unpack(args.commit, Path(scratch))
        releases = sorted(_releases(old_tree) & _releases(REPO))
        if args.release:
            releases = [release for release in releases if release in args.release]
        samples: dict[str, dict[str, list[float]]] = {"old": {}, "new": {}}
        for number in range(args.rounds):
            sources = _placed({"old": old_tree, "new": REPO}, Path(scratch), number)
            order = ("old", "new") if number % 2 == 0 else ("new", "old")
            for name in order:
                out = Path(scratch) / f"{name}-{number}.json"
                for label, value in _rows(_run(sources[name], releases, sections, args.quick, out)):
                    samples[name].setdefault(label, []).append(value)
    lines = [
        f"Old: `{args.commit}`; new: this tree. Median of {args.rounds} alternating rounds.",
        "",
        "| row | old | new | slower by | verdict |",
        "|---|---|---|---|---|",
    ]
    worse = 0
    for label, old_values in samples["old"].items():
        new_values = samples["new"].get(label)
        if not new_values:
            continue
        old, new = statistics.median(old_values), statistics.median(new_values)
        higher_is_better = "×template" in label
        change = (new / old - 1) * 100 if not higher_is_better else (old / new - 1) * 100
        slower = change > args.limit
        worse += slower
        verdict = f"**slower than {args.limit:g}%**" if slower else "ok"
        lines.append(f"| {label} | {old:.2f} | {new:.2f} | {change:+.1f}% | {verdict} |")
    lines.append("")
    lines.append(f"{worse} row(s) more than {args.limit:g}% slower.")
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
