"""The chunks of a lazy backend's draw (Dask, Cubed): each chunk computes its own variates.

Design constraint: a chunk of a drawn lazy Array computes its variates from the key, the call's counter
and its elements' positions (:mod:`xbackend.random._draws`), with the eager source of the chunks'
backend (NumPy, or CuPy for CUDA chunks). So the values never depend on the chunking, equal what NumPy
draws for the same call, and need no communication between chunks. A chunk covering a rectangle of a
larger Array is made from its contiguous runs of C-order positions (or from the span between its first
and last position, when the runs are many and short).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import _dtypes as D
from .._array import Array
from .._devices import bind, device as _device
from .._dispatch import get_backend
from ._draws import DRAWS, RESULT
from ._source import source_for

__all__ = ["ChunkDraw", "runs_of", "bounds_of", "plan_draw"]

_RUN_COST = 4096  # a draw call's overhead, in variates: beyond it, one span beats many short runs


def runs_of(shape: tuple[int, ...], loc: list[tuple[int, int]]) -> tuple[list[tuple[int, int]], int, int]:
    """The chunk ``loc`` (per-axis ``(start, stop)``) of an Array of ``shape`` as C-order runs ``[(first
    position, length), ...]``, plus the chunk's first and last position + 1 (its span).

    >>> runs_of((4, 5), [(1, 3), (0, 5)])
    ([(5, 10)], 5, 15)
    >>> runs_of((4, 5), [(1, 3), (2, 4)])
    ([(7, 2), (12, 2)], 7, 14)
    """
    nd = len(shape)
    strides = [math.prod(shape[k + 1 :]) for k in range(nd)]
    p = nd - 1
    while p > 0 and loc[p] == (0, shape[p]):
        p -= 1
    run = (loc[p][1] - loc[p][0]) * strides[p] if nd else 1
    heads = [0]
    for k in range(p):
        heads = [h + i * strides[k] for h in heads for i in range(loc[k][0], loc[k][1])]
    base = loc[p][0] * strides[p] if nd else 0
    runs = [(h + base, run) for h in heads]
    first = runs[0][0] if runs else 0
    last = runs[-1][0] + run if runs else 0
    return runs, first, last


class ChunkDraw:
    """One chunk of a drawn lazy Array: picklable (workers rebuild the draw by name) and tokenised by its
    arguments, so equal calls give equal graph keys."""

    __slots__ = ("draw", "key", "ctr", "arg", "dt", "shape", "backend", "device")

    def __init__(self, draw: str, key: tuple[int, int], ctr: int, arg: Any, dt: str, shape: tuple[int, ...],
                 backend: str, device: str) -> None:  # fmt: skip
        self.draw, self.key, self.ctr, self.arg = draw, key, ctr, arg
        self.dt, self.shape, self.backend, self.device = dt, shape, backend, device

    def __reduce__(self) -> Any:
        return (ChunkDraw, (self.draw, self.key, self.ctr, self.arg, self.dt, self.shape, self.backend, self.device))

    def __dask_tokenize__(self) -> Any:
        return ("xbackend-random", self.draw, self.key, self.ctr, self.arg, self.dt, self.shape, self.backend,
                self.device)  # fmt: skip

    def __call__(self, loc: list[tuple[int, int]]) -> Any:
        from .._manipulation import concat

        be = get_backend(self.backend)
        src, dev = source_for(be), bind(_device(self.device), be.name)
        dt, fn = D.dtype(self.dt), DRAWS[self.draw]
        size = math.prod(b - a for a, b in loc)
        cshape = tuple(b - a for a, b in loc)
        runs, first, last = runs_of(self.shape, loc)
        if size == 0:
            return fn(src, dev, self.key, self.ctr, 0, 0, dt, self.arg)._data.reshape(cshape)
        if len(runs) * _RUN_COST + size >= last - first and len(runs) > 1:  # one span, then pick the chunk
            span = fn(src, dev, self.key, self.ctr, first, last - first, dt, self.arg)._data
            full = span.reshape(-1)
            pos = np.concatenate([np.arange(s - first, s - first + n) for s, n in runs])
            return full[be.from_host(pos, D.int64, dev.physical, None) if be.name != "numpy" else pos].reshape(cshape)
        parts = [fn(src, dev, self.key, self.ctr, s, n, dt, self.arg) for s, n in runs]
        out: Array = parts[0] if len(parts) == 1 else concat(parts)
        return out._data.reshape(cshape)


def bounds_of(chunks: tuple[tuple[int, ...], ...]) -> list[list[int]]:
    """Each axis's chunk boundaries from normalised chunks.

    >>> bounds_of(((2, 2, 1), (3,)))
    [[0, 2, 4, 5], [0, 3]]
    """
    return [np.cumsum((0,) + tuple(c)).tolist() for c in chunks]


def plan_draw(be: Any, draw: str, shape: tuple[int, ...], dt: Any, dev: Any, key: tuple[int, int], ctr: int,
              arg: Any, whole_axis: int | None, chunks: Any,
              normalize: Any) -> tuple[Any, Any, tuple[tuple[int, ...], ...], ChunkDraw]:  # fmt: skip
    """What a lazy backend's draw is made of: (the result's DType, its native dtype, the chunks normalised by the
    library's ``normalize(chunks, shape, native dtype)`` with ``whole_axis`` in one chunk, the chunk task)."""
    out_dt = RESULT[draw] or dt
    nd = be.native_dtype(out_dt)
    norm = tuple(normalize(be.default_chunks if chunks is None else chunks, shape, nd))
    if whole_axis is not None:
        norm = tuple((shape[k],) if k == whole_axis else c for k, c in enumerate(norm))
    task = ChunkDraw(draw, key, ctr, arg, dt.name, shape, be.chunk_backend_name(dev.physical), str(dev.physical))
    return out_dt, nd, norm, task
