"""The Array API standard's searching functions (2025.12): argmax, argmin, count_nonzero, nonzero,
searchsorted, where.

Design constraint: every index result has the default integer dtype (``int64`` unless
``xb.using(default_int=...)``) on every backend, and every value argument is cast to the result dtype
decided here (promotion table, weak Python scalars) before the backend runs. Complex inputs to the
order-based functions (argmax, argmin, searchsorted) raise: complex numbers have no order.

>>> import xbackend as xb
>>> x = xb.asarray([[3, 1], [0, 7]])
>>> xb.argmax(x, axis=1).tolist(), xb.count_nonzero(x).item()
([0, 1], 3)
>>> [i.tolist() for i in xb.nonzero(x)]
[[0, 0, 1], [0, 1, 1]]
>>> xb.where(x > 2, x, 0.5).tolist()  # a float scalar with an int Array: the default float dtype
[[3.0, 0.5], [0.5, 7.0]]
"""

from __future__ import annotations

from typing import Any, Literal, cast

import numpy as np

from . import _args as A, _config, _dtypes as D
from ._array import Array, _new
from ._coerce import first_array, is_native, placed, py_scalar, scalar_array, scalar_dtype as _scalar_dtype, to_array
from ._errors import ArgumentTypeError, ShapeError, UnsupportedDTypeError
from ._manipulation import _axes, _axis, broadcast_shapes

__all__ = ["argmax", "argmin", "count_nonzero", "nonzero", "searchsorted", "where"]

_SCALARS = (int, float, complex, bool)
_I64 = D.int64


def _index(x: Array, native: Any) -> Array:
    """Wrap an int64 index result of ``x``'s backend, in the default integer dtype."""
    di = _config.current().default_int
    if di is not _I64:
        native = x._be.astype(native, di)
    return _new(native, di, x._dev, x._be)


def _real(x: Array, name: str) -> None:
    if x._dt.kind == "c":
        raise UnsupportedDTypeError(f"{name}() needs a real-valued Array, got {x._dt} (complex numbers have no "
                                    f"order). Fix: pass xb.real(x) or xb.abs(x)")  # fmt: skip


def _arg(name: str, x: Any, axis: int | None, keepdims: bool) -> Array:
    x = x if type(x) is Array else to_array(x)
    _real(x, name)
    keepdims = A.flag(keepdims, name, "keepdims")
    fn = getattr(x._be, name)
    if axis is None:
        if x.size == 0:
            raise ShapeError(f"{name}() of an empty Array (shape {x.shape}) has no index to return. "
                             "Fix: check x.size > 0 first")
        out = fn(x._data, None, False)
        if keepdims and x.ndim:
            out = x._be.reshape(out, (1,) * x.ndim)
        return _index(x, out)
    ax = _axis(axis, x.ndim, name)
    if x.shape[ax] == 0:
        raise ShapeError(f"{name}() along axis {ax} of size 0 (shape {x.shape}) has no index to return. "
                         "Fix: check x.shape[axis] > 0 first")
    return _index(x, fn(x._data, ax, bool(keepdims)))


def argmax(x: Array, /, *, axis: int | None = None, keepdims: bool = False) -> Array:
    """Index of the first maximum (of the flattened Array when ``axis=None``); NaN counts as the maximum.

    >>> import xbackend as xb
    >>> xb.argmax(xb.asarray([1.0, 5.0, 5.0])).item()
    1
    """
    return _arg("argmax", x, axis, keepdims)


def argmin(x: Array, /, *, axis: int | None = None, keepdims: bool = False) -> Array:
    """Index of the first minimum (of the flattened Array when ``axis=None``); NaN counts as the minimum.

    >>> import xbackend as xb
    >>> xb.argmin(xb.asarray([[4, 2], [1, 3]]), axis=0, keepdims=True).tolist()
    [[1, 0]]
    """
    return _arg("argmin", x, axis, keepdims)


