"""pytest plugin of tools/consumer_suites.py: xbackend's namespaces inside scikit-learn's and SciPy's own
array-API test suites, without touching the installed packages' files.

Loaded in the test process with ``-p consumer_plugin`` (tools/ on ``PYTHONPATH``); the runner passes
``--xb-suite``, ``--xb-namespaces`` and ``--xb-report``.

- **scikit-learn** parametrises its tests with ``yield_namespace_device_dtype_combinations()`` (read at the
  test modules' import) and turns each name into ``(xp, device)`` with ``_array_api_for_tests``. Both are
  replaced at ``pytest_configure`` - before any test module is imported - by versions that also yield and
  resolve ``xbackend-<backend>`` names (the combinations of the library underneath, so every xbackend test
  has a baseline test of the same id).
- **SciPy** parametrises its ``xp`` fixture (scipy/conftest.py) over a list built at the conftest's import.
  When that conftest is registered, before pytest reads its fixtures, its ``xp`` is replaced by one with
  the chosen baselines plus ``xbackend-<backend>`` params. SciPy's ``skip_xp_backends`` /
  ``xfail_xp_backends`` marks of the library underneath apply to xbackend on it (a test SciPy skips on
  torch is not run on xbackend-on-torch either), ``np_only`` ones skip xbackend on NumPy too (they need
  NumPy arrays), and Dask's lazy-compute checks apply to xbackend on Dask.

Only tests of a namespace of the run are kept (the rest, e.g. scikit-learn's mixed-namespace checks, are
deselected). Each test's outcome, namespace and failure (exception type and message) go to the JSON report.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import sys
from typing import Any, Iterator

import pytest

# SciPy reads it once, at its first import; scikit-learn's array_api_dispatch refuses to run without it
os.environ.setdefault("SCIPY_ARRAY_API", "1")

XB = "xbackend-"
#: the suites' own names of the baselines -> the xbackend backend that runs on them
BASE_BACKEND = {"numpy": "numpy", "torch": "torch", "array_api_strict": "array_api_strict", "dask": "dask"}
SCIPY_MODULE = {"numpy": "numpy", "torch": "torch", "array_api_strict": "array_api_strict", "dask": "dask.array"}


def pytest_addoption(parser: pytest.Parser) -> None:
    g = parser.getgroup("xbackend consumer suites")
    g.addoption("--xb-suite", choices=("sklearn", "scipy"), help="which suite is being run")
    g.addoption("--xb-namespaces", default="numpy,xbackend-numpy",
                help="comma-separated: numpy, torch, array_api_strict, dask, xbackend-<one of these>")  # fmt: skip
    g.addoption("--xb-report", default=None, help="write one JSON record per test here")


def _names(option: str) -> list[str]:
    names = [n.strip() for n in option.split(",") if n.strip()]
    for n in names:
        if n.removeprefix(XB) not in BASE_BACKEND:
            raise pytest.UsageError(f"unknown namespace {n!r}; use {', '.join(BASE_BACKEND)} or xbackend-<one of them>")
    return names


def _namespaces(config: pytest.Config) -> list[str]:
    return _names(config.getoption("--xb-namespaces"))


def _xb_namespace(backend: str) -> Any:
    """xbackend's namespace bound to ``backend``, as a consumer gets it: from an Array."""
    import xbackend as xb

    return xb.asarray(0, backend=backend).__array_namespace__()


