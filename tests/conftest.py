"""Shared test set-up: hypothesis profiles and the xbackend pytest plugin (also when run from the tree)."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", max_examples=40, deadline=None, derandomize=True, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.differing_executors, HealthCheck.function_scoped_fixture],
)  # fmt: skip
settings.register_profile(
    "thorough", max_examples=1000, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.differing_executors, HealthCheck.function_scoped_fixture],
)  # fmt: skip
settings.register_profile("dev", max_examples=60, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.differing_executors, HealthCheck.function_scoped_fixture])  # fmt: skip
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


def pytest_configure(config):  # the plugin is registered by its entry point once installed
    pm = config.pluginmanager
    if not pm.has_plugin("xbackend") and not pm.has_plugin("xbackend.testing._plugin"):
        pm.import_plugin("xbackend.testing._plugin")
