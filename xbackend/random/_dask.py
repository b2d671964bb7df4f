"""``xb.random`` on Dask: the portable stream chunk by chunk, and Dask's own generator.

Design constraint: a drawn Dask Array is a graph of independent chunk tasks, each computing its own
variates from the key, the call's counter and its elements' positions (:mod:`xbackend.random._draws`), with
the eager source of the chunks' backend (NumPy, or CuPy for CUDA chunks). So the values never depend on
the chunking, equal what NumPy draws for the same call, and need no communication between chunks. A
chunk covering a rectangle of a larger Array is made from its contiguous runs of C-order positions (or
from the span between its first and last position, when the runs are many and short).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import _dtypes as D
from .._array import Array, _new
from .._devices import Device, bind, device as _device
from .._dispatch import get_backend
from .._dtypes import DType
from ._draws import DRAWS, RESULT
from ._engine import Native as _NativeBase, NativeStateError
from ._source import PhiloxSource, source_for

__all__ = ["Source", "Native", "ChunkDraw", "runs_of"]

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
    """One chunk of a drawn Dask Array: picklable (workers rebuild the draw by name) and tokenised by its
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


class Source(PhiloxSource):
    """Dask's portable stream: a graph of :class:`ChunkDraw` tasks."""

    lazy = True

    def sample(self, draw: str, shape: tuple[int, ...], dt: DType, dev: Device, key: tuple[int, int], ctr: int,
               arg: Any, whole_axis: int | None = None, chunks: Any = None) -> Array:  # fmt: skip
        import dask.array as da
        from dask.base import tokenize
        from dask.highlevelgraph import HighLevelGraph

        be = self.be
        out_dt = RESULT[draw] or dt
        nd = be.native_dtype(out_dt)
        spec = be.default_chunks if chunks is None else chunks
        if whole_axis is not None:
            spec = da.core.normalize_chunks(spec, shape, dtype=nd)
            spec = tuple((shape[k],) if k == whole_axis else c for k, c in enumerate(spec))
        norm = da.core.normalize_chunks(spec, shape, dtype=nd)
        chunk_be = be.chunk_backend_name(dev.physical)
        task = ChunkDraw(draw, key, ctr, arg, dt.name, shape, chunk_be, str(dev.physical))
        name = "xb-random-" + tokenize(task, norm)
        bounds = [np.cumsum((0,) + c).tolist() for c in norm]
        dsk: dict[Any, Any] = {}
        for idx in np.ndindex(*[len(c) for c in norm]):
            loc = [(bounds[k][i], bounds[k][i + 1]) for k, i in enumerate(idx)]
            dsk[(name,) + tuple(idx)] = (task, loc)
        meta = get_backend(chunk_be).zeros((0,) * len(shape), out_dt, dev.physical)
        x = da.Array(HighLevelGraph.from_collections(name, dsk, dependencies=[]), name, norm, dtype=nd, meta=meta)
        return _new(x, out_dt, dev.physical, be)


class Native(_NativeBase):
    """Dask's own generator, ``dask.array.random.default_rng(seed_seq)`` (NumPy chunks)."""

    def __init__(self, be: Any, dev: Device, seed_seq: Any, chunks: Any = None) -> None:
        super().__init__(be, dev, seed_seq, chunks)
        import dask.array as da

        if dev.type != "cpu":
            from .._errors import UnknownDeviceError

            raise UnknownDeviceError("Dask's own generator makes NumPy chunks (device 'cpu'), not CuPy ones. Fix: "
                                     "use the portable stream on 'cuda' (xb.random.default_rng(seed, "
                                     "backend='dask', device='cuda'))")  # fmt: skip
        self.gen = da.random.default_rng(seed_seq)

    def _kw(self) -> dict[str, Any]:
        return {"chunks": self.be.default_chunks if self.chunks is None else self.chunks}

    def _uniform(self, shape: tuple[int, ...], dt: DType) -> Any:
        return self.gen.random(shape, dtype=dt.name, **self._kw())

    def _normal(self, shape: tuple[int, ...], dt: DType) -> Any:
        return self.gen.standard_normal(shape, dtype=dt.name, **self._kw())

    def _exponential(self, shape: tuple[int, ...], dt: DType) -> Any:
        return self.gen.standard_exponential(shape, dtype=dt.name, **self._kw())

    def _gamma(self, alpha: float, shape: tuple[int, ...], dt: DType) -> Any:
        return self.gen.standard_gamma(alpha, shape, dtype=dt.name, **self._kw())

    def _beta(self, a: float, b: float, shape: tuple[int, ...], dt: DType) -> Any:
        return self.gen.beta(a, b, shape, **self._kw()).astype(dt.name)

    def _integers(self, low: int, high: int, shape: tuple[int, ...], dt: DType) -> Any:
        return self.gen.integers(low, high, shape, dtype=dt.name, **self._kw())

    def get_state(self) -> Any:
        bg = getattr(self.gen, "_bit_generator", None)
        if bg is None:  # pragma: no cover - a Dask without it
            raise NativeStateError("this Dask generator does not expose its state. Fix: use the portable stream, "
                                   "e.g. xb.random.default_rng(seed, backend='dask')")  # fmt: skip
        return bg.state

    def set_state(self, state: Any) -> None:
        self.gen._bit_generator.state = state
