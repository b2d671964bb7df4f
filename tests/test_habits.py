"""The first hour of a NumPy or torch user (issue 32): every habit either works or raises a typed error whose
printed fix works. Each test reproduces one item of the issue, as a newcomer types it."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import xbackend as xb

torch = pytest.importorskip("torch")


# --- 1, 2: x.to(dev), x.to(torch), x.to("cuda"), x.to("cpu") --------------------------------------------------
def test_to_takes_a_device_positionally():
    x = xb.asarray(np.arange(3.0))
    dev = xb.preferred_device("torch")  # the README's own spelling
    y = x.to(dev)
    assert y.backend == "torch" and y.device == dev and y.tolist() == [0.0, 1.0, 2.0]
    assert x.to(torch).backend == "torch"  # the module, as asarray(backend=torch) accepts it
    assert x.to(torch.device("cpu")).backend == "numpy"  # a place alone keeps the backend
    assert x.to(xb.float32).dtype is xb.float32 and x.to(torch.float32).dtype is xb.float32  # torch's x.to(dtype)
    with pytest.raises(xb.ArgumentTypeError, match=r"Fix: .*e\.g\. x\.to\(device="):
        x.to("cpu", device="cpu")


def test_to_reads_a_device_string_as_the_device():
    x = xb.asarray([1.0, 2.0], backend="torch")
    y = x.to("cpu")
    assert y.backend == "torch" and y.device == "cpu"
    assert x.to("cpu:0" if False else "cpu").backend == "torch"
    # no CUDA here: the error is the device's (it says device=), never "unknown backend 'cuda'"
    for a in (x, xb.asarray([1.0])):
        if a.backend == "torch" and torch.cuda.is_available():
            assert a.to("cuda").device.type == "cuda"
            continue
        with pytest.raises(xb.UnknownDeviceError, match="device="):
            a.to("cuda")
    with pytest.raises(xb.UnknownBackendError, match="names a device, not a library.*e.g. device='cuda'"):
        xb.asarray([1.0], backend="cuda")


# --- 3: backend=<any name> imports nothing that is not registered ---------------------------------------------
def test_backend_names_never_import_unregistered_modules():
    code = (
        "import sys, xbackend as xb\n"
        "try:\n    xb.asarray([1], backend='this')\nexcept xb.UnknownBackendError as e:\n    print('ERR', e)\n"
        "assert 'this' not in sys.modules, 'imported this'\n"
        "assert 'this' not in xb.backends() and 'this' not in xb.backend_names()\n"
        "try:\n    xb.asarray([1], backend='tourch')\nexcept xb.UnknownBackendError as e:\n    print('ERR2', e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "Zen of Python" not in out.stdout
    assert "ERR unknown backend 'this'; known backends: array_api_strict, cupy, dask" in out.stdout
    assert "ERR2 unknown backend 'tourch'" in out.stdout and "e.g. backend='torch'" in out.stdout
    assert issubclass(xb.UnknownBackendError, xb.BackendUnavailableError) and issubclass(xb.UnknownBackendError,
                                                                                         ValueError)  # fmt: skip


# --- 9: dtype habits ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("backend", ["numpy", "torch"])
def test_dtype_compares_with_every_libraries_spelling(backend):
    x = xb.asarray([1.0], dtype=xb.float32, backend=backend)
    for same in (np.float32, np.dtype("float32"), torch.float32, "float32", "f4", xb.float32):
        assert x.dtype == same and same == x.dtype and not (x.dtype != same), same
    for other in (np.float64, np.dtype("float64"), torch.float64, "float64", torch.int8, np.dtype("U3"), None, 3):
        assert x.dtype != other and not (x.dtype == other), other
    assert x.dtype in (torch.float16, torch.float32)  # `if t.dtype in (...)` takes the right branch
    with pytest.raises(xb.UnsupportedDTypeError, match=r"Fix: .*e\.g\. x\.dtype == xb\.float32"):
        _ = x.dtype == "float33"  # a typo is never silently False
    assert hash(xb.float32) == hash(xb.float32) and {xb.float32: 1}[xb.float32] == 1  # still a cheap dict key
    for spelling in (np.float64, torch.float64, "float64", np.dtype("float64")):
        y = x.astype(spelling)
        assert y.dtype is xb.float64 and y.backend == backend
    assert xb.zeros(2, dtype=np.int16, backend=backend).dtype is xb.int16


def test_dtype_comparison_imports_no_torch():
    code = ("import sys, numpy as np, xbackend as xb\n"
            "assert xb.float32 == np.float32 and xb.float32 == 'float32' and xb.float32 != 'int8'\n"
            "assert 'torch' not in sys.modules\n")  # fmt: skip
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr


# --- 10: seed habits --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("backend", ["numpy", "torch", "dask"])
def test_seed_habits_work_where_their_meaning_is_clear(backend):
    h = np.arange(6.0).reshape(1, 2, 3)
    x = xb.asarray(h, backend=backend)
    for name in ("copy", "clone"):
        y = getattr(x, name)()
        assert y.backend == backend and y.device == x.device and y.tolist() == h.tolist()
        if backend != "dask":  # a copy: writing into it leaves x alone
            y[0, 0, 0] = 9.0
            assert float(x[0, 0, 0]) == 0.0
    c = x.cpu()
    assert c.backend == backend and c.device == "cpu" and c.tolist() == h.tolist()
    np.testing.assert_array_equal(x.transpose(2, 0, 1).numpy(), h.transpose(2, 0, 1))  # NumPy's permutation
    np.testing.assert_array_equal(x.transpose((1, 2, 0)).numpy(), h.transpose(1, 2, 0))
    np.testing.assert_array_equal(x.transpose().numpy(), h.transpose())
    np.testing.assert_array_equal(x.transpose(0, 2).numpy(), h.swapaxes(0, 2))  # torch's swap (NumPy would refuse)
    m = xb.asarray(h[0], backend=backend)
    np.testing.assert_array_equal(m.transpose(1, 0).numpy(), h[0].T)  # both libraries agree
    with pytest.raises(xb.ArgumentValueError, match=r"means two things.*e\.g\. x\.swapaxes\(0, 1\)"):
        m.transpose(0, 1)  # NumPy: the identity; torch: the transpose
    r = round(xb.asarray([0.5, 1.5, 2.567], backend=backend))
    assert type(r) is xb.Array and r.tolist() == [0.0, 2.0, 3.0]
    assert round(xb.asarray([2.567], backend=backend), 2).tolist() == [2.57]


def test_clone_keeps_the_autograd_graph_as_torch_does():
    w = xb.ones(3, backend="torch", requires_grad=True)
    loss = xb.sum(w.clone() * 2.0)
    loss.backward()
    assert w.grad.tolist() == [2.0, 2.0, 2.0]


@pytest.mark.parametrize("name, code", [("float", "x.astype(xb.float32)"), ("double", "x.astype(xb.float64)"),
                                        ("long", "x.astype(xb.int64)"), ("numel", "x.size"), ("dim", "x.ndim"),
                                        ("std", "xb.std(x)"), ("flatten", "xb.reshape(x, (-1,))")])  # fmt: skip
def test_other_libraries_methods_name_the_spelling(name, code):
    x = xb.asarray([[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(xb.UnknownAttributeError, match=r"Fix: .*e\.g\. " + code.replace("(", r"\(").replace(
            ")", r"\)").replace(".", r"\.")) as info:  # fmt: skip
        getattr(x, name)
    assert isinstance(info.value, AttributeError) and not hasattr(x, name)
    eval(code, {"xb": xb, "x": x})  # noqa: S307 - the printed fix runs
    with pytest.raises(AttributeError, match="no attribute 'no_such_thing'"):
        x.no_such_thing


def test_cuda_habit_names_a_library_with_cuda():
    x = xb.asarray([1.0])
    with pytest.raises(xb.UnknownDeviceError, match=r"Fix: .*e\.g\. x\.to\(backend='torch', device='cuda'\)"):
        x.cuda()
    t = xb.asarray([1.0], backend="torch")
    if torch.cuda.is_available():
        assert t.cuda().device.type == "cuda"
    else:
        with pytest.raises(xb.UnknownDeviceError, match="x.cuda()"):
            t.cuda()


def test_no_grad_decorates_without_parentheses():
    w = xb.ones(3, backend="torch", requires_grad=True)

    @xb.no_grad
    def step(p):
        return p * 2.0

    @xb.no_grad()
    def step2(p):
        return p * 2.0

    assert not step(w).requires_grad and not step2(w).requires_grad and step.__name__ == "step"
    assert (w * 2.0).requires_grad
    with pytest.raises(xb.ArgumentTypeError, match="e.g. with xb.no_grad"):
        xb.no_grad(3)
