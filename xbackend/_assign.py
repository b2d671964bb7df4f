"""Assignment casts: ``x[key] = v`` casts ``v`` to ``x``'s dtype like NumPy and torch, minus the silent losses.

Design constraint: reads only ``_dt``, ``_be``, ``_data`` and ``size`` of the two Arrays it gets, so it
imports no other part of the core but the dtype tables and the error tree (docs/behaviour.md has the rule). A
narrowing float store rounds, and raises where a finite value would become infinite (docs/interchange.md).
"""

from __future__ import annotations

from typing import Any

import numpy as _np

from . import _dtypes as D
from ._dtypes import _INT_RANGE
from ._errors import PromotionError, ScalarOverflowError

__all__ = ["assignment_cast"]

_KIND_RANK = {"b": 0, "i": 1, "u": 1, "f": 2, "c": 3}
#: the largest finite value of each floating dtype (complex: per component)
_FLOAT_MAX = {D.float16: 65504.0, D.bfloat16: 3.3895313892515355e38, D.float32: 3.4028234663852886e38,
              D.float64: 1.7976931348623157e308, D.complex64: 3.4028234663852886e38,
              D.complex128: 1.7976931348623157e308}  # fmt: skip


def assignment_cast(a: Any, value: Any) -> Any:
    """``value`` cast to ``a``'s dtype for a store, as NumPy and torch cast on assignment, minus the silent
    losses: within a kind (float64 -> float32, int64 -> int8 when every value fits, else
    ScalarOverflowError) and upward across kinds (bool -> anything, int -> float/complex, float -> complex);
    float -> int, complex -> real and anything -> bool raise PromotionError (docs/behaviour.md)."""
    src, dst = value._dt, a._dt
    if _KIND_RANK[src.kind] > _KIND_RANK[dst.kind] or (dst.kind == "b" and src.kind != "b"):
        raise PromotionError(
            f"cannot store {src} values into an Array of dtype {dst}: {src.kind!r}-kind to {dst.kind!r}-kind loses "
            f"information. Fix: convert explicitly, e.g. x[...] = xb.round(xb.asarray(v, device=x.device))"
            f".astype({dst!r}), or cast the Array first: x = x.astype({src!r})"
        )  # (xb.asarray(v, device=x.device): v may be NumPy data, and x a torch or CuPy Array)
    if src.kind in "iu" and dst.kind in "iu" and value.size:
        slo, shi = _INT_RANGE[src]
        lo, hi = _INT_RANGE[dst]
        if slo < lo or shi > hi:  # narrowing: every value must fit (one reduction; a sync on a GPU)
            be, flat = value._be, value._be.reshape(value._data, (-1,))
            vmin, vmax = (int(be.item(be.reduce(r, flat, src, (0,), False))) for r in ("min", "max"))
            if vmin < lo or vmax > hi:
                raise ScalarOverflowError(
                    f"cannot store {src} values in {vmin}..{vmax} into an Array of dtype {dst} (range {lo}..{hi}); xbackend "
                    f"never wraps around. Fix: clip first, e.g. x[...] = xb.clip(xb.asarray(v, device=x.device), {lo}, "
                    f"{hi}), or cast the Array: x = x.astype({src!r})"
                )
    if src.kind in "fc" and _FLOAT_MAX[dst] < _FLOAT_MAX[src] and value.size:
        with _np.errstate(over="ignore", invalid="ignore"):  # the check says it, once, on every backend (Dask:
            out = a._be.astype(value._data, dst)  # the cast runs when the check computes)
            _check_float_fits(a._be, value._data, src, out, dst)
        return out
    return a._be.astype(value._data, dst)


def _check_float_fits(be: Any, v: Any, src: Any, out: Any, dst: Any) -> None:
    """A float store that narrows (float64 into float32) rounds, as NumPy and torch round; a finite value beyond
    ``dst``'s range would become infinite, and that loss raises (one reduction: a sync on a GPU, as for ints)."""
    new_inf = be.kernel("isinf", dst)(out)
    old_inf = be.kernel("isinf", src)(v)
    grew = be.kernel("not_equal", D.bool)(new_inf, old_inf)
    if be.item(be.reduce("any", be.reshape(grew, (-1,)), D.bool, (0,), False)):
        hi = _FLOAT_MAX[dst]
        raise ScalarOverflowError(
            f"cannot store {src} values beyond {dst}'s range (+-{hi:.7g}) into an Array of dtype {dst}: they would "
            f"become infinite. Fix: clip first, e.g. x[...] = xb.clip(xb.asarray(v, device=x.device), -{hi!r}, "
            f"{hi!r}), or cast the Array: x = x.astype({src!r})"
        )

