"""What Cubed lacks, block by block: the NumPy backend's own method on blocks that hold whole core axes.

Design constraint: an operation that needs whole axes (a sort along an axis, an FFT, linear algebra on the
matrix dimensions) runs as ``cubed.map_blocks`` over ``x`` rechunked so those axes are one chunk, calling the
*NumPy backend's* method on each block; the other (batch) axes keep their chunks. So the values are NumPy's
bit for bit, and Cubed's memory bound applies to each block (a core that does not fit raises at planning).
Operations of two inputs (``solve``, ``cross``, ``take_along_axis``) run in one block. :class:`Namespace` gives
the generic backend's code the standard functions Cubed lacks that it calls itself (``sort`` in ``isin``,
``argsort`` in an indexed write) the same way, and a ``take`` that works around Cubed's no-op shortcut. The
output's shape and dtype come from the same method run on a small stand-in (ones, with identity matrices on two
core axes), so nothing here knows a method's shape rules. Like Dask's chunks, a block refuses NaN or inf where
``xbackend.linalg`` refuses them at the call on eager backends (``common/chunks.refuse_nonfinite``), when it is
computed.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..common.chunks import refuse_nonfinite

__all__ = ["BlockCall", "along", "in_one_block", "Namespace"]


def _numpy() -> Any:
    from ..._dispatch import get_backend

    return get_backend("numpy")


class BlockCall:
    """The NumPy backend's ``method(*pre, *blocks, *args)`` (output ``index`` of a tuple result), picklable for
    Cubed's multi-process executors; ``ndims`` undoes the leading axes added to align inputs of different ranks."""

    __slots__ = ("method", "pre", "args", "index", "ndims")

    def __init__(self, method: str, pre: tuple[Any, ...], args: tuple[Any, ...], index: int | None = None,
                 ndims: tuple[int, ...] | None = None) -> None:  # fmt: skip
        self.method, self.pre, self.args, self.index, self.ndims = method, pre, args, index, ndims

    def __reduce__(self) -> Any:
        return (BlockCall, (self.method, self.pre, self.args, self.index, self.ndims))

    def __call__(self, *blocks: Any) -> Any:
        if self.ndims is not None:
            blocks = tuple(b.reshape(b.shape[b.ndim - n :]) for b, n in zip(blocks, self.ndims))
        refuse_nonfinite(_numpy(), self.method, self.args, blocks[0])  # the check the eager backends make at the call
        r = _method(self.method)(*self.pre, *blocks, *self.args)
        return np.asarray(r if self.index is None else r[self.index])


def _method(name: str) -> Any:
    """The NumPy backend's method ``name``, or NumPy's function for ``"np:<name>"``."""
    return getattr(np, name[3:]) if name.startswith("np:") else getattr(_numpy(), name)


def _stand_in(shape: tuple[int, ...], core: tuple[int, ...], dtype: Any) -> np.ndarray:
    """Ones of ``shape`` with every batch axis 1 (identity matrices when the last two axes are the core; zeros
    for integers, which may be indices)."""
    small = tuple(n if a in core else min(n, 1) for a, n in enumerate(shape))
    if np.dtype(dtype).kind in "iub":
        return np.zeros(small, dtype=dtype)
    h = np.ones(small, dtype=dtype)
    nd = len(shape)
    if nd >= 2 and {nd - 2, nd - 1} <= set(core):
        h = np.broadcast_to(np.eye(small[-2], small[-1], dtype=dtype), small).copy()
    return h