def count_nonzero(x: Array, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Array:
    """How many elements are non-zero (``True`` for bool, either part for complex).

    >>> import xbackend as xb
    >>> xb.count_nonzero(xb.asarray([[0, 1], [2, 3]]), axis=0).tolist()
    [1, 2]
    """
    x = x if type(x) is Array else to_array(x)
    axes = _axes(axis, x.ndim, "count_nonzero")
    keepdims = A.flag(keepdims, "count_nonzero", "keepdims")
    return _index(x, x._be.count_nonzero(x._data, axes, keepdims))


def nonzero(x: Array, /) -> tuple[Array, ...]:
    """Indices of the non-zero elements, one Array per dimension, in row-major order.

    The output shape depends on the data (one device synchronisation on a GPU).

    >>> import xbackend as xb
    >>> (i,) = xb.nonzero(xb.asarray([0.0, 2.0, 0.0, -1.0]))
    >>> i.tolist()
    [1, 3]
    """
    x = x if type(x) is Array else to_array(x)
    if x.ndim == 0:
        raise ShapeError("nonzero() of a 0-d Array is not defined. Fix: xb.nonzero(xb.reshape(x, (1,))), or bool(x)")
    return tuple(_index(x, i) for i in x._be.nonzero(x._data))


def searchsorted(x1: Array, x2: Array | int | float, /, *, side: Literal["left", "right"] = "left",
                 sorter: Array | None = None) -> Array:  # fmt: skip
    """Indices where ``x2``'s values would be inserted into the sorted 1-D ``x1`` to keep it sorted.

    ``x1`` and ``x2`` are compared in their promoted dtype (a Python scalar ``x2`` is weak). ``side``
    decides ties: ``"left"`` gives the first suitable index, ``"right"`` the last.

    >>> import xbackend as xb
    >>> xb.searchsorted(xb.asarray([1, 2, 2, 4]), xb.asarray([2, 3])).tolist()
    [1, 3]
    >>> xb.searchsorted(xb.asarray([1, 2, 2, 4]), 2, side="right").item()
    3
    """
    x1 = x1 if type(x1) is Array else to_array(x1)
    if x1.ndim != 1:
        raise ShapeError(f"searchsorted(): x1 must be 1-d, got {x1.ndim}-d. Fix: search a 1-d sorted Array")
    side = A.choice(side, ("left", "right"), "searchsorted", "side")
    be, dev = x1._be, x1._dev
    if isinstance(x2, np.generic):
        x2 = py_scalar(x2)
    if type(x2) in _SCALARS:
        if type(x2) is complex:
            raise UnsupportedDTypeError("searchsorted() needs real values, got a complex x2")
        cd = _scalar_dtype(x1, x2)
        v = scalar_array(x2, cd, be, dev)
    else:
        x2 = to_array(x2, x1)
        cd = x1._dt if x2._dt is x1._dt else D.promote(x1._dt, x2._dt)
        v = x2._data if x2._dt is cd else be.astype(x2._data, cd)
    if cd.kind == "c":
        raise UnsupportedDTypeError(f"searchsorted() needs real-valued Arrays, got {cd} (complex numbers have no "
                                    "order). Fix: search xb.real(x1)")  # fmt: skip
    s = None
    if sorter is not None:
        sorter = placed(sorter, x1)
        if sorter._dt.kind not in "iu" or sorter.shape != x1.shape:
            raise (ArgumentTypeError if sorter._dt.kind not in "iu" else ShapeError)(f"searchsorted() sorter must be an integer Array of shape {x1.shape}, "
                             f"got {sorter._dt} of shape {sorter.shape}")  # fmt: skip
        s = sorter._data
    a = x1._data if x1._dt is cd else be.astype(x1._data, cd)
    return _index(x1, be.searchsorted(a, v, side, s))


def where(condition: Array, x1: Array | int | float | complex | bool, x2: Array | int | float | complex | bool,
          /) -> Array:  # fmt: skip
    """Elements of ``x1`` where ``condition`` is ``True``, else of ``x2`` (all broadcast together).

    ``condition`` must be a bool Array. One of ``x1``/``x2`` may be a Python scalar (weak: it takes the
    other's dtype where it fits); both scalars give the dtype ``xb.asarray([x1, x2])`` has, as NumPy and torch
    do (the standard asks for one Array).

    >>> import xbackend as xb
    >>> xb.where(xb.asarray([True, False]), xb.asarray([1, 2]), xb.asarray([10, 20])).tolist()
    [1, 20]
    >>> r = xb.where(xb.asarray([True, False]), -float("inf"), 0)
    >>> r.dtype, r.tolist()
    (xb.float64, [-inf, 0.0])
    """
    if type(condition) is Array and condition._dt is D.bool and not condition._be.unknown_shapes:
        r = _where_fast(condition, x1, x2)
        if r is not None:
            return r
    if isinstance(x1, np.generic):
        x1 = py_scalar(x1)  # NumPy scalars are weak, like Python scalars
    if isinstance(x2, np.generic):
        x2 = py_scalar(x2)
    s1 = type(x1) in _SCALARS
    s2 = type(x2) in _SCALARS
    if s1 and s2:  # NumPy and torch take two scalars: the dtype xb.asarray([x1, x2]) gets, where condition lives
        where_c = first_array(condition)
        pair = placed([x1, x2], where_c if where_c is not None else to_array(condition))
        x1, x2, s1, s2 = pair[0], pair[1], False, False
    anchor = first_array(x1, x2, condition)
    if anchor is None:  # Python data only: the first array argument decides the place
        anchor = to_array(x2 if s1 else x1)
    c = placed(condition, anchor)
    if c._dt is not D.bool:
        raise UnsupportedDTypeError(f"where() needs a bool condition, got {c._dt}. Fix: pass x != 0 "
                                    "(or xb.astype(c, xb.bool))")  # fmt: skip
    # Arrays and native arrays keep their dtypes; Python data is weak next to them (like a scalar)
    a1 = None if s1 or not (type(x1) is Array or is_native(x1)) else to_array(x1, anchor)
    a2 = None if s2 or not (type(x2) is Array or is_native(x2)) else to_array(x2, anchor)
    if not s1:
        like = a1 if a1 is not None else a2
        x1 = a1 if a1 is not None else to_array(x1, like) if like is not None else placed(x1, anchor)
    if not s2:
        x2 = a2 if a2 is not None else to_array(x2, cast(Array, x1) if not s1 else anchor)
    be, dev = c._be, c._dev
    if s1:
        cd = _scalar_dtype(cast(Array, x2), x1)
    elif s2:
        cd = _scalar_dtype(cast(Array, x1), x2)
    else:
        x1, x2 = cast(Array, x1), cast(Array, x2)  # neither is a scalar here
        cd = x1._dt if x1._dt is x2._dt else D.promote(x1._dt, x2._dt)
    shapes = [tuple(c._data.shape)] + [tuple(a._data.shape) for a in (x1, x2) if type(a) is Array]
    broadcast_shapes(*shapes)  # ValueError with the shapes on every backend
    v1, v2 = cast(Any, x1), cast(Any, x2)  # each an Array or a Python scalar, as s1/s2 say
    a = scalar_array(v1, cd, be, dev) if s1 else (v1._data if v1._dt is cd else be.astype(v1._data, cd))
    b = scalar_array(v2, cd, be, dev) if s2 else (v2._data if v2._dt is cd else be.astype(v2._data, cd))
    return _new(be.where(c._data, a, b), cd, dev, be)


def _where_fast(c: Array, x1: Any, x2: Any) -> Array | None:
    """``where`` of a bool Array and two Arrays of one dtype at its place (or one of them a Python scalar that keeps
    the other's dtype: the 0-d array the general path makes of it): its answer without its steps; None otherwise,
    or when anything fails (the general path then raises the typed error)."""
    be, dev = c._be, c._dev
    t1, t2 = type(x1), type(x2)
    try:
        if t1 is Array:
            if x1._be is not be or x1._dev is not dev:
                return None
            dt = x1._dt
            if t2 is Array:
                if x2._dt is not dt or x2._be is not be or x2._dev is not dev:
                    return None
                b = x2._data
            elif t2 in _SCALARS and _scalar_dtype(x1, x2) is dt:  # a scalar that keeps the Array's dtype
                b = scalar_array(x2, dt, be, dev)
            else:
                return None
            a = x1._data
        elif t2 is Array and t1 in _SCALARS and x2._be is be and x2._dev is dev and _scalar_dtype(x2, x1) is x2._dt:
            dt = x2._dt
            a, b = scalar_array(x1, dt, be, dev), x2._data
        else:
            return None
        return _new(be.where(c._data, a, b), dt, dev, be)
    except Exception:  # noqa: BLE001 - shapes that do not broadcast, ints that do not fit: the general path says it
        return None
