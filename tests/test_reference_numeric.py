"""Algorithms xbackend computes itself, checked against references that share none of its code (issue 33).

A slip in shared code (``xbackend/_backends/common``, the front end) agrees with itself on every backend, so the
cross-backend tests cannot see it. Here the reference is exact arithmetic - Python's integers, ``fractions.Fraction``
- or ``mpmath`` at 200 bits, and, where xbackend promises NumPy's bits, NumPy's own function on the host. Every
test runs on every installed target (``xbackend.testing.available_targets``); the examples come from hypothesis'
deterministic default profile.
"""

from __future__ import annotations

import cmath
import math
import struct
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import example, given, strategies as st

import xbackend as xb
from xbackend.testing import available_targets

TARGETS = available_targets()
TINY = 2.0**-1074  # the smallest subnormal float64: one "unit" of a subnormal span


def _on(t, values, dtype):
    return xb.asarray(values, dtype=dtype, backend=t.backend, device=t.device)


# --- linspace: NumPy's formula, with the gh-5437 branch where the step rounds to 0 -----------------------------------
def _linspace_error_bound(start: float, stop: float, num: int, endpoint: bool) -> Fraction:
    """How far NumPy's ``i * step + start`` may lie from the exact value: a few units in the last place of the
    endpoints, plus ``i`` times the step's rounding; where the step rounds to 0 (a span a few subnormal units wide,
    NumPy's gh-5437 branch ``i / div * delta``) one subnormal unit."""
    div = num - 1 if endpoint else num
    step = (stop - start) / div
    if step == 0:
        return Fraction(TINY)
    return Fraction(4 * math.ulp(max(abs(start), abs(stop)))) + Fraction(math.ulp(step)) * div / 2


def _exact_linspace(start: float, stop: float, num: int, endpoint: bool) -> list[Fraction]:
    div = num - 1 if endpoint else num
    a, b = Fraction(start), Fraction(stop)
    return [a + (b - a) * i / div for i in range(num)] if div else [a]


_subnormal_span = st.tuples(st.integers(-50, 50), st.integers(1, 6), st.integers(14, 40)).map(
    lambda t: (t[0] * TINY, (t[0] + t[1]) * TINY, t[2]))  # 1-6 units, over twice as many steps: the step rounds to 0
_finite = st.floats(-1e300, 1e300, allow_nan=False, allow_subnormal=True)
_normal_case = st.tuples(_finite, _finite, st.integers(2, 40))


@given(case=_subnormal_span | _normal_case, endpoint=st.booleans())
@example(case=(0.0, 3 * TINY, 20), endpoint=True)
@example(case=(-2 * TINY, 5 * TINY, 33), endpoint=False)
def test_linspace_against_fractions_and_numpys_bits(case, endpoint):
    start, stop, num = case
    exact = _exact_linspace(start, stop, num, endpoint)
    bound = _linspace_error_bound(start, stop, num, endpoint)
    want = np.linspace(start, stop, num, endpoint=endpoint)  # xbackend's documented rule: NumPy's bits
    for t in TARGETS:
        got = xb.linspace(start, stop, num, endpoint=endpoint, backend=t.backend, device=t.device).tolist()
        assert got == want.tolist(), (t, start, stop, num, endpoint)
        worst = max(abs(Fraction(g) - e) for g, e in zip(got, exact))
        assert worst <= bound, (t, start, stop, num, endpoint, float(worst), float(bound))
        if endpoint:
            assert got[-1] == stop and got[0] == start, t


