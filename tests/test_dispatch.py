"""Backend registry: lazy built-ins, third-party plugins via entry points, reports that never raise."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import xbackend as xb
from xbackend import _dispatch


def test_backends_report_numpy_and_reasons():
    report = xb.backends()
    assert report["numpy"].usable and report["numpy"].version == np.__version__
    assert report["numpy"].devices == ("cpu",)
    for name, info in report.items():
        assert info.name == name
        if not info.usable:
            assert info.reason, f"{name} is unusable but says no reason"


def test_unusable_backend_error_says_why_and_how(monkeypatch):
    class Broken(xb.Backend):
        name = "broken"
        module = "brokenlib"

        @classmethod
        def probe(cls):
            return xb.BackendInfo("broken", installed=True, usable=False, reason="no driver: errBroken")

    xb.register_backend("broken", Broken)
    try:
        with pytest.raises(xb.BackendUnavailableError, match="no driver: errBroken") as exc:
            xb.zeros(2, backend="broken")
        assert isinstance(exc.value, RuntimeError)
        assert "backend='numpy'" in str(exc.value)
        assert xb.backends()["broken"].reason == "no driver: errBroken"
    finally:
        _dispatch._classes.pop("broken", None)
        _dispatch._instances.pop("broken", None)


def test_unknown_backend_lists_known_ones():
    with pytest.raises(xb.BackendUnavailableError, match="known backends: .*numpy"):
        xb.zeros(2, backend="nosuchlib")


def test_backend_for_type_never_imports_and_is_cached():
    be = _dispatch.backend_for_type(np.ndarray)
    assert be is not None and be.name == "numpy"
    assert _dispatch.backend_for_type(np.ndarray) is be
    assert _dispatch.backend_for_type(list) is None


PLUGIN_SCRIPT = textwrap.dedent(
    """
    import sys, types, warnings
    from importlib import metadata

    good = types.ModuleType("goodplugin")
    sys.modules["goodplugin"] = good
    import xbackend as xb
    from xbackend._backends.numpy.backend import NumpyBackend

    class Good(NumpyBackend):
        name = "good"
        module = "goodlib"

        @classmethod
        def probe(cls):
            return xb.BackendInfo("good", installed=True, usable=True, version="1.0", devices=("cpu",))

    good.Good = Good

    class EP:
        def __init__(self, name, value, loader):
            self.name, self.value, self._loader = name, value, loader
        def load(self):
            return self._loader()

    def boom():
        raise ImportError("plugin is broken")

    eps = [EP("good", "goodplugin:Good", lambda: Good), EP("bad", "badplugin:Bad", boom),
           EP("numpy", "evil:Numpy", lambda: Good)]
    metadata.entry_points = lambda group=None: eps if group == "xbackend.backends" else []
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        names = xb.backend_names()
    msgs = [str(x.message) for x in w]
    assert "good" in names and "bad" not in names, names
    assert any("broken xbackend backend plugin 'bad'" in m for m in msgs), msgs
    assert any("replace built-in backend 'numpy'" in m for m in msgs), msgs
    x = xb.ones(3, backend="good")
    assert x.backend == "good" and (x + 1).tolist() == [2.0, 2.0, 2.0]
    assert xb.backends()["good"].version == "1.0"
    print("ok")
    """
)


def test_entry_point_plugins_load_and_broken_ones_warn():
    out = subprocess.run([sys.executable, "-c", PLUGIN_SCRIPT], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_report_never_raises_for_a_failing_probe():
    class Exploding(xb.Backend):
        name = "exploding"
        module = "explodinglib"

        @classmethod
        def probe(cls):
            raise OSError("driver crashed")

    xb.register_backend("exploding", Exploding)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            info = xb.backends()["exploding"]
        assert not info.usable and "driver crashed" in info.reason
    finally:
        _dispatch._classes.pop("exploding", None)
