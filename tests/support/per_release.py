"""Test support: one test class per bundled release, for the kit's contract classes.

The testing kit's contract classes take their release as class attributes, so a module
that runs one for every release it applies to makes one subclass per release;
:func:`release_classes` does that from the release table, with a skipped stand-in (and
the reason) for a release whose plugin is not installed.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from support.releases import RELEASES, Release, with_feature


def not_installed(release: Release) -> str:
    """The reason a test of ``release`` is skipped where its plugin is absent."""
    return f"{release.distribution} is not installed in this environment"


def release_classes(
    prefix: str,
    applies_to: str | Callable[[Release], bool],
    make: Callable[[Release], type],
    module: str,
) -> dict[str, type]:
    """``{"<prefix>Granite<version digits>": class}`` for each release ``applies_to`` (a
    feature the release has, or a predicate), for ``globals()``.

    ``make(release)`` builds the class of an installed release; ``module`` is the calling
    module's ``__name__`` (pytest collects the classes from it).
    """
    classes: dict[str, type] = {}
    chosen = (
        with_feature(applies_to)
        if isinstance(applies_to, str)
        else tuple(r for r in RELEASES if applies_to(r))
    )
    for release in chosen:
        if release.installed:
            base = make(release)
        else:

            @pytest.mark.skip(reason=not_installed(release))
            class NotInstalled:
                def test_release(self) -> None:  # pragma: no cover - skipped
                    raise AssertionError("unreachable")

            base = NotInstalled
        name = prefix + "Granite" + release.version.replace(".", "")
        classes[name] = type(name, (base,), {"__module__": module})
    return classes