@given(start=st.integers(-(2**60), 2**60).map(lambda k: k * TINY), units=st.integers(2, 9), num=st.integers(6, 64))
def test_linspace_over_a_few_subnormal_units_spreads_the_values(start, units, num):
    """The step rounds to 0 (NumPy gh-5437: over twice as many steps as units): the values still climb from start
    to stop, each within one unit of the exact value, on every target and in complex parts too."""
    num = max(num, 2 * units + 2)
    start = max(min(start, 2.0**-1023), -(2.0**-1023))
    stop = start + units * TINY
    exact = _exact_linspace(start, stop, num, True)
    for t in TARGETS:
        got = xb.linspace(start, stop, num, backend=t.backend, device=t.device).tolist()
        assert all(abs(Fraction(g) - e) <= Fraction(TINY) for g, e in zip(got, exact)), (t, start, units, num)
        assert len(set(got)) == units + 1, (t, got)  # every unit of the span is reached
        z = xb.linspace(complex(start, stop), complex(stop, start), num, backend=t.backend, device=t.device).tolist()
        assert [c.real for c in z] == got, t


@given(start=_finite, stop=_finite, num=st.integers(2, 20))
def test_linspace_float32_is_numpys_float64_rounded(start, stop, num):
    with np.errstate(over="ignore"):  # beyond float32: inf, the cast's rounding
        want = np.linspace(start, stop, num).astype(np.float32).tolist()
    for t in TARGETS:
        got = xb.linspace(start, stop, num, dtype=xb.float32, backend=t.backend, device=t.device).tolist()
        assert got == want, (t, start, stop, num)


# --- arange: exact integers beyond int64, both directions -------------------------------------------------------------
_U64 = 2**64 - 1


