"""pytest plugin (entry point ``pytest11``, name ``xbackend``): run tests on every usable backend.

- fixtures ``xb_target`` (a :class:`~xbackend.testing.Target`), ``xb_backend`` (its backend name) and
  ``xb_device`` (its device string), parametrised over the targets usable on this machine, with ids
  ``numpy-cpu``, ``torch-cpu``, ``torch-cuda:0``, ``cupy-cuda:0``;
- ``--xb-backends=numpy,torch`` (names or target ids) or the ``XBACKEND_TEST_BACKENDS`` environment
  variable choose the targets; a backend that was asked for but is not usable here shows up as one
  skipped test with the reason, never as silence; an unknown name is a usage error;
- the ``gpu`` marker skips with the reason ("no CUDA device: ...") when no CUDA device is usable;
  GPU targets carry it automatically;
- a test that parametrises ``xb_target``, ``xb_backend`` or ``xb_device`` itself is left alone;
- the fixtures are module-scoped (a Target is immutable), so hypothesis ``@given`` tests may use them
  without the function-scoped-fixture health check;
- a test that takes them and fails with an ``AssertionError`` on a target other than ``numpy-cpu`` ends with
  :func:`~xbackend.testing.diverge`'s report against its run on ``numpy-cpu`` (``_diverge_pytest.py``;
  ``--xb-diverge=no`` turns it off).

Design constraint: the plugin imports only NumPy and xbackend at load time; backends are probed
once per session, when the first test asks for a target.
"""

from __future__ import annotations

import os
from typing import Any

import pytest

from ._targets import Target, available_targets, gpu_unavailable_reason, selected_targets

_NAMES = ("xb_target", "xb_backend", "xb_device")
_ENV = "XBACKEND_TEST_BACKENDS"


_MODULE = __name__  # "xbackend.testing._plugin": the name ``-p``/``pytest_plugins`` register it under
_ENTRY_POINT = "xbackend"  # the pytest11 entry point's name


def pytest_plugin_registered(plugin: Any, plugin_name: str, manager: Any) -> None:
    """Registered under one name, block the other: ``-p xbackend.testing._plugin`` (or ``pytest_plugins``)
    with xbackend installed would otherwise register this module twice and pytest would stop with
    "Plugin already registered under a different name"."""
    if plugin is not _this_module():
        return
    other = _ENTRY_POINT if plugin_name == _MODULE else _MODULE if plugin_name == _ENTRY_POINT else None
    if other is not None and manager.get_plugin(other) is None and not manager.is_blocked(other):
        manager.set_blocked(other)


def _this_module() -> Any:
    import sys

    return sys.modules[_MODULE]


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("xbackend")
    group.addoption("--xb-backends", default=None, dest="xb_backends",
                    help="comma-separated backends or targets to test on, e.g. numpy,torch or torch-cuda:0 "
                         f"(default: ${_ENV}, else every usable one)")  # fmt: skip
    group.addoption("--xb-diverge", default="yes", choices=("yes", "no"), dest="xb_diverge",
                    help="a failed test on a target other than numpy-cpu ends with where it parts from numpy-cpu "
                         "(xbackend.testing.diverge; the test body runs twice more, recorded)")  # fmt: skip


def pytest_configure(config: Any) -> None:
    config.addinivalue_line("markers", "gpu: needs a CUDA device (torch-CUDA or CuPy); skipped with the reason")
    spec = _spec(config)
    if spec:  # catch typos before collection; this reads names only and imports no backend
        from .._dispatch import backend_names

        known = set(backend_names())
        unknown = [n for n in _requested(spec) if n.partition("-")[0] not in known]
        if unknown:
            raise pytest.UsageError(
                f"--xb-backends/{_ENV}: unknown backend {', '.join(map(repr, unknown))}; "
                f"known: {', '.join(sorted(known))} (or target ids such as torch-cuda:0)"
            )


def _spec(config: Any) -> str | None:
    spec = config.getoption("xb_backends", default=None)
    return spec if spec is not None else os.environ.get(_ENV) or None


def _requested(spec: str) -> list[str]:
    return [s.strip() for s in spec.split(",") if s.strip()]


def _params(config: Any) -> list[Any]:
    """pytest.param per selected target, plus one skipped param per requested-but-unusable backend."""
    cache = getattr(config, "_xbackend_params", None)
    if cache is not None:
        return cache
    spec = _spec(config)
    targets = selected_targets(spec) if spec else available_targets()
    params = [pytest.param(t, id=t.id, marks=[pytest.mark.gpu] if t.is_gpu else []) for t in targets]
    if spec:
        from .._dispatch import backend_names, backends

        known = set(backend_names())
        have = {t.backend for t in targets} | {t.id for t in targets}
        infos = None
        for name in _requested(spec):
            if name in have:
                continue
            backend = name.partition("-")[0]
            if backend not in known:  # pytest_configure already refused these; keep the error if it did not run
                raise pytest.UsageError(f"--xb-backends/{_ENV}: unknown backend {name!r}")
            infos = infos if infos is not None else backends()
            info = infos[backend]
            why = info.reason or f"devices here: {', '.join(info.devices) or 'none'}"
            params.append(pytest.param(None, id=f"{name}-unavailable",
                                       marks=pytest.mark.skip(reason=f"{name} is not usable here: {why}")))  # fmt: skip
    if not params:
        params = [pytest.param(None, id="no-target", marks=pytest.mark.skip(reason="no xbackend target selected"))]
    config._xbackend_params = params
    return params


