"""torch's complex functions on CUDA-like kernels (xbackend/_backends/torch/complex.py, issue 28).

torch-CUDA computes complex functions with its own device math, which differed from the CPU's on the H200
(2026-12-04): special values at non-finite input, ``sqrt`` in polar form, ``log1p`` overflowing. No CPU kernel does
that, so these tests put CUDA-like kernels in torch's place (``torch.sin`` poisoned at non-finite input, a polar-form
``torch.sqrt``, a ``torch.log1p`` through an overflowing ``|1 + z|``) and check that xbackend's torch results are
still NumPy's: the corrections run the same code on every device. Without them these tests fail; whether torch-CUDA's
kernels are exactly these models is not known (its values were logged at the grid points only).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import xbackend as xb

torch = pytest.importorskip("torch")
if not xb.backends()["torch"].usable:
    pytest.skip("torch is not usable here", allow_module_level=True)

from xbackend._dispatch import get_backend  # noqa: E402

GRID = [0.0, -0.0, 1.0, -1.0, math.inf, -math.inf, math.nan]
Z = np.array([complex(a, b) for a in GRID for b in GRID])
Z.real, Z.imag = np.repeat(GRID, len(GRID)), np.tile(GRID, len(GRID))  # (complex() keeps -0.0; be explicit)


@pytest.fixture
def cuda_like(monkeypatch):
    """``cuda_like(name, fn)``: torch's ``name`` replaced by ``fn`` for the test, with the torch backend's kernel
    rebuilt on it (and rebuilt again afterwards on torch's own)."""
    be = get_backend("torch")
    names = []

    def use(name, fn):
        own = getattr(torch, name)

        def complex_only(x, *args, **kw):  # the kernels also call torch's function on real tensors: those stay
            return fn(x, *args, **kw) if torch.is_complex(x) else own(x, *args, **kw)

        monkeypatch.setattr(torch, name, complex_only)
        be.kernels.pop(name, None)
        names.append(name)

    yield use
    monkeypatch.undo()
    for n in names:
        be.kernels.pop(n, None)


def _poisoned(fn):
    """``fn`` with NaN + NaN j wherever the input is not finite: some other library's special values."""

    def f(z, *args, **kw):
        r = fn(z, *args, **kw)
        if not r.is_complex():
            return r
        bad = ~(torch.isfinite(z.real) & torch.isfinite(z.imag))
        return torch.where(bad, torch.full_like(r, complex(math.nan, math.nan)), r)

    return f


def _same_kind(got, want):
    """Each part: NaN where NumPy's is, the same infinity or signed zero, finite values within 1e-5."""
    for g, w in ((got.real, want.real), (got.imag, want.imag)):
        assert np.array_equal(np.isnan(g), np.isnan(w))
        fin = np.isfinite(w)
        assert np.array_equal(g[~fin & ~np.isnan(w)], w[~fin & ~np.isnan(w)])
        assert np.allclose(g[fin], w[fin], rtol=1e-5, atol=1e-6)
        z = fin & (w == 0)
        assert np.array_equal(np.signbit(g[z]), np.signbit(w[z]))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # (NumPy's, computing the reference)
@pytest.mark.parametrize("name", ["sin", "sinh", "tan", "asin", "asinh", "acosh", "tanh", "expm1"])
def test_special_values_at_non_finite_input_do_not_depend_on_the_kernel(cuda_like, name):
    """Every grid point whose parts are each +-0, +-inf or NaN (one not finite) gets NumPy's value whatever torch's
    kernel says there (torch-CUDA's sin(inf - inf j) was nan - inf j, acosh(0 + nan j) nan + nan j, ...)."""
    cuda_like(name, _poisoned(getattr(torch, name)))
    for dt in (xb.complex64, xb.complex128):
        got = getattr(xb, name)(xb.asarray(Z, dtype=dt, backend="torch")).numpy()
        want = getattr(xb, name)(xb.asarray(Z, dtype=dt, backend="numpy")).numpy()
        ends = np.isin(Z.real, [0.0, math.inf, -math.inf]) | np.isnan(Z.real)
        ends &= np.isin(Z.imag, [0.0, math.inf, -math.inf]) | np.isnan(Z.imag)
        _same_kind(got[ends], want[ends])


def _polar_sqrt(z):
    """sqrt in polar form, each step in z's precision: what torch-CUDA's complex sqrt gave (-8.7e-08 + 2j at -4)."""
    if not z.is_complex():
        return _REAL_SQRT(z)
    r = _REAL_SQRT(z.abs())
    t = torch.atan2(z.imag, z.real) / 2
    return torch.complex(r * torch.cos(t), r * torch.sin(t))


_REAL_SQRT = torch.sqrt


def test_sqrt_is_exact_on_the_axes_and_accurate_off_them_on_a_polar_kernel(cuda_like):
    """torch-CUDA: sqrt(-4 + 0j) in complex64 had a real part of -8.7e-08 (the standard: +0). Against NumPy's csqrt
    (C99, Kahan's scheme): the signs of zero exactly, every part within 4 ulp of its own size."""
    cuda_like("sqrt", _polar_sqrt)
    pts = [-4 + 0j, complex(-4, -0.0), -4 + 1e-6j, -4 - 3e-7j, 1e-6j, -2e-6j, 3 + 4j, -3 + 4j, 1e-30 + 1e-30j,
           -1e30 + 1e-10j, 2.5 + 0j, complex(0.0, -7.0), -1e-20 + 1.0j]  # fmt: skip
    for dt, eps in ((xb.complex64, 2.0**-23), (xb.complex128, 2.0**-52)):
        z = np.array(pts, dtype=dt.name)
        got = xb.sqrt(xb.asarray(z, backend="torch")).numpy()
        want = np.sqrt(z)
        for g, w in ((got.real, want.real), (got.imag, want.imag)):
            assert np.array_equal(np.signbit(g), np.signbit(w)), (dt, g, w)
            assert np.all(np.abs(g - w) <= 4 * eps * np.abs(w)), (dt, g, w)


def test_log1p_where_one_plus_z_overflows_on_an_overflowing_kernel(cuda_like):
    """torch-CUDA: log1p(-1.8e308 - 1.8e308j) was inf - 2.356j; its real part is log|1 + z| = 710.129...
    (Python: log(1.7976931348623157e308) + log(2) / 2), its imaginary part atan2(-1.8e308, 1 - 1.8e308)."""

    def naive(z):  # |1 + z| by hypot, which overflows: the logged CUDA result
        a, b = z.real + 1, z.imag
        return torch.complex(torch.log(torch.hypot(a, b)), torch.atan2(b, a))

    cuda_like("log1p", naive)
    big = 1.7976931348623157e308
    z = xb.asarray([complex(-big, -big), 1j, complex(big, 1.0)], dtype=xb.complex128, backend="torch")
    got = xb.log1p(z).numpy()
    assert got[0].real == pytest.approx(math.log(big) + math.log(2) / 2, rel=1e-15)
    assert got[0].imag == pytest.approx(math.atan2(-big, 1 - big), rel=1e-15)
    assert got[1] == pytest.approx(complex(math.log(math.sqrt(2)), math.pi / 4), rel=1e-15)
    assert got[2].real == pytest.approx(math.log(big), rel=1e-15)
