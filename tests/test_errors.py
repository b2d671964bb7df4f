"""The exception tree: every class, its builtin base, and one real operation that raises each of them
with a message that says what happened and the fix."""

from __future__ import annotations

import re

import numpy as np
import pytest

import xbackend as xb
from xbackend import _errors

TREE = {  # class -> (parent in the tree, builtin it also is)
    "XBackendError": (Exception, None),
    "BackendError": ("XBackendError", None),
    "BackendUnavailableError": ("BackendError", RuntimeError),
    "BackendMismatchError": ("BackendError", TypeError),
    "DeviceError": ("XBackendError", None),
    "UnknownDeviceError": ("DeviceError", ValueError),
    "DeviceMismatchError": ("DeviceError", ValueError),
    "HostTransferError": ("DeviceError", TypeError),
    "DTypeError": ("XBackendError", None),
    "UnsupportedDTypeError": ("DTypeError", TypeError),
    "PromotionError": ("DTypeError", TypeError),
    "ScalarOverflowError": ("DTypeError", OverflowError),
    "GradientError": ("XBackendError", RuntimeError),
    "CopyError": ("XBackendError", BufferError),
    "DomainError": ("XBackendError", ValueError),
}


@pytest.mark.parametrize("name", sorted(TREE))
def test_tree(name):
    cls = getattr(_errors, name)
    parent, builtin = TREE[name]
    parent = parent if isinstance(parent, type) else getattr(_errors, parent)
    assert issubclass(cls, parent) and issubclass(cls, _errors.XBackendError)
    if builtin is not None:
        assert issubclass(cls, builtin)
    assert name in _errors.__all__
    if name not in ("BackendError", "DeviceError", "DTypeError"):
        assert getattr(xb, name) is cls  # public


def test_docstring_draws_the_tree():
    doc = _errors.__doc__
    for name, (_, builtin) in TREE.items():
        line = next((ln for ln in doc.splitlines() if re.search(rf"\b{name}\b", ln)), None)
        assert line is not None, name
        if builtin is not None:
            assert builtin.__name__ in line, line
    assert set(TREE) <= set(_errors.__all__)
    for name in _errors.__all__:  # errors added later are drawn too, and belong to the tree
        if name.endswith("Error"):
            assert re.search(rf"\b{name}\b", doc), name
            assert issubclass(getattr(_errors, name), _errors.XBackendError), name


def _raises(cls, call, *words):
    with pytest.raises(cls) as info:
        call()
    msg = str(info.value)
    for w in words:
        assert w in msg, f"{w!r} not in {msg!r}"
    return msg


def test_backend_unavailable():
    _raises(xb.BackendUnavailableError, lambda: xb.zeros(2, backend="no-such"), "no-such", "Fix", "numpy")
    info = xb.backends().get("cupy")
    if info is not None and not info.usable:
        _raises(xb.BackendUnavailableError, lambda: xb.zeros(2, backend="cupy"), "cupy", "Fix")


def test_backend_mismatch():
    pytest.importorskip("torch")
    _raises(xb.BackendMismatchError, lambda: xb.ones(2) + xb.ones(2, backend="torch"), "numpy", "torch", "Fix")


def test_unknown_device():
    _raises(xb.UnknownDeviceError, lambda: xb.device("tpu:0"), "tpu", "Fix")
    _raises(xb.UnknownDeviceError, lambda: xb.zeros(1, device="cuda:0"), "numpy", "Fix")


def test_device_mismatch():
    pytest.importorskip("torch")
    a = xb.ones(2, backend="torch")
    b = xb.ones(2, backend="torch", device="meta")
    _raises(xb.DeviceMismatchError, lambda: a + b, "cpu", "meta", "Fix")


def test_host_transfer():
    pytest.importorskip("torch")
    _raises(xb.HostTransferError, lambda: np.asarray(xb.ones(2, backend="torch", device="meta")), "meta", "numpy()")


def test_unsupported_dtype():
    _raises(xb.UnsupportedDTypeError, lambda: xb.dtype("float128"), "float128")
    _raises(xb.UnsupportedDTypeError, lambda: xb.logical_and(xb.ones(1), xb.ones(1)), "logical_and", "Fix")
    _raises(xb.UnsupportedDTypeError, lambda: xb.asarray(np.array(["a"])), "U")
    _raises(xb.UnsupportedDTypeError, lambda: xb.linspace(0, 1, 3, dtype=xb.int32), "linspace")


def test_promotion():
    _raises(xb.PromotionError, lambda: xb.ones(1, dtype=xb.uint64) + xb.ones(1, dtype=xb.int64), "uint64", "Fix")
    x = xb.ones(1, dtype=xb.int8)

    def iadd():
        y = x
        y += 0.5

    _raises(xb.PromotionError, iadd, "int8", "Fix")


def test_scalar_overflow():
    msg = _raises(xb.ScalarOverflowError, lambda: xb.ones(1, dtype=xb.uint8) + 256, "256", "uint8", "Fix")
    assert "wrap" in msg
    _raises(xb.ScalarOverflowError, lambda: xb.asarray(300, dtype=xb.int8), "300")
    _raises(xb.ScalarOverflowError, lambda: xb.full(2, -1, dtype=xb.uint16), "-1")


def test_gradient():
    torch = pytest.importorskip("torch")
    x = xb.asarray(torch.ones(2, requires_grad=True)) * 2
    _raises(xb.GradientError, x.numpy, "detach")
    _raises(xb.GradientError, lambda: x.to(backend="numpy"), "detach")


def test_copy():
    _raises(xb.CopyError, lambda: xb.asarray([1.0, 2.0], copy=False), "copy")
    a = np.ones(2, dtype=np.float32)
    _raises(xb.CopyError, lambda: xb.asarray(a, dtype=xb.float64, copy=False), "copy=False")


def test_builtin_catching_keeps_working():
    with pytest.raises(TypeError):
        xb.ones(1, dtype=xb.uint64) + xb.ones(1, dtype=xb.int8)
    with pytest.raises(OverflowError):
        xb.ones(1, dtype=xb.int8) + 1000
    with pytest.raises(ValueError):
        xb.device("nowhere")
    with pytest.raises(xb.XBackendError):
        xb.dtype("nothing")
