"""Assignment casts: ``x[key] = v`` casts ``v`` to ``x``'s dtype like NumPy and torch, minus the silent losses.

Design constraint: reads only ``_dt``, ``_be``, ``_data`` and ``size`` of the two Arrays it gets, so it
imports no other part of the core but the dtype tables and the error tree (docs/behaviour.md has the rule).
"""

from __future__ import annotations

from typing import Any

from ._dtypes import _INT_RANGE
from ._errors import PromotionError, ScalarOverflowError

__all__ = ["assignment_cast"]

_KIND_RANK = {"b": 0, "i": 1, "u": 1, "f": 2, "c": 3}


def assignment_cast(a: Any, value: Any) -> Any:
    """``value`` cast to ``a``'s dtype for a store, as NumPy and torch cast on assignment, minus the silent
    losses: within a kind (float64 -> float32, int64 -> int8 when every value fits, else
    ScalarOverflowError) and upward across kinds (bool -> anything, int -> float/complex, float -> complex);
    float -> int, complex -> real and anything -> bool raise PromotionError (docs/behaviour.md)."""
    src, dst = value._dt, a._dt
    if _KIND_RANK[src.kind] > _KIND_RANK[dst.kind] or (dst.kind == "b" and src.kind != "b"):
        raise PromotionError(
            f"cannot store {src} values into an Array of dtype {dst}: {src.kind!r}-kind to {dst.kind!r}-kind loses "
            f"information. Fix: convert explicitly, e.g. x[...] = xb.round(v).astype({dst!r}), or cast the Array "
            f"first: x = x.astype({src!r})"
        )
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
    return a._be.astype(value._data, dst)

