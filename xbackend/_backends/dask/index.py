"""How the Dask backend indexes: index checks Dask would skip, and keys rewritten into what Dask accepts.

Design constraint: Dask indexes lazily and leniently (an out-of-range index array wraps or clips; Python bools,
``None`` and negative steps in assignment keys trip it up). These helpers give Dask NumPy's semantics: host index
arrays are bounds-checked at once, lazy ones when they are computed (with the eager backends' text), and keys are
rewritten into forms Dask handles. Part of the Dask backend (``backend.py``), which binds ``da`` here on import.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..._errors import ChunkingError, InvalidIndexError, index_out_of_range

da: Any = None  # dask.array: bound by dask.py's _import()

__all__ = ["is_host_index", "is_mask", "is_lazy_index", "InBounds", "bool_scalars", "drop_new_axes",
           "check_reshape", "positive_steps", "mask_beside_arrays"]


def is_host_index(k: Any) -> bool:
    return isinstance(k, np.ndarray)


def is_mask(k: Any) -> bool:
    return k.dtype.kind == "b"


def is_lazy_index(k: Any) -> bool:
    return isinstance(k, da.Array)


class InBounds:
    """A Dask task that checks a block of indices for one axis and passes it on; out of range: the error the eager
    backends raise, with the same text (``xbackend._boundary.index_failed``), when the graph is computed."""

    def __init__(self, n: int, axis: int, shape: tuple[int, ...]) -> None:
        self.n, self.axis, self.shape = n, axis, shape

    def __call__(self, block: Any) -> Any:
        n = self.n
        bad = (block < -n) | (block >= n)
        if bool(bad.any()):
            from ..._errors import index_out_of_range

            raise index_out_of_range(int(block[bad].ravel()[0]), self.axis, n, "dask", self.shape)
        return block

    def __dask_tokenize__(self) -> Any:
        return ("xbackend-in-bounds", self.n, self.axis, self.shape)


def bool_scalars(key: Any) -> tuple[Any, set[int]]:
    """Python bools in a basic key: ``True`` is ``None`` (a new axis), ``False`` a new empty axis."""
    items = key if type(key) is tuple else (key,)
    if not any(type(k) is bool for k in items):
        return key, set()
    if any(hasattr(k, "shape") for k in items):
        raise ChunkingError("Dask cannot mix Python bools with index arrays in one key. Fix: index in two steps")
    out: list[Any] = []
    falses: set[int] = set()
    dim = 0
    for k in items:
        if type(k) is bool:
            out.append(None)
            if not k:
                falses.add(dim)
            dim += 1
        elif k is None or type(k) is slice:
            out.append(k)
            dim += 1
        elif k is Ellipsis:
            out.append(k)
            dim = -10**9  # positions after ... are not tracked: falses only before it
        else:
            out.append(k)
    if any(f < 0 for f in falses):
        raise ChunkingError("Dask: x[..., False] is not supported. Fix: index without the bool")
    return tuple(out), falses


def drop_new_axes(x: Any, key: Any, value: Any) -> tuple[Any, Any]:
    """A setitem key without ``None``/bools (Dask refuses them): the value loses those length-1 axes."""
    items = key if type(key) is tuple else (key,)
    if not any(k is None or type(k) is bool for k in items):
        return key, value
    if any(hasattr(k, "shape") for k in items):
        raise ChunkingError("Dask cannot assign through a key that mixes None with index arrays. Fix: drop the None")
    if any(k is False for k in items):
        return None, value
    target = x[tuple(None if type(k) is bool else k for k in items)].shape
    rest = tuple(k for k in items if k is not None and type(k) is not bool)
    if hasattr(value, "shape"):
        value = da.broadcast_to(value, target) if hasattr(value, "dask") else np.broadcast_to(value, target)
        sel: list[Any] = []  # 0 on each new axis, everything on the rest (no arrays here: positions are plain)
        for k in items:
            if k is None or type(k) is bool:
                sel.append(0)
            elif k is Ellipsis or type(k) is slice:
                sel.append(Ellipsis if k is Ellipsis else slice(None))
        value = value[tuple(sel)] if sel else value
    return (rest if rest else Ellipsis), value


def check_reshape(old: tuple[int, ...], shape: tuple[int, ...]) -> tuple[int, ...]:
    """NumPy's reshape rules with NumPy's ValueErrors (Dask raises ZeroDivisionError on some)."""
    if sum(1 for s in shape if s == -1) > 1 or any(s < -1 for s in shape):
        raise ValueError(f"cannot reshape an array of shape {old} into {shape}: at most one -1, no other negatives")
    n = math.prod(old)
    known = math.prod(s for s in shape if s != -1)
    if -1 in shape:
        if known == 0 or n % known:
            raise ValueError(f"cannot reshape an array of shape {old} into {shape}")
        shape = tuple(n // known if s == -1 else s for s in shape)
    if math.prod(shape) != n:
        raise ValueError(f"cannot reshape an array of size {n} into shape {shape}")
    return shape


def positive_steps(x: Any, key: Any, value: Any) -> tuple[Any, Any]:
    """A basic setitem key with negative-step slices as positive ones (the value flipped to match), since
    Dask's setitem mishandles some negative steps; ``(None, value)`` when the selection is empty."""
    items = key if type(key) is tuple else (key,)
    if any(hasattr(k, "shape") or isinstance(k, list) for k in items):
        return key, value
    n_ell = x.ndim - sum(1 for k in items if k is not Ellipsis)
    full: list[Any] = []
    for k in items:
        full += [slice(None)] * n_ell if k is Ellipsis else [k]
    full += [slice(None)] * (x.ndim - len(full))
    out, flips, rdim = [], [], 0
    for n, k in zip(x.shape, full):
        if type(k) is slice:
            r = range(*k.indices(n))
            if len(r) == 0:
                return None, value
            if r.step < 0:
                k = slice(r[-1], r[0] + 1, -r.step)
                flips.append(rdim)
            rdim += 1
        out.append(k)
    if flips and hasattr(value, "shape") and value.ndim:
        lead = rdim - value.ndim  # the value broadcasts from the right
        sel = [slice(None)] * value.ndim
        for f in flips:
            if f - lead >= 0 and value.shape[f - lead] > 1:
                sel[f - lead] = slice(None, None, -1)
        value = value[tuple(sel)]
    return tuple(out), value


