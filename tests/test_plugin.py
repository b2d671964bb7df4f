"""The pytest plugin: fixtures over the usable targets, --xb-backends / XBACKEND_TEST_BACKENDS, the gpu
marker, no double parametrisation, no double registration. Each case runs an inner pytest session."""

from __future__ import annotations

import pytest

from xbackend.testing import available_targets, gpu_unavailable_reason

pytest_plugins = ["pytester"]

IDS = [t.id for t in available_targets()]
BACKENDS = sorted({t.backend for t in available_targets()})
UNUSABLE = [n for n, i in __import__("xbackend").backends().items() if not i.usable]

TEST_FILE = """
import xbackend as xb

def test_fixtures(xb_target, xb_backend, xb_device):
    assert (xb_target.backend, xb_target.device) == (xb_backend, xb_device)
    x = xb.asarray([1.0, 2.0], backend=xb_backend, device=xb_device)
    assert x.backend == xb_backend and str(x.device) == xb_device
"""


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch):
    monkeypatch.delenv("XBACKEND_TEST_BACKENDS", raising=False)


def _ids(result) -> list[str]:
    return sorted(line.split("[", 1)[1].rstrip("]") for line in result.outlines if "::" in line and "[" in line)


def test_one_test_per_usable_target_with_readable_ids(pytester):
    pytester.makepyfile(TEST_FILE)
    collected = pytester.runpytest("--collect-only", "-q", "-p", "no:cacheprovider")
    assert _ids(collected) == sorted(IDS)  # xb_backend + xb_device + xb_target: still one per target
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=len(IDS))


@pytest.mark.parametrize("how", ["option", "env"])
def test_choosing_backends(pytester, monkeypatch, how):
    pytester.makepyfile(TEST_FILE)
    args = ["--collect-only", "-q", "-p", "no:cacheprovider"]
    if how == "option":
        args.append("--xb-backends=numpy")
    else:
        monkeypatch.setenv("XBACKEND_TEST_BACKENDS", "numpy")
    assert _ids(pytester.runpytest(*args)) == ["numpy-cpu"]


