"""Float64 functions that give the same bits on every backend: ``log``, ``exp``, ``cos(2 pi u)``, ``sqrt``.

Design constraint: a portable draw that goes through a transcendental function is bit-identical everywhere only if
that function is. The libraries' own ``log``, ``exp``, ``cos`` and ``sqrt`` are not: they differ by an ulp between
NumPy and torch, and between CPU instruction sets (torch's float64 ``sqrt`` misrounds some inputs on AVX-512). The
functions here use only operations IEEE 754 rounds exactly and every backend implements so: ``+ - *``, ``/`` of two
Arrays, comparisons, ``floor``, ``where``, scaling by powers of two and integer shifts; each runs the same sequence
of them on every backend, so the same input gives the same bits. They are accurate to a few ulps (tests compare
them with ``math``), not correctly rounded, and are written for the ranges the draws need (positive normal inputs
for ``log`` and ``sqrt``).

Two rules keep the sequence the same everywhere: no fused multiply-add (each operation is its own kernel), and no
division by a Python scalar (torch on CUDA turns ``x / c`` into ``x * (1 / c)``): reciprocals are computed on the
host and multiplied.
"""

from __future__ import annotations

import math

from .. import _dtypes as D
from .._array import Array
from .._elementwise import floor
from .._searching import where
from .._dtype_functions import astype

__all__ = ["log", "exp", "cos_2pi", "sqrt"]

#: ln 2 in two parts: ``k * LN2_HI`` is exact for ``|k| < 2**20`` (fdlibm's split)
LN2_HI = 6.93147180369123816490e-01
LN2_LO = 1.90821492927058770002e-10
INV_LN2 = 1.44269504088896338700e00
SQRT2 = 1.4142135623730951
PI_2 = math.pi / 2
#: log(m) = 2 s (1 + s**2/3 + s**4/5 + ...), s = (m - 1)/(m + 1), |s| < 0.172: 12 terms reach 2**-60
LOG_COEFS = tuple(1 / (2 * j + 1) for j in range(12))
#: exp(r) = sum r**j / j!, |r| <= ln(2)/2: 15 terms reach 2**-58
EXP_COEFS = tuple(1 / math.factorial(j) for j in range(15))
#: cos x, sin x / x as polynomials in x**2, 0 <= x <= pi/4: 10 terms each reach 2**-70
COS_COEFS = tuple((-1) ** j / math.factorial(2 * j) for j in range(10))
SIN_COEFS = tuple((-1) ** j / math.factorial(2 * j + 1) for j in range(10))
#: ``exp`` clamps its argument to this range: beyond it the result is 0 or inf anyway
EXP_LIMIT = 1100.0


def _horner(coefs: tuple[float, ...], z: Array) -> Array:
    """``coefs[0] + coefs[1] z + ...``, highest power first, one multiply and one add a step."""
    p = z * coefs[-1] + coefs[-2]
    for c in coefs[-3::-1]:
        p = p * z + c
    return p


def log(x: Array, *, below_one: bool = False) -> Array:
    """Natural log of positive normal float64 values (``below_one``: all in ``[2**-63, 1]``, as ``1 - u`` of a
    uniform; fewer steps). The exponent is found by comparisons and exact power-of-two scaling, the mantissa ``m``
    brought to ``[sqrt(2)/2, sqrt(2))``, then ``e * ln 2 + 2 atanh((m - 1)/(m + 1))`` by its series."""
    m = x
    e = x * 0.0
    if not below_one:
        for k in (512, 256, 128, 64, 32, 16, 8, 4, 2, 1):
            c = m >= 2.0**k
            m = where(c, m * 2.0**-k, m)
            e = where(c, e + k, e)
    for k in (32, 16, 8, 4, 2, 1) if below_one else (512, 256, 128, 64, 32, 16, 8, 4, 2, 1):
        c = m < 2.0 ** (1 - k)
        m = where(c, m * 2.0**k, m)
        e = where(c, e - k, e)
    c = m > SQRT2
    m = where(c, m * 0.5, m)
    e = where(c, e + 1.0, e)
    s = (m - 1.0) / (m + 1.0)
    logm = (s + s) * _horner(LOG_COEFS, s * s)
    return e * LN2_HI + (e * LN2_LO + logm)


def _pow2(k: Array, like: Array) -> Array:
    """``2.0**k`` for an int64 Array ``|k| < 1024`` (products of exact powers of two: always normal)."""
    up = where(k > 0, k, 0)
    down = where(k < 0, -k, 0)
    p = like * 0.0 + 1.0
    for j in range(10):
        p = where(((up >> j) & 1) == 1, p * 2.0 ** (1 << j), p)
        p = where(((down >> j) & 1) == 1, p * 2.0 ** -(1 << j), p)
    return p


def exp(y: Array) -> Array:
    """``e**y`` of float64 values: ``k = round(y / ln 2)``, ``r = y - k ln 2`` (two parts), the series of ``e**r``,
    scaled by ``2**k`` in two exact halves (the last multiply rounds once into subnormals, or overflows to inf)."""
    y = where(y < -EXP_LIMIT, -EXP_LIMIT, where(y > EXP_LIMIT, EXP_LIMIT, y))
    k = floor(y * INV_LN2 + 0.5)
    r = (y - k * LN2_HI) - k * LN2_LO
    p = _horner(EXP_COEFS, r)
    ki = astype(k, D.int64)
    k1 = ki >> 1
    return (p * _pow2(k1, y)) * _pow2(ki - k1, y)


def cos_2pi(u: Array) -> Array:
    """``cos(2 pi u)`` for ``u`` in ``[0, 1)`` (a uniform): the quadrant and the fraction ``f`` from ``4 u``
    (exact), ``f`` reflected into ``[0, 1/2]``, then the series of cos and sin of ``f pi / 2``."""
    t = u * 4.0
    q = floor(t)
    f = t - q
    hi = f > 0.5
    x = where(hi, 1.0 - f, f) * PI_2
    z = x * x
    c = _horner(COS_COEFS, z)
    s = x * _horner(SIN_COEFS, z)
    cos_q, sin_q = where(hi, s, c), where(hi, c, s)
    return where(q == 0.0, cos_q, where(q == 1.0, -sin_q, where(q == 2.0, -cos_q, sin_q)))


def sqrt(x: Array) -> Array:
    """Square root of non-negative float64 values (normal or 0): ``y = exp(log(x) / 2)``, then one Newton step
    ``(y + x / y) / 2``, which brings it within an ulp."""
    pos = x > 0.0
    xs = where(pos, x, 1.0)
    y = exp(log(xs) * 0.5)
    y = (y + xs / y) * 0.5
    return where(pos, y, 0.0)
