"""Every hazard of reference/interchange.md: no process crash, no silent wrong value.

Cases that crash the interpreter when handled wrongly (torch aborts on negative strides, segfaults
writing a read-only memmap, a forged DLPack capsule) run in a subprocess and check its exit code.
"""

from __future__ import annotations

import gc
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import xbackend as xb

torch = pytest.importorskip("torch")


def run_isolated(code: str, tmp_path=None) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter; a crash shows up as a negative/128+ return code."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120,
                          cwd=str(tmp_path) if tmp_path else None)  # fmt: skip


def assert_clean(p: subprocess.CompletedProcess) -> None:
    assert p.returncode == 0, f"rc={p.returncode}\nstdout:{p.stdout}\nstderr:{p.stderr[-2000:]}"
    assert "OK" in p.stdout, p.stdout


# --- layout ------------------------------------------------------------------------------------
def test_negative_strides_never_kill_the_interpreter():
    p = run_isolated("""
        import numpy as np, torch, xbackend as xb
        a = np.arange(12.0).reshape(3, 4)
        for v in (a[::-1], a[:, ::-2], a[::-1, ::-1], np.arange(6.0)[::-1]):
            r = xb.moved(v, backend="torch")
            assert r.copied and r.array.tolist() == v.tolist()
            assert xb.from_dlpack(v, backend="torch").tolist() == v.tolist()
            assert torch.from_dlpack(xb.asarray(v)).tolist() == v.tolist()   # export made contiguous
        print("OK")
    """)
    assert_clean(p)


def test_negative_strides_copy_false_is_a_typed_error():
    with pytest.raises(xb.CopyError):
        xb.asarray(np.arange(4.0)[::-1]).to(backend="torch", copy=False)
    with pytest.raises(xb.DLPackError):
        xb.asarray(np.arange(4.0)[::-1]).__dlpack__(copy=False)


@pytest.mark.parametrize("backend", ["numpy", "torch"])
@pytest.mark.parametrize("case", ["0-d", "size-0", "size-0-2d", "offset", "F-order", "stride-2", "stride-0"])
def test_layouts_round_trip_with_values_and_aliasing(backend, case):
    base = np.arange(24.0).reshape(4, 6)
    a = {"0-d": np.array(3.5), "size-0": np.zeros(0), "size-0-2d": np.zeros((0, 3)), "offset": base[2:, 1:],
         "F-order": np.asfortranarray(base), "stride-2": base[:, ::2],
         "stride-0": np.broadcast_to(np.arange(3.0), (2, 3))}[case]  # fmt: skip
    x = xb.asarray(a).to(backend=backend)
    y = x.to(backend="numpy")
    assert y.shape == a.shape and y.dtype == xb.float64
    np.testing.assert_array_equal(y.numpy(), a)
    if a.size:  # broadcast views are read-only: torch gets a copy
        assert xb.shares_memory(xb.asarray(a), y) is (a.flags.writeable or backend == "numpy")


def test_torch_expand_view_exports_values_correctly():
    t = torch.arange(3.0).expand(2, 3)
    h = xb.asarray(t).numpy()
    np.testing.assert_array_equal(h, [[0, 1, 2], [0, 1, 2]])


def test_non_native_byte_order_is_swapped_not_rejected():
    a = np.arange(4.0, dtype=">f8")
    for b in ("numpy", "torch"):
        x = xb.asarray(a, backend=b)
        assert x.dtype == xb.float64 and x.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert xb.moved(a, backend="torch").copied
    assert np.from_dlpack(xb.asarray(a)).tolist() == [0.0, 1.0, 2.0, 3.0]
    with pytest.raises(xb.CopyError):
        xb.asarray(a).to(backend="torch", copy=False)


# --- read-only memory --------------------------------------------------------------------------
def test_read_only_numpy_is_copied_for_torch():
    a = np.arange(4.0)
    a.flags.writeable = False
    r = xb.moved(a, backend="torch")
    assert r.copied
    r.array[0] = 100.0  # writing must not reach the read-only source
    assert a[0] == 0.0
    with pytest.raises(xb.CopyError, match="read-only"):
        xb.asarray(a).to(backend="torch", copy=False)


