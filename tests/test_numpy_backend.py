"""Behaviours the NumPy backend (xbackend/_backends/numpy/) implements itself rather than passing through:
NumPy's own results differ from the standard (float16 nextafter, pow's square-root fast path), an integer
arange past 2**53, the byte ranges used to answer shares_memory with another library, and DLPack export on
a NumPy without the new keywords. Each is checked on every CPU target against Python's own numbers or C's
``pow``/``nextafter`` (``math``), never against this backend's output."""

from __future__ import annotations

import math

import numpy as np
import pytest

import xbackend as xb


@pytest.mark.parametrize("start,n,step", [(2**60, 4, 1), (2**53 - 2, 5, 1), (-(2**62), 3, 2**40), (7, 4, -3)])
def test_integer_arange_is_exact_past_2_53(xb_target, start, n, step):
    """Integers are counted as integers: a float64 detour would round 2**60 + 1 to 2**60."""
    x = xb.arange(start, start + n * step, step, dtype=xb.int64, device=xb_target.device, backend=xb_target.backend)
    assert x.dtype is xb.int64
    assert x.tolist() == list(range(start, start + n * step, step))


@pytest.mark.parametrize("dt", [xb.float16, xb.float32, xb.float64], ids=str)
def test_nextafter_of_equal_values_is_y(xb_target, dt):
    """C99 / the standard: nextafter(x, y) is y when x == y (so +0 toward -0 is -0); NumPy's float16 returns x.
    Values other than float16's must stay exact (not rounded through float16)."""
    if not xb_target.holds(dt):
        pytest.skip(f"{xb_target} has no {dt}")
    xs = [0.0, -0.0, 0.1, 1e-3, -2.5]
    ys = [-0.0, 0.0, 0.1, 1e-3, -2.5]
    x = xb.asarray(np.array(xs, dtype=dt.name), device=xb_target.device, backend=xb_target.backend)
    y = xb.asarray(np.array(ys, dtype=dt.name), device=xb_target.device, backend=xb_target.backend)
    r = xb.nextafter(x, y)
    assert r.dtype is dt
    want = np.array(ys, dtype=dt.name)
    got = np.asarray(xb.to_numpy(r))
    assert got.tolist() == want.tolist()
    assert [math.copysign(1, v) for v in got.tolist()] == [math.copysign(1, v) for v in want.tolist()]


@pytest.mark.parametrize("y", [0.5, -0.5])
def test_pow_by_a_half_follows_c_pow_at_minus_zero_and_minus_inf(xb_target, y):
    """pow(x, ±0.5) is C's pow (the standard), not sqrt: pow(-inf, 0.5) = inf, pow(-0, 0.5) = +0,
    pow(-inf, -0.5) = +0, pow(-0, -0.5) = +inf; math.pow is C's pow."""
    xs = [-math.inf, -0.0, 0.0, 4.0, 0.25, math.inf]
    x = xb.asarray(np.array(xs), device=xb_target.device, backend=xb_target.backend)
    with np.errstate(all="ignore"):
        for exponent in (y, xb.asarray(y, device=xb_target.device, backend=xb_target.backend)):
            r = (x ** exponent).tolist()
            want = [math.inf if (v == 0 and y < 0) else math.pow(v, y) for v in xs]  # math.pow raises at 0**-0.5
            assert r == want, (exponent, r, want)
            assert [math.copysign(1, v) for v in r] == [math.copysign(1, v) for v in want]


def test_integer_to_a_negative_power_is_a_domain_error(xb_target):
    x = xb.asarray(np.array([2, 3]), device=xb_target.device, backend=xb_target.backend)
    with pytest.raises(xb.DomainError):
        x ** -1
    with pytest.raises(xb.DomainError):  # (Dask: when the values are computed)
        (x ** xb.asarray(np.array([1, -1]), device=xb_target.device, backend=xb_target.backend)).tolist()
    assert (x ** 2).tolist() == [4, 9] and (x ** 2).dtype is xb.int64


def test_shares_memory_with_another_library_by_byte_ranges():
    """A NumPy Array and a torch tensor viewing the same buffer share memory; disjoint halves do not (the NumPy
    side's byte range comes from its array interface, C-contiguous ones included)."""
    torch = pytest.importorskip("torch")
    a = np.arange(10.0)
    t = torch.from_dlpack(a)
    assert xb.shares_memory(xb.asarray(a), t)
    assert xb.shares_memory(xb.asarray(a[::3]), t[9:])  # a strided view reaching the last element
    assert not xb.shares_memory(xb.asarray(a[:5]), t[5:])
    assert not xb.shares_memory(xb.asarray(a[:5].copy()), t)


class _LegacyDLPack:
    """An array exporting DLPack as NumPy < 2.1 did: ``__dlpack__(stream=None)`` only."""

    def __init__(self, a):
        self.a = a
        self.calls = []

    def __dlpack__(self, stream=None):
        self.calls.append(stream)
        return self.a.__dlpack__(stream=stream)


def test_dlpack_export_on_an_old_numpy_falls_back_only_when_nothing_was_asked():
    from xbackend._backends.numpy.backend import NumpyBackend

    be = NumpyBackend()
    legacy = _LegacyDLPack(np.arange(3.0))
    cap = be.dlpack(legacy)  # no request the old protocol cannot honour: the legacy capsule
    assert legacy.calls == [None] and cap is not None
    for kw in ({"copy": True}, {"copy": False}, {"dl_device": (1, 0)}):
        with pytest.raises(TypeError):  # a copy or device request must not be dropped silently
            be.dlpack(legacy, **kw)
