"""Test settings: the core's opt-in plugin test kit and a deterministic hypothesis profile."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

# Fixtures isolated_host, isolated_host_factory, register_test_plugin and the
# FormatterContractTests base class.
pytest_plugins = ["granite_formatters.testing"]

settings.register_profile(
    "ci", derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))
