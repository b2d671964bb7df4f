"""The Array API standard's utility functions (all, any, diff), and the axis helpers the reductions share.

Design constraint: the core decides axes, dtypes and result shapes; backends only run a native
reduction over a *non-empty*, normalised tuple of axes (``torch.sum(x, dim=())`` reduces every axis,
NumPy reduces none, so ``axis=()`` never reaches a backend).

* ``all``/``any``: truthiness is ``x != 0`` (NaN counts as True, as the standard says); an empty
  reduction gives ``True``/``False``.
* ``diff``: the n-th forward difference computed in the promoted dtype of ``x``, ``prepend`` and
  ``append``; bool input gives ``x[i+1] != x[i]`` (as NumPy and torch do); unsigned differences wrap.
  ``prepend``/``append`` may also be Python scalars or 0-d Arrays (broadcast along ``axis``).
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from . import _args as A, _config, _dtypes as D
from ._array import Array, _new
from ._coerce import fit_scalar, py_scalar, to_array
from ._dtypes import DType
from ._errors import ArgumentValueError, PromotionError, ShapeError

__all__ = ["all", "any", "diff"]

_SCALARS = (int, float, complex, bool)


def normalize_axis(axis: Any, ndim: int, fname: str) -> int:
    """One axis in ``[-ndim, ndim)`` as a non-negative int."""
    return A.axis(axis, ndim, fname)


def normalize_axes(axis: Any, ndim: int, fname: str) -> tuple[int, ...]:
    """``None`` -> every axis; an int or tuple -> sorted non-negative axes (repeats raise)."""
    return A.axes(axis, ndim, fname, sort=True)


def reduced_shape(shape: tuple[int, ...], axes: tuple[int, ...], keepdims: bool) -> tuple[int, ...]:
    """The shape of a reduction's result."""
    if keepdims:
        return tuple(1 if i in axes else s for i, s in enumerate(shape))
    return tuple(s for i, s in enumerate(shape) if i not in axes)


def reduce_native(x: Array, name: str, data: Any, cd: DType, axes: tuple[int, ...], keepdims: bool) -> Any:
    """Run ``backend.reduce`` on ``data`` (already of dtype ``cd``); ``axes == ()`` reduces nothing."""
    be = x._be
    if not axes:  # reduce a fresh length-1 axis: no backend ever sees an empty axis tuple
        data = be.reshape(data, tuple(data.shape) + (1,))
        return be.reduce(name, data, cd, (len(data.shape) - 1,), False)
    return be.reduce(name, data, cd, axes, keepdims)


def _truth(x: Array) -> Any:
    """Native bool mask ``x != 0`` (NaN is True)."""
    if x._dt is D.bool:
        return x._data
    return x._be.kernel("not_equal", x._dt)(x._data, 0)


