"""``xb.random`` on Dask: the portable stream chunk by chunk, and Dask's own generator.

Design constraint: a drawn Dask Array is a graph of independent chunk tasks (:class:`~._chunks.ChunkDraw`),
each computing its own variates, so the values never depend on the chunking and equal what NumPy draws for
the same call.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._array import Array, _new
from .._devices import Device
from .._dispatch import get_backend
from .._dtypes import DType
from ._chunks import bounds_of, plan_draw
from ._engine import Native as _NativeBase, NativeStateError
from ._source import PhiloxSource

__all__ = ["Source", "Native"]


class Source(PhiloxSource):
    """Dask's portable stream: a graph of :class:`~._chunks.ChunkDraw` tasks."""

    lazy = True

    def sample(self, draw: str, shape: tuple[int, ...], dt: DType, dev: Device, key: tuple[int, int], ctr: int,
               arg: Any, whole_axis: int | None = None, chunks: Any = None) -> Array:  # fmt: skip
        import dask.array as da
        from dask.base import tokenize
        from dask.highlevelgraph import HighLevelGraph

        be = self.be
        out_dt, nd, norm, task = plan_draw(be, draw, shape, dt, dev, key, ctr, arg, whole_axis, chunks,
                                           lambda c, s, d: da.core.normalize_chunks(c, s, dtype=d))  # fmt: skip
        name = "xb-random-" + tokenize(task, norm)
        bounds = bounds_of(norm)
        dsk: dict[Any, Any] = {}
        for idx in np.ndindex(*[len(c) for c in norm]):
            loc = [(bounds[k][i], bounds[k][i + 1]) for k, i in enumerate(idx)]
            dsk[(name,) + tuple(idx)] = (task, loc)
        meta = get_backend(task.backend).zeros((0,) * len(shape), out_dt, dev.physical)
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
