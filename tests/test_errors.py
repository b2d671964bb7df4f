"""The exception tree: every class, its builtin base, and one real operation that raises each of them
with a message that says what happened and the fix."""

from __future__ import annotations

import re

import numpy as np
import pytest

import xbackend as xb
from xbackend import _errors

TREE = {  # class -> (parent in the tree, builtin it also is)
    "ShapeError": ("XBackendError", ValueError),
    "IndexOutOfRangeError": ("XBackendError", IndexError),
    "AxisError": ("XBackendError", IndexError),
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
    assert getattr(xb, name) is cls and name in xb.__all__  # public, the groups too: `except xb.DeviceError`


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
    _raises(xb.UnsupportedDTypeError, lambda: xb.arange(3, dtype="float128"), "float128")


def test_complex_to_real_cast_is_refused_and_complex_to_complex_is_not():
    z = xb.asarray(np.array([1 + 2j]))
    for dst in (xb.float64, xb.float32, xb.int64, xb.bool):
        _raises(xb.UnsupportedDTypeError, lambda: z.astype(dst), "imaginary part", "Fix: ", "xb.real(x)")
        _raises(xb.UnsupportedDTypeError, lambda: xb.asarray(z, dtype=dst), "imaginary part")
    assert z.astype(xb.complex64).dtype is xb.complex64 and xb.asarray(z, dtype=xb.complex128).dtype is xb.complex128
    assert xb.can_cast(xb.complex64, xb.complex128) and not xb.can_cast(xb.complex128, xb.float64)


def test_promotion():
    _raises(xb.PromotionError, lambda: xb.ones(1, dtype=xb.uint64) + xb.ones(1, dtype=xb.int64), "uint64", "Fix",
            "no promotion rule for uint64 and int64", "compute in float64", "2**64-1 becomes -1")
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


# --- one typed error per situation, on every backend (issue 13) --------------------------------------
def _situations(t):
    def a(shape, **kw):
        return xb.ones(shape, backend=t.backend, device=t.device, **kw)

    def setitem():
        a(3)[5] = 1.0

    def iadd():
        x = a(3)
        x += a((2, 3))

    return {  # situation -> (call, typed error, builtin a NumPy user catches, words the message must hold)
        "broadcast +": (lambda: a(3) + a(4), xb.ShapeError, ValueError, ["(3,)", "(4,)", "add", "Fix: "]),
        "broadcast reflected": (lambda: 2.0 * a(3) - a((2, 4)), xb.ShapeError, ValueError, ["(3,)", "(2, 4)"]),
        "broadcast ==": (lambda: a(3) == a(4), xb.ShapeError, ValueError, ["(3,)", "(4,)", "equal"]),
        "broadcast xb.add": (lambda: xb.add(a(3), a(4)), xb.ShapeError, ValueError, ["(3,)", "(4,)"]),
        "broadcast int": (lambda: a(3, dtype=xb.int8) * a(2, dtype=xb.int16), xb.ShapeError, ValueError, ["(2,)"]),
        "in-place shape": (iadd, xb.ShapeError, ValueError, ["(3,)", "(2, 3)", "Fix: "]),
        "matmul": (lambda: a((2, 3)) @ a((2, 3)), xb.ShapeError, ValueError, ["(2, 3)", "3", "2", "Fix: "]),
        "xb.matmul batch": (lambda: xb.matmul(a((2, 2, 3)), a((3, 3, 1))), xb.ShapeError, ValueError, ["(2,)", "(3,)"]),
        "sort 0-d": (lambda: xb.sort(a(())), xb.AxisError, IndexError, ["0-d", "Fix: "]),
        "argsort 0-d": (lambda: xb.argsort(a(())), xb.AxisError, ValueError, ["0-d", "Fix: "]),
        "argmax empty": (lambda: xb.argmax(a(0)), xb.ShapeError, ValueError, ["argmax", "(0,)", "Fix: "]),
        "argmin empty axis": (lambda: xb.argmin(a((0, 2)), axis=0), xb.ShapeError, ValueError, ["axis 0", "Fix: "]),
        "repeat -1": (lambda: xb.repeat(a(3), -1), xb.ShapeError, ValueError, ["-1", "Fix: "]),
        "index": (lambda: a(3)[5], xb.IndexOutOfRangeError, IndexError, ["5", "axis 0", "size 3", "Fix: "]),
        "index negative": (lambda: a(3)[-4], xb.IndexOutOfRangeError, IndexError, ["-4", "-3..2"]),
        "index 2-d": (lambda: a((2, 3))[1, 7], xb.IndexOutOfRangeError, IndexError, ["7", "axis 1", "(2, 3)"]),
        "index list": (lambda: a(3)[[0, 7]], xb.IndexOutOfRangeError, IndexError, ["7", "size 3"]),
        "setitem": (setitem, xb.IndexOutOfRangeError, IndexError, ["5", "size 3", "Fix: "]),
    }


SITUATIONS = sorted(_situations(None))


@pytest.mark.parametrize("situation", SITUATIONS)
def test_one_typed_error_per_situation_on_every_backend(xb_target, situation):
    call, cls, builtin, words = _situations(xb_target)[situation]
    with pytest.raises(cls) as info:
        call()
    assert isinstance(info.value, xb.XBackendError) and isinstance(info.value, builtin)
    for w in words:
        assert w in str(info.value), f"{w!r} not in {str(info.value)!r}"


@pytest.mark.parametrize("situation", SITUATIONS)
def test_the_same_situation_reads_the_same_on_every_backend(situation):
    from xbackend.testing import available_targets

    texts = set()
    for t in available_targets():
        call, cls, _, _ = _situations(t)[situation]
        with pytest.raises(cls) as info:
            call()
        texts.add(str(info.value).replace(t.backend, "<backend>").replace(t.device, "<device>"))
    assert len(texts) == 1, texts


# --- Python data is range-checked like Python scalars: never wrapped, never silently float64 -------
@pytest.mark.parametrize(("data", "dtype", "bad"), [
    ([300], "int8", "300"),
    ([[1, 2], [3, -129]], "int8", "-129"),
    ([-1, 2], "uint8", "-1"),
    ([70000], "uint16", "70000"),
    ([2**40], "int32", str(2**40)),
    ([2**63], "int64", str(2**63)),
    ([2**64, 1], None, str(2**64)),
    ([-1, 2**63], None, str(2**63)),
    ((2**64, 0), "uint64", str(2**64)),
])  # fmt: skip
def test_nested_python_ints_never_wrap(xb_target, data, dtype, bad):
    dt = None if dtype is None else getattr(xb, dtype)
    with pytest.raises(xb.ScalarOverflowError) as info:
        xb.asarray(data, dtype=dt, backend=xb_target.backend, device=xb_target.device)
    msg = str(info.value)
    assert isinstance(info.value, OverflowError) and bad in msg and "never wraps" in msg and "Fix: " in msg


@pytest.mark.parametrize(("data", "dtype", "expected"), [
    ([2**64 - 1, 0], "uint64", "uint64"),
    ([2**64 - 1, 0], None, "uint64"),  # ints beyond int64: uint64 exactly, never float64
    ([2**63, 1], None, "uint64"),
    ([127, -128], "int8", "int8"),
    ([255, 0], "uint8", "uint8"),
    ([2**63 - 1, -(2**63)], None, "int64"),
    ([2**63, 1.5], None, "float64"),  # a float in the data: float64, as in Python arithmetic
    ([2**64, 1], "float64", "float64"),
    ([True, 2], "int8", "int8"),
])  # fmt: skip
def test_nested_python_ints_that_fit_are_exact(xb_target, data, dtype, expected):
    x = xb.asarray(data, dtype=None if dtype is None else getattr(xb, dtype), backend=xb_target.backend,
                   device=xb_target.device)  # fmt: skip
    assert x.dtype == getattr(xb, expected)
    if expected != "float64":
        assert x.tolist() == [int(v) for v in data]
    else:
        assert x.tolist() == [float(v) for v in data]


def test_default_int_is_range_checked_too():
    with xb.using(default_int=xb.int32):
        with pytest.raises(xb.ScalarOverflowError, match="int32"):
            xb.asarray([1, 2**40])
        assert xb.asarray([1, 2**31 - 1]).dtype == xb.int32


# --- errors caused by the environment name the variable; installed-but-unusable backends -----------
@pytest.mark.parametrize(("env", "words"), [
    ({"XBACKEND_BACKEND": "torch", "XBACKEND_DEVICE": "cuda"}, ["XBACKEND_DEVICE='cuda'", "unset XBACKEND_DEVICE"]),
    ({"XBACKEND_BACKEND": "nosuch"}, ["XBACKEND_BACKEND='nosuch'", "unset XBACKEND_BACKEND"]),
])  # fmt: skip
def test_errors_caused_by_an_environment_variable_name_it(env, words):
    import os
    import subprocess
    import sys

    if env.get("XBACKEND_DEVICE") == "cuda":
        pytest.importorskip("torch")
        if xb.preferred_device("torch").type == "cuda":
            pytest.skip("this machine has CUDA: XBACKEND_DEVICE=cuda is usable")
    code = ("import xbackend as xb\ntry:\n    xb.zeros(2)\nexcept xb.XBackendError as e:\n    print(type(e).__name__, e)\n"
            "print('explicit:', xb.zeros(2, backend='numpy', device='cpu').device)\n"
            "with xb.using(backend='numpy', device='cpu'):\n    print('using:', xb.zeros(2).device)")  # fmt: skip
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={**os.environ, **env})  # fmt: skip
    assert out.returncode == 0, out.stderr
    first = out.stdout.splitlines()[0]
    for w in words:
        assert w in first, first
    assert "Fix: " in first
    assert "explicit: cpu" in out.stdout and "using: cpu" in out.stdout  # explicit choices are not blamed


