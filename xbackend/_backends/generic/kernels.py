"""Elementwise kernels of the generic Array-API backend: xbackend's declared semantics in the standard's terms.

Design constraint: written only against a standard namespace ``xp`` (no NumPy attribute, no writes into
arrays), so the same emulation serves array-api-strict, JAX and any conforming library. Each special case
mirrors the NumPy backend's (``_backends/numpy/``): what the standard leaves open or a strict library
refuses (bool in comparisons and ``isnan``, ``imag`` of a real array, ``clip`` with ``min > max``), NumPy's
tie rule for signed zeros, the standard's ``floor_divide``/``expm1``/``sign`` special cases, integer
division by zero (0, quietly) and integer negative powers (a typed error).
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from ..._dtypes import DType
from ..._rules import ELEMENTWISE
from ..common.kernels import cbrt, complex_log1p, negative_integer_power, standard_floor_divide

__all__ = ["make_generic_kernel"]

_SCALARS = (bool, int, float, complex)
_CMP = frozenset(["less", "less_equal", "greater", "greater_equal"])


def _weak(xp: Any, fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` with a Python scalar operand made an array of its partner's dtype (xbackend already checked
    that it fits: strict libraries refuse e.g. a Python bool next to an int array)."""

    def call(x: Any, y: Any) -> Any:
        if type(y) in _SCALARS:
            y = xp.asarray(y, dtype=x.dtype)
        elif type(x) in _SCALARS:
            x = xp.asarray(x, dtype=y.dtype)
        return fn(x, y)

    return call


def _int_div(xp: Any, fn: Callable[..., Any]) -> Callable[..., Any]:
    """Integer division (and remainder) by zero is 0, without a warning (NumPy-based libraries warn, JAX
    gives -1 or other values)."""

    def call(x: Any, y: Any) -> Any:
        zero = y == 0
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return xp.where(zero, xp.zeros_like(x), fn(x, xp.where(zero, xp.ones_like(y), y)))

    return call


def _concrete_any(xp: Any, cond: Any) -> bool:
    """``any(cond)``, or False while tracing (``jax.jit``: values unknown, no error can be decided)."""
    try:
        return bool(xp.any(cond))
    except Exception:
        return False


def _complex_from_real(xp: Any, re: Any, im_is_negative_zero: Any, dtype: Any) -> Any:
    """``re + (+-0)j`` exactly (adding ``0j`` would lose infinities' and zeros' signs): the imaginary
    part is ``-0`` where ``im_is_negative_zero``."""
    z = xp.astype(re, dtype)
    return xp.where(im_is_negative_zero, xp.conj(z), z)


def make_generic_kernel(xp: Any, name: str, dt: DType) -> Callable[..., Any]:
    """The kernel for ``name`` on inputs of dtype ``dt`` (already the compute dtype chosen by the core)."""
    fn = _special(xp, name, dt)
    if fn is None:
        fn = getattr(xp, name)
    if ELEMENTWISE.get(name, (1,))[0] == 2:
        return _weak(xp, fn)
    return fn


def _special(xp: Any, name: str, dt: DType) -> Callable[..., Any] | None:  # noqa: C901 - one table of cases
    k = dt.kind
    if k == "b":  # bool: compare and order as 0/1; never NaN or infinite
        if name in _CMP:
            op = getattr(xp, name)
            return lambda x, y: op(xp.astype(x, xp.uint8), xp.astype(y, xp.uint8))
        if name == "isfinite":
            return lambda x: xp.ones(x.shape, dtype=xp.bool)
        if name in ("isinf", "isnan", "signbit"):
            return lambda x: xp.zeros(x.shape, dtype=xp.bool)
    if k == "c" and name == "log1p":
        return lambda z: complex_log1p(xp, z)
    if name == "cbrt":  # beyond the standard (array-api-strict has none), and correctly rounded where a library has one
        root = getattr(xp, "cbrt", None)
        return lambda x: cbrt(xp, x, root)
    if k != "c" and name in ("real", "conj"):
        return lambda x: xp.asarray(x, copy=True)
    if k != "c" and name == "imag":
        return xp.zeros_like
    if k in "biu" and name in ("round", "ceil", "floor", "trunc"):
        return lambda x: xp.asarray(x, copy=True)
    if k in "iu" and name in ("floor_divide", "remainder"):
        return _int_div(xp, getattr(xp, name))
    if k == "f" and name == "floor_divide":
        native = xp.floor_divide
        return lambda x, y: standard_floor_divide(xp, x, y, native)
    if k in "iu" and name == "pow":

        def ipow(x: Any, y: Any) -> Any:
            try:
                r = xp.pow(x, y)
            except (ValueError, TypeError) as exc:  # NumPy-based: ValueError; JAX: TypeError for a negative scalar
                if "negative" not in str(exc):
                    raise
                shape = xp.broadcast_arrays(x, y)[0].shape
                if math.prod(shape):
                    raise negative_integer_power() from exc
                return xp.zeros(shape, dtype=x.dtype)  # nothing to raise to a power (NumPy: empty)
            if dt.kind == "i" and math.prod(r.shape) and _concrete_any(xp, y < 0):  # (JAX gives 0 quietly)
                raise negative_integer_power()
            return r

        return ipow
    if k == "f" and name == "pow":
        return _fpow(xp)
    if k == "f" and name in ("maximum", "minimum"):
        return _zero_tie(xp, getattr(xp, name))
    if k == "c" and name == "sign":
        return _csign(xp)
    if k == "c" and name == "expm1":
        return _cexpm1(xp)
    if name == "clip":
        return _clip(xp, dt)
    return None