def along(x: Any, core: tuple[int, ...], method: str, *args: Any, pre: tuple[Any, ...] = (),
          outputs: int | None = None) -> Any:  # fmt: skip
    """``method(*pre, x, *args)`` of the NumPy backend on blocks of ``x`` holding the ``core`` axes whole (a tuple
    of ``outputs`` Cubed arrays when the method returns a tuple)."""
    import cubed

    nd = x.ndim
    core = tuple(sorted(a % nd for a in core)) if nd else ()
    if any(len(x.chunks[a]) > 1 for a in core):
        x = x.rechunk({a: -1 for a in core})
    meta = _method(method)(*pre, _stand_in(tuple(x.shape), core, x.dtype), *args)
    metas = tuple(meta[i] for i in range(outputs)) if outputs else (meta,)
    results = []
    for i, m in enumerate(metas):
        m = np.asarray(m)
        call = BlockCall(method, pre, args, i if outputs else None)
        batch = [a for a in range(nd) if a not in core]
        if m.ndim == nd:
            chunks = tuple((m.shape[a],) if a in core else x.chunks[a] for a in range(nd))
            results.append(cubed.map_blocks(call, x, dtype=m.dtype, chunks=chunks))
            continue
        if m.ndim == len(batch):  # the core axes reduced away, wherever they were
            chunks = tuple(x.chunks[a] for a in batch)
            results.append(cubed.map_blocks(call, x, dtype=m.dtype, chunks=chunks, drop_axis=list(core)))
            continue
        # fewer axes, but not just the batch (a diagonal): the batch axes keep their chunks, the rest is one chunk
        # (no method here returns more axes than it was given)
        lead = tuple(x.chunks[a] for a in batch[: m.ndim])
        chunks = lead + tuple((n,) for n in m.shape[len(lead) :])
        results.append(cubed.map_blocks(call, x, dtype=m.dtype, chunks=chunks, drop_axis=list(range(m.ndim, nd))))
    return tuple(results) if outputs else results[0]


def in_one_block(xs: list[Any], method: str, *args: Any) -> Any:
    """``method(*xs, *args)`` of the NumPy backend with every input in one block (inputs of different ranks are
    aligned with leading axes of 1, which the block call drops again)."""
    import cubed

    nd = max(x.ndim for x in xs)
    ndims = tuple(x.ndim for x in xs)
    stand_ins = [_stand_in(tuple(x.shape), tuple(range(x.ndim)), x.dtype) for x in xs]
    m = np.asarray(_method(method)(*stand_ins, *args))
    xs = [cubed.reshape(x, (1,) * (nd - x.ndim) + tuple(x.shape)).rechunk(-1) if x.ndim < nd or
          math.prod(len(c) for c in x.chunks) > 1 else x for x in xs]  # fmt: skip
    call = BlockCall(method, (), args, None, ndims)
    chunks = tuple((n,) for n in m.shape)
    # (solve of a vector drops one; no result has more axes than its inputs: solve, cross, take_along_axis)
    if m.ndim < nd:
        return cubed.map_blocks(call, *xs, dtype=m.dtype, chunks=chunks, drop_axis=list(range(nd - m.ndim)))
    return cubed.map_blocks(call, *xs, dtype=m.dtype, chunks=chunks)


class Namespace:
    """Cubed's namespace, with ``sort``/``argsort`` made of NumPy's on whole-axis blocks and a ``take`` that is right
    for every index array (the generic backend's own calls; the public sorts and ``take_along_axis`` are the
    backend's methods, on blocks too).

    Cubed (0.27) takes any index whose result has the input's shape for a no-op: ``x[idx]`` with a permutation
    ``idx`` of ``x``'s length returns ``x`` unchanged. ``take`` here adds one index and drops its result again,
    so the shapes never match.
    """

    def __init__(self, xp: Any) -> None:
        self._xp = xp

    def __getattr__(self, name: str) -> Any:
        return getattr(self._xp, name)

    def take(self, x: Any, indices: Any, /, *, axis: int | None = None) -> Any:
        xp = self._xp
        ax = 0 if axis is None else axis % x.ndim
        shape = tuple(x.shape[:ax]) + tuple(indices.shape) + tuple(x.shape[ax + 1 :])
        if 0 in shape:  # (Cubed cannot plan an empty selection)
            return xp.empty(shape, dtype=x.dtype, chunks=shape, spec=x.spec)
        whole = indices.ndim == 1 and 0 < indices.shape[0] == x.shape[ax]  # (the length Cubed mistakes for a no-op)
        if (axis is None and x.ndim != 1) or not whole:
            return xp.take(x, indices, axis=axis)
        if isinstance(indices, np.ndarray):
            padded = np.concatenate([indices, np.zeros((1,), dtype=indices.dtype)])
        else:
            padded = xp.concat([indices, xp.zeros((1,), dtype=indices.dtype)])
        out = xp.take(x, padded, axis=ax)
        return out[(slice(None),) * ax + (slice(0, indices.shape[0]),)]

    def sort(self, x: Any, /, *, axis: int = -1, stable: bool = True) -> Any:
        """Ascending, stable (as the generic backend asks)."""
        return along(x, (axis,), "np:sort", axis, "stable")

    def argsort(self, x: Any, /, *, axis: int = -1, stable: bool = True) -> Any:
        """Ascending, stable (the generic backend sorts an order key for descending orders)."""
        return along(x, (axis,), "np:argsort", axis, "stable")