def _directly_parametrized(metafunc: Any) -> set[str]:
    names: set[str] = set()
    for mark in metafunc.definition.iter_markers("parametrize"):
        argnames = mark.args[0] if mark.args else mark.kwargs.get("argnames", ())
        if isinstance(argnames, str):
            argnames = [a.strip() for a in argnames.split(",")]
        names.update(argnames)
    return names


def pytest_generate_tests(metafunc: Any) -> None:
    if not any(n in metafunc.fixturenames for n in _NAMES):
        return
    if _directly_parametrized(metafunc) & set(_NAMES):
        return  # the test chose its own targets
    if any("xb_target" in getattr(c, "params", {}) for c in getattr(metafunc, "_calls", ())):
        return  # another pytest_generate_tests hook (a conftest) already parametrised it
    metafunc.parametrize("xb_target", _params(metafunc.config), indirect=True)


def pytest_report_header(config: Any) -> str:
    spec = _spec(config)  # no probing here: a session that never asks for a target never imports torch
    return f"xbackend targets: {spec}" if spec else "xbackend targets: every usable backend (--xb-backends to choose)"


@pytest.fixture(scope="module")
def xb_target(request: Any) -> Target:
    """The (backend, device) this test runs on: a :class:`~xbackend.testing.Target`.

    Parametrised over every usable target (``--xb-backends`` / ``XBACKEND_TEST_BACKENDS`` narrow it)::

        def test_add(xb_target):
            x = xb.asarray([1.0], backend=xb_target.backend, device=xb_target.device)
    """
    param = getattr(request, "param", None)
    if param is None:
        pytest.skip("no xbackend target selected")
    if isinstance(param, str):  # a test may parametrise indirectly with ids like "torch-cpu"
        b, _, d = param.partition("-")
        return Target(b, d or "cpu")
    return param


@pytest.fixture(scope="module")
def xb_backend(xb_target: Target) -> str:
    """The backend name this test runs on (``"numpy"``, ``"torch"``, ``"cupy"``), one per target."""
    return xb_target.backend


@pytest.fixture(scope="module")
def xb_device(xb_target: Target) -> str:
    """The device string this test runs on (``"cpu"``, ``"cuda:0"``), one per target."""
    return xb_target.device


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: Any) -> Any:
    """The test's target is :func:`~xbackend.testing.current_target` while it runs (strategies read it)."""
    from ._targets import _CURRENT

    target = getattr(getattr(item, "callspec", None), "params", {}).get("xb_target")
    token = _CURRENT.set(target if isinstance(target, Target) else None)
    try:
        yield
    finally:
        _CURRENT.reset(token)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: Any, call: Any) -> Any:
    """A failed assertion on a target: the report of where it parts from NumPy, after the traceback."""
    outcome = yield
    rep = outcome.get_result()
    if (rep.when != "call" or not rep.failed or call.excinfo is None or not call.excinfo.errisinstance(AssertionError)
            or item.config.getoption("xb_diverge", default="yes") == "no"):  # fmt: skip
        return
    from ._diverge_pytest import report_for

    try:
        text = report_for(item)
    except Exception as exc:  # noqa: BLE001 - the failure is the test's; this only explains it
        text = f"(xbackend.testing.diverge could not trace it: {type(exc).__name__}: {exc})"
    if text:
        rep.sections.append(("xbackend: where the backends part (xbackend.testing.diverge)", text))


def pytest_collection_modifyitems(config: Any, items: list[Any]) -> None:
    """A test parametrised with a dtype its target cannot hold (``Target.holds``: array-api-strict has no
    float16) is skipped with that reason, never run to fail on a capability."""
    from .._dtypes import DType

    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        target = params.get("xb_target")
        if not isinstance(target, Target):
            continue
        missing = [v for v in params.values() if isinstance(v, DType) and not target.holds(v)]
        if missing:
            item.add_marker(pytest.mark.skip(reason=f"{target.backend} cannot hold {missing[0]} "
                                                    "(Target.holds, the backend's dtype table)"))  # fmt: skip


def pytest_runtest_setup(item: Any) -> None:
    if item.get_closest_marker("gpu") is not None:
        reason = gpu_unavailable_reason()
        if reason is not None:
            pytest.skip(reason)