def _zero_tie(xp: Any, op: Callable[..., Any]) -> Callable[..., Any]:
    """NumPy's rule on a tie of signed zeros (``maximum(-0.0, 0.0)``): the second argument."""

    def call(x: Any, y: Any) -> Any:
        return xp.where((x == 0) & (y == 0), y, op(x, y))

    return call


def _fpow(xp: Any) -> Callable[..., Any]:
    """``x ** +-0.5`` by C ``pow`` at ``-0`` and ``-inf`` (NumPy-based libraries take a sqrt fast path)."""

    def fpow(x: Any, y: Any) -> Any:
        r = xp.pow(x, y)
        try:
            e = float(y) if y.ndim == 0 else None
        except Exception:  # a traced value (jax.jit): no special case to apply at trace time
            e = None
        if e == 0.5 or e == -0.5:
            neg_inf, zero = x == -math.inf, x == 0
            big, small = (math.inf, 0.0) if e == 0.5 else (0.0, math.inf)
            return xp.where(neg_inf, xp.asarray(big, dtype=r.dtype), xp.where(zero, xp.asarray(small, dtype=r.dtype), r))
        return r

    return fpow


def _clip(xp: Any, dt: DType) -> Callable[..., Any]:
    """``minimum(maximum(x, lo), hi)`` as NumPy computes it (``lo > hi`` gives ``hi``; NaN stays NaN)."""
    mx, mn = _zero_tie(xp, xp.maximum), _zero_tie(xp, xp.minimum)

    def clip(x: Any, lo: Any, hi: Any) -> Any:
        out = x
        for bound, op in ((lo, mx), (hi, mn)):
            if bound is None:
                continue
            if type(bound) in _SCALARS:
                bound = xp.asarray(bound, dtype=x.dtype)
            r = op(out, bound)
            out = xp.where(xp.isnan(out), out, r) if dt.kind == "f" else r
        return out if out is not x else xp.asarray(x, copy=True)

    return clip


def _csign(xp: Any) -> Callable[..., Any]:
    """``x / |x|`` per component, as the NumPy backend computes it: 0 at 0; with an infinite part, that part
    is NaN and a finite one 0 (a complex division would make both NaN)."""

    def csign(x: Any) -> Any:
        a = xp.abs(x)
        re_inf, im_inf = ~xp.isfinite(xp.real(x)), ~xp.isfinite(xp.imag(x))  # (inf or NaN: NaN after / |x|)
        nan = float("nan")

        def c(v: complex) -> Any:
            return xp.asarray(v, dtype=x.dtype)

        inf_case = xp.where(re_inf & im_inf, c(complex(nan, nan)),
                            xp.where(re_inf, c(complex(nan, 0.0)), c(complex(0.0, nan))))  # fmt: skip
        with np.errstate(all="ignore"):
            return xp.where(a == 0, xp.zeros_like(x), xp.where(xp.isinf(a), inf_case, xp.sign(x)))

    return csign


def _cexpm1(xp: Any) -> Callable[..., Any]:
    """The standard's cases NumPy-based libraries miss: on the real axis (``b = +-0``) the real ``expm1``
    with imaginary part ``b``; at ``a = -inf`` exactly ``-1 + 0*cis(b)`` (``-1 +-0j`` for ``b = +-inf``, ``+0j`` for
    NaN); at ``a = +inf`` with ``b`` infinite or NaN, ``inf + NaN j`` (the NumPy backend's rule)."""

    def cexpm1(x: Any) -> Any:
        with np.errstate(all="ignore"):
            r = xp.expm1(x)
            a, b = xp.real(x), xp.imag(x)
            axis = b == 0
            on_axis = _complex_from_real(xp, xp.expm1(a) + 0.0, xp.signbit(b), x.dtype)
            fin = xp.isfinite(b)
            neg = xp.where(fin, xp.signbit(xp.sin(b)), xp.signbit(b) & ~xp.isnan(b))
            minf = _complex_from_real(xp, xp.full_like(a, -1.0), neg, x.dtype)
            pinf = (a == float("inf")) & ~fin
            inf_nan = xp.asarray(complex(float("inf"), float("nan")), dtype=x.dtype)
            return xp.where(axis, on_axis, xp.where(a == -float("inf"), minf, xp.where(pinf, inf_nan, r)))

    return cexpm1
