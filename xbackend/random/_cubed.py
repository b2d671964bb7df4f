"""``xb.random`` on Cubed: the portable stream chunk by chunk.

Design constraint: a drawn Cubed Array is ``cubed.map_blocks`` over no input, each block computing its own
variates (:class:`~._chunks.ChunkDraw`, as on Dask), so the values never depend on the chunking and equal
what NumPy draws for the same call. Cubed's own ``cubed.random.random`` draws from a fresh OS seed on every
call (it takes no seed), so there is no native generator here: ``xb.random.default_rng(seed, backend="cubed",
native=True)`` is refused with the portable stream as the fix.
"""

from __future__ import annotations

from typing import Any

from .._array import Array, _new
from .._devices import Device
from .._dtypes import DType
from ._chunks import ChunkDraw, bounds_of, plan_draw
from ._source import PhiloxSource

__all__ = ["Source", "BlockDraw"]


class BlockDraw:
    """``cubed.map_blocks``'s function: the block at ``block_id`` of the draw (picklable, for Cubed's
    multi-process executors)."""

    __slots__ = ("task", "bounds")

    def __init__(self, task: ChunkDraw, bounds: list[list[int]]) -> None:
        self.task, self.bounds = task, bounds

    def __reduce__(self) -> Any:
        return (BlockDraw, (self.task, self.bounds))

    def __call__(self, _empty: Any, block_id: tuple[int, ...] = ()) -> Any:
        return self.task([(b[i], b[i + 1]) for b, i in zip(self.bounds, block_id)])


class Source(PhiloxSource):
    """Cubed's portable stream: one block function, mapped over the result's chunks."""

    lazy = True

    def sample(self, draw: str, shape: tuple[int, ...], dt: DType, dev: Device, key: tuple[int, int], ctr: int,
               arg: Any, whole_axis: int | None = None, chunks: Any = None) -> Array:  # fmt: skip
        import cubed
        from cubed.utils import normalize_chunks

        be = self.be
        out_dt, nd, norm, task = plan_draw(be, draw, shape, dt, dev, key, ctr, arg, whole_axis, chunks,
                                           lambda c, s, d: normalize_chunks(c, shape=s, dtype=d))  # fmt: skip
        x = cubed.map_blocks(BlockDraw(task, bounds_of(norm)), dtype=nd, chunks=norm)
        return _new(x, out_dt, dev.physical, be)
