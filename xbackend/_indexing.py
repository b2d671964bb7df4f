"""The Array API standard's indexing functions (2025.12): take, take_along_axis.

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

from ._array import Array, _check_partner, _new
from ._manipulation import _arr, _axis, broadcast_shapes

__all__ = ["take", "take_along_axis"]


def _indices(x: Array, indices: Any, name: str) -> Array:
    i = _arr(indices, name)
    if i._be is not x._be or i._dev is not x._dev:
        _check_partner(x, i)
    if i._dt.kind not in "iu":
        raise TypeError(f"{name}() needs integer indices, got {i._dt}; for a bool mask use x[mask]")
    return i


def take(x: Array, indices: Array, /, *, axis: int | None = None) -> Array:
    """Elements of ``x`` at ``indices`` along ``axis`` (optional for 1-D ``x`` only).

    The result has ``x``'s shape with ``axis`` replaced by ``indices``' shape.

    >>> import xbackend as xb
    >>> xb.take(xb.asarray([1.0, 2.0, 3.0]), xb.asarray([0, 0, 2])).tolist()
    [1.0, 1.0, 3.0]
    """
    x = _arr(x, "take")
    i = _indices(x, indices, "take")
    if x.ndim == 0:
        raise ValueError("take() needs an Array with at least one dimension, got a 0-d Array")
    if axis is None:
        if x.ndim != 1:
            raise ValueError(f"take() needs axis= for a {x.ndim}-D Array (axis is optional for 1-D only)")
        ax = 0
    else:
        ax = _axis(axis, x.ndim, "take")
    if i.ndim == 0:
        raise ValueError("take() needs 1-D indices, got a 0-d Array; use xb.reshape(indices, (1,))")
    return x[(slice(None),) * ax + (i,)]


def take_along_axis(x: Array, indices: Array, /, *, axis: int = -1) -> Array:
    """Pick ``x``'s elements at ``indices`` along ``axis``; the other axes broadcast.

    ``indices`` has as many dimensions as ``x`` (e.g. the output of ``xb.argsort``).

    >>> import xbackend as xb
    >>> x = xb.asarray([[3, 1, 2]])
    >>> xb.take_along_axis(x, xb.asarray([[1, 2, 0]]), axis=-1).tolist()
    [[1, 2, 3]]
    """
    x = _arr(x, "take_along_axis")
    i = _indices(x, indices, "take_along_axis")
    if x.ndim == 0 or i.ndim != x.ndim:
        raise ValueError(f"take_along_axis() needs indices with as many dimensions as x (at least 1), got "
                         f"{i.ndim}-D indices for a {x.ndim}-D Array")  # fmt: skip
    ax = _axis(axis, x.ndim, "take_along_axis")
    xs, js = list(x._data.shape), list(i._data.shape)
    xs[ax] = js[ax] = 1
    try:
        broadcast_shapes(tuple(xs), tuple(js))
    except ValueError:
        raise ValueError(f"take_along_axis(): shapes {x.shape} and {i.shape} do not broadcast outside axis "
                         f"{ax}") from None  # fmt: skip
    if x.shape[ax] == 0 and i.shape[ax] != 0:
        raise IndexError(f"take_along_axis(): cannot take from axis {ax} of size 0")
    return _new(x._be.take_along_axis(x._data, i._data, ax), x._dt, x._dev, x._be)