def test_read_only_memmap_never_segfaults(tmp_path):
    p = run_isolated(f"""
        import numpy as np, xbackend as xb
        path = {str(tmp_path / "m.dat")!r}
        np.arange(8.0).tofile(path)
        m = np.memmap(path, dtype=np.float64, mode="r")
        x = xb.asarray(m).to(backend="torch")
        x += 1.0                                  # torch would write into the read-only mapping: SIGSEGV
        assert x.tolist() == [float(i + 1) for i in range(8)] and m[0] == 0.0
        y = xb.from_dlpack(m, backend="torch"); y[0] = 5.0
        assert m[0] == 0.0
        print("OK")
    """)
    assert_clean(p)


# --- torch conj/neg bits -----------------------------------------------------------------------
def test_neg_and_conj_bits_are_resolved_on_every_exit():
    z = torch.tensor([1 + 2j, 3 - 4j])
    neg = z.conj().imag  # carries the negative bit; torch's DLPack export drops it (wrong sign)
    assert neg.is_neg()
    x = xb.asarray(neg)
    assert x.numpy().tolist() == [-2.0, 4.0]
    assert np.from_dlpack(x).tolist() == [-2.0, 4.0]
    assert x.to(backend="numpy").tolist() == [-2.0, 4.0]
    c = xb.asarray(z.conj())
    assert c.numpy().tolist() == [1 - 2j, 3 + 4j]
    assert np.from_dlpack(c).tolist() == [1 - 2j, 3 + 4j]
    assert xb.moved(c, backend="numpy").copied
    with pytest.raises(xb.CopyError):
        xb.to_numpy(c, copy=False)


# --- dtypes ------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["bool", "float16", "complex64", "complex128", "uint8", "uint16", "uint32",
                                   "uint64", "int8"])  # fmt: skip
def test_special_dtypes_round_trip_exactly(dtype):
    if dtype == "bool":
        a = np.array([True, False, True])
    elif dtype.startswith("uint"):
        a = np.array([0, 1, np.iinfo(dtype).max], dtype=dtype)
    elif dtype.startswith("complex"):
        a = np.array([1 + 2j, -0.0 - 1j], dtype=dtype)
    else:
        a = np.array([-1.5, 0.0, 65504.0], dtype=dtype) if dtype == "float16" else np.array([-128, 127], dtype)
    t = xb.asarray(a).to(backend="torch")
    assert t.dtype == xb.dtype(dtype)
    back = t.numpy()
    assert back.dtype == a.dtype and back.tobytes() == a.tobytes()
    assert np.from_dlpack(t).tobytes() == a.tobytes()


def test_bfloat16_bits_and_zero_copy_with_ml_dtypes():
    ml = pytest.importorskip("ml_dtypes")
    t = torch.tensor([1.5, -2.0, 3.140625], dtype=torch.bfloat16)
    h = xb.asarray(t).numpy(copy=None)  # zero-copy, asked for
    assert h.dtype == np.dtype(ml.bfloat16)
    assert h.view(np.int16).tolist() == t.view(torch.int16).tolist()
    assert h.ctypes.data == t.data_ptr()
    back = xb.asarray(h).to(backend="torch")
    assert back.dtype == xb.bfloat16 and back.native.data_ptr() == t.data_ptr()


def test_bfloat16_to_host_without_ml_dtypes_is_a_typed_error():
    p = run_isolated("""
        import sys
        sys.modules["ml_dtypes"] = None            # as if not installed
        import torch, xbackend as xb
        x = xb.asarray(torch.ones(2, dtype=torch.bfloat16))
        for f in (lambda: x.numpy(), lambda: x.to(backend="numpy"), lambda: xb.device_to_host(x)):
            try:
                f()
            except xb.UnsupportedDTypeError as e:
                assert "ml_dtypes" in str(e), e
            else:
                raise AssertionError("no error")
        print("OK")
    """)
    assert_clean(p)


def test_unsupported_numpy_dtypes_raise_typed_errors():
    for a in (np.zeros(2, dtype=np.longdouble), np.zeros(2, dtype="U3"), np.zeros(2, dtype=object)):
        with pytest.raises((xb.UnsupportedDTypeError, TypeError)):
            xb.asarray(a, backend="torch")


