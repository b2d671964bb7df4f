"""Shared test set-up: hypothesis profiles and the xbackend pytest plugin (also when run from the tree)."""

from __future__ import annotations

import os
from importlib.metadata import entry_points

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", max_examples=40, deadline=None, derandomize=True, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.differing_executors],
)  # fmt: skip
settings.register_profile(
    "thorough", max_examples=1000, deadline=None,
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


def pytest_collection_modifyitems(config, items):
    """Known differences of a backend (tests/known_failures.py) become xfail marks: data, not skips."""
    import pytest

    from known_failures import known_failure

    for item in items:
        target = getattr(getattr(item, "callspec", None), "params", {}).get("xb_target")
        backend = getattr(target, "backend", None)
        if backend is None:
            continue
        hit = known_failure(backend, item.nodeid)
        if hit is not None:
            item.add_marker(pytest.mark.xfail(reason=hit[0], strict=hit[1]))