def all(x: Array, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Array:  # noqa: A001
    """Whether every element along ``axis`` is true (non-zero; NaN counts as true); ``True`` when empty.

    >>> import xbackend as xb
    >>> x = xb.asarray([[1, 0], [2, 3]])
    >>> xb.all(x).item(), xb.all(x, axis=1).tolist(), xb.all(xb.asarray([])).item()
    (False, [False, True], True)
    """
    x = x if type(x) is Array else to_array(x)
    axes = normalize_axes(axis, x.ndim, "all")
    keepdims = A.flag(keepdims, "all", "keepdims")
    return _new(reduce_native(x, "all", _truth(x), D.bool, axes, keepdims), D.bool, x._dev, x._be)


def any(x: Array, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Array:  # noqa: A001
    """Whether any element along ``axis`` is true (non-zero; NaN counts as true); ``False`` when empty.

    >>> import xbackend as xb
    >>> x = xb.asarray([[0.0, 0.0], [0.0, float("nan")]])
    >>> xb.any(x).item(), xb.any(x, axis=0, keepdims=True).tolist()
    (True, [[False, True]])
    """
    x = x if type(x) is Array else to_array(x)
    axes = normalize_axes(axis, x.ndim, "any")
    keepdims = A.flag(keepdims, "any", "keepdims")
    return _new(reduce_native(x, "any", _truth(x), D.bool, axes, keepdims), D.bool, x._dev, x._be)


def _edge(x: Array, v: Any, axis: int, name: str) -> Array | Any:
    """``prepend``/``append`` checked against ``x`` (an Array or a Python scalar)."""
    if isinstance(v, np.generic):
        v = py_scalar(v)  # NumPy scalars are weak, like Python scalars
    if type(v) in _SCALARS:
        return v
    v = to_array(v, x)
    if v.ndim == 0:
        return v
    if v.ndim != x.ndim or builtins.any(a != b and i != axis for i, (a, b) in enumerate(zip(v.shape, x.shape))):
        raise ShapeError(
            f"diff(): {name} must have the shape of x {x.shape} except along axis {axis}, got {v.shape}. "
            f"Fix: reshape it, e.g. with xb.expand_dims(), or pass a scalar"
        )
    return v


def diff(x: Array, /, *, axis: int = -1, n: int = 1, prepend: Array | None = None,
         append: Array | None = None) -> Array:  # fmt: skip
    """The ``n``-th forward difference along ``axis`` (``out[i] = x[i+1] - x[i]``, applied ``n`` times).

    ``prepend``/``append`` are joined to ``x`` along ``axis`` first; they may be Arrays with ``x``'s shape
    except along ``axis``, 0-d Arrays or Python scalars. The result has the promoted dtype; bool input
    gives ``x[i+1] != x[i]``.

    >>> import xbackend as xb
    >>> x = xb.asarray([1, 4, 9, 16])
    >>> xb.diff(x).tolist(), xb.diff(x, n=2).tolist(), xb.diff(x, prepend=0).tolist()
    ([3, 5, 7], [2, 2], [1, 3, 5, 7])
    """
    x = x if type(x) is Array else to_array(x)
    if x.ndim == 0:
        raise ShapeError("diff() needs an Array with at least one dimension, got a 0-d Array. Fix: "
                         "xb.diff(xb.reshape(x, (1,)))")  # fmt: skip
    n = A.integer(n, "diff", "n")
    if n < 0:
        raise ArgumentValueError(f"diff(): n must be a non-negative int, got {n!r}")
    ax = normalize_axis(axis, x.ndim, "diff")
    edges = [None if v is None else _edge(x, v, ax, name) for v, name in ((prepend, "prepend"), (append, "append"))]
    dt = x._dt
    for v in edges:
        if v is None:
            continue
        if type(v) is Array:
            p = D.PROMOTION.get((dt, v._dt))
            if p is None:
                raise PromotionError(f"diff(): no common dtype for x ({dt}) and {v._dt}. Fix: cast one explicitly, "
                                     f"e.g. {v._dt!r} edges to x.dtype")  # fmt: skip
            dt = p
        else:
            cfg = _config.current()
            dt = D.scalar_result(dt, v, cfg.default_float, cfg.default_int)
    be = x._be
    data = x._data if x._dt is dt else be.astype(x._data, dt)
    natives: list[Any] = []
    for v in edges:
        if v is None:
            natives.append(None)
            continue
        if type(v) is Array:  # a 0-d edge becomes shape (1, ..., 1); the backend broadcasts it
            nat = v._data if v._dt is dt else be.astype(v._data, dt)
            natives.append(nat if v.ndim else be.reshape(nat, (1,) * x.ndim))
        else:
            shape = list(x._data.shape)  # native sizes, back to the same backend
            shape[ax] = 1
            natives.append(be.full(tuple(shape), fit_scalar(v, dt), dt, x._dev))
    if natives[0] is not None or natives[1] is not None:  # glue the edges on: the backend only differences
        parts = []
        for e in (natives[0], data, natives[1]):
            if e is None:
                continue
            shape = list(x._data.shape)  # native sizes, back to the same backend
            shape[ax] = e.shape[ax]
            parts.append(e if tuple(e.shape) == tuple(shape) else be.broadcast_to(e, tuple(shape)))
        data = be.concat(parts, ax)
    elif n == 0:
        return _new(be.astype(data, dt, copy=True) if data is x._data else data, dt, x._dev, be)
    if n == 0:
        return _new(data, dt, x._dev, be)
    length = data.shape[ax]
    if length is not None and length == length and n >= length:  # n-th differences of fewer than n + 1 values: none
        shape = list(data.shape)                                     # (and no n-fold loop for a huge n)
        shape[ax] = 0
        return _new(be.zeros(tuple(shape), dt, x._dev), dt, x._dev, be)
    return _new(be.diff(data, dt, ax, n), dt, x._dev, be)