# -- scikit-learn -------------------------------------------------------------------------------------------
def _patch_sklearn(names: list[str]) -> None:
    from sklearn.utils import _array_api, _testing

    orig_combos = _array_api.yield_namespace_device_dtype_combinations
    orig_namespaces = _array_api.yield_namespaces
    orig_for_tests = _testing._array_api_for_tests
    combos = list(orig_combos(include_numpy_namespaces=True))  # now: it reads the module's yield_namespaces

    def yield_namespaces(include_numpy_namespaces: bool = True) -> Any:
        base = list(orig_namespaces(include_numpy_namespaces=include_numpy_namespaces))
        yield from (n for n in base if n in names)
        if "dask" in names:
            yield "dask.array"
        for n in names:
            if n.startswith(XB) and (include_numpy_namespaces or n != XB + "numpy"):
                yield n

    def yield_namespace_device_dtype_combinations(include_numpy_namespaces: bool = True) -> Any:
        for n in names:
            under = n.removeprefix(XB)
            if not include_numpy_namespaces and under in ("numpy", "array_api_strict"):
                continue
            if n == "dask":  # scikit-learn lists no Dask namespace; its test helper takes "dask.array" as it is
                yield "dask.array", None, None
                continue
            if n == under:  # a baseline scikit-learn tests itself
                yield from (c for c in combos if c[0] == n)
                continue
            # xbackend: the combinations of the library underneath (Dask: NumPy's, its chunks' library);
            # on array-api-strict its CPU device for strict's CPU_DEVICE and fake "device1" (the runner pairs them)
            for _, device_name, dtype_name in [c for c in combos if c[0] == under] or [c for c in combos
                                                                                       if c[0] == "numpy"]:
                yield n, ("cpu" if under == "array_api_strict" else device_name), dtype_name

    def _array_api_for_tests(array_namespace: Any, device_name: Any = None, dtype_name: Any = None) -> Any:
        if not (isinstance(array_namespace, str) and array_namespace.startswith(XB)):
            return orig_for_tests(array_namespace, device_name, dtype_name)
        backend = array_namespace.removeprefix(XB)
        xp = _xb_namespace(backend)
        if device_name is None:
            return xp, None
        devices = {str(d): d for d in xp.__array_namespace_info__().devices()}
        if str(device_name) not in devices:
            pytest.skip(f"xbackend on {backend} has no {device_name!r} device here (devices: {sorted(devices)})")
        return xp, devices[str(device_name)]  # the bound Device, as x.device gives it

    _array_api.yield_namespaces = yield_namespaces
    _array_api.yield_namespace_device_dtype_combinations = yield_namespace_device_dtype_combinations
    _testing._array_api_for_tests = _array_api_for_tests
    swap = {id(orig_namespaces): yield_namespaces, id(orig_combos): yield_namespace_device_dtype_combinations,
            id(orig_for_tests): _array_api_for_tests}  # fmt: skip
    for name, mod in list(sys.modules.items()):  # modules that imported the names already
        if name.startswith("sklearn") and mod is not None:
            for attr, value in list(vars(mod).items()):
                if id(value) in swap and attr in ("yield_namespaces", "yield_namespace_device_dtype_combinations",
                                                  "_array_api_for_tests"):  # fmt: skip
                    setattr(mod, attr, swap[id(value)])


def _sklearn_namespace(item: pytest.Item) -> str | None:
    params = getattr(getattr(item, "callspec", None), "params", {})
    for key in ("array_namespace", "namespace"):
        v = params.get(key)
        if isinstance(v, str):
            return "dask" if v == "dask.array" else v
    for v in params.values():  # sklearn/tests/test_common.py: checks are partials of check_array_api_input
        if isinstance(v, functools.partial) and v.func.__name__ in ("check_array_api_input",
                                                                      "check_array_api_input_and_values",
                                                                      "check_array_api_same_namespace"):
            ns = v.keywords.get("array_namespace")
            if isinstance(ns, str):
                return "dask" if ns == "dask.array" else ns
    return None


# -- SciPy --------------------------------------------------------------------------------------------------
class XbTarget:
    """The ``xp`` fixture's param for xbackend on one backend."""

    def __init__(self, backend: str) -> None:
        self.backend = backend
        self.__name__ = XB + backend  # what SciPy's skip/xfail helpers read from the param

    def __repr__(self) -> str:
        return f"XbTarget({self.backend!r})"


class _AsBackend:
    """``request`` as SciPy's skip/xfail helpers see it: the param is the library underneath."""

    def __init__(self, request: pytest.FixtureRequest, module: Any) -> None:
        self._request = request
        self.param = module

    def __getattr__(self, name: str) -> Any:
        return getattr(self._request, name)


@contextlib.contextmanager
def _computed_in_assertions(target: XbTarget) -> Iterator[None]:
    """SciPy's assertions compare lazy results through ``np.asarray``, which computes a dask.array and which
    xbackend refuses for a lazy Dask Array (no silent compute, by design). For xbackend on Dask the assertions'
    shared check (``_strict_check``, after its namespace, dtype and shape checks) computes the two Arrays
    explicitly: the row measures SciPy's functions on xbackend, not that refusal."""
    if target.backend != "dask":
        yield
        return
    import xbackend as xb
    from scipy._lib import _array_api as sx

    original = sx._strict_check

    def _strict_check(actual: Any, desired: Any, xp: Any, **kwargs: Any) -> Any:
        actual, desired, xp = original(actual, desired, xp, **kwargs)
        if type(actual) is xb.Array and actual.backend == "dask":
            actual, desired = actual.to(backend="numpy"), desired.to(backend="numpy")
            xp = actual.__array_namespace__()
        return actual, desired, xp

    sx._strict_check = _strict_check
    try:
        yield
    finally:
        sx._strict_check = original


def _np_only(request: pytest.FixtureRequest, kind: str) -> str | None:
    """The reason of a ``{kind}_xp_backends(np_only=True)`` mark (SciPy's "NumPy arrays only"), if any."""
    for m in request.node.iter_markers(f"{kind}_xp_backends"):
        if m.kwargs.get("np_only"):
            return str(m.kwargs.get("reason") or "do not run with non-NumPy backends")
    return None


