"""Kernels written once over a NumPy-like namespace ``xp``, where libraries' own kernels disagree.

Design constraint: one formula on every backend instead of a library's kernel plus a device-only patch. NumPy and
CuPy (``NumpyBackend`` with ``xp`` = ``numpy`` / ``cupy``) run these functions; torch's backend writes the same
formulas in torch (its ``_plain_kernel`` and ``_k_`` methods). The rule, not the library, decides the result, so a
CPU test of the rule is a test of every device (tests/fakecupy.py shows CuPy's kernels would have failed it).

- ``maximum``/``minimum`` of floats: a tie (``-0.0`` vs ``+0.0``) gives the second argument (docs/behaviour.md).
  NumPy's float16 loop gives the first, its SIMD float32/64 loops the second, CUDA's ``max`` orders ``-0.0`` below
  ``+0.0`` (torch-CUDA and CuPy on the H200, 2026-12-04).
- ``clip`` of floats: a tie gives the bound, a NaN bound gives NaN: ``where(x <= lo, lo, x)``, as on torch.
- shifts: a count outside ``[0, bits)`` gives 0 (``>>`` of a negative signed value: -1), NumPy's rule. C leaves it
  undefined; CUDA's ``shr`` keeps a 64-bit count's low 32 bits (CuPy: ``x >> 2**63`` was ``x``).
- float16 ``nextafter`` by bits: CuPy's returns NaN for a non-finite ``x``; NumPy's returns ``x`` for ``x == y``.
- ``cbrt``: correctly rounded from ``|x| ** (1/3)`` where a library has none (torch, array-api-strict), or from the
  library's own root (NumPy, CuPy, JAX), whose last bits depend on the machine.
- ``floor_divide``'s standard special cases and complex ``log1p`` where ``|1 + z|`` overflows (the generic backend
  uses them too).
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from ..._errors import DomainError

__all__ = ["tie_second", "clip_floats", "shift_right", "shift_left", "nextafter16", "standard_floor_divide",
           "complex_log1p", "negative_integer_power", "cbrt"]

_SCALARS = (bool, int, float, complex)


def tie_second(xp: Any, native: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """``native`` (``xp.maximum`` or ``xp.minimum``) with a tie giving the second argument; NaN stays NaN (equal
    never holds for NaN, so ``native``'s NaN is kept).

    >>> f = tie_second(np, np.maximum)
    >>> np.signbit(f(np.array([-0.0, 0.0], np.float16), np.array([0.0, -0.0], np.float16))).tolist()
    [False, True]
    """

    def fn(x: Any, y: Any) -> Any:
        r = native(x, y)
        return xp.where(x == y, xp.asarray(y, dtype=r.dtype) if type(y) in _SCALARS else y, r)

    return fn


def clip_floats(xp: Any) -> Callable[[Any, Any, Any], Any]:
    """``clip`` of a floating array: ``x <= lo`` gives ``lo`` (the bound on a tie), ``x >= hi`` gives ``hi``, a NaN bound
    gives NaN, NaN in ``x`` stays NaN; bounds are None, Python scalars or arrays of ``x``'s dtype.

    >>> np.signbit(clip_floats(np)(np.array([0.0, -0.0, 2.0]), -0.0, 1.0)).tolist()
    [True, True, False]
    """

    def bound(out: Any, b: Any, hit: Callable[[Any, Any], Any]) -> Any:
        if type(b) in _SCALARS:
            if b != b:  # NaN
                return xp.full_like(out, b)
            b = xp.asarray(b, dtype=out.dtype)
            return xp.where(hit(out, b), b, out)
        out = xp.where(hit(out, b), b, out)
        return xp.where(xp.isnan(b), b, out)

    def clip(x: Any, lo: Any, hi: Any) -> Any:
        out = x
        if lo is not None:
            out = bound(out, lo, lambda a, b: a <= b)
        if hi is not None:
            out = bound(out, hi, lambda a, b: a >= b)
        return out if out is not x else x.copy()

    return clip


def _count(xp: Any, y: Any, dtype: Any) -> tuple[Any, Any]:
    """(``y`` as a count array, where it is outside ``[0, bits)``) for shifting an integer array of ``dtype``."""
    bits = 8 * np.dtype(dtype).itemsize
    if type(y) is int:  # a Python int (xbackend checked it fits the dtype): decided on the host
        return y, y < 0 or y >= bits
    big = y >= bits if np.dtype(y.dtype).kind == "u" else (y < 0) | (y >= bits)
    return y, big


def shift_right(xp: Any, native: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """``x >> y`` for integer arrays with NumPy's rule for counts outside ``[0, bits)``: 0, or -1 for a negative
    signed ``x``; either operand may be a Python int.

    >>> shift_right(np, np.right_shift)(np.array([8, 2**63 + 5], np.uint64), np.array([2**63, 1], np.uint64)).tolist()
    [0, 4611686018427387906]
    """

    def fn(x: Any, y: Any) -> Any:
        dt = y.dtype if type(x) is int else x.dtype
        bits = 8 * np.dtype(dt).itemsize
        y, big = _count(xp, y, dt)
        if big is False:
            return native(x, y)
        if big is True:  # every count too large: the sign fill (x >> (bits - 1) is 0 or -1 for each x)
            return native(x, bits - 1) if np.dtype(dt).kind == "i" else xp.zeros_like(native(x, 0))
        r = native(x, xp.where(big, bits - 1, y))  # a valid count everywhere; then the fill where it was not
        return r if np.dtype(dt).kind == "i" else xp.where(big, xp.zeros_like(r), r)

    return fn


def shift_left(xp: Any, native: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """``x << y`` for integer arrays: 0 for counts outside ``[0, bits)``, NumPy's rule.

    >>> shift_left(np, np.left_shift)(np.array([1, 1], np.uint64), np.array([2**63, 3], np.uint64)).tolist()
    [0, 8]
    """

    def fn(x: Any, y: Any) -> Any:
        dt = y.dtype if type(x) is int else x.dtype
        y, big = _count(xp, y, dt)
        if big is False:
            return native(x, y)
        if big is True:
            return xp.zeros_like(native(x, 0))
        r = native(x, xp.where(big, 0, y))
        return xp.where(big, xp.zeros_like(r), r)

    return fn


def nextafter16(xp: Any) -> Callable[[Any, Any], Any]:
    """float16 ``nextafter`` on the bit patterns: the next float16 after ``x`` towards ``y``; ``y`` when ``x == y``
    (``+0`` vs ``-0`` included), NaN when either is NaN, the largest finite value after an infinity.

    >>> r = nextafter16(np)(np.array([np.inf, 0.0, 1.0, -0.0], np.float16), np.array([0.0, -1.0, 2.0, 0.0], np.float16))
    >>> r.tolist() == [65504.0, -2.0**-24, 1 + 2.0**-10, 0.0], bool(np.signbit(r[3]))
    (True, False)
    """

    def fn(x: Any, y: Any) -> Any:
        x = xp.asarray(x, dtype=xp.float16)
        y = xp.asarray(y, dtype=xp.float16)
        x, y = xp.broadcast_arrays(x, y)
        bx = x.view(xp.uint16).astype(xp.int32)
        by = y.view(xp.uint16).astype(xp.int32)
        up = (y > x) == (x >= 0)  # away from zero when moving up from a positive x or down from a negative one
        step = xp.where(up, bx + 1, bx - 1)
        step = xp.where(x == 0, (by & 0x8000) | 1, step)  # from a zero: the smallest subnormal with y's sign
        out = step.astype(xp.uint16).view(xp.float16)
        out = xp.where(x == y, y, out)
        return xp.where(xp.isnan(x) | xp.isnan(y), xp.asarray(np.nan, dtype=xp.float16), out)

    return fn


def standard_floor_divide(xp: Any, x: Any, y: Any, native: Callable[..., Any]) -> Any:
    """Real floating ``x // y`` with the standard's special cases, over any NumPy-like namespace ``xp``.

    The standard's special cases are those of ``floor(x / y)``; NumPy follows Python instead where an
    operand is infinite (``inf // 2`` is NaN, ``2 // -inf`` is -1). ``floor(x / y)`` is infinite or zero
    exactly in those cases (and at zeros, where it is the standard's signed zero), or where ``x / y`` underflowed;
    elsewhere (an underflow included) ``native``'s remainder-corrected quotient stays (``floor(x / y)`` can be off
    by one after rounding). CuPy's backend passes its own NumPy-rule quotient as ``native``.

    >>> standard_floor_divide(np, np.array([np.inf, 2.0, 7.0]), np.array([2.0, -np.inf, 2.0]), np.floor_divide).tolist()
    [inf, -0.0, 3.0]
    """
    with np.errstate(invalid="ignore", divide="ignore", over="ignore", under="ignore"):
        q = xp.floor(xp.divide(x, y))
        # a quotient that underflowed to 0 (x nonzero, y finite: 3e-144 // -1e180) is no special case: -1, as
        # Python's divmod says (tests/test_reference_numeric.py)
        underflow = (q == 0) & (x != 0) & (y * 0 == 0)
        return xp.where((xp.isinf(q) | (q == 0)) & ~underflow, q, native(x, y))


def complex_log1p(xp: Any, z: Any) -> Any:
    """``log1p`` of complex ``z`` where ``|1 + z|`` overflows too, over any standard namespace ``xp``.

    NumPy's complex ``log1p`` gives ``inf`` for ``-1.8e308 - 1.8e308j`` (torch, and the true value: 710.13); there
    ``1 + z`` is exact enough and ``log`` scales the magnitude. The generic backend uses it too (array-api-strict
    computes with NumPy).

    >>> complex_log1p(np, np.array([-1.7976931348623157e308 - 1.7976931348623157e308j, 1j])).real.round(6).tolist()
    [710.129286, 0.346574]
    """
    with np.errstate(over="ignore"):  # the overflow fixed below; NumPy's other warnings (log1p(-1)) stay
        r = xp.log1p(z)
    with np.errstate(all="ignore"):  # the fix-up's are not the user's
        r = xp.where(xp.isinf(xp.real(r)) & xp.isfinite(z), xp.log(1 + z), r)
        # Near 0 NumPy computes log(1 + z): the real part log|1 + z| loses its digits (log1p(1e-20 + 1e-20j) had
        # real part 0, log1p(-1e-8 + 0j) was 2e-16 off; mpmath and torch agree on the true values,
        # tests/test_reference_numeric.py). There log|1 + z| = log1p(a(2 + a) + b^2) / 2 and arg(1 + z) = atan2(b, 1 + a)
        a, b = xp.real(z), xp.imag(z)
        near = (xp.abs(a) < 0.5) & (xp.abs(b) < 0.5)
        one = xp.ones_like(z)
        atan2 = getattr(xp, "atan2", None) or xp.arctan2
        fixed = 0.5 * xp.log1p(a * (2 + a) + b * b) * one + atan2(b, 1 + a) * (one * 1j)
        return xp.where(near, fixed, r)


def negative_integer_power() -> Exception:
    """The one error for an integer raised to a negative integer power, on every backend."""
    return DomainError("integers to negative integer powers are not defined (the result is not an integer). "
                       "Fix: cast to a float dtype first, e.g. x.astype(xb.float64) ** y")


def cbrt(xp: Any, x: Any, root: Any = None) -> Any:
    """The real cube root of floating ``x`` over any namespace ``xp`` with ``abs``, ``pow``, ``where``, ``copysign``,
    ``isfinite``, ``ones_like``, ``full_like`` and ``finfo`` (torch's too), correctly rounded in float32 and float64
    but where the exact root lies within about 2**-50 ulp of a midpoint, so every backend gives the same value:

    1. ``y = |x| ** (1/3)`` (off by up to ~100 ulps: 1/3 is not exact, and the error grows with ``|log x|``), or the
       library's own ``root`` (NumPy's, CuPy's, JAX's: within a few ulps, but which ulps depends on the machine:
       NumPy's SIMD loops give ``cbrt(27.0) == 3.0000000000000004`` with AVX2);
    2. one Newton step whose residual ``|x| - y**3`` is exact (:func:`_refined`, Dekker's two-word products): it
       squares the relative error away (``2**-45`` becomes ``2**-90``), and the correction itself is accurate to
       its last bits, which leaves ``y`` the nearest value of the dtype. Values too small for the residual's low
       words are scaled up by ``2**(3p)`` first (``p`` the dtype's precision) and the root down by ``2**p``, both
       exact; values near the dtype's largest, whose products would overflow, the other way.

    float16, whose range is too narrow for the scaling, takes one plain Newton step, ``y - (y - |x| / y**2) / 3``,
    instead (within 1 ulp), or ``root`` as it is (NumPy computes it in float32 and rounds once). Zeros, infinities
    and NaN are ``x`` itself (the steps never see them: no 0/0).

    >>> cbrt(np, np.array([-27.0, 1e300, 5e-324, -0.0, np.inf, np.nan])).tolist()
    [-3.0, 1e+100, 1.7031839360032603e-108, -0.0, inf, nan]
    >>> cbrt(np, np.array([27.0, -64.0, 0.125, 0.001, 4.419754192226573e17]), root=np.cbrt).tolist()
    [3.0, -4.0, 0.5, 0.1, 761727.0392407258]
    """
    ok = xp.isfinite(x) & (x != 0)
    a = xp.where(ok, xp.abs(x), xp.ones_like(x))
    fi = xp.finfo(x.dtype)
    p = 1 - round(math.log2(float(fi.eps)))  # the precision in bits: 53, 24, 11
    if root is not None and p < 24:
        return xp.where(ok, xp.copysign(root(a), x), x)
    if p >= 24:  # |x| into [smallest normal * 2**(2p), max / 8]: the residual's words neither underflow nor overflow
        small, big = a < float(fi.smallest_normal) * 2.0 ** (2 * p), a > float(fi.max) / 8.0
        a = a * _powers_of_two(xp, a, small, big, 3 * p)
    y = xp.pow(a, 1.0 / 3.0) if root is None else root(a)
    if p >= 24:
        y = _refined(y, a, 2.0 ** ((p + 1) // 2) + 1.0) * _powers_of_two(xp, y, small, big, -p)
    else:
        y = y - (y - a / (y * y)) / 3.0
    return xp.where(ok, xp.copysign(y, x), x)


def _powers_of_two(xp: Any, like: Any, up: Any, down: Any, e: int) -> Any:
    """``2**e`` where ``up``, ``2**-e`` where ``down``, else 1 (an exact scaling factor of ``like``'s dtype)."""
    return xp.where(up, xp.full_like(like, 2.0**e), xp.where(down, xp.full_like(like, 2.0**-e), xp.ones_like(like)))


def _refined(y: Any, a: Any, split: float) -> Any:
    """``y + (a - y**3) / (3 y**2)`` with ``a - y**3`` exact: ``y**2 = p + pe`` and ``p * y = q + qe`` exactly
    (Veltkamp's split by ``split`` = 2**ceil(precision / 2) + 1, then Dekker's products), and ``a - q`` is exact
    as ``q`` is within a factor of 2 of ``a`` (Sterbenz). For ``y`` within a few hundred ulps of the root, the
    result is the nearest value of the dtype; an exact root is returned as it is (its residual is 0).

    >>> _refined(np.array([3.0000000000000004, 0.09999999999999999]), np.array([27.0, 0.001]), 2.0**27 + 1).tolist()
    [3.0, 0.1]
    """
    c = split * y
    yh = c - (c - y)
    yl = y - yh
    p = y * y
    pe = ((yh * yh - p) + 2.0 * yh * yl) + yl * yl
    c = split * p
    ph = c - (c - p)
    pl = p - ph
    q = p * y
    qe = ((ph * yh - q) + ph * yl + pl * yh) + pl * yl
    return y + (((a - q) - qe) - pe * y) / (3.0 * p)
