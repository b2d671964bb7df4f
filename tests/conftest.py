"""Shared test set-up: hypothesis profiles and the xbackend pytest plugin (also when run from the tree)."""

from __future__ import annotations

import os
from importlib.metadata import entry_points

# SciPy reads SCIPY_ARRAY_API once, when it is first imported, and scikit-learn's array_api_dispatch
# refuses to run without it: set it before anything can import either (tests/test_consumers.py checks
# that it took effect, and fails with the fix if some plugin imported SciPy earlier).
os.environ.setdefault("SCIPY_ARRAY_API", "1")

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", max_examples=40, deadline=None, derandomize=True, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.differing_executors],
)  # fmt: skip
settings.register_profile(
    "thorough", max_examples=1000, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.differing_executors],
)  # fmt: skip
settings.register_profile(  # benchmarks/gpu_check.sh: every GPU test in its time budget (CUDA calls are slow)
    "gpu", max_examples=10, deadline=None, derandomize=True, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.differing_executors],
)  # fmt: skip
settings.register_profile("dev", max_examples=60, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.differing_executors])  # fmt: skip
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


# The plugin is registered by its pytest11 entry point once xbackend is installed; run from the tree
# (PYTHONPATH=., as on the GPU machine) it is loaded here instead - early enough for its options.
if os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD") or not any(
    ep.value == "xbackend.testing._plugin" for ep in entry_points(group="pytest11")
):
    pytest_plugins = ["xbackend.testing._plugin"]
