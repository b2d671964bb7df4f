"""xb.fft on every target: values against NumPy's complex128 FFT, round trips, dtypes that never depend on
the backend (complex64 stays complex64), n/axis/s/axes/norm handling and errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import xbackend as xb
import xbackend.testing.strategies as xst
from xbackend.testing import assert_close, to_host

fixture_ok = settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                             HealthCheck.differing_executors])  # fmt: skip
NORMS = ("backward", "ortho", "forward")
REAL = (xb.float32, xb.float64)
COMPLEX = (xb.complex64, xb.complex128)


def xa(a, t, dtype=None):
    return xb.asarray(a, backend=t.backend, device=t.device, dtype=dtype)


def tol(dt):
    return (1e-4, 1e-4) if dt in (xb.float32, xb.complex64) else (1e-10, 1e-10)


@st.composite
def signals(draw, dtypes, min_dims=1, max_dims=3):
    dt = draw(xst.dtypes(dtypes))
    shape = draw(hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=1, max_side=6))
    width = 32 if dt in (xb.float32, xb.complex64) else 64
    el = st.floats(-1, 1, width=width, allow_subnormal=False)
    real = "float32" if width == 32 else "float64"
    a = draw(hnp.arrays(np.dtype(real), shape, elements=el)).astype(np.float64)
    if dt.kind == "c":
        a = a + 1j * draw(hnp.arrays(np.dtype(real), shape, elements=el)).astype(np.float64)
    return a, dt


ONE_D = {"fft": ("c", "c"), "ifft": ("c", "c"), "rfft": ("r", "c"), "irfft": ("c", "r"), "hfft": ("c", "r"),
         "ihfft": ("r", "c")}  # fmt: skip


@fixture_ok
@given(data=signals(REAL + COMPLEX), name=st.sampled_from(sorted(ONE_D)), norm=st.sampled_from(NORMS),
       n=st.one_of(st.none(), st.integers(1, 8)), ax=st.integers(-3, 2))  # fmt: skip
def test_one_dimensional_transforms_match_numpy(xb_target, data, name, norm, n, ax):
    a, dt = data
    kin, kout = ONE_D[name]
    if kin == "r" and dt.kind == "c":
        a, dt = a.real, {xb.complex64: xb.float32, xb.complex128: xb.float64}[dt]
    axis = ax % a.ndim
    if name in ("irfft", "hfft") and n is None and a.shape[axis] == 1:
        n = 2  # the default output length 2 * (m - 1) would be 0
    x = xa(a, xb_target, dt)
    r = getattr(xb.fft, name)(x, n=n, axis=axis, norm=norm)
    prec32 = dt in (xb.float32, xb.complex64)
    want = {("c", True): xb.complex64, ("c", False): xb.complex128, ("r", True): xb.float32,
            ("r", False): xb.float64}[kout, prec32]  # fmt: skip
    assert r.dtype is want
    expected = getattr(np.fft, name)(a.astype(dt.name).astype(np.complex128 if kin == "c" else np.float64), n=n,
                                     axis=axis, norm=norm)  # fmt: skip
    rt, at = tol(dt)
    size = max(a.shape[axis], n or 1)
    assert_close(r, expected, rtol=rt, atol=at * size, check_dtype=False)


@fixture_ok
@given(data=signals(REAL + COMPLEX, min_dims=2), norm=st.sampled_from(NORMS), use_s=st.booleans())
def test_n_dimensional_transforms_match_numpy(xb_target, data, norm, use_s):
    a, dt = data
    axes = [-1, 0]
    s = [a.shape[-1] + 1, -1] if use_s else None
    np_s = None if s is None else [a.shape[-1] + 1, a.shape[0]]
    x = xa(a, xb_target, dt)
    rt, at = tol(dt)
    o = a.astype(dt.name).astype(np.complex128 if dt.kind == "c" else np.float64)
    for name in ("fftn", "ifftn"):
        r = getattr(xb.fft, name)(x, s=s, axes=axes, norm=norm)
        assert r.dtype is (xb.complex64 if dt in (xb.float32, xb.complex64) else xb.complex128)
        assert_close(r, getattr(np.fft, name)(o, s=np_s, axes=axes, norm=norm), rtol=rt, atol=at * o.size * 2,
                     check_dtype=False)  # fmt: skip
    if dt.kind == "f":
        r = xb.fft.rfftn(x, s=s, axes=axes, norm=norm)
        assert r.dtype is (xb.complex64 if dt is xb.float32 else xb.complex128)
        assert_close(r, np.fft.rfftn(o, s=np_s, axes=axes, norm=norm), rtol=rt, atol=at * o.size * 2,
                     check_dtype=False)  # fmt: skip
        back = xb.fft.irfftn(r, s=[a.shape[-1] + use_s, a.shape[0]], axes=axes, norm=norm)
        assert back.dtype is dt
        assert_close(back, np.fft.irfftn(np.fft.rfftn(o, s=np_s, axes=axes, norm=norm), s=[a.shape[-1] + use_s,
                     a.shape[0]], axes=axes, norm=norm), rtol=rt, atol=at * o.size * 2, check_dtype=False)  # fmt: skip
        if not use_s:
            assert_close(back, o, rtol=rt, atol=at * o.size * 2, check_dtype=False)


@fixture_ok
@given(data=signals(COMPLEX), norm=st.sampled_from(NORMS))
def test_round_trips(xb_target, data, norm):
    a, dt = data
    x = xa(a, xb_target, dt)
    rt, at = tol(dt)
    assert_close(xb.fft.ifft(xb.fft.fft(x, norm=norm), norm=norm), x, rtol=rt, atol=at * a.shape[-1])
    assert_close(xb.fft.ifftn(xb.fft.fftn(x, norm=norm), norm=norm), x, rtol=rt, atol=at * a.size)
    re = xb.real(x)
    assert_close(xb.fft.irfft(xb.fft.rfft(re, norm=norm), n=a.shape[-1], norm=norm), re, rtol=rt, atol=at * a.shape[-1])


@pytest.mark.parametrize("dt,want", [(xb.int32, xb.complex128), (xb.bool, xb.complex128), (xb.float16, xb.complex64),
                                     (xb.float32, xb.complex64), (xb.complex64, xb.complex64)], ids=str)  # fmt: skip
def test_dtype_rules(xb_target, dt, want):
    x = xa(np.array([1, 0, 1, 1]), xb_target, dt)
    assert xb.fft.fft(x).dtype is want
    assert xb.fft.ifftn(x).dtype is want
    if dt.kind != "c":
        assert xb.fft.rfft(x).dtype is want
        assert xb.fft.ihfft(x).dtype is want
    assert xb.fft.irfft(x).dtype is xb.real(xb.fft.fft(x)).dtype
    with xb.using(default_float=xb.float32):
        assert xb.fft.fft(xa([1, 2], xb_target)).dtype is xb.complex64


def test_complex64_stays_complex64_and_matches(xb_target):
    a = (np.arange(8) + 1j).astype(np.complex64)
    r = xb.fft.fft(xa(a, xb_target))
    assert r.dtype is xb.complex64
    assert_close(r, np.fft.fft(a.astype(np.complex128)), rtol=1e-5, atol=1e-4, check_dtype=False)


@pytest.mark.parametrize("name", ["fftfreq", "rfftfreq"])
@pytest.mark.parametrize("n", [1, 2, 5, 8])
def test_frequencies(xb_target, name, n):
    r = getattr(xb.fft, name)(n, d=0.1, backend=xb_target.backend, device=xb_target.device)
    assert r.dtype is xb.float64 and r.backend == xb_target.backend and str(r.device) == xb_target.device
    assert_close(r, getattr(np.fft, name)(n, d=0.1))
    r32 = getattr(xb.fft, name)(n, dtype=xb.float32, backend=xb_target.backend, device=xb_target.device)
    assert r32.dtype is xb.float32
    with xb.using(backend=xb_target.backend, device=xb_target.device):
        assert getattr(xb.fft, name)(n).backend == xb_target.backend


@fixture_ok
@given(a=hnp.arrays(np.int16, hnp.array_shapes(min_dims=1, max_dims=3, max_side=5)),
       axes=st.sampled_from([None, 0, -1, (0, -1)]))  # fmt: skip
def test_shifts_any_dtype(xb_target, a, axes):
    x = xa(a, xb_target)
    for name in ("fftshift", "ifftshift"):
        r = getattr(xb.fft, name)(x, axes=axes)
        assert r.dtype is xb.int16
        assert_close(r, getattr(np.fft, name)(a, axes=axes))
    assert_close(xb.fft.ifftshift(xb.fft.fftshift(x, axes=axes), axes=axes), x)


def test_errors(xb_target):
    x = xa(np.ones(4), xb_target)
    with pytest.raises(ValueError, match="norm"):
        xb.fft.fft(x, norm="none")
    with pytest.raises(xb.AxisError, match="axis"):
        xb.fft.fft(x, axis=1)
    with pytest.raises(ValueError, match="n must be"):
        xb.fft.fft(x, n=0)
    with pytest.raises(ValueError, match="without axes"):
        xb.fft.fftn(x, s=(4,))
    with pytest.raises(ValueError, match="at least one dimension"):
        xb.fft.fft(xa(1.0, xb_target))
    with pytest.raises(xb.UnsupportedDTypeError, match="real input"):
        xb.fft.rfft(xa(np.ones(4, np.complex128), xb_target))
    with pytest.raises(xb.UnsupportedDTypeError):
        xb.fft.fftfreq(4, dtype=xb.int64)


def test_batching_and_other_axes(xb_target):
    a = np.random.default_rng(0).standard_normal((3, 4, 5))
    x = xa(a, xb_target)
    assert_close(xb.fft.fft(x, axis=1), np.fft.fft(a, axis=1))
    assert_close(xb.fft.rfft(x, axis=0, n=6), np.fft.rfft(a, axis=0, n=6))
    assert_close(xb.fft.fftn(x, axes=(0, 2)), np.fft.fftn(a, axes=(0, 2)))
    assert to_host(xb.fft.hfft(x, axis=-1)).shape == (3, 4, 8)