def test_option_takes_target_ids(pytester):
    pytester.makepyfile(TEST_FILE)
    result = pytester.runpytest("--xb-backends", IDS[-1], "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


@pytest.mark.skipif(not UNUSABLE, reason="every known backend is usable here")
def test_requested_but_unusable_backend_is_skipped_with_reason(pytester):
    pytester.makepyfile(TEST_FILE)
    result = pytester.runpytest(f"--xb-backends=numpy,{UNUSABLE[0]}", "-rs", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines([f"*{UNUSABLE[0]} is not usable here: *"])


def test_unknown_backend_is_a_usage_error(pytester):
    pytester.makepyfile(TEST_FILE)
    result = pytester.runpytest("--xb-backends=numpy,nmupy", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*unknown backend 'nmupy'*"])


def test_gpu_marker_skips_with_reason(pytester):
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.gpu
        def test_needs_cuda():
            pass
        """
    )
    result = pytester.runpytest("-rs", "-p", "no:cacheprovider")
    reason = gpu_unavailable_reason()
    if reason is None:
        result.assert_outcomes(passed=1)
    else:
        assert reason.startswith("no CUDA device: ")
        result.assert_outcomes(skipped=1)
        result.stdout.fnmatch_lines(["*no CUDA device: *"])


def test_tests_that_parametrize_the_fixtures_themselves_are_left_alone(pytester):
    pytester.makepyfile(
        """
        import pytest
        from xbackend.testing import Target

        @pytest.mark.parametrize("xb_target", [Target("numpy", "cpu")], ids=["mine"])
        def test_direct(xb_target):
            assert xb_target.backend == "numpy"

        @pytest.mark.parametrize("xb_target", ["numpy-cpu"], indirect=True)
        def test_indirect_by_id(xb_target, xb_backend):
            assert xb_backend == "numpy" and xb_target.device == "cpu"

        @pytest.mark.parametrize("xb_backend", ["numpy"])
        def test_backend_only(xb_backend):
            assert xb_backend == "numpy"
        """
    )
    result = pytester.runpytest("-v", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=3)


def test_report_header(pytester):
    pytester.makepyfile(TEST_FILE)
    result = pytester.runpytest("--xb-backends=numpy", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["xbackend targets: numpy"])


def test_not_registered_twice_with_the_repository_conftest(pytester):
    # tests/conftest.py registers the plugin when running from a tree without the entry point
    pytester.makeconftest(
        """
        def pytest_configure(config):
            pm = config.pluginmanager
            if not pm.has_plugin("xbackend") and not pm.has_plugin("xbackend.testing._plugin"):
                pm.import_plugin("xbackend.testing._plugin")
        """
    )
    pytester.makepyfile(TEST_FILE)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=len(IDS))
    result = pytester.runpytest("-p", "no:cacheprovider", "-p", "no:xbackend")  # entry point off: conftest loads it
    result.assert_outcomes(passed=len(IDS))


def test_explicit_registration_without_the_entry_point(pytester):
    pytester.makepyfile(TEST_FILE)
    result = pytester.runpytest("-p", "no:xbackend", "-p", "xbackend.testing._plugin", "--xb-backends=numpy",
                                "-p", "no:cacheprovider")  # fmt: skip
    result.assert_outcomes(passed=1)


def test_sessions_without_xbackend_fixtures_do_not_import_torch(pytester):
    pytester.makepyfile(
        """
        import sys

        def test_plain():
            assert "torch" not in sys.modules and "cupy" not in sys.modules
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


CONDITIONAL_CONFTEST = """
import os
from importlib.metadata import entry_points

if os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD") or not any(
    ep.value == "xbackend.testing._plugin" for ep in entry_points(group="pytest11")
):
    pytest_plugins = ["xbackend.testing._plugin"]  # from a tree where xbackend is not installed
"""


@pytest.mark.parametrize("autoload", [True, False])
def test_conditional_pytest_plugins_registers_once_with_options(pytester, monkeypatch, autoload):
    # the pattern for a project's conftest: options such as --xb-backends work with and without the entry point
    if not autoload:
        monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    pytester.makeconftest(CONDITIONAL_CONFTEST)
    pytester.makepyfile(TEST_FILE)
    result = pytester.runpytest_subprocess("--xb-backends=numpy", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


def test_a_conftest_hook_that_parametrizes_xb_target_first_wins(pytester):
    pytester.makeconftest(
        """
        import pytest
        from xbackend.testing import Target

        @pytest.hookimpl(tryfirst=True)
        def pytest_generate_tests(metafunc):
            if "xb_target" in metafunc.fixturenames:
                metafunc.parametrize("xb_target", [Target("numpy", "cpu")], ids=["only-numpy"], indirect=True)
        """
    )
    pytester.makepyfile(TEST_FILE)
    collected = pytester.runpytest("--collect-only", "-q", "-p", "no:cacheprovider")
    assert _ids(collected) == ["only-numpy"]


@pytest.mark.parametrize("how", ["-p", "pytest_plugins"])
def test_explicit_registration_with_the_entry_point_installed(pytester, how):
    # docs/testing.md tells source-tree users to pass -p xbackend.testing._plugin; with xbackend also
    # installed (entry point "xbackend") pytest used to stop with "Plugin already registered"
    pytester.makepyfile(TEST_FILE)
    args = ["--xb-backends=numpy", "-p", "no:cacheprovider"]
    if how == "-p":
        args += ["-p", "xbackend.testing._plugin"]
    else:
        pytester.makeconftest('pytest_plugins = ["xbackend.testing._plugin"]')
    result = pytester.runpytest(*args)
    result.assert_outcomes(passed=1)


@pytest.mark.skipif("array_api_strict" not in BACKENDS, reason="needs a target without float16")
def test_a_dtype_the_target_cannot_hold_is_skipped_with_the_reason(pytester):
    pytester.makepyfile(
        """
        import pytest
        import xbackend as xb

        @pytest.mark.parametrize("dt", [xb.float16, xb.float32])
        def test_dt(xb_target, dt):
            assert xb.zeros(2, dtype=dt, backend=xb_target.backend).dtype is dt
        """
    )
    result = pytester.runpytest("--xb-backends=array_api_strict", "-rs", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(["*array_api_strict cannot hold float16*"])