def _patch_scipy_conftest(conftest: Any, names: list[str]) -> None:
    import importlib

    from scipy._lib._array_api import array_namespace, default_xp
    from scipy._lib.array_api_extra.testing import patch_lazy_xp_functions

    original = conftest.xp._get_wrapped_function()
    by_id = {p.id: p for p in conftest.xp_available_backends}
    params = []
    for n in names:
        under = n.removeprefix(XB)
        pid = SCIPY_MODULE[under]
        if n in BASE_BACKEND:
            if pid in by_id:
                params.append(by_id[pid])
        elif pid in by_id:  # xbackend on a library SciPy tests here
            params.append(pytest.param(XbTarget(under), id=n, marks=list(by_id[pid].marks)))

    def xp(request: pytest.FixtureRequest) -> Any:
        target = request.param
        if not isinstance(target, XbTarget):
            yield from original(request)
            return
        module = importlib.import_module(SCIPY_MODULE[target.backend])
        as_base = _AsBackend(request, module)
        conftest.skip_or_xfail_xp_backends(as_base, "skip")
        if target.backend == "numpy" and (reason := _np_only(request, "skip")):
            pytest.skip(f"np_only: {reason} (NumPy arrays only, and an xbackend Array is not one)")
        conftest.skip_or_xfail_xp_backends(as_base, "xfail")
        if target.backend == "numpy" and (reason := _np_only(request, "xfail")):
            pytest.xfail(f"np_only: {reason} (NumPy arrays only, and an xbackend Array is not one)")
        ns = array_namespace(_xb_namespace(target.backend).empty(0))
        with patch_lazy_xp_functions(request=request, xp=module), default_xp(ns), _computed_in_assertions(target):
            yield ns

    conftest.xp = pytest.fixture(params=params)(xp)


@pytest.hookimpl(tryfirst=True)
def pytest_plugin_registered(plugin: Any, manager: Any) -> None:
    """Swap SciPy's ``xp`` fixture before pytest parses the conftest's fixtures (SciPy's conftest is an
    initial conftest when the suite's files are named: registered before ``pytest_configure``)."""
    path = str(getattr(plugin, "__file__", "") or "")
    if path.replace("\\", "/").endswith("scipy/conftest.py") and hasattr(plugin, "xp_available_backends"):
        args = _ARGS[0] if _ARGS else None
        if args is not None and args.xb_suite == "scipy":
            _patch_scipy_conftest(plugin, _names(args.xb_namespaces))


def _scipy_namespace(item: pytest.Item) -> str | None:
    p = getattr(getattr(item, "callspec", None), "params", {}).get("xp")
    if isinstance(p, XbTarget):
        return XB + p.backend
    name = getattr(p, "__name__", None)
    return {"numpy": "numpy", "torch": "torch", "array_api_strict": "array_api_strict",
            "dask.array": "dask"}.get(name)  # fmt: skip


# -- both ---------------------------------------------------------------------------------------------------
_CONFIG: list[pytest.Config] = []
_ARGS: list[Any] = []  # the options as parsed before the initial conftests load


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config) -> None:
    _ARGS[:] = [early_config.known_args_namespace]


def pytest_configure(config: pytest.Config) -> None:
    _CONFIG[:] = [config]
    suite = config.getoption("--xb-suite")
    if suite == "sklearn":
        _patch_sklearn(_namespaces(config))
    config._xb_records = []  # type: ignore[attr-defined]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    suite = config.getoption("--xb-suite")
    if suite is None:
        return
    names = set(_namespaces(config))
    which = _sklearn_namespace if suite == "sklearn" else _scipy_namespace
    keep, drop = [], []
    for item in items:
        ns = which(item)
        if ns in names:
            item.user_properties.append(("xb_namespace", ns))
            keep.append(item)
        else:
            drop.append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
    items[:] = keep


def _failure(report: pytest.TestReport) -> str:
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is not None:
        return str(crash.message)
    text = str(report.longrepr)
    return text.strip().splitlines()[-1] if text.strip() else "?"


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    config = _CONFIG[0] if _CONFIG else None
    if config is None or config.getoption("--xb-report") is None:
        return
    if hasattr(config, "workerinput"):  # an xdist worker: the controller records
        return
    ns = dict(report.user_properties).get("xb_namespace")
    if ns is None:
        return
    outcome = None
    if report.when == "call" or (report.when == "setup" and not report.passed):
        if hasattr(report, "wasxfail"):
            outcome = "xfailed" if report.skipped else "xpassed"
        elif report.skipped:
            outcome = "skipped"
        elif report.failed:
            outcome = "failed" if report.when == "call" else "error"
        else:
            outcome = "passed"
    elif report.when == "teardown" and report.failed:
        outcome = "error"
    if outcome is None:
        return
    rec = {"nodeid": report.nodeid, "ns": ns, "outcome": outcome}
    if outcome in ("failed", "error"):
        rec["failure"] = _failure(report)
    config._xb_records.append(rec)  # type: ignore[attr-defined]


def pytest_sessionfinish(session: pytest.Session) -> None:
    config = session.config
    path = config.getoption("--xb-report")
    if path is None or hasattr(config, "workerinput"):
        return
    with open(path, "w") as f:
        records = config._xb_records  # type: ignore[attr-defined]
        json.dump({"suite": config.getoption("--xb-suite"), "records": records}, f)