# --- autograd ----------------------------------------------------------------------------------
@pytest.mark.parametrize("no_grad", [False, True])
def test_requires_grad_never_leaves_silently(no_grad):
    t = torch.ones(3, requires_grad=True) * 2  # non-leaf with a graph
    x = xb.asarray(t)
    ctx = torch.no_grad() if no_grad else torch.enable_grad()
    with ctx:  # torch allows .numpy() under no_grad; xbackend behaves the same in and out of it
        for f in (x.numpy, lambda: xb.to_numpy(x), lambda: x.to(backend="numpy"), lambda: np.asarray(x),
                  lambda: x.__dlpack__(), lambda: xb.device_to_host(x)):  # fmt: skip
            with pytest.raises(xb.GradientError, match=r"detach\(\)"):
                f()


def test_grad_tensor_moves_within_torch_keep_the_graph():
    a = torch.ones(3, requires_grad=True)
    x = xb.asarray(a * 2).to(dtype=xb.float32)
    assert x.requires_grad and x.native.grad_fn is not None


def test_writes_through_foreign_views_cannot_corrupt_gradients():
    a = torch.ones(3, requires_grad=True)
    b = a * 2
    c = b.sin()
    view = xb.to_numpy(xb.asarray(b), detach=True, copy=None)  # the opt-in way out without a copy: read-only
    np.testing.assert_array_equal(view, [2.0, 2.0, 2.0])
    with pytest.raises(ValueError, match="read-only"):
        view[0] = 100.0
    c.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), 2 * np.cos(2.0) * np.ones(3))
    assert xb.to_numpy(xb.asarray(b), detach=True, copy=True).flags.writeable


# --- lifetime ----------------------------------------------------------------------------------
@pytest.mark.parametrize("path", ["numpy>torch", "torch>numpy", "dlpack-numpy", "dlpack-torch"])
def test_memory_stays_valid_after_the_source_is_dropped(path):
    from_numpy = path.startswith("numpy") or path == "dlpack-torch"
    src = np.arange(1000.0) if from_numpy else torch.arange(1000.0, dtype=torch.float64)
    if path == "numpy>torch":
        out = xb.asarray(src).to(backend="torch")
    elif path == "torch>numpy":
        out = xb.asarray(src).to(backend="numpy")
    elif path == "dlpack-numpy":
        out = np.from_dlpack(xb.asarray(src))
    else:
        out = torch.from_dlpack(xb.asarray(src))
    del src
    gc.collect()
    junk = [np.full(1 << 20, 7.0) for _ in range(5)]  # 40 MB of new allocations
    vals = out.tolist() if not isinstance(out, np.ndarray) else out.tolist()
    assert vals == [float(i) for i in range(1000)]
    del junk


def test_forged_capsule_with_major_version_2_is_a_buffer_error():
    p = run_isolated("""
        import ctypes, numpy as np, xbackend as xb
        class Dev(ctypes.Structure): _fields_ = [("type", ctypes.c_int), ("id", ctypes.c_int)]
        class DT(ctypes.Structure):
            _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]
        class T(ctypes.Structure):
            _fields_ = [("data", ctypes.c_void_p), ("device", Dev), ("ndim", ctypes.c_int), ("dtype", DT),
                        ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                        ("byte_offset", ctypes.c_uint64)]
        class V(ctypes.Structure): _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]
        class M(ctypes.Structure):
            _fields_ = [("version", V), ("ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p),
                        ("flags", ctypes.c_uint64), ("t", T)]
        buf = np.arange(3.0); shape = (ctypes.c_int64 * 1)(3)
        m = M(V(2, 0), None, None, 0, T(buf.ctypes.data, Dev(1, 0), 1, DT(2, 64, 1), shape, None, 0))
        new = ctypes.pythonapi.PyCapsule_New
        new.restype, new.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
        class Future:
            def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
                return new(ctypes.addressof(m), b"dltensor_versioned", None)
            def __dlpack_device__(self): return (1, 0)
        for backend in ("numpy", "torch"):
            try:
                xb.from_dlpack(Future(), backend=backend)
            except BufferError as e:
                assert isinstance(e, xb.DLPackError), type(e)
            else:
                raise AssertionError("accepted a major-2 capsule")
        print("OK")
    """)
    assert_clean(p)
