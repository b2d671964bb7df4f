"""pytest plugin (entry point ``pytest11``): ``xb_target``/``xb_backend``/``xb_device`` fixtures over every
usable backend, ``--xb-backends`` to choose, and the ``gpu`` marker that skips with the reason."""

from __future__ import annotations

from typing import Any

import pytest

from ._targets import Target, gpu_unavailable_reason, selected_targets


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("xbackend")
    group.addoption("--xb-backends", default=None,
                    help="comma-separated backends or targets to test on, e.g. numpy,torch or torch-cuda:0 "
                         "(default: XBACKEND_TEST_BACKENDS, else every usable one)")  # fmt: skip


def pytest_configure(config: Any) -> None:
    config.addinivalue_line("markers", "gpu: needs a CUDA device (torch-CUDA or CuPy); skipped with the reason")


def _targets(config: Any) -> tuple[Target, ...]:
    return selected_targets(config.getoption("--xb-backends", default=None))


def pytest_generate_tests(metafunc: Any) -> None:
    names = [n for n in ("xb_target", "xb_backend", "xb_device") if n in metafunc.fixturenames]
    if not names:
        return
    params = []
    for t in _targets(metafunc.config):
        marks = [pytest.mark.gpu] if t.is_gpu else []
        params.append(pytest.param(t, id=t.id, marks=marks))
    if not params:
        params = [pytest.param(None, marks=pytest.mark.skip(reason="no xbackend target selected"))]
    metafunc.parametrize("xb_target", params, indirect=True)


@pytest.fixture
def xb_target(request: Any) -> Target:
    """The (backend, device) this test runs on."""
    return request.param


@pytest.fixture
def xb_backend(xb_target: Target) -> str:
    """The backend name this test runs on (parametrised over every usable backend)."""
    return xb_target.backend


@pytest.fixture
def xb_device(xb_target: Target) -> str:
    """The device string this test runs on."""
    return xb_target.device


def pytest_runtest_setup(item: Any) -> None:
    if item.get_closest_marker("gpu") is not None:
        reason = gpu_unavailable_reason()
        if reason is not None:
            pytest.skip(reason)
