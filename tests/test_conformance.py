"""Conformance with the Array API standard (2025.12) where a backend's native behaviour differs (issue 9).

Each test states the standard's rule independently of the code under test: the special-case tables of
``floor_divide``, complex ``expm1`` and complex ``tanh`` are written out below from the spec text (with
its symmetries), everything else is compared with NumPy in float64/complex128 or exact Python ints.
Every test runs on every available target through the plugin fixtures.
"""

from __future__ import annotations

import inspect
import math
import warnings

import numpy as np
import pytest

import xbackend as xb
from xbackend import _dtypes as D

nan, inf = math.nan, math.inf
FLOATS = (D.float16, D.float32, D.float64)
SPECIAL = (0.0, -0.0, inf, -inf, nan, 1.0, -1.0, 2.5, -2.5, 0.5, -0.5, 7.0, -3.0)


def _finite(v: float) -> bool:
    return math.isfinite(v)


def _sgn(v: float) -> float:
    return math.copysign(1.0, v)


# ---------------------------------------------------------------------------------------------
# floor_divide: the standard's special cases (the spec prefers floor(x1 / x2) at infinities)
# ---------------------------------------------------------------------------------------------
def std_floor_divide(a: float, b: float) -> float | None:
    """The standard's result for ``a // b``, or None where it only asks for the rounded quotient."""
    if math.isnan(a) or math.isnan(b):
        return nan
    if math.isinf(a) and math.isinf(b):
        return nan
    if a == 0 and b == 0:
        return nan
    if a == 0:  # +-0 divided by a nonzero number (finite or infinite): a zero of sign(a) * sign(b)
        return math.copysign(0.0, _sgn(a) * _sgn(b))
    if b == 0:  # nonzero divided by +-0
        return math.copysign(inf, _sgn(a) * _sgn(b))
    if math.isinf(a):  # +-inf divided by a nonzero finite number
        return math.copysign(inf, _sgn(a) * _sgn(b))
    if math.isinf(b):  # nonzero finite divided by +-inf: +0 for equal signs, -0 otherwise
        return math.copysign(0.0, _sgn(a) * _sgn(b))
    return None  # both finite and nonzero: the floor of the quotient (Python's float //)


def _same(g: float, e: float) -> bool:
    if math.isnan(e):
        return math.isnan(g)
    return g == e and (e != 0 or _sgn(g) == _sgn(e))


