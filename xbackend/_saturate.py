"""Float to integer casts, saturating: one answer on every backend where C leaves the cast undefined.

Casting a float that an integer dtype cannot hold (NaN, +-inf, 1e30 to int64, -3e16 to uint8) is undefined in C,
and libraries give whatever their hardware does: NumPy on x86 ``-3.2e16 -> uint8`` is 0, torch 240 (through
int64), a GPU something else. The Array API standard leaves it unspecified. xbackend saturates, as JAX (XLA) and
Rust do: NaN becomes 0, values beyond the dtype's range become its minimum or maximum, and the rest truncate
towards zero as every library does. Only float-to-integer casts pay for it (a few elementwise passes, no
synchronisation, so lazy and GPU Arrays stay as they are).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _dtypes as D

__all__ = ["inner_bounds", "saturating_cast"]


def inner_bounds(src: D.DType, dst: D.DType) -> tuple[float, float]:
    """The smallest and largest values of ``src`` inside ``dst``'s range (its bounds, where ``src`` holds them)."""
    lo, hi = D._INT_RANGE[dst]
    ft = src.dtype.type  # the source's own precision (bfloat16: ml_dtypes', which holding one requires)
    with np.errstate(over="ignore"):  # through float64: ml_dtypes < 0.7 refuses Python ints beyond int64;
        top, bottom = ft(float(hi)), ft(float(lo))  # exact here: a bound is 0, -2**k, or 2**k - 1 (-> 2**k if k > 53)
    # rounded past the range (2**63 - 1 is 2**63 in float64; 65535 is inf in float16): the float just inside
    if not np.isfinite(top) or float(top) > hi:  # (float: exact against an int; ml_dtypes < 0.7 int() overflows)
        top = np.nextafter(top, ft(0))
    if not np.isfinite(bottom) or float(bottom) < lo:
        bottom = np.nextafter(bottom, ft(0))
    return float(bottom), float(top)


def saturating_cast(be: Any, data: Any, src: D.DType, dst: D.DType, dev: Any) -> Any:
    """``data`` (a native array of the float dtype ``src`` on backend ``be``) cast to the integer dtype ``dst``,
    saturating; backend primitives only (elementwise kernels, ``where``, the library's cast of in-range values): the
    generic version (``Backend.saturating_cast``), which NumPy/CuPy and torch override with fewer passes.

    >>> import xbackend as xb
    >>> x = xb.asarray([float("nan"), -1e300, 1e300, -3e16, 2.9])
    >>> saturating_cast(x._be, x._data, x.dtype, xb.uint8, x.device).tolist()
    [0, 0, 255, 0, 2]
    >>> y = xb.asarray([1e19, -1e19])
    >>> saturating_cast(y._be, y._data, y.dtype, xb.int64, y.device).tolist()
    [9223372036854775807, -9223372036854775808]
    """
    lo, hi = D._INT_RANGE[dst]
    lo_f, hi_f = inner_bounds(src, dst)
    clipped = be.kernel("clip", src)(data, lo_f, hi_f)
    inside = be.where(be.kernel("isnan", src)(data), be.zeros((), src, dev), clipped)  # every value in range now
    out = be.astype(inside, dst, False)  # a defined cast
    if hi_f != hi:  # the largest in-range float is below the maximum: values beyond it saturate to the maximum
        out = be.where(be.kernel("greater", src)(data, hi_f), be.full((), hi, dst, dev), out)
    if lo_f != lo:  # (float16 to int64: -inf is the only value below -65504)
        out = be.where(be.kernel("less", src)(data, lo_f), be.full((), lo, dst, dev), out)
    return out
