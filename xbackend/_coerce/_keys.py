"""Index keys and ``__setitem__`` values on their way in: host index data moved where the Array lives, Arrays as
their native arrays, values checked against the Array's dtype and rounded to it on the host.

Design constraint: writing is the one place host data moves by itself (``x[0] = np.array(...)`` into a GPU Array);
every other native array must be of the Array's place (the mismatch error otherwise).
"""

from __future__ import annotations

from typing import Any

import numpy as _np

from .. import _assign, _dtypes as D
from .._array import Array, _partners
from .._dispatch import backend_for_type
from .._errors import InvalidIndexError, PromotionError
from ._asarray import asarray
from ._natives import wrap_native
from ._scalars import SCALARS as _SCALARS, fit_scalar, py_scalar, scalar_dtype

__all__ = ["native_key", "setitem_value"]


def native_key(a: Array, key: Any) -> Any:
    """Index keys: Arrays become native arrays of the same backend/device; the rest passes through."""
    t = type(key)
    if t is int or t is slice or key is None or key is Ellipsis:
        return a._be.normalize_key(a._data, key)
    if t is tuple:
        parts = []
        dots = 0
        for k in key:
            if k is Ellipsis:
                dots += 1
            parts.append(native_part(a, k))
        if dots > 1:  # NumPy raises, Dask fails elsewhere, torch accepts it: one answer
            raise InvalidIndexError(f"an index can hold at most one ellipsis (...), got {len(key)} entries with {dots}. "
                                    "Fix: keep one, e.g. x[..., 0]")  # fmt: skip
        return a._be.normalize_key(a._data, tuple(parts))
    return a._be.normalize_key(a._data, native_part(a, key))


def native_part(a: Array, k: Any) -> Any:
    t = type(k)
    if t is int or t is slice or k is None or k is Ellipsis or t is bool:
        return k
    if t is not Array:
        if isinstance(k, _np.generic):
            return py_scalar(k)  # NumPy scalars index like Python ints/bools
        if t is list or isinstance(k, _np.ndarray):
            if a._be.host_index_keys:  # known values stay on the host (a lazy backend keeps shapes known)
                return host_index_data(k)
            k = host_index(a, k)  # host index data: moved to the Array's device, like __setitem__ values
        else:
            be = backend_for_type(t)
            if be is None:
                raise InvalidIndexError(f"only integers, slices, ..., None, lists and integer or bool Arrays are valid "
                                 f"indices, got {t.__name__}")  # fmt: skip
            k = wrap_native(k)
    if k._be is not a._be or k._dev is not a._dev:
        k = _partners(a, k, inplace=True)[1]
    if k._dt.kind not in "iub":
        raise InvalidIndexError(f"index Arrays must be integer or bool, got {k._dt}. Fix: cast, e.g. "
                                "k.astype(xb.int64)")  # fmt: skip
    if k._data.ndim == 0 and k._dt.kind != "b":
        return int(a._be.item(k._data))
    return k._data


def host_index_data(k: Any) -> Any:
    h = _np.asarray(k)
    if h.size == 0 and h.dtype.kind == "f":
        h = h.astype(_np.int64)  # x[[]] selects nothing
    if h.dtype.kind not in "iub":
        raise InvalidIndexError(f"index lists must hold integers or bools, got {h.dtype} values")
    return h


def host_index(a: Array, k: Any) -> Array:
    return asarray(host_index_data(k), backend=a._be.name, device=a._dev)


def setitem_value(a: Array, value: Any) -> Any:
    """The native value to write into ``a``: host data at a's place (``xbackend._coerce``'s rule), lossy casts
    refused, Python numbers rounded to a's dtype on the host (the same on every backend)."""
    t = type(value)
    if t in _SCALARS:
        p = scalar_dtype(a, value)
        if p is not a._dt and not (t is int and a._dt.kind in "fc") and not (t is bool):
            raise PromotionError(
                f"cannot store Python {t.__name__} {value!r} into an Array of dtype {a._dt} without losing information. "
                f"Fix: cast the Array first, e.g. x = x.astype({p!r})"
            )
        return fit_scalar(value, a._dt)
    if t is not Array:
        if isinstance(value, _np.generic):
            return setitem_value(a, py_scalar(value))  # NumPy scalars are weak, like Python scalars
        value = host_value(a, value)
    if value._be is not a._be or value._dev is not a._dev:
        value = _partners(a, value, inplace=True, native=t is not Array)[1]
    if value._dt is not a._dt:
        return _assign.assignment_cast(a, value)
    return value._data


def host_value(a: Array, value: Any) -> Array:
    """A non-Array ``__setitem__`` value as an Array. Writing is the one place host data moves by itself: a NumPy
    array (and Python data) is made where ``a`` lives (``x[0] = np.array([1.0, 2.0])`` into a GPU Array works as
    on the CPU). NumPy arrays keep their dtype (the assignment casts then decide); Python (nested) lists are weak
    like Python scalars - they take ``a``'s dtype when their kind is not higher and their ints fit. A native array of
    another library is as it is (its place is checked by the caller)."""
    if isinstance(value, _np.ndarray):
        return asarray(value, backend=a._be.name, device=a._dev)
    be = backend_for_type(type(value))
    if be is not None:
        return wrap_native(value)  # a native array: same backend and device, or a mismatch error
    if type(value) is list or type(value) is tuple:
        try:
            h = _np.asarray(value)
        except (ValueError, TypeError):
            h = None
        if h is not None and h.dtype.kind in _assign._KIND_RANK:
            d = a._dt
            if _assign._KIND_RANK[h.dtype.kind] > _assign._KIND_RANK[d.kind]:
                raise PromotionError(
                    f"cannot store Python {h.dtype.kind!r}-kind values ({h.dtype}) into an Array of dtype {d} without "
                    f"losing information. Fix: cast the Array first, e.g. x = x.astype(xb.{h.dtype.name})"
                )
            if h.size and h.dtype.kind in "iu" and d.kind in "iu":
                D.check_int_fits(int(h.min()), d)
                D.check_int_fits(int(h.max()), d)
            return asarray(h, dtype=d, backend=a._be.name, device=a._dev)
    return asarray(value, backend=a._be.name, device=a._dev)
