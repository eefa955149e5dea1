"""Test support: where the golden files are, and a loader for the shared layout.

One request file per golden case, one expected prompt per release::

    tests/golden/<set>/requests/<case>.json
    tests/golden/<set>/<release>/<case>.prompt.txt

A release has a prompt for exactly the cases that apply to it. The files are written
by ``tests/make_goldens.py``, rendering the official templates; see its docstring.

The cases are read with the testing kit's
``granite_formatters.testing.load_golden_cases(requests, prompts=release_folder)``.
"""

from __future__ import annotations

from pathlib import Path

from granite_formatters.testing import GoldenCase, load_golden_cases

from support.releases import Release

ROOT = Path(__file__).resolve().parents[1] / "golden"


def requests_dir(goldens: str) -> Path:
    """The folder of the request files of the golden set ``goldens`` (``"granite3"``)."""
    return ROOT / goldens / "requests"


def prompts_dir(goldens: str, version: str) -> Path:
    """The folder of the expected prompts of release ``version`` in the set ``goldens``."""
    return ROOT / goldens / version


def release_cases(release: Release) -> list[GoldenCase]:
    """The golden cases of one release: the requests that have a prompt for it."""
    return load_golden_cases(
        requests_dir(release.goldens), prompts=prompts_dir(release.goldens, release.version)
    )


def case_names(release: Release) -> list[str]:
    """The names of the golden cases of one release, without reading them."""
    return sorted(
        path.name.removesuffix(".prompt.txt")
        for path in prompts_dir(release.goldens, release.version).glob("*.prompt.txt")
    )
