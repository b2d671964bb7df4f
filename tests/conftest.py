"""Shared test set-up: hypothesis profiles and the xbackend pytest plugin (also when run from the tree)."""

from __future__ import annotations

import os
from importlib.metadata import entry_points

import pytest

# SciPy reads SCIPY_ARRAY_API once, when it is first imported, and scikit-learn's array_api_dispatch
# refuses to run without it: set it before anything can import either (tests/test_consumers.py checks
# that it took effect, and fails with the fix if some plugin imported SciPy earlier).
os.environ.setdefault("SCIPY_ARRAY_API", "1")
# JAX (a target when installed) runs the suite with 64-bit dtypes, xbackend's defaults; without x64 the jax
# backend refuses them with the fix (tests/test_generic.py checks that in a subprocess). Read at JAX's import.
os.environ.setdefault("JAX_ENABLE_X64", "1")
# On a GPU machine every test process (each xdist worker) would start JAX on the GPU, and JAX grabs 75 % of the
# GPU's memory there at its first array: the second worker fails (CUDA_ERROR_OUT_OF_MEMORY, an INTERNALERROR of the
# whole run; issue 28), and torch and CuPy would be left with the rest. The suite runs JAX on the CPU (its target is
# jax-cpu; JAX_PLATFORMS=cuda chooses the GPU), and JAX allocates on demand wherever it runs. Both are read when
# JAX starts, so they are set here, before anything can import it (tests/test_lazy_import.py checks, in a subprocess).
os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

from hypothesis import HealthCheck, settings

