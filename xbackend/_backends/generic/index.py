"""NumPy's advanced indexing for the generic Array-API backend, written with the standard's ``take``.

Design constraint: the standard specifies integer-array indexing only with integers around it and a
boolean mask only as the sole index, and no write through an index array at all; NumPy (xbackend's
declared semantics) mixes them freely. Keys arrive *complete* (one item per axis, no ``...``; see
``GenericBackend.normalize_key``). Reading: basic indexing first, then one ``take`` on the index axes
flattened together. Writing: the same region is read, updated by a scatter built from a stable sort
(the last write to a position wins, as in NumPy), and written back with basic indexing only.
Out-of-bounds index values raise ``IndexError`` here (JAX would clamp them silently).
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["fancy_get", "fancy_set", "is_array"]


def is_array(k: Any) -> bool:
    return hasattr(k, "shape") and hasattr(k, "dtype")


def _plan(xp: Any, x: Any, key: tuple[Any, ...], drop_none: bool) -> tuple[tuple[Any, ...], list[int], list[Any]]:
    """(basic key, axes of the region that index arrays select, the index arrays broadcast, in bounds)."""
    basic: list[Any] = []
    axes: list[int] = []
    sources: list[int] = []  # the axis of x each index array indexes (for error messages)
    arrays: list[Any] = []
    ax = 0  # axis of the region
    src = 0  # axis of x
    for k in key:
        if k is None:
            if not drop_none:
                basic.append(None)
                ax += 1
            continue
        if type(k) is slice:
            basic.append(k)
        elif type(k) is int:
            basic.append(slice(None))
            axes.append(ax)
            sources.append(src)
            arrays.append(xp.asarray(k, dtype=xp.int64))
        elif k.dtype == xp.bool and k.ndim == 0:  # a new axis that selects all (True) or nothing (False)
            basic.append(None)
            axes.append(ax)
            sources.append(src)
            arrays.append(xp.zeros((1 if bool(k) else 0,), dtype=xp.int64))
            ax += 1
            continue
        elif k.dtype == xp.bool:
            basic += [slice(None)] * k.ndim
            for j, nz in enumerate(xp.nonzero(k)):
                axes.append(ax + j)
                sources.append(src + j)
                arrays.append(nz)
            ax += k.ndim
            src += k.ndim
            continue
        else:
            basic.append(slice(None))
            axes.append(ax)
            sources.append(src)
            arrays.append(xp.astype(k, xp.int64))
        ax += 1
        src += 1
    region_shape = x[tuple(basic)].shape if basic else x.shape
    arrays = list(xp.broadcast_arrays(*arrays)) if len(arrays) > 1 else arrays
    for i, (a, k) in enumerate(zip(axes, arrays)):
        n = region_shape[a]
        if math.prod(k.shape) and bool(xp.any((k < -n) | (k >= n))):
            flat = xp.reshape(k, (-1,))
            bad = int(flat[(flat < -n) | (flat >= n)][0])
            raise IndexError(f"index {bad} is out of bounds for axis {sources[i]} with size {n}")
        arrays[i] = xp.where(k < 0, k + n, k)
    return tuple(basic), axes, arrays


def _flat_index(xp: Any, shape: tuple[int, ...], axes: list[int], arrays: list[Any]) -> Any:
    """The index arrays as one flat index into the index axes taken together (row-major)."""
    flat = xp.zeros(arrays[0].shape, dtype=xp.int64)
    for a, k in zip(axes, arrays):
        flat = flat * shape[a] + k
    return xp.reshape(flat, (-1,))


def _layout(ndim: int, axes: list[int]) -> tuple[list[int], list[int]]:
    rest = [i for i in range(ndim) if i not in axes]
    return rest, list(axes) + rest


def fancy_get(xp: Any, x: Any, key: tuple[Any, ...]) -> Any:
    """``x[key]`` with NumPy's semantics, for a complete key holding an index array."""
    basic, axes, arrays = _plan(xp, x, key, drop_none=False)
    y = x[basic]
    rest, perm = _layout(y.ndim, axes)
    b = arrays[0].shape
    yt = xp.permute_dims(y, tuple(perm))
    rest_shape = tuple(y.shape[i] for i in rest)
    yt = xp.reshape(yt, (math.prod(y.shape[a] for a in axes),) + rest_shape)
    out = xp.reshape(xp.take(yt, _flat_index(xp, y.shape, axes, arrays), axis=0), b + rest_shape)
    if axes == list(range(axes[0], axes[0] + len(axes))) and axes[0]:  # adjacent: the new axes stay in place
        r0 = sum(1 for i in rest if i < axes[0])
        nb = len(b)
        order = list(range(nb, nb + r0)) + list(range(nb)) + list(range(nb + r0, nb + len(rest)))
        out = xp.permute_dims(out, tuple(order))
    return out


def fancy_set(xp: Any, x: Any, key: tuple[Any, ...], value: Any) -> tuple[tuple[Any, ...], Any]:
    """(basic key, new region): writing the region at the basic key does ``x[key] = value``."""
    basic, axes, arrays = _plan(xp, x, key, drop_none=True)
    y = x[basic]
    rest, perm = _layout(y.ndim, axes)
    b = arrays[0].shape
    rest_shape = tuple(y.shape[i] for i in rest)
    n = math.prod(y.shape[a] for a in axes)
    adjacent = axes == list(range(axes[0], axes[0] + len(axes))) and axes[0]
    r0 = sum(1 for i in rest if i < axes[0])
    nb = len(b)
    got_shape = b + rest_shape
    if adjacent:
        got_shape = rest_shape[:r0] + b + rest_shape[r0:]
    v = xp.broadcast_to(value, got_shape)
    if adjacent:  # back to (index axes, rest)
        order = list(range(r0, r0 + nb)) + list(range(r0)) + list(range(r0 + nb, len(got_shape)))
        v = xp.permute_dims(v, tuple(order))
    m = math.prod(b)
    v = xp.reshape(v, (m,) + rest_shape)
    yt = xp.reshape(xp.permute_dims(y, tuple(perm)), (n,) + rest_shape)
    if m and n:
        flat = _flat_index(xp, y.shape, axes, arrays)
        order_ = xp.argsort(flat, stable=True)
        s = xp.take(flat, order_)
        j = xp.searchsorted(s, xp.arange(n, dtype=xp.int64), side="right") - 1  # the last write to each position
        jc = xp.clip(j, 0, m - 1)
        hit = (j >= 0) & (xp.take(s, jc) == xp.arange(n, dtype=xp.int64))
        new = xp.take(v, xp.take(order_, jc), axis=0)
        yt = xp.where(xp.reshape(hit, (n,) + (1,) * len(rest_shape)), new, yt)
    full = xp.reshape(yt, tuple(y.shape[a] for a in axes) + rest_shape)
    inverse = [0] * len(perm)
    for i, p in enumerate(perm):
        inverse[p] = i
    return basic, xp.permute_dims(full, tuple(inverse))