@pytest.mark.parametrize("dt", FLOATS, ids=str)
def test_floor_divide_special_cases(xb_target, dt):
    pairs = [(a, b) for a in SPECIAL for b in SPECIAL]
    x = xb_target.asarray(np.array([p[0] for p in pairs], dtype=dt.name))
    y = xb_target.asarray(np.array([p[1] for p in pairs], dtype=dt.name))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = {
            "x // y": (x // y).numpy(),
            "xb.floor_divide": xb.floor_divide(x, y).numpy(),
            "x // scalar": np.array([(x[i : i + 1] // b).numpy()[0] for i, (_, b) in enumerate(pairs)]),
            "scalar // y": np.array([(a // y[i : i + 1]).numpy()[0] for i, (a, _) in enumerate(pairs)]),
        }
        z = x * 1
        z //= y
        results["x //= y"] = z.numpy()
        inplace_scalar = []
        for i, (_, b) in enumerate(pairs):
            w = x[i : i + 1] * 1
            w //= b
            inplace_scalar.append(w.numpy()[0])
        results["x //= scalar"] = np.array(inplace_scalar)
    for how, got in results.items():
        assert got.dtype == np.dtype(dt.name), how
        bad = []
        for (a, b), g in zip(pairs, got.tolist()):
            e = std_floor_divide(a, b)
            if e is None:
                e = float(np.floor_divide(np.float64(a), np.float64(b)))  # finite nonzero: NumPy float64
            if not _same(g, e):
                bad.append(((a, b), g, e))
        assert not bad, f"{how} ({dt}) on {xb_target}: (operands, got, standard) {bad[:6]}"


# ---------------------------------------------------------------------------------------------
# complex expm1 and tanh: the standard's special-case tables (a = real(x), b = imag(x))
# ---------------------------------------------------------------------------------------------
ANY = None  # a component whose sign (or value) the standard leaves unspecified


def _std_expm1_upper(a: float, b: float) -> tuple[float | None, float | None] | None:
    """expm1(a + bj) for b with a clear sign bit (the rest follows from conj symmetry)."""
    if a == 0 and b == 0:
        return (0.0, 0.0)
    if _finite(a) and b == inf:
        return (nan, nan)
    if _finite(a) and math.isnan(b):
        return (nan, nan)
    if a == inf and b == 0:
        return (inf, 0.0)
    if a == -inf and _finite(b):
        return (-1.0, math.copysign(0.0, math.sin(b)) if b != 0 else 0.0)
    if a == inf and _finite(b):  # +inf * cis(b) - 1
        return (math.copysign(inf, math.cos(b)), math.copysign(inf, math.sin(b)))
    if a == -inf and (b == inf or math.isnan(b)):
        return (-1.0, ANY)
    if a == inf and (b == inf or math.isnan(b)):
        return (ANY, nan)  # infinity + NaN j, sign of the real part unspecified
    if math.isnan(a):
        return (nan, 0.0) if b == 0 else (nan, nan)
    return None


def std_expm1(a: float, b: float) -> tuple[float | None, float | None] | None:
    if not math.isnan(b) and _sgn(b) < 0:
        r = _std_expm1_upper(a, -b)
        return None if r is None else (r[0], None if r[1] is None else -r[1])
    return _std_expm1_upper(a, b)


def _std_tanh_quadrant(a: float, b: float) -> tuple[float | None, float | None] | None:
    """tanh(a + bj) for a and b with clear sign bits (the rest: tanh(-x) = -tanh(x), conj symmetry)."""
    if a == 0 and b == 0:
        return (0.0, 0.0)
    if _finite(a) and a != 0 and (b == inf or math.isnan(b)):
        return (nan, nan)
    if a == 0 and (b == inf or math.isnan(b)):
        return (0.0, nan)
    if a == inf and _finite(b) and b > 0:
        return (1.0, ANY)  # "1 + 0j"; C99 gives 0 * sin(2b), whose sign varies
    if a == inf and b == 0:
        return (1.0, 0.0)
    if a == inf and (b == inf or math.isnan(b)):
        return (1.0, ANY)
    if math.isnan(a):
        return (nan, 0.0) if b == 0 else (nan, nan)
    return None


def std_tanh(a: float, b: float) -> tuple[float | None, float | None] | None:
    sa = -1.0 if (not math.isnan(a) and _sgn(a) < 0) else 1.0
    sb = -1.0 if (not math.isnan(b) and _sgn(b) < 0) else 1.0
    r = _std_tanh_quadrant(abs(a) if not math.isnan(a) else a, abs(b) if not math.isnan(b) else b)
    if r is None:
        return None
    re, im = r
    # x = -|a| + |b|j is -conj(|a| + |b|j), so tanh(x) = -conj(tanh(|a| + |b|j)): a's sign goes to the real
    # part, b's to the imaginary part (tanh(-x) = -tanh(x), tanh(conj x) = conj(tanh x))
    re = None if re is None else (re * sa if not math.isnan(re) else re)
    im = None if im is None else (im * sb if not math.isnan(im) else im)
    return (re, im)


GRID = (0.0, -0.0, 1.0, -1.0, 2.0, inf, -inf, nan)
CPLX_TABLES = {"expm1": std_expm1, "tanh": std_tanh}


@pytest.mark.parametrize("name", sorted(CPLX_TABLES))
@pytest.mark.parametrize("dt", [D.complex64, D.complex128], ids=str)
def test_complex_special_cases_of_the_standard(xb_target, name, dt):
    pts = [(a, b) for a in GRID for b in GRID]
    x = xb_target.asarray(np.array([complex(a, b) for a, b in pts], dtype=dt.name))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = getattr(xb, name)(x).numpy()
        ref = getattr(np, name)(np.array([complex(a, b) for a, b in pts], dtype=np.complex128))
    bad = []
    for (a, b), g, r in zip(pts, got.tolist(), ref.tolist()):
        e = CPLX_TABLES[name](a, b)
        if e is None:  # not a special case: NumPy complex128 to the dtype's precision
            tol = 1e-5 if dt is D.complex64 else 1e-12
            if not np.isclose(g, r, rtol=tol, atol=tol):
                bad.append(((a, b), g, r))
            continue
        for gv, ev in ((g.real, e[0]), (g.imag, e[1])):
            if ev is not None and not _same(gv, ev):
                bad.append(((a, b), g, e))
                break
    assert not bad, f"{name} ({dt}) on {xb_target}: (input, got, standard) {bad[:6]}"


# ---------------------------------------------------------------------------------------------
# creation, manipulation and linear algebra
# ---------------------------------------------------------------------------------------------
def test_meshgrid_returns_a_tuple(xb_target):
    a, b = xb_target.asarray([1, 2]), xb_target.asarray([3, 4, 5])
    for indexing in ("xy", "ij"):
        got = xb.meshgrid(a, b, indexing=indexing)
        assert type(got) is tuple and len(got) == 2
        for g, w in zip(got, np.meshgrid([1, 2], [3, 4, 5], indexing=indexing)):
            assert g.tolist() == w.tolist()
    assert xb.meshgrid() == ()


@pytest.mark.parametrize("k", [-(2**63), -(2**63) + 1, -5, -3, -2, 0, 2, 3, 4, 2**31, 2**62, 2**63 - 1, 2**63,
                               2**64])  # fmt: skip
def test_eye_with_any_k(xb_target, k):
    want = np.eye(3, 4, k=k) if abs(k) < 2**63 else np.zeros((3, 4))
    got = xb.eye(3, 4, k=k, backend=xb_target.backend, device=xb_target.device)
    assert got.dtype is xb.float64 and got.tolist() == want.tolist()


@pytest.mark.parametrize("shapes", [((2, 4, 3), (3,)), ((3,), (2, 4, 3)), ((5, 1, 3), (4, 3)), ((3,), (3,)),
                                    ((1, 3), (2, 5, 3))])  # fmt: skip
def test_cross_broadcasts_operands_of_different_ndim(xb_target, shapes):
    rng = np.random.default_rng(0)
    p, q = (rng.integers(-9, 9, s) for s in shapes)
    for dt in (np.int64, np.float32, np.float64):
        got = xb.linalg.cross(xb_target.asarray(p.astype(dt)), xb_target.asarray(q.astype(dt)))
        want = np.cross(p, q)  # exact in int64
        assert got.shape == want.shape and got.dtype is xb.dtype(np.dtype(dt).name)
        assert got.tolist() == want.tolist()


TENSORDOT_CASES = [
    ((), (), 0), ((), (3,), 0), ((2,), (), 0), ((2,), (3,), 0), ((2, 3), (4,), 0),
    ((2, 3), (3, 4), 1), ((2, 3, 4), (3, 4, 5), 2), ((2, 3), (2, 3), 2), ((3,), (3,), 1),
    ((2, 3), (2, 3), ([0, 1], [0, 1])), ((2, 3), (3, 2), ([-1], [0])), ((2, 3, 4), (4, 3), ([1, 2], [1, 0])),
    ((3,), (3,), ([0], [-1])), ((2, 3), (2, 3), ((), ())), ((2, 3), (5,), ([], [])), ((4, 2, 3), (3, 4), ((0, -1), (1, 0))),
    ((2, 3, 4), (2, 3, 4), ([-3, -2, -1], [0, 1, 2])), ((2, 3), (3, 2), ((1, 0), (0, 1))),
]  # fmt: skip


@pytest.mark.parametrize("case", TENSORDOT_CASES, ids=str)
def test_tensordot_every_axes_form(xb_target, case):
    sa, sb, axes = case
    rng = np.random.default_rng(1)
    p, q = rng.integers(-5, 5, sa), rng.integers(-5, 5, sb)
    want = np.tensordot(p, q, axes=axes)  # exact in int64
    for dt in (xb.int64, xb.int32, xb.float64, xb.complex64):
        got = xb.tensordot(xb_target.asarray(p, dtype=dt), xb_target.asarray(q, dtype=dt), axes=axes)
        assert got.dtype is dt and got.shape == want.shape
        assert np.array_equal(np.asarray(got.numpy()), want.astype(dt.name)), (case, dt)


def test_tensordot_hands_backends_one_axes_form(monkeypatch):
    """The shared root of CuPy's ValueError (``([], [])`` is not ``((), ())``) and torch-CUDA's ``permute()``
    TypeError: backends get two non-empty tuples, never lists or an empty contraction."""
    from xbackend._dispatch import get_backend

    be = get_backend("numpy")
    seen = []
    orig = be.la_tensordot

    def spy(a, b, axes):
        seen.append(axes)
        return orig(a, b, axes)

    monkeypatch.setattr(be, "la_tensordot", spy)
    for sa, sb, axes in TENSORDOT_CASES:
        xb.tensordot(xb.ones(sa), xb.ones(sb), axes=axes)
    assert seen and all(type(a) is tuple and len(a) == 2 and all(type(s) is tuple and s for s in a) for a in seen)
