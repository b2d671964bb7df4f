"""Moving data between backends: copy= semantics by pointer, DLPack both ways, stream hand-off (GPU)."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import xbackend as xb
from xbackend.testing import assert_equal

torch = pytest.importorskip("torch")

CPU_BACKENDS = ["numpy", "torch"]
DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32",
          "float64", "complex64", "complex128"]  # fmt: skip


def ptr(x: xb.Array) -> int:
    n = x.native
    return n.data_ptr() if isinstance(n, torch.Tensor) else n.__array_interface__["data"][0]


def sample(dtype: str, n: int = 6) -> np.ndarray:
    a = (np.arange(n) % 3 == 1) if dtype == "bool" else np.arange(n).astype(dtype)
    return a * (1 + 1j) if dtype.startswith("complex") else a


# --- copy= semantics, CPU matrix -----------------------------------------------------------------
@pytest.mark.parametrize("src", CPU_BACKENDS)
@pytest.mark.parametrize("dst", CPU_BACKENDS)
@pytest.mark.parametrize("copy", [None, True, False])
def test_copy_semantics_cpu_matrix(src, dst, copy):
    x = xb.asarray(np.arange(10.0), backend=src)
    r = xb.moved(x, backend=dst, copy=copy)
    assert r.array.backend == dst and r.array.dtype == xb.float64
    assert r.copied is bool(copy)
    assert (ptr(r.array) == ptr(x)) is (not copy)
    assert xb.shares_memory(x, r.array) is (not copy)
    assert_equal(r.array, np.arange(10.0))


@pytest.mark.parametrize("src", CPU_BACKENDS)
@pytest.mark.parametrize("dst", CPU_BACKENDS)
def test_shared_mutation_is_visible_both_ways(src, dst):
    x = xb.asarray(np.zeros(4), backend=src)
    y = x.to(backend=dst)
    y[1] = 5.0
    x[2] = 7.0
    assert x.tolist() == y.tolist() == [0.0, 5.0, 7.0, 0.0]


@pytest.mark.parametrize("dst", CPU_BACKENDS)
def test_copy_false_refuses_a_cast(dst):
    x = xb.asarray(np.arange(3.0))
    with pytest.raises(xb.CopyError, match="copy=False"):
        x.to(backend=dst, dtype=xb.float32, copy=False)
    with pytest.raises(BufferError):  # CopyError is a BufferError, as the standard asks
        x.to(backend=dst, dtype=xb.float32, copy=False)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("path", ["numpy>torch>numpy", "torch>numpy>torch"])
def test_round_trip_every_dtype_shares_and_preserves(dtype, path):
    a, b, c = path.split(">")
    x = xb.asarray(sample(dtype), backend=a)
    y = x.to(backend=b)
    z = y.to(backend=c)
    assert x.dtype == y.dtype == z.dtype == xb.dtype(dtype)
    assert ptr(x) == ptr(y) == ptr(z)
    assert_equal(z, sample(dtype))


def test_cast_happens_on_the_side_that_moves_fewer_bytes():
    x = xb.asarray(np.arange(4.0), backend="numpy")
    y = x.to(backend="torch", dtype=xb.float32)
    assert y.dtype == xb.float32 and y.native.dtype == torch.float32
    w = xb.asarray(np.arange(4, dtype=np.int8)).to(backend="torch", dtype=xb.int64)
    assert w.dtype == xb.int64 and w.tolist() == [0, 1, 2, 3]


@given(hnp.arrays(st.sampled_from([np.int32, np.float32, np.float64, np.complex64, np.bool_, np.uint16]),
                  hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4)),
       st.sampled_from(CPU_BACKENDS), st.sampled_from(CPU_BACKENDS))  # fmt: skip
def test_round_trip_property(a, src, dst):
    x = xb.asarray(a, backend=src)
    y = x.to(backend=dst)
    h = y.numpy()
    assert h.dtype == a.dtype and h.shape == a.shape
    np.testing.assert_array_equal(h, a)


# --- DLPack: Array as producer -----------------------------------------------------------------
def capsule_name(cap) -> bytes:
    get = ctypes.pythonapi.PyCapsule_GetName
    get.restype, get.argtypes = ctypes.c_char_p, [ctypes.py_object]
    return get(cap)


@pytest.mark.parametrize("backend", CPU_BACKENDS)
def test_dunder_dlpack_versioned_and_legacy(backend):
    x = xb.asarray(np.arange(3.0), backend=backend)
    assert x.__dlpack_device__() == (1, 0)
    assert capsule_name(x.__dlpack__(max_version=(1, 0))) == b"dltensor_versioned"
    assert capsule_name(x.__dlpack__()) == b"dltensor"


@pytest.mark.parametrize("backend", CPU_BACKENDS)
@pytest.mark.parametrize("consumer", ["numpy", "torch"])
def test_foreign_consumers_share_an_arrays_memory(backend, consumer):
    x = xb.asarray(np.arange(5.0), backend=backend)
    out = np.from_dlpack(x) if consumer == "numpy" else torch.from_dlpack(x)
    got = out.__array_interface__["data"][0] if consumer == "numpy" else out.data_ptr()
    assert got == ptr(x)
    np.testing.assert_array_equal(np.asarray(out), np.arange(5.0))


@pytest.mark.parametrize("backend", CPU_BACKENDS)
def test_dunder_dlpack_copy_true_copies(backend):
    x = xb.asarray(np.arange(5.0), backend=backend)
    out = np.from_dlpack(x, copy=True)
    assert out.__array_interface__["data"][0] != ptr(x)
    np.testing.assert_array_equal(out, np.arange(5.0))


def test_dunder_dlpack_of_grad_tensor_raises_gradient_error():
    x = xb.asarray(torch.ones(3, requires_grad=True))
    with pytest.raises(xb.GradientError, match=r"detach\(\)"):
        np.from_dlpack(x)


# --- DLPack: xb.from_dlpack as consumer --------------------------------------------------------
class Producer:
    """A foreign producer (what JAX or any other library looks like to xbackend)."""

    def __init__(self, a, legacy=False):
        self.a, self.legacy = a, legacy

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        if self.legacy:
            return self.a.__dlpack__(stream=stream)
        return self.a.__dlpack__(stream=stream, max_version=max_version, dl_device=dl_device, copy=copy)

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()


class LegacyProducer:
    """Only knows ``stream`` (DLPack < 1.0 producer)."""

    def __init__(self, a):
        self.a = a

    def __dlpack__(self, stream=None):
        return self.a.__dlpack__(stream=stream)

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()


@pytest.mark.parametrize("native", ["numpy", "torch"])
def test_from_dlpack_native_stays_on_its_backend_and_shares(native):
    n = np.arange(4.0) if native == "numpy" else torch.arange(4.0)
    x = xb.from_dlpack(n)
    assert x.backend == native and x.native is n


@pytest.mark.parametrize("backend", [None, "numpy", "torch"])
def test_from_dlpack_foreign_producer(backend):
    a = np.arange(6.0)
    x = xb.from_dlpack(Producer(a), backend=backend)
    assert x.backend == (backend or "numpy")
    assert ptr(x) == a.ctypes.data
    assert_equal(x, a)


def test_from_dlpack_legacy_only_producer_still_imports():
    a = np.arange(3, dtype=np.int32)
    x = xb.from_dlpack(LegacyProducer(a))
    assert x.tolist() == [0, 1, 2] and x.dtype == xb.int32
    y = xb.from_dlpack(LegacyProducer(a), backend="torch")  # legacy capsules import read-only: torch copies
    y[0] = 9
    assert a[0] == 0 and y.tolist() == [9, 1, 2]


def test_from_dlpack_copy_true_and_device():
    a = np.arange(3.0)
    x = xb.from_dlpack(Producer(a), copy=True)
    assert not np.shares_memory(x.native, a)
    assert xb.from_dlpack(a, device="cpu").device is xb.Device("numpy", "cpu")


def test_from_dlpack_rejects_capsules_and_non_producers():
    with pytest.raises(TypeError, match="not obj.__dlpack__"):
        xb.from_dlpack(np.arange(3.0).__dlpack__())
    with pytest.raises(TypeError):
        xb.from_dlpack(object())


def test_from_dlpack_numpy_scalar():
    x = xb.from_dlpack(np.float64(3.5), backend="torch")
    assert x.shape == () and x.item() == 3.5 and x.dtype == xb.float64


def test_producer_failure_is_a_typed_buffer_error():
    class Broken(Producer):
        def __dlpack__(self, **kw):
            raise RuntimeError("exploded")

    with pytest.raises(xb.DLPackError, match="exploded") as info:
        xb.from_dlpack(Broken(np.arange(2.0)))
    assert isinstance(info.value, BufferError) and isinstance(info.value.__cause__, RuntimeError)


def test_moved_accepts_native_arrays():
    t = torch.arange(3.0)
    r = xb.moved(t, backend="numpy")
    assert not r.copied and r.array.native.ctypes.data == t.data_ptr()


def test_shares_memory_across_backends_and_natives():
    a = np.arange(8.0)
    t = torch.from_numpy(a[4:])
    assert xb.shares_memory(a, t) and not xb.shares_memory(a[:4], t)
    assert not xb.shares_memory(xb.asarray(a), xb.asarray(a.copy()))


# --- GPU: torch-CUDA <-> CuPy ------------------------------------------------------------------
def _cp():
    return pytest.importorskip("cupy")


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES)
def test_gpu_torch_cupy_zero_copy_every_dtype(dtype):
    cp = _cp()
    x = xb.asarray(sample(dtype), backend="torch", device="cuda")
    y = x.to(backend="cupy")
    assert y.native.data.ptr == x.native.data_ptr() and y.dtype == x.dtype
    z = y.to(backend="torch")
    assert z.native.data_ptr() == x.native.data_ptr()
    assert_equal(z, sample(dtype))
    assert isinstance(y.native, cp.ndarray)


@pytest.mark.gpu
@pytest.mark.parametrize("direction", ["torch>cupy", "cupy>torch"])
def test_gpu_copy_true_copies_copy_false_shares(direction):
    _cp()
    a, b = direction.split(">")
    x = xb.asarray(np.arange(8.0), backend=a, device="cuda")
    r = xb.moved(x, backend=b, copy=True)  # CuPy refuses copy=True itself (cupy/cupy#9842)
    assert r.copied and not xb.shares_memory(x, r.array)
    assert_equal(r.array, np.arange(8.0))
    assert not xb.moved(x, backend=b, copy=False).copied
    with pytest.raises(xb.CopyError):
        x.to(backend="numpy", copy=False)


@pytest.mark.gpu
def test_gpu_stream_handoff_torch_side_stream_to_cupy_100_times():
    cp = _cp()
    n = 1 << 20
    bad = 0
    for i in range(100):
        s = torch.cuda.Stream()
        with torch.cuda.stream(s):
            t = torch.zeros(n, device="cuda")
            torch.cuda._sleep(2_000_000)  # a long kernel queued before the write
            t.add_(i + 1)
            y = xb.asarray(t).to(backend="cupy")  # consumer's (CuPy's) stream is handed to torch
        bad += int(cp.count_nonzero(y.native != i + 1).get())
    assert bad == 0


@pytest.mark.gpu
def test_gpu_stream_handoff_cupy_to_torch():
    cp = _cp()
    w = cp.ones((2048, 2048), dtype=cp.float32)
    bad = 0
    for i in range(20):
        with cp.cuda.Stream(non_blocking=True):
            c = cp.zeros(1 << 20, dtype=cp.float32)
            for _ in range(8):  # a long kernel queued before the write: an unsynchronised read sees zeros
                w = (w @ w) * (1.0 / 2048)
            c += i + 1
            t = xb.asarray(c).to(backend="torch")
        bad += int((t.native != i + 1).sum())  # read on torch's stream, right away
    assert bad == 0


@pytest.mark.gpu
def test_gpu_conj_and_neg_bits_resolved_for_cupy():
    _cp()
    z = torch.tensor([1 + 2j, 3 - 4j], device="cuda")
    assert xb.asarray(z.conj()).to(backend="cupy").numpy().tolist() == [1 - 2j, 3 + 4j]
    assert xb.asarray(z.conj().imag).to(backend="cupy").numpy().tolist() == [-2.0, 4.0]


@pytest.mark.gpu
def test_gpu_host_moves_and_cuda_array_to_numpy():
    _cp()
    for b in ("torch", "cupy"):
        x = xb.asarray(np.arange(4.0), backend=b, device="cuda")
        assert x.numpy().tolist() == [0.0, 1.0, 2.0, 3.0]
        with pytest.raises(xb.HostTransferError, match=r"\.numpy\(\)"):
            np.asarray(x)
        assert xb.moved(x, backend="numpy").copied


def _numpy_cases() -> list[np.ndarray]:
    out = [sample(d) for d in DTYPES] + [np.array(2.5), np.arange(12.0).reshape(3, 4).T, np.arange(8.0)[::2]]
    ro = np.arange(4.0)
    ro.flags.writeable = False
    out += [ro, np.arange(4.0)[::-1], np.arange(1.0)[::-1], np.arange(6.0).reshape(2, 3)[:, ::-1]]
    out += [np.arange(4, dtype=np.longlong), np.arange(4, dtype=np.ulonglong), np.arange(4.0).astype(">f8")]
    return out


@pytest.mark.parametrize("a", _numpy_cases(), ids=lambda a: f"{a.dtype.str}{a.dtype.char}-{a.strides}")
@pytest.mark.parametrize("how", ["asarray", "to"])
def test_numpy_to_torch_fast_path_is_the_general_move(a, how):
    """``xb.asarray(a, backend="torch")`` and ``x.to(backend="torch")`` take torch's zero-copy import first: the
    same Array as the general move (``xb.moved``, which never takes it), sharing memory exactly when torch's
    ``from_numpy`` can (writeable, no negative stride, a dtype it shares), the NumPy data unchanged."""
    before = a.copy()
    ref = xb.moved(a, backend="torch")
    for _ in range(2):  # the first call builds the import, the second uses it
        y = xb.asarray(a, backend="torch") if how == "asarray" else xb.asarray(a).to(backend="torch")
        assert y.backend == "torch" and y.dtype == ref.array.dtype == xb.asarray(a).dtype and y.shape == a.shape
        assert np.array_equal(np.asarray(y.native), before)
        shareable = a.flags.writeable and min(a.strides, default=0) >= 0 and a.dtype.isnative
        assert xb.shares_memory(y, a) is (not ref.copied), a
        if not shareable:
            assert ref.copied, a
    np.testing.assert_array_equal(a, before)


@pytest.mark.parametrize("view", ["flipped", "reversed columns", "every other"])
def test_strided_numpy_arrays_reach_torch_through_dlpack_with_their_values(view):
    """torch refuses (or misreads) negative strides: a NumPy Array exports a layout it reads, the same values."""
    torch = pytest.importorskip("torch")
    h = np.arange(24.0).reshape(4, 6)
    v = {"flipped": lambda a: a[::-1], "reversed columns": lambda a: a[:, ::-1],
         "every other": lambda a: a[:, ::2]}[view]  # fmt: skip
    got = torch.from_dlpack(v(xb.asarray(h)))
    assert got.tolist() == v(h).tolist()


# --- lazy backends: a plan has no memory until computed ---------------------------------------------------------
@pytest.mark.parametrize("backend,library", [("dask", "Dask"), ("cubed", "Cubed")])
def test_a_lazy_array_is_its_own_memory_and_refuses_exports(backend, library):
    pytest.importorskip(backend)
    x = xb.asarray(np.arange(6.0), backend=backend)
    y = xb.asarray(np.arange(6.0), backend=backend)
    assert xb.shares_memory(x, x) and xb.shares_memory(x, x.native)
    assert not xb.shares_memory(x, y) and not xb.shares_memory(x, x + 0)
    with pytest.raises(xb.HostTransferError, match=f"lazy {library} Array.*Fix: call x.numpy"):
        np.asarray(x)
    with pytest.raises(xb.DLPackError, match=f"a {library} Array has no memory.*Fix: x.compute"):
        x.__dlpack__()
    with pytest.raises(xb.DLPackError, match=f"a {library} Array"):
        x.__dlpack_device__()
    np.testing.assert_array_equal(x.numpy(), np.arange(6.0))  # and the values are one call away
