"""CuPy's corrections (xbackend/_backends/cupy/fixes.py) and torch-CUDA's two, checked on the CPU against NumPy.

The corrections are functions of a namespace ``xp``; here ``xp`` is NumPy, or a fake "CuPy" made of
NumPy that reproduces the CuPy 14.2 behaviours seen on the H200 (shared/gpu-runs/2026-11-30): a
memset for ``fill(-0.0)``, thrust-style special values, no negative-power check, no cholesky check,
ssize_t slices. The CuPy backend class itself is then built on that fake, so its wiring (which kernel
gets which fix) is tested too. The real thing runs in the ``gpu`` tests of test_elementwise.py etc.
"""

from __future__ import annotations

import contextlib
import itertools
import types

import numpy as np
import pytest
from hypothesis import given, strategies as st

from xbackend import _dtypes as D
from xbackend import DomainError as xb_DomainError, device as xb_device
from xbackend._backends.cupy import fixes as F
from xbackend._backends.numpy.backend import NumpyBackend

inf, nan = np.inf, np.nan
REALS = [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 7.0, -3.0, 0.5, 1e-3, 5.5, 65000.0, inf, -inf, nan]
CGRID = [0.0, -0.0, 1.0, -1.0, 2.5, inf, -inf, nan]
CUDA0 = xb_device("cuda:0")
ZS = np.array([complex(a, b) for a in CGRID for b in CGRID])