# Profiles (docs/testing.md). The default, "ci", is what the README's test command and CI run: derandomised
# (the same examples on every machine, every run) and with no example database, so a developer's local
# .hypothesis/ directory can never decide the outcome. Random exploration is the opt-in "explore" profile
# (HYPOTHESIS_PROFILE=explore): fresh random examples, many of them, failures saved to the local database for
# replay; what it finds becomes an explicit example (@example or tests/test_parity_cases.py).
_QUIET = [HealthCheck.too_slow, HealthCheck.differing_executors, HealthCheck.data_too_large]
settings.register_profile(
    "ci", max_examples=40, deadline=None, derandomize=True, database=None, print_blob=True, suppress_health_check=_QUIET,
)  # fmt: skip
settings.register_profile(
    "explore", max_examples=1000, deadline=None, derandomize=False, print_blob=True, suppress_health_check=_QUIET,
)  # fmt: skip
settings.register_profile("thorough", parent=settings.get_profile("explore"))  # the older name of "explore"
settings.register_profile(  # benchmarks/gpu_check.sh: every GPU test in its time budget (CUDA calls are slow)
    "gpu", max_examples=10, deadline=None, derandomize=True, database=None, print_blob=True,
    suppress_health_check=_QUIET,
)  # fmt: skip
settings.register_profile("mutation", parent=settings.get_profile("gpu"))  # tools/mutation.py: a test run per mutant
settings.register_profile("dev", parent=settings.get_profile("ci"))  # kept for old scripts: the same as "ci"
settings.register_profile("quick", parent=settings.get_profile("ci"), max_examples=10)  # `pytest --quick` (tiers.py)
_PROFILE_NAME = os.environ.get("HYPOTHESIS_PROFILE", "ci")
settings.load_profile(_PROFILE_NAME)
_PROFILE = settings.default
# Lazy targets (Dask) cost ~10x per example (graph building, a scheduler per compute): their hypothesis
# tests draw a quarter of the examples; every test still runs on them (the CI time budget, issue 10).
settings.register_profile("lazy", parent=_PROFILE, max_examples=max(5, _PROFILE.max_examples // 4))
# JAX compiles every operation per shape and dtype on first sight, and Cubed plans every operation (~10x a NumPy
# example too): the same profile.
LAZY_BACKENDS = ("dask", "cubed", "jax")


# CuPy on NumPy (tests/fakecupy.py): the CuPy backend's own code on the CPU, with CuPy's observed kernel behaviour
# (issue 28). Opt-in as a target (--xb-backends cupy_on_numpy); the parity, oracle and conformance tests add it
# themselves (pytest_generate_tests below, tests/test_parity_cupy_on_numpy.py).
from xbackend._dispatch import register_backend  # noqa: E402
from xbackend.testing import _targets  # noqa: E402

register_backend("cupy_on_numpy", "fakecupy:CupyOnNumpyBackend", modules=("fakecupy",))
# Cubed plans and stores every operation (~0.1 s a call): the whole suite on it would triple CI's time, so its target
# is opt-in too (--xb-backends cubed; tests/known_failures.py lists what differs) and tests/test_cubed.py runs always.
_targets.OPT_IN = (*_targets.OPT_IN, "cupy_on_numpy", "cubed")


# The plugin is registered by its pytest11 entry point once xbackend is installed; run from the tree
# (PYTHONPATH=., as on the GPU machine) it is loaded here instead - early enough for its options.
if os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD") or not any(
    ep.value == "xbackend.testing._plugin" for ep in entry_points(group="pytest11")
):
    pytest_plugins = ["xbackend.testing._plugin"]


def pytest_addoption(parser):
    parser.addoption("--quick", action="store_true", default=False,
                     help="the quick tier (tests/tiers.py): NumPy and torch-CPU, no subprocess or generated suites, "
                          "10 hypothesis examples; what `-m 'not slow and not full'` selects. The full run is the "
                          "default (CI)")  # fmt: skip


def pytest_configure(config):
    if config.getoption("--quick"):
        global _PROFILE, _PROFILE_NAME
        _PROFILE_NAME = "quick"  # (the derived "lazy" profile is for Dask, which the quick tier leaves out)
        settings.load_profile(_PROFILE_NAME)
        _PROFILE = settings.default


@pytest.hookimpl(tryfirst=True)  # before `-m` reads the marks
def pytest_collection_modifyitems(session, config, items):
    """Tests the quick tier leaves to the full run (tests/tiers.py) get the ``full`` mark; ``--quick`` deselects
    them (as ``-m 'not slow and not full'`` does)."""
    from tiers import is_full

    _known_failures(config, items)
    quick = config.getoption("--quick")
    kept, left = [], []
    for item in items:
        target = getattr(getattr(item, "callspec", None), "params", {}).get("xb_target")
        dev = getattr(target, "device", None)
        if is_full(item.nodeid, getattr(target, "backend", None), None if dev is None else str(dev)):
            item.add_marker(pytest.mark.full)
            if quick:
                left.append(item)
                continue
        kept.append(item)
    if left:
        config.hook.pytest_deselected(items=left)
        items[:] = kept


#: the test modules that run on CuPy on NumPy too: the oracle tests (tests against NumPy, the standard's special cases)
#: the conformance tests, indexing and manipulation (issue 28); the parity generator has its own module
CUPY_ON_NUMPY_MODULES = frozenset({"test_elementwise", "test_conformance", "test_creation", "test_array", "test_indexing",
                                   "test_manipulation"})


@pytest.hookimpl(tryfirst=True)
def pytest_generate_tests(metafunc):
    """``xb_target`` of the modules in CUPY_ON_NUMPY_MODULES: every selected target and cupy_on_numpy-cpu (unless
    targets were chosen by name: --xb-backends / XBACKEND_TEST_BACKENDS decide alone)."""
    module = getattr(metafunc.module, "__name__", "").rpartition(".")[2]
    if module not in CUPY_ON_NUMPY_MODULES or "xb_target" not in metafunc.fixturenames:
        return
    from xbackend.testing import _plugin

    if _plugin._directly_parametrized(metafunc) & set(_plugin._NAMES) or _plugin._spec(metafunc.config):
        return
    from fakecupy import TARGET

    params = [p for p in _plugin._params(metafunc.config) if p.values[0] is not None]
    metafunc.parametrize("xb_target", [*params, pytest.param(TARGET, id=TARGET.id)], indirect=True)


def _known_failures(config, items):
    """Known differences of a backend (tests/known_failures.py) become xfail marks: data, not skips."""
    from known_failures import known_failure

    for item in items:
        target = getattr(getattr(item, "callspec", None), "params", {}).get("xb_target")
        backend = getattr(target, "backend", None)
        if backend is None:
            continue
        hit = known_failure(backend, item.nodeid)
        if hit is not None:
            item.add_marker(pytest.mark.xfail(reason=hit[0], strict=hit[1], run=hit[2]))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    """Hypothesis tests written inside a test body (``@given`` on an inner function) read the profile
    in force when they are decorated: switch to the lazy profile while a lazy target's test runs."""
    target = getattr(getattr(item, "callspec", None), "params", {}).get("xb_target")
    lazy = getattr(target, "backend", None) in LAZY_BACKENDS
    if lazy:
        settings.load_profile("lazy")
    try:
        yield
    finally:
        if lazy:
            settings.load_profile(_PROFILE_NAME)

