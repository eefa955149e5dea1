"""Test support: one test class per bundled release, for the kit's contract classes.

The testing kit's contract classes take their release as class attributes, so a module
that runs one for every release with a feature makes one subclass per release;
:func:`release_classes` does that from the release table, with a skipped stand-in (and
the reason) for a release whose plugin is not installed.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from support.releases import Release, with_feature


def not_installed(release: Release) -> str:
    """The reason a test of ``release`` is skipped where its plugin is absent."""
    return f"{release.distribution} is not installed in this environment"


def release_classes(
    prefix: str, feature: str, make: Callable[[Release], type], module: str
) -> dict[str, type]:
    """``{"<prefix><Plugin>": class}`` for each release with ``feature``, for ``globals()``.

    ``make(release)`` builds the class of an installed release; ``module`` is the calling
    module's ``__name__`` (pytest collects the classes from it).
    """
    classes: dict[str, type] = {}
    for release in with_feature(feature):
        if release.installed:
            base = make(release)
        else:

            @pytest.mark.skip(reason=not_installed(release))
            class NotInstalled:
                def test_release(self) -> None:  # pragma: no cover - skipped
                    raise AssertionError("unreachable")

            base = NotInstalled
        name = prefix + release.plugin.capitalize()
        classes[name] = type(name, (base,), {"__module__": module})
    return classes
