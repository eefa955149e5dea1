"""Test support: where the golden files are, and a loader for the shared layout.

One request file per golden case, one expected prompt per release::

    tests/golden/<family>/requests/<case>.json
    tests/golden/<family>/<release>/<case>.prompt.txt

A release has a prompt for exactly the cases that apply to it. The files are written
by ``tests/make_goldens.py`` (Granite 3) and ``tests/make_goldens_granite4.py``
(Granite 4), both rendering the official templates; see their docstrings.

:func:`load_golden_cases` has the behaviour of
``granite_formatters.testing.load_golden_cases(folder, *, prompts=None)``; the tests use
this copy until the testing kit has the ``prompts`` option, then switch to the kit.
"""

from __future__ import annotations

import datetime
import json
from pathlib import Path

from granite_formatters.testing import GoldenCase

ROOT = Path(__file__).resolve().parents[1] / "golden"


def requests_dir(family: str) -> Path:
    """The folder of the request files of ``family`` (``"granite3"``, ``"granite4"``)."""
    return ROOT / family / "requests"


def prompts_dir(family: str, version: str) -> Path:
    """The folder of the expected prompts of release ``version`` of ``family``."""
    return ROOT / family / version


def _case(name: str, request_path: Path, prompt_path: Path) -> GoldenCase:
    data = json.loads(request_path.read_text(encoding="utf-8"))
    date = data.get("date")
    return GoldenCase(
        name=name,
        request=data["request"],
        prompt=prompt_path.read_bytes().decode("utf-8"),
        today=datetime.date.fromisoformat(date) if date else None,
        add_generation_prompt=data.get("add_generation_prompt", True),
        special_tokens=data.get("special_tokens"),
        strict=data.get("strict", True),
    )


def load_golden_cases(folder: str | Path, *, prompts: str | Path | None = None) -> list[GoldenCase]:
    """The golden cases of ``folder``, sorted by name.

    Without ``prompts``: ``<name>.json`` / ``<name>.prompt.txt`` pairs, both in
    ``folder``. With ``prompts``: requests ``<name>.json`` from ``folder``, prompts
    ``<name>.prompt.txt`` from ``prompts``, and only the cases that have a prompt file;
    a prompt file with no request is an error (:class:`FileNotFoundError`).
    """
    folder = Path(folder)
    if prompts is None:
        return [
            _case(path.stem, path, path.with_name(path.stem + ".prompt.txt"))
            for path in sorted(folder.glob("*.json"))
        ]
    cases = []
    for prompt_path in sorted(Path(prompts).glob("*.prompt.txt")):
        name = prompt_path.name.removesuffix(".prompt.txt")
        request_path = folder / f"{name}.json"
        if not request_path.is_file():
            raise FileNotFoundError(
                f"golden prompt {prompt_path} has no request file {request_path}"
            )
        cases.append(_case(name, request_path, prompt_path))
    return cases


def release_cases(family: str, version: str) -> list[GoldenCase]:
    """The golden cases of one release: the requests that have a prompt for it."""
    return load_golden_cases(requests_dir(family), prompts=prompts_dir(family, version))


def case_names(family: str, version: str) -> list[str]:
    """The names of the golden cases of one release, without reading them."""
    return sorted(
        path.name.removesuffix(".prompt.txt")
        for path in prompts_dir(family, version).glob("*.prompt.txt")
    )


class ReleaseFolder:
    """One release's golden cases seen as one folder of ``<name>.json`` / ``.prompt.txt`` pairs.

    For code that reads the pair layout by path (``support.granite3_input_contract``
    takes a ``golden_dir``): ``/`` resolves ``<name>.json`` to the shared request file and
    ``<name>.prompt.txt`` to the release's prompt, and ``glob`` lists only the cases that
    have a prompt for the release. Nothing is copied.
    """

    def __init__(self, family: str, version: str) -> None:
        self.requests = requests_dir(family)
        self.prompts = prompts_dir(family, version)

    def __truediv__(self, name: str) -> Path:
        if name.endswith(".prompt.txt"):
            return self.prompts / name
        return self.requests / name

    def glob(self, pattern: str) -> list[Path]:
        prompts = sorted(self.prompts.glob("*.prompt.txt"))
        if pattern == "*.json":
            return [self.requests / (p.name.removesuffix(".prompt.txt") + ".json") for p in prompts]
        if pattern in ("*.txt", "*.prompt.txt"):
            return prompts
        raise ValueError(f"unsupported pattern {pattern!r}")

    def __repr__(self) -> str:
        return f"ReleaseFolder({self.requests}, {self.prompts})"