def mask_beside_arrays(x: Any, key: Any) -> Any:
    """``x[key]`` by NumPy's rule where ``key`` holds a boolean mask of 2 or more dimensions beside another index
    (an array or an int): Dask's own indexing fails there with a bare AssertionError. None for any other key.

    NumPy reads a mask as the integer arrays of its ``nonzero()``, broadcast with the other index arrays; their
    values are read here, on the host (the index arrays, not ``x``), and the indexed axes are merged into one, which
    one 1-D integer array selects: a gather Dask takes. The broadcast dimensions go where NumPy puts them (in place
    of the indexed axes when those are adjacent, else first)."""
    items = list(key) if type(key) is tuple else [key]
    wide = [k for k in items if hasattr(k, "dtype") and k.dtype.kind == "b" and k.ndim >= 2]
    if not wide or not any(hasattr(k, "dtype") or type(k) is int for k in items if k is not wide[0]):
        return None
    if any(s != s for s in x.shape):  # sizes unknown until computed (Dask's own indexing: a bare AssertionError)
        raise ChunkingError("a multi-dimensional mask beside another index needs the Dask Array's sizes, which are "
                            "unknown until computed (after a boolean mask, nonzero or unique). Fix: x = x.persist() "
                            "first (it resolves the sizes)")  # fmt: skip
    if any(k is None or type(k) is bool for k in items):
        raise ChunkingError("Dask cannot place new axes (None, True) next to a multi-dimensional mask. Fix: index in "
                            "two steps, e.g. x[mask, i][None]")  # fmt: skip
    n_ell = x.ndim - sum(k.ndim if hasattr(k, "ndim") and k.dtype.kind == "b" else 1 for k in items
                         if k is not Ellipsis)  # fmt: skip
    full: list[Any] = []
    for k in items:
        full += [slice(None)] * n_ell if k is Ellipsis else [k]
    full += [slice(None)] * (x.ndim - sum(k.ndim if hasattr(k, "ndim") and k.dtype.kind == "b" else 1 for k in full))
    axes: list[int] = []  # the indexed axes and their integer index arrays, in order
    index: list[Any] = []
    rest: list[tuple[int, Any]] = []  # the other axes and their slices
    dim = 0
    for k in full:
        if type(k) is slice:
            rest.append((dim, k))
            dim += 1
            continue
        if type(k) is int and not -x.shape[dim] <= k < x.shape[dim]:
            raise index_out_of_range(k, dim, x.shape[dim], "dask", tuple(x.shape))
        h = np.asarray(k.compute() if is_lazy_index(k) else k)  # (a lazy index array checks its bounds here)
        parts = h.nonzero() if h.dtype.kind == "b" else (h,)
        for p in parts:
            axes.append(dim)
            index.append(p.astype(np.int64) % x.shape[dim] if x.shape[dim] else p.astype(np.int64))
            dim += 1
    try:
        shape = np.broadcast_shapes(*(p.shape for p in index))
    except ValueError as exc:
        raise InvalidIndexError(f"indexing arrays of shapes {[p.shape for p in index]} (a mask counts as the arrays of "
                                "its nonzero()) could not be broadcast together. Fix: give the index arrays shapes "
                                "that broadcast, e.g. one True per index value") from exc  # fmt: skip
    adjacent = axes == list(range(axes[0], axes[0] + len(axes)))
    order = axes + [d for d, _ in rest] if not adjacent else list(range(x.ndim))
    y = x if order == list(range(x.ndim)) else da.transpose(x, order)
    at = axes[0] if adjacent else 0
    sizes = [x.shape[d] for d in axes]
    merged = y.shape[:at] + (math.prod(sizes),) + y.shape[at + len(axes):]
    y = y.reshape(merged, merge_chunks=True) if merged != y.shape else y
    flat = np.ravel_multi_index(tuple(np.broadcast_to(p, shape).ravel() for p in index), sizes)
    slices = [s for _, s in rest]
    out = y[tuple(slices[:at] + [flat] + slices[at:])]
    final = out.shape[:at] + shape + out.shape[at + 1:]
    if 0 in final:  # nothing selected: no graph (Dask's reshape trips over empty shapes)
        return da.from_array(np.empty(final, x.dtype), chunks=-1, name=False, asarray=False)
    return out.reshape(final, merge_chunks=True) if final != out.shape else out
