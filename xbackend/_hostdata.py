"""Python data and host buffers on their way into an Array: xbackend's dtypes for what NumPy inferred, exact ints
beyond int64, range checks that never wrap, typed buffers, and lists of arrays stacked where those arrays live.

Design constraint: host-side checks only (NumPy on the host data ``asarray`` got); what the data becomes on a backend
is ``asarray``'s business (``xbackend/_creation.py``), which calls these.
"""

from __future__ import annotations

import array
from typing import Any

import numpy as np

from . import _config, _dtypes as D
from ._array import Array, _check_partner, _Late, _new
from ._coerce import is_native, weak, wrap_native
from ._dtypes import DType
from ._errors import DomainError, ScalarOverflowError, UnsupportedDTypeError

__all__ = ["host_dtype", "check_range", "exact_ints", "first_leaf", "foreign", "BUFFERS", "ragged", "NARROWER",
           "check_float_to_int", "holds_arrays", "from_arrays"]


def host_dtype(a: np.ndarray, cfg: _config.Config) -> DType:
    """xbackend's dtype for data NumPy inferred from Python objects (defaults, not NumPy's)."""
    k = a.dtype.kind
    if k == "b":
        return D.bool
    if k == "i":
        return cfg.default_int
    if k == "u":
        return D.uint64  # Python ints above int64's range
    if k == "f":
        return cfg.default_float
    if k == "c":
        return cfg.default_complex
    raise UnsupportedDTypeError(f"Unsupported dtype {a.dtype} ({a.dtype.kind!r}): cannot make an Array from it; an Array holds numbers and bools")


# Python ints NumPy inferred as int64 ("i") or uint64 ("u") need a range check only for a narrower target.
NARROWER = {(k, d): not (d is D.int64 and k == "i" or d is D.uint64 and k == "u") for k in "iu"
             for d in (*D.SIGNED, *D.UNSIGNED)}  # fmt: skip
_HUGE = float(1 << 63)


def first_leaf(obj: Any) -> Any:
    """The first scalar of nested Python data (cheap: follows index 0 only)."""
    while type(obj) is list or type(obj) is tuple:
        if not obj:
            return None
        obj = obj[0]
    return obj


def check_range(lo: int, hi: int, dt: DType) -> None:
    dlo, dhi = D._INT_RANGE[dt]
    if lo < dlo or hi > dhi:
        bad = lo if lo < dlo else hi
        wider = "int64" if -(1 << 63) <= bad < 1 << 63 else "uint64" if 0 <= bad < 1 << 64 else "float64"
        note = " (inexact: no integer dtype holds it)" if wider == "float64" else ""
        raise ScalarOverflowError(
            f"Python int {bad} in the data does not fit {dt} (range {dlo}..{dhi}); xbackend never wraps around. "
            f"Fix: pass a dtype that holds it, e.g. xb.asarray(data, dtype=xb.{wider}){note}"
        )


def exact_ints(obj: Any, host: np.ndarray, dt: DType | None) -> np.ndarray:
    """``obj`` as exact integers when it holds only Python ints, some beyond int64 (NumPy made them float64).

    Floats anywhere in the data keep the float64 result; ints beyond uint64 (or mixing signs beyond
    int64) raise :class:`ScalarOverflowError` unless ``dt`` is a float dtype (not called then)."""
    if not host.size or not np.abs(host).max() >= _HUGE:
        return host  # no int beyond int64: NumPy's float64 comes from float data
    leaves = np.asarray(obj, dtype=object).ravel()
    if not all(type(v) is int or type(v) is bool for v in leaves):
        return host
    lo, hi = int(min(leaves)), int(max(leaves))
    target = dt if dt is not None else D.uint64 if lo >= 0 else D.int64
    check_range(lo, hi, target)
    return np.array(obj, dtype=np.uint64 if lo >= 0 else np.int64)


_HOST_MODULES = frozenset({"builtins", "array", "numpy", "ml_dtypes"})


def foreign(t: type) -> bool:
    """An array-like type of a library xbackend does not know (``__array__`` and not a Python/NumPy type)."""
    return (hasattr(t, "__array__") or hasattr(t, "__array_interface__")) and \
        t.__module__.partition(".")[0] not in _HOST_MODULES  # fmt: skip


BUFFERS = (memoryview, bytearray, bytes, array.array)


def ragged(exc: Exception) -> str:
    text = str(exc)
    return "the nested sequences have different lengths" if "inhomogeneous" in text or "sequence" in text else text


def check_float_to_int(host: np.ndarray, dt: DType) -> None:
    """Float data to an integer dtype truncates towards zero (as NumPy and torch do); NaN, infinities and values
    outside the dtype's range have no integer, and raise instead of wrapping (NumPy gives INT_MIN, torch garbage)."""
    if not np.isfinite(host).all():
        raise DomainError(f"cannot convert NaN or an infinity to {dt}: no integer holds it. Fix: replace them first, "
                          f"e.g. xb.where(xb.isfinite(x), x, 0), or keep a floating dtype")  # fmt: skip
    lo, hi = D._INT_RANGE[dt]
    vmin, vmax = float(host.min()), float(host.max())
    if vmin <= lo - 1 or vmax >= hi + 1:
        bad = vmin if vmin <= lo - 1 else vmax
        raise ScalarOverflowError(f"value {bad!r} does not fit {dt} (range {lo}..{hi}); xbackend never wraps around. "
                                  "Fix: clip first, or pass a dtype that holds it")  # fmt: skip


def holds_arrays(obj: Any) -> bool:
    for o in obj:
        if type(o) is Array or (type(o) is list or type(o) is tuple) and holds_arrays(o) or is_native(o):
            return True
    return False


def from_arrays(obj: Any) -> Array:
    """A (nested) sequence holding Arrays or native arrays, stacked on *their* backend and device: nothing goes
    through the host, and arrays of two places are refused with the fix (never converted silently)."""
    from ._manipulation import stack

    def build(o: Any) -> Any:
        if type(o) is Array:
            return o
        if is_native(o):
            return wrap_native(o)
        if type(o) is list or type(o) is tuple:
            parts = [build(i) for i in o]
            anchor = next((p for p in parts if type(p) is Array), None)
            if anchor is None:
                return list(o)  # Python data alone: its parent gives it a place
            for p in parts:
                if type(p) is Array and (p._be is not anchor._be or p._dev is not anchor._dev):
                    _check_partner(anchor, p)
            dt = anchor._dt
            for p in parts:
                if type(p) is Array and p._dt is not dt:
                    dt = D.promote(dt, p._dt)
            like = _new(anchor._data, dt, anchor._dev, anchor._be)
            return stack([p if type(p) is Array else weak(p, like) for p in parts])
        return o

    out = build(obj)
    return out if type(out) is Array else _Late.asarray(out)


