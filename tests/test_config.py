"""Configuration: ``xb.using`` (nesting, threads, asyncio tasks), ``set_default``, XBACKEND_* variables."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading

import pytest

import xbackend as xb
from xbackend import _config


def test_defaults():
    cfg = xb.get_config()
    assert isinstance(cfg, _config.Config)
    assert xb.ones(1).dtype is xb.float64 and xb.arange(2).dtype is xb.int64
    assert xb.asarray(1j).dtype is xb.complex128
    assert cfg.default_complex is xb.complex128


def test_using_nests_and_restores():
    with xb.using(default_float=xb.float32) as outer:
        assert outer.default_float is xb.float32 and xb.get_config() is outer
        assert xb.ones(1).dtype is xb.float32 and xb.asarray(1j).dtype is xb.complex64
        with xb.using(default_int=xb.int32) as inner:
            assert inner.default_float is xb.float32 and inner.default_int is xb.int32  # inherits
            assert xb.arange(3).dtype is xb.int32 and xb.linspace(0, 1, 3).dtype is xb.float32
            with xb.using(default_float="float16"):
                assert xb.zeros(1).dtype is xb.float16 and xb.arange(1).dtype is xb.int32
            assert xb.zeros(1).dtype is xb.float32
        assert xb.arange(3).dtype is xb.int64
    assert xb.ones(1).dtype is xb.float64


def test_using_restores_after_an_exception():
    with pytest.raises(RuntimeError):
        with xb.using(default_float=xb.float32):
            raise RuntimeError("boom")
    assert xb.get_config().default_float is xb.float64


def test_using_backend_and_device():
    torch = pytest.importorskip("torch")
    with xb.using(backend="torch"):
        x = xb.arange(3)
        assert x.backend == "torch" and type(x.native) is torch.Tensor and x.dtype is xb.int64
        assert xb.asarray([1.0]).backend == "torch"
        assert xb.ones(2).native.dtype == torch.float64  # xbackend's default, not torch's float32
        with xb.using(device="meta"):
            assert xb.zeros(2).device == "meta"
        assert xb.zeros(2).device == "cpu"
        # data that already lives somewhere stays there
        assert xb.asarray(xb.asarray([1.0], backend="numpy")).backend == "numpy"
    assert xb.arange(2).backend == "numpy"


def test_using_validates():
    with pytest.raises(xb.UnsupportedDTypeError):
        with xb.using(default_float=xb.int8):
            pass
    with pytest.raises(xb.UnsupportedDTypeError):
        with xb.using(default_int=xb.uint8):
            pass
    with pytest.raises(xb.UnsupportedDTypeError):
        with xb.using(default_float="dubble"):
            pass
    with xb.using(default_float="double") as cfg:  # NumPy's name of float64 (issue 32: other libraries' spellings)
        assert cfg.default_float is xb.float64
    with pytest.raises(TypeError, match="unknown setting"):
        with xb.using(default_dtype=xb.float32):
            pass
    with pytest.raises(xb.BackendUnavailableError):
        with xb.using(backend="no-such-backend"):
            pass
    with pytest.raises(xb.UnknownDeviceError):
        with xb.using(device="tpu"):
            pass
    assert xb.get_config() == _config.Config() or xb.get_config().default_float is xb.float64


def test_isolated_across_threads():
    barrier = threading.Barrier(2, timeout=30)
    seen: dict[str, list] = {}

    def worker(name, dt):
        out = []
        with xb.using(default_float=dt):
            barrier.wait()  # both threads are inside their own block now
            out.append(xb.ones(1).dtype)
            barrier.wait()
        out.append(xb.ones(1).dtype)
        seen[name] = out

    threads = [threading.Thread(target=worker, args=("a", xb.float32)),
               threading.Thread(target=worker, args=("b", xb.float16))]  # fmt: skip
    with xb.using(default_float=xb.float32):  # the main thread's context does not leak into new threads
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert seen == {"a": [xb.float32, xb.float64], "b": [xb.float16, xb.float64]}


def test_isolated_across_asyncio_tasks():
    async def task(dt, ev_in, ev_out):
        with xb.using(default_float=dt):
            ev_in.set()
            await ev_out.wait()
            return xb.ones(1).dtype

    async def main():
        e1, e2, go = asyncio.Event(), asyncio.Event(), asyncio.Event()
        t1 = asyncio.create_task(task(xb.float32, e1, go))
        t2 = asyncio.create_task(task(xb.float16, e2, go))
        await e1.wait()
        await e2.wait()  # both tasks are suspended inside their blocks
        here = xb.ones(1).dtype
        go.set()
        return here, await t1, await t2

    assert asyncio.run(main()) == (xb.float64, xb.float32, xb.float16)


def test_set_default():
    old = xb.set_default(default_int=xb.int32)
    try:
        assert old.default_int is xb.int64
        assert xb.arange(2).dtype is xb.int32 and xb.get_config().default_int is xb.int32
        with xb.using(default_int=xb.int16):  # a context wins over the process default
            assert xb.arange(2).dtype is xb.int16
        assert xb.arange(2).dtype is xb.int32

        seen = []
        t = threading.Thread(target=lambda: seen.append(xb.arange(2).dtype))
        t.start()
        t.join()
        assert seen == [xb.int32]  # the process default reaches every thread
    finally:
        xb.set_default(default_int=old.default_int)
    assert xb.arange(2).dtype is xb.int64
    with pytest.raises(xb.UnsupportedDTypeError):
        xb.set_default(default_float=xb.complex64)
    assert xb.get_config().default_float is xb.float64


def test_environment_variables_listed():
    assert set(_config.ENVIRONMENT_VARIABLES) == {
        "XBACKEND_BACKEND", "XBACKEND_DEVICE", "XBACKEND_DEFAULT_FLOAT", "XBACKEND_DEFAULT_INT"}  # fmt: skip
    for v in _config.ENVIRONMENT_VARIABLES:
        assert v in _config.__doc__


def _run(env: dict[str, str], code: str) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if not k.startswith("XBACKEND_")}
    full.update(env)
    return subprocess.run([sys.executable, "-W", "always", "-c", code], capture_output=True, text=True, env=full,
                          timeout=120)  # fmt: skip


def test_environment_variables_in_a_subprocess():
    code = ("import xbackend as xb; c = xb.get_config(); "
            "print(c.backend, c.device, xb.ones(1).dtype, xb.arange(1).dtype, xb.asarray(1j).dtype)")  # fmt: skip
    out = _run({"XBACKEND_DEFAULT_FLOAT": "float32", "XBACKEND_DEFAULT_INT": "int32"}, code)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["numpy", "None", "float32", "int32", "complex64"]


def test_environment_backend_and_device_in_a_subprocess():
    pytest.importorskip("torch")
    code = "import xbackend as xb; x = xb.zeros(2); print(x.backend, x.device, x.dtype)"
    out = _run({"XBACKEND_BACKEND": "torch", "XBACKEND_DEVICE": "meta"}, code)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["torch", "meta", "float64"]


def test_bad_environment_warns_and_is_ignored():
    code = "import xbackend as xb; print(xb.ones(1).dtype, xb.arange(1).dtype)"
    out = _run({"XBACKEND_DEFAULT_FLOAT": "int8", "XBACKEND_DEFAULT_INT": "nonsense", "XBACKEND_DEVICE": "tpu"}, code)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["float64", "int64"]
    assert "XBACKEND_DEFAULT_FLOAT" in out.stderr and "XBACKEND_DEFAULT_INT" in out.stderr
    assert "XBACKEND_DEVICE" in out.stderr and "RuntimeWarning" in out.stderr


def test_unknown_environment_backend_fails_on_use_not_on_import():
    code = ("import xbackend as xb\ntry:\n    xb.zeros(1)\nexcept xb.BackendUnavailableError as e:\n"
            "    print('refused', 'numpy' in str(e))")  # fmt: skip
    out = _run({"XBACKEND_BACKEND": "nonexistent"}, code)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["refused", "True"]
