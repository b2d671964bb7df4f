"""``xb.random`` on NumPy: the portable stream from NumPy's own C Philox, the native stream from PCG64.

Design constraint: the portable stream *is* ``numpy.random.Philox`` (:mod:`xbackend.random._philox`), so
NumPy makes its words at C speed: a per-thread Philox bit generator is set to the call's key and counter
(buffer empty) and asked for ``random_raw`` words, or for ``Generator.random`` floats, whose float64 and
float32 constructions are the portable ones. Retries of rejected integers at scattered positions use the
xbackend-operations path, or a contiguous stretch of their sub-stream when the positions are dense.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from .. import _dtypes as D
from .._array import Array, _new
from .._devices import CPU, Device
from .._dtypes import DType
from ..random._engine import Native as _NativeBase
from ..random._source import PhiloxSource

__all__ = ["Source", "Native", "philox_numpy"]

_M64 = (1 << 64) - 1
_C256 = 1 << 256
_LOCAL = threading.local()


def philox_numpy(key: tuple[int, int], ctr: int) -> tuple[np.random.Philox, np.random.Generator]:
    """This thread's NumPy Philox (and a Generator on it) set to ``key`` and counter state ``ctr``, buffer
    empty: its next words are the stream's block 0 of a call at ``ctr``."""
    pair = getattr(_LOCAL, "pair", None)
    if pair is None:
        bg = np.random.Philox(0)
        pair = _LOCAL.pair = (bg, np.random.Generator(bg), bg.state)
    bg, gen, st = pair
    c = ctr % _C256
    st["state"] = {"counter": np.array([(c >> s) & _M64 for s in (0, 64, 128, 192)], dtype=np.uint64),
                   "key": np.array(key, dtype=np.uint64)}  # fmt: skip
    st["buffer_pos"], st["has_uint32"], st["uinteger"] = 4, 0, 0
    bg.state = st
    return bg, gen


class Source(PhiloxSource):
    """NumPy's portable-stream words: ``numpy.random.Philox`` itself."""

    def raw(self, key: tuple[int, int], ctr: int, start: int, n: int, width: int) -> np.ndarray:
        """Words ``start .. start + n - 1`` as a NumPy array (uint64 or uint32); the torch backend's CPU path
        wraps them without a copy."""
        per = 4 if width == 64 else 8
        b0 = start // per
        off = start - b0 * per
        bg, _ = philox_numpy(key, ctr + b0)
        if width == 64:
            return bg.random_raw(off + n)[off:]
        return bg.random_raw((off + n + 1) // 2).view(np.uint32)[off : off + n]

    def floats(self, key: tuple[int, int], ctr: int, start: int, n: int, dt: DType) -> np.ndarray | None:
        """Uniform float64/float32 variates from NumPy's ``Generator.random`` (the same constructions)."""
        if dt is not D.float64 and dt is not D.float32:
            return None
        per = 4 if dt is D.float64 else 8
        b0 = start // per
        off = start - b0 * per
        _, gen = philox_numpy(key, ctr + b0)
        out = gen.random(off + n, dtype=np.float64 if dt is D.float64 else np.float32)
        return out[off:] if off else out

    def words(self, key: tuple[int, int], ctr: int, start: int, n: int, width: int, dev: Device) -> Array:
        return _new(self.raw(key, ctr, start, n, width), D.uint64 if width == 64 else D.uint32, CPU, self.be)

    def uniform(self, key: tuple[int, int], ctr: int, start: int, n: int, dt: DType, dev: Device) -> Array | None:
        out = self.floats(key, ctr, start, n, dt)
        return None if out is None else _new(out, dt, CPU, self.be)

    def words_at(self, key: tuple[int, int], ctr: int, pos: Array, width: int) -> Array:
        p = pos._data
        if p.size > 1024:
            lo, hi = int(p.min()), int(p.max())
            if hi - lo < 8 * p.size:  # dense: a contiguous stretch at C speed, then gather
                w = self.raw(key, ctr, lo, hi - lo + 1, width)
                return _new(w[p - lo], D.uint64 if width == 64 else D.uint32, CPU, self.be)
        return super().words_at(key, ctr, pos, width)


class Native(_NativeBase):
    """NumPy's own ``Generator(PCG64(seed_seq))``."""

    def __init__(self, be: Any, dev: Device, seed_seq: Any, chunks: Any = None) -> None:
        super().__init__(be, dev, seed_seq, chunks)
        self.gen = np.random.Generator(np.random.PCG64(seed_seq))
        rnd, f32 = self.gen.random, np.float32
        alloc = _new

        def uniform(shape: Any, dt: DType, be: Any, dev: Any) -> Array:  # the hot path: one native call
            if dt is D.float64:
                return alloc(rnd(shape), dt, CPU, self.be)
            if dt is D.float32:
                return alloc(rnd(shape, f32), dt, CPU, self.be)
            return self._float(self._uniform, shape, dt)

        self.uniform = uniform  # type: ignore[method-assign]

    def _uniform(self, shape: tuple[int, ...], dt: DType) -> Any:
        return self.gen.random(shape, dtype=dt.name)

    def _normal(self, shape: tuple[int, ...], dt: DType) -> Any:
        return self.gen.standard_normal(shape, dtype=dt.name)

    def _exponential(self, shape: tuple[int, ...], dt: DType) -> Any:
        return self.gen.standard_exponential(shape, dtype=dt.name)

    def _integers(self, low: int, high: int, shape: tuple[int, ...], dt: DType) -> Any:
        return self.gen.integers(low, high, shape, dtype=dt.name)

    def get_state(self) -> Any:
        return self.gen.bit_generator.state

    def set_state(self, state: Any) -> None:
        self.gen.bit_generator.state = state