@st.composite
def _big_ranges(draw):
    """(start, stop, step, dtype): integer ranges whose values fit the dtype, endpoints and steps beyond int64."""
    dt = draw(st.sampled_from([xb.uint64, xb.int64]))
    lo, hi = (0, _U64) if dt is xb.uint64 else (-(2**63), 2**63 - 1)
    n = draw(st.integers(2, 12))
    start = draw(st.integers(lo, hi))
    descending = draw(st.booleans())
    room = (start - lo) if descending else (hi - start)
    if room < n - 1:
        start, room = (hi, hi - lo) if descending else (lo, hi - lo)
    step = draw(st.integers(1, max(1, room // (n - 1))))
    step = -step if descending else step
    stop = start + step * (n - 1) + (-1 if descending else 1)  # just past the last value
    return start, stop, step, dt


@given(case=_big_ranges())
@example(case=(2**64 - 1, 2**63 - 20, -(2**62), xb.uint64))
@example(case=(2**64 - 1, 0, -(2**63), xb.uint64))
@example(case=(2**63 + 5, 2**63 - 5, -3, xb.uint64))
@example(case=(2**63 - 1, -(2**63) - 1, -(2**64 - 1), xb.int64))
@example(case=(0, 2**64 - 1, 2**63, xb.uint64))
@example(case=(0, 2**62 + 1, 2**62, xb.uint64))  # found by exploring: torch sized it in float64 and refused
@example(case=(-(2**62), 2**62 + 1, 2**61 + 3, xb.int64))
def test_arange_beyond_int64_is_pythons_range(case):
    start, stop, step, dt = case
    want = list(range(start, stop, step))
    for t in TARGETS:
        if not t.holds(dt):
            continue
        got = xb.arange(start, stop, step, dtype=dt, backend=t.backend, device=t.device)
        assert got.dtype is dt and got.tolist() == want, (t, start, stop, step, dt)


# --- float -> integer casts saturate: Python's integers as the oracle, right at each bound ----------------------------
_INTS = [xb.int8, xb.int16, xb.int32, xb.int64, xb.uint8, xb.uint16, xb.uint32, xb.uint64]
_FLOATS = {"float16": "<e", "float32": "<f", "float64": "<d"}


def _held(v: float, name: str) -> float | None:
    """``v`` as the float dtype holds it, or None if it rounds to an infinity."""
    try:
        return struct.unpack(_FLOATS[name], struct.pack(_FLOATS[name], v))[0]
    except OverflowError:
        return None


@pytest.mark.parametrize("dst", _INTS, ids=str)
def test_saturating_casts_at_every_bound(dst):
    """The floats next to each bound of ``dst`` (``nextafter`` both ways, as each float dtype holds them), and the
    float dtype's own extremes: below the bound they truncate towards zero, at or beyond it they are the bound
    (Python's ints decide); infinities are the bounds and NaN is 0 (docs/behaviour.md)."""
    info = xb.iinfo(dst)
    for src in (xb.float16, xb.float32, xb.float64):
        big = float(xb.finfo(src).max)
        candidates = {big, -big, math.nextafter(big, 0.0) if src is xb.float64 else _held(big * (1 - 2**-10), src.name),
                      math.inf, -math.inf}
        for b in (info.min, info.max, info.min - 1, info.max + 1, 0):
            f = float(b)
            for v in (f, math.nextafter(f, math.inf), math.nextafter(f, -math.inf), f + 0.5, f - 0.5, -f):
                h = _held(v, src.name)
                if h is not None:
                    candidates.add(h)
        vals = sorted(candidates) + [math.nan]
        want = [info.max if v >= info.max else info.min if v <= info.min else math.trunc(v) for v in vals[:-1]] + [0]
        for t in TARGETS:
            if t.holds(src) and t.holds(dst):
                got = _on(t, vals, src).astype(dst).tolist()
                assert got == want, (t, src, dst, [(v, g, w) for v, g, w in zip(vals, got, want) if g != w])


# --- uint64 arithmetic (torch has no uint64 kernels: xbackend/_backends/torch/uint.py) --------------------------------
_u64 = st.integers(0, _U64) | st.sampled_from([0, 1, 2, 2**63 - 1, 2**63, 2**63 + 1, 2**64 - 2, _U64, 2**32, 2**32 - 1])
_M = 1 << 64

_U64_OPS = {
    "add": lambda a, b: (a + b) % _M,
    "subtract": lambda a, b: (a - b) % _M,
    "multiply": lambda a, b: (a * b) % _M,
    "floor_divide": lambda a, b: a // b,
    "remainder": lambda a, b: a % b,
    "bitwise_and": lambda a, b: a & b,
    "bitwise_or": lambda a, b: a | b,
    "bitwise_xor": lambda a, b: a ^ b,
    "maximum": max,
    "minimum": min,
    "less": lambda a, b: a < b,
    "greater_equal": lambda a, b: a >= b,
    "equal": lambda a, b: a == b,
}


@given(pairs=st.lists(st.tuples(_u64, _u64), min_size=1, max_size=8), op=st.sampled_from(sorted(_U64_OPS)))
def test_uint64_arithmetic_is_pythons_modulo_2_64(pairs, op):
    if op in ("floor_divide", "remainder"):
        pairs = [(a, b or 1) for a, b in pairs]  # (division by zero: a convention, not arithmetic)
    a, b = [p[0] for p in pairs], [p[1] for p in pairs]
    want = [_U64_OPS[op](x, y) for x, y in pairs]
    for t in TARGETS:
        if not t.holds(xb.uint64):
            continue
        got = getattr(xb, op)(_on(t, a, xb.uint64), _on(t, b, xb.uint64)).tolist()
        assert got == want, (t, op, pairs)


@given(x=st.lists(_u64, min_size=1, max_size=6), k=st.integers(0, 63), e=st.integers(0, 70))
def test_uint64_shifts_powers_and_sums(x, k, e):
    for t in TARGETS:
        if not t.holds(xb.uint64):
            continue
        a = _on(t, x, xb.uint64)
        assert (a >> k).tolist() == [v >> k for v in x], t
        assert (a << k).tolist() == [(v << k) % _M for v in x], t
        assert (a ** e).tolist() == [pow(v, e, _M) for v in x], t
        assert xb.sum(a).item() == sum(x) % _M, t
        assert xb.sort(a).tolist() == sorted(x), t
        assert xb.argmax(a).item() == x.index(max(x)), t


# --- the special-case kernels: floor_divide, remainder, complex log1p / expm1 / sqrt ----------------------------------
_fin = st.floats(-1e300, 1e300, allow_nan=False, allow_subnormal=True)
_nonzero = _fin.filter(lambda v: v != 0)


@given(pairs=st.lists(st.tuples(_fin, _nonzero), min_size=1, max_size=8))
@example(pairs=[(7.0, 2.0), (-7.0, 2.0), (0.0, -2.0), (-0.0, 2.0), (1e300, 1e-300), (5e-324, -1.0), (-1.0, 3.0)])
# x / y overflows in torch's vectorised loop (8 and more elements): its fmod and % were NaN (found by CI's run)
@example(pairs=[(0.0, 1.0)] * 7 + [(1.5772058462018406e195, 8.77349874467111e-114), (2.0, 5e-324), (-1e300, 3e-310)])
def test_float_floor_divide_and_remainder_are_pythons(pairs):
    """NumPy's (Python's) divmod: the remainder exact with the divisor's sign, the quotient remainder-corrected.
    CPython's float ``//`` and ``%`` (Objects/floatobject.c) are the reference, sign of zero included."""
    a, b = [p[0] for p in pairs], [p[1] for p in pairs]
    q = [x // y for x, y in pairs]
    r = [x % y for x, y in pairs]
    for t in TARGETS:
        x, y = _on(t, a, xb.float64), _on(t, b, xb.float64)
        gq, gr = xb.floor_divide(x, y).tolist(), xb.remainder(x, y).tolist()
        assert [(v, math.copysign(1, v)) for v in gq] == [(v, math.copysign(1, v)) for v in q], (t, pairs)
        assert [(v, math.copysign(1, v)) for v in gr] == [(v, math.copysign(1, v)) for v in r], (t, pairs)


def test_float_floor_divide_at_infinities_is_the_standards_floor():
    """Where an operand is infinite the standard's ``floor(x / y)`` holds (Python's divmod says NaN or -1 there): the
    quotient of a finite x by an infinite y is a signed zero, never the -1 of a remainder-corrected quotient."""
    inf = math.inf
    cases = [(2.0, -inf, -0.0), (-2.0, -inf, 0.0), (2.0, inf, 0.0), (-2.0, inf, -0.0), (inf, 2.0, inf),
             (-inf, 2.0, -inf), (1e-300, -inf, -0.0), (-5e-324, inf, -0.0)]  # fmt: skip
    for t in TARGETS:
        got = xb.floor_divide(_on(t, [c[0] for c in cases], xb.float64), _on(t, [c[1] for c in cases], xb.float64))
        assert [(v, math.copysign(1, v)) for v in got.tolist()] == [(c[2], math.copysign(1, c[2])) for c in cases], t


@given(pairs=st.lists(st.tuples(st.integers(-(2**63), 2**63 - 1), st.integers(-(2**63), 2**63 - 1)
                                .filter(lambda v: v != 0)), min_size=1, max_size=8))  # fmt: skip
def test_integer_floor_divide_and_remainder_are_pythons(pairs):
    pairs = [(x, y) for x, y in pairs if not (x == -(2**63) and y == -1)]  # (the one quotient int64 cannot hold)
    if not pairs:
        return
    a, b = [p[0] for p in pairs], [p[1] for p in pairs]
    for t in TARGETS:
        x, y = _on(t, a, xb.int64), _on(t, b, xb.int64)
        assert xb.floor_divide(x, y).tolist() == [u // v for u, v in pairs], t
        assert xb.remainder(x, y).tolist() == [u % v for u, v in pairs], t


mpmath.mp.prec = 200

_COMPLEX_FUNCS = {"log1p": mpmath.log1p, "expm1": mpmath.expm1, "sqrt": mpmath.sqrt}
_EPS = {xb.complex128: 2.0**-52, xb.complex64: 2.0**-23}
_parts = st.floats(-1e300, 1e300, allow_nan=False) | st.floats(-1e-3, 1e-3) | st.sampled_from([0.0, -0.0, -1.0, 1.0])


#: at an infinite input (1e300 held in complex64) mpmath gives NaN parts; C99's special values are cmath's
_C99 = {"log1p": lambda z: cmath.log(1 + z), "sqrt": cmath.sqrt, "expm1": lambda z: cmath.exp(z) - 1}


def _reference(name: str, z: complex) -> complex:
    """``name(z)`` at 200 bits; below the real axis (-0.0 included, which mpmath does not see) by the functions'
    symmetry ``f(conj(z)) == conj(f(z))``, so the branch cuts take the sign of a zero imaginary part."""
    if not cmath.isfinite(z):
        return _C99[name](z)  # expm1's inputs are clipped above: only -inf + y j reaches it (-1 + 0j)
    if math.copysign(1.0, z.imag) < 0:
        return _reference(name, z.conjugate()).conjugate()
    r = _COMPLEX_FUNCS[name](mpmath.mpc(z.real, z.imag))
    return complex(float(r.real), float(r.imag))


@given(zs=st.lists(st.builds(complex, _parts, _parts), min_size=1, max_size=6),
       name=st.sampled_from(sorted(_COMPLEX_FUNCS)), dt=st.sampled_from([xb.complex128, xb.complex64]))
@example(zs=[complex(1e300, 1e300), complex(-1.0, 1e-20), complex(1e-20, 1e-20), complex(-0.5, 0.8660254037844386)],
         name="log1p", dt=xb.complex128)  # fmt: skip
@example(zs=[complex(1e-20, 1e-20), complex(-1e-10, 3.0), complex(700.0, 1.0)], name="expm1", dt=xb.complex128)
# 3.4028235677973366e38 is an infinity in complex64: C99's log(inf + inf j) = inf + pi/4 j (mpmath gave NaN)
@example(zs=[complex(3.4028235677973366e38, 3.4028235677973366e38), complex(-1e300, 1.0)], name="log1p",
         dt=xb.complex64)  # fmt: skip
@example(zs=[complex(3.4028235677973366e38, -1.0), complex(-1e300, 1.0)], name="sqrt", dt=xb.complex64)
@example(zs=[complex(-3.4028235677973366e38, 0.0), complex(-1e300, -2.0)], name="expm1", dt=xb.complex64)
# found by exploring: torch-CPU's complex128 log1p was NaN + NaN j at subnormal parts
@example(zs=[complex(2.225073858507e-311, 2.225073858507e-311), complex(1e-320, -1e-320), complex(-1e-30, 1e-25)],
         name="log1p", dt=xb.complex128)  # fmt: skip
@example(zs=[complex(-1e300, 1e-300), complex(1e300, 1e300), complex(-4.0, -0.0), complex(5e-324, 5e-324)],
         name="sqrt", dt=xb.complex128)  # fmt: skip
def test_complex_kernels_against_mpmath(zs, name, dt):
    """Normwise within a few eps of the 200-bit value (the input as the dtype holds it); an overflowing part is an
    infinity of the right sign."""
    if name == "expm1":
        zs = [complex(min(z.real, 80.0 if dt is xb.complex64 else 700.0), max(-100.0, min(z.imag, 100.0)))
              for z in zs]  # fmt: skip  (beyond: the value overflows; large imaginary parts test libm's sin)
    with np.errstate(over="ignore"):
        held = np.array(zs, dtype=np.complex128).astype(dt.name).tolist()
    refs = [_reference(name, complex(z)) for z in held]
    eps = _EPS[dt]
    for t in TARGETS:
        if not t.holds(dt):
            continue
        got = getattr(xb, name)(_on(t, held, dt)).tolist()
        for z, g, r in zip(held, got, refs):
            if not (math.isfinite(r.real) and math.isfinite(r.imag)):  # each part the special value, or close
                for gp, rp in ((g.real, r.real), (g.imag, r.imag)):
                    assert gp == rp or (math.isfinite(rp) and abs(gp - rp) <= 8 * eps * max(abs(rp), 1.0)), (
                        t, name, z, g, r)  # fmt: skip
                continue
            big = max(abs(r), 2.0**-1022 if dt is xb.complex128 else 2.0**-126)
            if dt is xb.complex64 and abs(r) > 3.4e38:
                continue  # beyond complex64: an infinity is right
            assert abs(complex(g) - r) <= 8 * eps * big, (t, name, dt, z, g, r)


# --- cbrt: the cube root, where a library has none, one Newton step on |x| ** (1/3) (common/kernels.py) ---------------
_CBRT_NP = {xb.float64: np.float64, xb.float32: np.float32, xb.float16: np.float16}


def _ulps_apart(a: float, b: float, np_dt) -> int:
    """Units in the last place of ``np_dt`` between ``a`` and ``b`` (both of that dtype), across zero."""
    bits = 8 * np.dtype(np_dt).itemsize
    u = [int(np.array(v, np_dt).view(f"u{bits // 8}")) for v in (a, b)]
    o = [-(w & ((1 << (bits - 1)) - 1)) if w >> (bits - 1) else w for w in u]  # sign and magnitude -> a line
    return abs(o[0] - o[1])


@given(xs=st.lists(st.floats(allow_nan=False, allow_infinity=False, allow_subnormal=True), min_size=1, max_size=8),
       dt=st.sampled_from(sorted(_CBRT_NP, key=str)))  # fmt: skip
@example(xs=[27.0, -8.0, 0.001, 1e300, -1e-300, 5e-324, 1.7976931348623157e308], dt=xb.float64)
@example(xs=[4.419754192226573e17, 2.2250738585072014e-308, 1e-310], dt=xb.float64)  # np.cbrt 2 ulps off with AVX2
@example(xs=[-27.0, 3.4028234663852886e38, 1e-45, 0.125, 1e-38], dt=xb.float32)  # NumPy's float32 -27: 1 ulp off
@example(xs=[65504.0, 6e-8, -0.001, 27.0], dt=xb.float16)
def test_cbrt_against_mpmath(xs, dt):
    """The 200-bit cube root of the value the dtype holds, rounded to the dtype, on every target (float32 and
    float64; NumPy's own cbrt is off by up to 2 ulps on some machines); float16 within 1 ulp; exact cubes exactly."""
    np_dt = _CBRT_NP[dt]
    with np.errstate(over="ignore"):
        held = [float(v) for v in np.array(xs, dtype=np.float64).astype(np_dt)]
    held = [v for v in held if math.isfinite(v)]
    if not held:
        return
    with mpmath.workprec(200):
        refs = [math.copysign(float(np_dt(float(mpmath.cbrt(abs(mpmath.mpf(v)))))), v) for v in held]
    ulps = 1 if dt is xb.float16 else 0
    for t in TARGETS:
        if not t.holds(dt):
            continue
        got = xb.cbrt(_on(t, held, dt)).tolist()
        for v, g, r in zip(held, got, refs):
            assert _ulps_apart(g, r, np_dt) <= ulps and math.copysign(1.0, g) == math.copysign(1.0, v), (t, dt, v, g, r)
            if v in (27.0, -8.0, 0.125):
                assert g == r, (t, dt, v, g)


def test_cbrt_special_values_and_integer_cubes_on_every_target():
    specials = [0.0, -0.0, math.inf, -math.inf, math.nan]
    for t in TARGETS:
        got = xb.cbrt(_on(t, specials, xb.float64)).tolist()
        assert [math.copysign(1.0, g) for g in got[:4]] == [1.0, -1.0, 1.0, -1.0] and got[2:4] == [math.inf, -math.inf]
        assert math.isnan(got[4]), t
        cubes = xb.cbrt(_on(t, [k**3 for k in range(-60, 61)], xb.int64))  # integers: the default float dtype
        assert cubes.dtype is xb.float64 and cubes.tolist() == [float(k) for k in range(-60, 61)], t


# --- cross and matrix_rank --------------------------------------------------------------------------------------------
_i = st.integers(-(2**20), 2**20)


@given(a=st.lists(st.tuples(_i, _i, _i), min_size=1, max_size=5), b=st.lists(st.tuples(_i, _i, _i), min_size=1,
       max_size=5), dt=st.sampled_from([xb.int64, xb.float64, xb.int32]))  # fmt: skip
def test_cross_is_the_exact_determinant_formula(a, b, dt):
    n = min(len(a), len(b))
    a, b = a[:n], b[:n]
    if dt is xb.int32:
        a = [tuple(v % 1000 for v in u) for u in a]
        b = [tuple(v % 1000 for v in u) for u in b]
    want = [[u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]] for u, v in zip(a, b)]
    for t in TARGETS:
        got = xb.linalg.cross(_on(t, a, dt), _on(t, b, dt)).tolist()
        assert got == ([[float(c) for c in w] for w in want] if dt is xb.float64 else want), (t, dt)
        got0 = xb.linalg.cross(_on(t, [list(c) for c in zip(*a)], dt), _on(t, [list(c) for c in zip(*b)], dt), axis=-2)
        assert got0.T.tolist() == got, t


def _exact_rank(rows: list[list[int]]) -> int:
    m = [[Fraction(v) for v in r] for r in rows]
    rank, col = 0, 0
    ncols = len(m[0]) if m else 0
    while rank < len(m) and col < ncols:
        piv = next((i for i in range(rank, len(m)) if m[i][col] != 0), None)
        if piv is None:
            col += 1
            continue
        m[rank], m[piv] = m[piv], m[rank]
        for i in range(len(m)):
            if i != rank and m[i][col] != 0:
                f = m[i][col] / m[rank][col]
                m[i] = [x - f * y for x, y in zip(m[i], m[rank])]
        rank += 1
        col += 1
    return rank


@st.composite
def _low_rank(draw):
    n, m, r = draw(st.integers(1, 5)), draw(st.integers(1, 5)), draw(st.integers(0, 5))
    small = st.integers(-4, 4)
    b = [[draw(small) for _ in range(r)] for _ in range(n)]
    c = [[draw(small) for _ in range(m)] for _ in range(r)]
    return [[sum(b[i][k] * c[k][j] for k in range(r)) for j in range(m)] for i in range(n)]


@given(rows=_low_rank(), k=st.sampled_from([0, -1000, -600, -60, 60, 600, 1000]), cplx=st.booleans())
def test_matrix_rank_is_the_exact_rank_at_every_scale(rows, k, cplx):
    """Scaling by a power of two changes no rank: the exact rank (Gaussian elimination in fractions) at 2**k for k
    from -1000 to 1000, the largest entries beyond 1e300 included (a singular value that overflowed gave rank 0)."""
    want = _exact_rank(rows)
    scale = 2.0**k
    vals = [[v * scale for v in r] for r in rows]
    if cplx:
        vals = [[complex(0, v) for v in r] for r in vals]
    dt = xb.complex128 if cplx else xb.float64
    for t in TARGETS:
        got = xb.linalg.matrix_rank(_on(t, vals, dt)).item()
        assert got == want, (t, rows, k, cplx)


def test_matrix_rank_near_the_largest_float():
    rows = [[1.7e308, 0.0], [0.0, 1.7e308]]
    for t in TARGETS:
        assert xb.linalg.matrix_rank(_on(t, rows, xb.float64)).item() == 2, t
        big = [[complex(0, 1.7e308), 0j], [0j, complex(0, -1e308)]]
        assert xb.linalg.matrix_rank(_on(t, big, xb.complex128)).item() == 2, t