def _same_bits(got, want):
    """Equal values, NaN where NaN, and the same sign of zero (componentwise for complex)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    parts = [(got.real, want.real), (got.imag, want.imag)] if got.dtype.kind == "c" else [(got, want)]
    for g, w in parts:
        ok = (np.isnan(g) & np.isnan(w)) | ((g == w) & (np.signbit(g) == np.signbit(w)))
        assert ok.all(), [(i, g.reshape(-1)[i], w.reshape(-1)[i]) for i in np.nonzero(~ok.reshape(-1))[0][:5]]


# --- a fake CuPy: NumPy with CuPy 14.2's observed departures ------------------------------------------
class _FakeCupy(types.SimpleNamespace):
    """``cupy`` for tests: NumPy, except where CuPy was seen to differ."""

    def __getattr__(self, name):
        return getattr(np, name)


def _fake_cupy():
    def fill_like_cupy(shape, value, dtype=None):  # ndarray.fill: memset when value == 0
        out = np.empty(shape, dtype=np.asarray(value, dtype=dtype).dtype)
        out[...] = 0 if value == 0 else value
        return out

    def asarray(obj, dtype=None, **kw):
        a = np.asarray(obj, dtype=dtype)
        return fill_like_cupy((), a.item(), a.dtype) if a.ndim == 0 else a.copy()

    def floor_divide(a, b):  # floor(a / b): NaN/inf and signed-zero differences
        with np.errstate(all="ignore"):
            return np.floor(np.true_divide(a, b))

    def remainder(a, b):
        with np.errstate(all="ignore"):
            return a - np.floor(np.true_divide(a, b)) * b

    def divide(a, b):  # thrust: complex division by zero is NaN
        with np.errstate(all="ignore"):
            r = np.true_divide(a, b)
            if r.dtype.kind == "c":
                r = np.where(np.asarray(b) == 0, complex(nan, nan), r)
            return r

    def nonfinite_nan(fn):
        def f(z):
            with np.errstate(all="ignore"):
                r = fn(z)
            return np.where(np.isfinite(z), r, complex(nan, nan)) if r.dtype.kind == "c" else r

        return f

    def power(a, b):  # no check for negative integer exponents
        if np.asarray(a).dtype.kind in "iu" and np.asarray(b).dtype.kind in "iu":
            with np.errstate(all="ignore"):
                return np.power(np.asarray(a, dtype=float), b).astype(np.asarray(a).dtype)
        return np.power(a, b)

    def linspace(start, stop, num, endpoint=True, dtype=None):
        float(stop - start)  # TypeError for complex, as cupy's _linspace_scalar
        return np.linspace(start, stop, num, endpoint=endpoint, dtype=dtype)

    def cholesky(a):  # unblocked, unchecked (the failing pivot stays on the diagonal)
        low = np.zeros_like(a)
        n = a.shape[-1]
        for j in range(n):
            d = a[j, j] - low[j, :j] @ low[j, :j]
            if not d > 0:
                low[j, j] = d
                return low
            low[j, j] = np.sqrt(d)
            for i in range(j + 1, n):
                low[i, j] = (a[i, j] - low[i, :j] @ low[j, :j]) / low[j, j]
        return low

    return _FakeCupy(
        __version__="14.2.0", __name__="fakecupy", asarray=asarray, array=asarray,
        full=lambda shape, v, dtype=None: fill_like_cupy(shape, v, dtype), floor_divide=floor_divide,
        remainder=remainder, divide=divide, true_divide=divide, power=power, linspace=linspace,
        log=nonfinite_nan(np.log), log1p=nonfinite_nan(np.log1p), sinh=nonfinite_nan(np.sinh),
        tanh=nonfinite_nan(np.tanh), arcsin=nonfinite_nan(np.arcsin), log2=nonfinite_nan(np.log2),
        log10=nonfinite_nan(np.log10), asnumpy=np.asarray, linalg=types.SimpleNamespace(cholesky=cholesky),
        cuda=types.SimpleNamespace(runtime=types.SimpleNamespace(getDeviceCount=lambda: 1),
                                   Device=lambda i: contextlib.nullcontext()),
    )  # fmt: skip


@pytest.fixture
def fake_cupy_backend(monkeypatch):
    from xbackend._backends.cupy import backend as C

    fake = _fake_cupy()
    monkeypatch.setattr(C, "cupy", fake)
    monkeypatch.setattr(C, "_import_cupy", lambda: fake)
    return C.CupyBackend()


# --- sign of zero at creation ------------------------------------------------------------------------
@pytest.mark.parametrize("dt", ["float16", "float32", "float64", "complex64", "complex128"])
def test_sign_safe_namespace_keeps_negative_zero(dt):
    fake = _fake_cupy()
    v = np.array(complex(-0.0, -0.0) if dt.startswith("complex") else -0.0, dtype=dt)
    assert not np.signbit(fake.asarray(v).real)  # the fake reproduces CuPy's memset
    xp = F.SignSafeNamespace(fake)
    for got in (xp.asarray(v), xp.asarray(v.item(), dtype=dt), xp.array(v), xp.full((2, 3), v.item(), dtype=dt),
                xp.full_like(np.zeros(4, dt), v.item())):  # fmt: skip
        _same_bits(got, np.full(got.shape, v))
    _same_bits(xp.full(3, 0.0), np.zeros(3))  # plain zeros still take the fast path
    _same_bits(xp.asarray(np.array([-0.0, 1.0])), np.array([-0.0, 1.0]))


def test_has_negative_zero():
    assert [F.has_negative_zero(v) for v in (-0.0, 0.0, complex(0, -0.0), complex(-1, -0.0), 0, False, np.float16(-0.0),
                                             np.array(-0.0), "x")] \
        == [True, False, True, False, False, False, True, False, False]  # fmt: skip


# --- floor_divide / remainder / divide --------------------------------------------------------------
@pytest.mark.parametrize("dt", [np.float16, np.float32, np.float64])
def test_divmod_matches_numpy_bit_for_bit(dt):
    a, b = (np.array(v, dtype=dt) for v in zip(*itertools.product(REALS, REALS)))
    with np.errstate(all="ignore"):
        q, r = F.divmod_like_numpy(np, a, b)
        _same_bits(q, np.floor_divide(a, b))
        _same_bits(r, np.remainder(a, b))
        for s in (-0.0, 2.0, -inf, inf):  # a Python scalar on either side
            _same_bits(F.divmod_like_numpy(np, a, s)[0], np.floor_divide(a, np.asarray(s, dt)))
            _same_bits(F.divmod_like_numpy(np, s, b)[1], np.remainder(np.asarray(s, dt), b))


@given(st.lists(st.tuples(st.floats(width=32), st.floats(width=32)), min_size=1, max_size=50))
def test_divmod_matches_numpy_on_random_floats(pairs):
    a, b = (np.array(v, dtype=np.float32) for v in zip(*pairs))
    with np.errstate(all="ignore"):
        q, r = F.divmod_like_numpy(np, a, b)
        _same_bits(q, np.floor_divide(a, b))
        _same_bits(r, np.remainder(a, b))


@pytest.mark.parametrize("dt", [np.complex64, np.complex128])
def test_complex_divide_matches_numpy(dt):
    a, b = (np.array(v, dtype=dt) for v in zip(*itertools.product(ZS, ZS)))
    with np.errstate(all="ignore"):
        _same_bits(F.complex_divide(np, a, b), a / b)
        _same_bits(F.complex_divide(np, a, complex(0, 0)), a / np.asarray(0j, dt))


# --- complex special values -------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["log", "log1p", "log2", "log10"])
@pytest.mark.parametrize("dt", [np.complex64, np.complex128])
def test_complex_log_family_matches_numpy(name, dt):
    z = ZS.astype(dt)
    with np.errstate(all="ignore"):
        want = getattr(np, name)(z)
        wrong = np.full_like(z, complex(nan, nan))  # a raw result that is wrong everywhere
        if name in ("log", "log1p"):
            got = F.complex_log(np, name, z, wrong)
            fin = np.isfinite(z)
            _same_bits(got[~fin], want[~fin])  # corrected where z is not finite
            assert np.isnan(got[fin]).all()  # the library's own result kept where it is
        else:
            got = F.complex_log(np, name, z, F.complex_log(np, "log", z, np.log(z)))
            np.testing.assert_allclose(got, want, rtol=2e-6 if dt == np.complex64 else 1e-15)
            _same_bits(np.isnan(got), np.isnan(want))


@pytest.mark.parametrize("name", ["arcsin", "arcsinh", "arccosh", "sin", "sinh", "tan", "tanh", "expm1"])
def test_patch_nonfinite_takes_the_host_kernel_there_only(name):
    fn = getattr(np, name)
    wrong = np.full_like(ZS, complex(nan, nan))
    with np.errstate(all="ignore"):
        got = F.patch_nonfinite(np, ZS.reshape(8, 8), wrong.reshape(8, 8), fn, np.asarray)
        fin = np.isfinite(ZS)
        _same_bits(got.reshape(-1)[~fin], fn(ZS[~fin]))
        assert np.isnan(got.reshape(-1)[fin]).all() and got.shape == (8, 8)
    finite = np.array([1 + 1j])
    assert F.patch_nonfinite(np, finite, finite, fn, np.asarray) is finite  # nothing to patch


# --- creation, power, indexing, linalg -------------------------------------------------------------
def test_integer_power_check():
    with pytest.raises(ValueError, match="negative"):
        F.check_integer_power(np, np.array([2, -1], dtype=np.int8))
    with pytest.raises(ValueError, match="Fix"):
        F.check_integer_power(np, -3)
    F.check_integer_power(np, np.array([0, 5]))
    F.check_integer_power(np, np.array([], dtype=np.int64))
    F.check_integer_power(np, np.array([-1.0]))  # floats may be negative


_big = st.one_of(st.none(), st.integers(-(2**70), 2**70), st.integers(-12, 12))


@given(st.lists(st.tuples(_big, _big, _big.filter(lambda s: s != 0)), min_size=1, max_size=2), st.integers(0, 9))
def test_clamped_slices_select_the_same_elements(slices, n):
    a = np.arange(n * 3).reshape(n, 3)
    key = tuple(slice(*s) for s in slices)
    clamped = F.clamp_slices(key)
    for s in clamped:
        for v in (s.start, s.stop, s.step):
            assert v is None or abs(v) <= 2**62
    np.testing.assert_array_equal(a[clamped], a[key])
    assert F.clamp_slices(slice(None, None, 2**63)) == slice(None, None, 2**62)
    assert F.clamp_slices(5) == 5


def test_cholesky_failure_becomes_nan():
    fake = _fake_cupy()
    spd = np.array([[4.0, 2.0], [2.0, 3.0]])
    singular = np.array([[1.0, 2.0], [2.0, 4.0]])
    raw = fake.linalg.cholesky(singular)
    assert np.isfinite(raw).all()  # what CuPy returns: finite garbage
    assert np.isnan(F.nan_if_not_factored(np, raw)).all()
    good = np.linalg.cholesky(spd)
    np.testing.assert_array_equal(F.nan_if_not_factored(np, good), good)
    batch = F.nan_if_not_factored(np, np.stack([good, raw]))
    np.testing.assert_array_equal(batch[0], good)
    assert np.isnan(batch[1]).all()
    c = np.linalg.cholesky(np.array([[2.0, 1j], [-1j, 2.0]]))
    np.testing.assert_array_equal(F.nan_if_not_factored(np, c), c)


# --- the CuPy backend wired on the fake ------------------------------------------------------------
def test_backend_kernels_match_numpy_on_the_fake(fake_cupy_backend):
    be = fake_cupy_backend
    a, b = (np.array(v, dtype=np.float16) for v in zip(*itertools.product(REALS, REALS)))
    with np.errstate(all="ignore"):
        # the reference is xbackend's NumPy backend (the standard's floor(x / y) at infinities and zeros)
        _same_bits(be.kernel("floor_divide", D.float16)(a, b), NumpyBackend().kernel("floor_divide", D.float16)(a, b))
        _same_bits(be.kernel("remainder", D.float16)(a, b), np.remainder(a, b))
        _same_bits(be.kernel("nextafter", D.float16)(np.array([0.0], np.float16), -0.0), np.array([-0.0], np.float16))
        c1, c2 = (np.array(v) for v in zip(*itertools.product(ZS, ZS)))
        _same_bits(be.kernel("divide", D.complex128)(c1, c2), c1 / c2)
        for name in ("log", "log1p", "sinh", "tanh", "asin", "expm1"):
            got = be.kernel(name, D.complex128)(ZS)
            # the reference is xbackend's NumPy backend: NumPy plus the standard's special cases it misses
            want = NumpyBackend().kernel(name, D.complex128)(ZS)
            fin = np.isfinite(ZS)
            _same_bits(got[~fin], want[~fin])
        np.testing.assert_allclose(be.kernel("log2", D.complex128)(ZS[np.isfinite(ZS)]),
                                   np.log2(ZS[np.isfinite(ZS)]), rtol=1e-15)  # fmt: skip
    assert np.signbit(be.xp.asarray(-0.0))  # creation keeps the sign
    assert np.signbit(be.full((2,), -0.0, D.float32, CUDA0)).all()
    assert np.signbit(be.from_host(np.array(-0.0), D.float64, CUDA0, None))
    with pytest.raises(xb_DomainError, match="negative"):  # the typed error of every backend
        be.kernel("pow", D.int32)(np.array([2, 3], np.int32), np.array([-1, 1], np.int32))
    assert be.kernel("pow", D.int32)(np.array([2, 3], np.int32), 2).tolist() == [4, 9]


def test_backend_creation_indexing_linalg_on_the_fake(fake_cupy_backend):
    import xbackend as xb

    be = fake_cupy_backend
    got = be.linspace(0, 1 + 1j, 3, D.complex128, CUDA0, True)
    np.testing.assert_allclose(got, np.linspace(0, 1 + 1j, 3))
    x = np.arange(5.0)
    assert be.getitem(x, (slice(None, None, 2**63),)).tolist() == [0.0]
    be.setitem(x, (slice(1, 3),), -0.0)
    assert np.signbit(x[1:3]).all() and x[3] == 3.0
    assert np.isnan(be.la_cholesky(np.array([[1.0, 2.0], [2.0, 4.0]]), False)).all()
    with pytest.raises(xb.UnsupportedDTypeError, match="Fix.*float32"):
        be.native_dtype(D.bfloat16)
    assert D.bfloat16 not in be.info_dtypes(None)
    s = be.reduce("sum", np.ones(100, np.float16), D.float16, (0,), False)
    assert s.dtype == np.float16 and s.item() == 100.0
    assert be.reduce("sum", np.arange(6).reshape(2, 3), D.int64, (0, 1), True).tolist() == [[15]]


# --- torch-CUDA: the two corrections in torch.py, with CUDA's behaviour imitated on the CPU --------------
def test_torch_complex_sqrt_real_part_is_plus_zero(monkeypatch):
    torch = pytest.importorskip("torch")
    from xbackend._dispatch import get_backend

    real_sqrt = torch.sqrt

    def cuda_like(x):  # torch-CUDA 2.11: sqrt(-0+0j) = -0+0j
        r = real_sqrt(x)
        if not x.is_complex():
            return r
        return torch.where((x.real == 0) & (x.imag == 0), torch.complex(x.real, r.imag), r)

    monkeypatch.setattr(torch, "sqrt", cuda_like)
    z = np.array([complex(-0.0, 0.0), complex(-0.0, -0.0), 4 + 0j, -4 + 0j, complex(nan, 1.0)], dtype=np.complex64)
    raw = cuda_like(torch.from_numpy(z)).numpy()
    assert np.signbit(raw.real[0])  # the imitation has the bug
    got = get_backend("torch").make_kernel("sqrt", D.complex64)(torch.from_numpy(z)).numpy()
    _same_bits(got, np.sqrt(z))


def test_torch_half_cumulative_sum_accumulates_in_float32(monkeypatch):
    torch = pytest.importorskip("torch")
    import xbackend as xb

    real = torch.cumsum

    def cuda_like(x, dim, dtype=None):  # CUDA's half cumsum accumulates in half (NumPy's stalls at 2048 too)
        if dtype in (None, torch.float16):
            return torch.from_numpy(np.cumsum(x.numpy(), axis=dim, dtype=np.float16))
        return real(x, dim, dtype=dtype)

    monkeypatch.setattr(torch, "cumsum", cuda_like)
    x = xb.asarray(np.ones(3000, np.float16), backend="torch")
    r = xb.cumulative_sum(x)
    assert r.dtype is xb.float16 and r[-1].item() == 3000.0


# --- CuPy has no record_stream: FreeAfter, on the streams of the fake CUDA (tests/fakecuda.py) ------------
def test_cupy_free_after_orders_the_copy_stream_after_the_consumer():
    """CuPy's record_stream stand-in: when the consumer's view dies, the copy stream waits for the work the
    consumer queued, then the memory is let go."""
    from fakecuda import CudaModel

    model = CudaModel(1)
    cs, s = model.new_stream(0, "copy"), model.new_stream(0, "consumer")
    held = np.zeros(3)
    keep = F.FreeAfter(held, s, cs, model.device(0))
    model.sleep(0.0, stream=s)  # the consumer's kernels
    assert not cs.queue
    del keep
    (wait,) = [op for op in cs.queue if op.name == "wait"]
    assert wait.waits.stream is s and wait.vc[s.id] == s.vc[s.id]  # after everything queued on `s`
