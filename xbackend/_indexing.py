"""Indexing: ``x[key]`` and ``x[key] = value`` (the Array's ``__getitem__``/``__setitem__``), and the Array API
standard's indexing functions (2025.12): take, take_along_axis.

Design constraint: one declared behaviour for what the standard leaves open. Negative indices count
from the end; out-of-bounds indices raise ``IndexError`` on every backend (CuPy would wrap them around,
torch on CUDA would assert). ``take`` is ``x[..., indices, ...]`` along one axis, so it shares
``Array.__getitem__``'s checks.

>>> import xbackend as xb
>>> x = xb.asarray([[10, 20, 30], [40, 50, 60]])
>>> xb.take(x, xb.asarray([2, -3]), axis=1).tolist()
[[30, 10], [60, 40]]
>>> xb.take_along_axis(x, xb.asarray([[1], [0]]), axis=1).tolist()
[[20], [40]]
"""

from __future__ import annotations

from typing import Any

from . import _args as A
from ._array import MIXED_PLACES, Array, _alloc, _new
from ._boundary import index_failed, setitem_failed
from ._coerce import index_array, native_key, setitem_value, to_array
from ._errors import ArgumentValueError, BackendMismatchError, IndexOutOfRangeError, ShapeError, UnsupportedDTypeError
from ._manipulation import broadcast_shapes

__all__ = ["take", "take_along_axis"]


# --- x[key] and x[key] = value: the Array's methods (xbackend/_assemble.py puts them on it) ------------------------
def getitem(self: Array, key: Any) -> Array:
    """``x[key]`` (``Array.__getitem__``): a step-less slice or an int on its fast path, every other key through
    the way in (``native_key``); a native failure becomes its typed error."""
    be = self._be
    t = type(key)  # a step-less slice first: x[1:-1] is the commonest key
    if (t is slice and key.step is None or t is int) and be.native_basic_indexing:
        out = _alloc()
        try:  # x[i] of a 1-d NumPy array is a scalar; x[i, ...] the 0-d view every other library returns
            out._data = self._data[key] if t is slice or be.int_key_view else self._data[key, ...]
        except Exception as exc:  # free while nothing is raised
            index_failed(self, key, exc)
            raise
        out._dt = self._dt
        out._dev = self._dev
        out._be = be
        return out
    try:
        nkey = native_key(self, key)
        return _new(be.getitem(self._data, nkey), self._dt, self._dev, be)
    except Exception as exc:  # free while nothing is raised
        rule = MIXED_PLACES.get()
        if rule is not None and isinstance(exc, BackendMismatchError):  # inside xb.grad: c[k], c a closure and k
            c = rule.rebase(self)  # made from the differentiated Arrays, reads c as a constant on the engine
            if c is not self:
                return getitem(c, key)
        index_failed(self, key, exc)
        raise


def setitem(self: Array, key: Any, value: Any) -> None:
    """``x[key] = value`` (``Array.__setitem__``): the key and the value through the way in, the write by the
    backend (an immutable library's returns the updated array, which the Array then holds)."""
    nkey = native_key(self, key)
    v = setitem_value(self, value)
    try:
        new = self._be.setitem(self._data, nkey, v)
    except Exception as exc:  # free while nothing is raised
        setitem_failed(self, key, nkey, v, exc)
        raise
    if new is not None:  # a library of immutable arrays (JAX): the backend returns the updated one
        self._data = new


# --- take, take_along_axis -----------------------------------------------------------------------------------------
def _indices(x: Array, indices: Any, name: str) -> Array:
    i = index_array(indices, x)
    if i._dt.kind not in "iu":
        raise UnsupportedDTypeError(f"{name}() needs integer indices, got {i._dt}. Fix: for a bool mask use x[mask]; "
                                    "else cast, e.g. indices.astype(xb.int64)")  # fmt: skip
    return i


def take(x: Array, indices: Array, /, *, axis: int | None = None) -> Array:
    """Elements of ``x`` at ``indices`` along ``axis`` (optional for 1-D ``x`` only).

    The result has ``x``'s shape with ``axis`` replaced by ``indices``' shape. ``indices`` may be a list: it is
    made where ``x`` lives.

    >>> import xbackend as xb
    >>> xb.take(xb.asarray([1.0, 2.0, 3.0]), xb.asarray([0, 0, 2])).tolist()
    [1.0, 1.0, 3.0]
    """
    x = to_array(x)
    i = _indices(x, indices, "take")
    if x.ndim == 0:
        raise ShapeError("take(): x is a 0-d Array, which has no axis to take from. Fix: reshape it, e.g. "
                         "xb.reshape(x, (1,))")  # fmt: skip
    if axis is None:
        if x.ndim != 1:
            raise ArgumentValueError(f"take(): axis is required for a {x.ndim}-d Array (optional for 1-d only). "
                                     "Fix: pass axis=")  # fmt: skip
        ax = 0
    else:
        ax = A.axis(axis, x.ndim, "take")
    if i.ndim != 1:
        raise ShapeError(f"take(): indices must be 1-d, got {i.ndim}-d. Fix: xb.reshape(indices, (-1,))")
    return x[(slice(None),) * ax + (i,)]


def take_along_axis(x: Array, indices: Array, /, *, axis: int = -1) -> Array:
    """Pick ``x``'s elements at ``indices`` along ``axis``; the other axes broadcast.

    ``indices`` has as many dimensions as ``x`` (e.g. the output of ``xb.argsort``).

    >>> import xbackend as xb
    >>> x = xb.asarray([[3, 1, 2]])
    >>> xb.take_along_axis(x, xb.asarray([[1, 2, 0]]), axis=-1).tolist()
    [[1, 2, 3]]
    """
    x = to_array(x)
    i = _indices(x, indices, "take_along_axis")
    if x.ndim == 0 or i.ndim != x.ndim:
        raise ShapeError(f"take_along_axis(): indices need as many dimensions as x (at least 1), got {i.ndim}-d "
                         f"indices for a {x.ndim}-d Array")  # fmt: skip
    ax = A.axis(axis, x.ndim, "take_along_axis")
    xs, js = list(x._data.shape), list(i._data.shape)
    xs[ax] = js[ax] = 1
    if _broadcasts(tuple(xs), tuple(js)) is None:
        raise ShapeError(f"take_along_axis(): shapes {x.shape} and {i.shape} cannot be broadcast together outside "
                         f"axis {ax}")  # fmt: skip
    n = x.shape[ax]
    if i.size and n is not None:
        lo, hi = int(i._be.item(i._be.reduce("min", i._be.reshape(i._data, (-1,)), i._dt, (0,), False))), int(
            i._be.item(i._be.reduce("max", i._be.reshape(i._data, (-1,)), i._dt, (0,), False)))  # fmt: skip
        if lo < -n or hi >= n:
            bad = lo if lo < -n else hi
            raise IndexOutOfRangeError(f"index {bad} is out of range for axis {ax} of size {n} (a {x._be.name} Array "
                                       f"of shape {x.shape}). Fix: use an index in {-n}..{n - 1}")  # fmt: skip
    return _new(x._be.take_along_axis(x._data, i._data, ax), x._dt, x._dev, x._be)


def _broadcasts(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...] | None:
    try:
        return broadcast_shapes(a, b)
    except ValueError:
        return None
