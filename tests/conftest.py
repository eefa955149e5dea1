"""Test-suite-wide settings: the opt-in plugin test kit and hypothesis profiles."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

pytest_plugins = ["pytester", "granite_formatters.testing"]

# "ci" (set by tox) keeps runs deterministic; "dev" is the default for local runs.
settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))