def test_installed_but_unusable_backend_does_not_suggest_installing_it(monkeypatch):
    from xbackend import _dispatch
    from xbackend._backend import BackendInfo

    class Stub:
        @classmethod
        def probe(cls):
            return BackendInfo("cupy", installed=True, usable=False, version="13.0",
                               reason="cupy 13.0 installed, but CUDA reports 0 devices")  # fmt: skip

    monkeypatch.setattr(_dispatch, "get_backend_class", lambda name: Stub)
    monkeypatch.delitem(_dispatch._instances, "cupy", raising=False)
    msg = _raises(xb.BackendUnavailableError, lambda: _dispatch.get_backend("cupy"), "0 devices", "Fix: ")
    assert "pip install" not in msg and "installed but cannot run here" in msg


def test_messages_name_dtypes_grammatically():
    x = xb.zeros(2, dtype=xb.int8)
    with pytest.raises(xb.PromotionError) as info:
        x[0] = 1.5
    assert "an Array of dtype int8" in str(info.value) and "a int8" not in str(info.value)
    with pytest.raises(TypeError) as info:
        xb.full(2, 1.5, dtype=xb.int8)
    assert "a int8" not in str(info.value) and "a uint8" not in str(info.value)


@pytest.mark.parametrize("dt", [xb.int8, xb.int16, xb.int32, xb.int64, xb.uint8, xb.uint16, xb.uint32, xb.uint64],
                         ids=str)  # fmt: skip
def test_integer_range_edges_fit_and_one_past_them_does_not(dt):
    """Both ends of the range are inclusive, on every path that checks a Python int (full, setitem, asarray)."""
    info = np.iinfo(dt.name)
    lo, hi = int(info.min), int(info.max)
    for v in (lo, hi):
        assert xb.full(1, v, dtype=dt).tolist() == [v]
        assert xb.asarray(v, dtype=dt).item() == v and xb.asarray([lo, hi], dtype=dt).tolist() == [lo, hi]
        x = xb.zeros(2, dtype=dt)
        x[...] = [v, v]
        assert x.tolist() == [v, v]
    for v in (lo - 1, hi + 1):
        _raises(xb.ScalarOverflowError, lambda: xb.full(1, v, dtype=dt), str(v), "never wraps")
        _raises(xb.ScalarOverflowError, lambda: xb.asarray([v], dtype=dt), str(v))
