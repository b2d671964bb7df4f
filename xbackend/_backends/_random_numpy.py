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

from .. import _config, _dtypes as D
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


def fast_random_of(rnd: Any, be: Any, dev: Device) -> Any:
    """``fn(n, dtype)``: ``rnd(n)`` (a NumPy-like ``Generator.random``) as an Array for an int ``n`` and a float32
    or float64 ``dtype`` (None: the default float), else None. What ``Generator.random`` calls first."""
    f64, f32, alloc, ctx = D.float64, D.float32, _new, _config._ctx.get

    def fast_random(n: int, dtype: Any) -> Array | None:
        if dtype is None:
            c = ctx()
            dtype = (_config._base if c is None else c).default_float
        if dtype is f64 and n >= 0:
            return alloc(rnd(n), f64, dev, be)
        if dtype is f32 and n >= 0:
            return alloc(rnd(n, dtype=np.float32), f32, dev, be)
        return None

    return fast_random


class Native(_NativeBase):
    """NumPy's own ``Generator(PCG64(seed_seq))``."""

    def __init__(self, be: Any, dev: Device, seed_seq: Any, chunks: Any = None) -> None:
        super().__init__(be, dev, seed_seq, chunks)
        self.gen = np.random.Generator(np.random.PCG64(seed_seq))
        self.fast_random = fast_random_of(self.gen.random, be, CPU)

    def _uniform(self, shape: tuple[int, ...], dt: DType) -> Any:
        return self.gen.random(shape, dtype=dt.name)  # type: ignore[call-overload]

    def _normal(self, shape: tuple[int, ...], dt: DType) -> Any:
        return self.gen.standard_normal(shape, dtype=dt.name)  # type: ignore[call-overload]

    def _exponential(self, shape: tuple[int, ...], dt: DType) -> Any:
        return self.gen.standard_exponential(shape, dtype=dt.name)  # type: ignore[call-overload]

    def _integers(self, low: int, high: int, shape: tuple[int, ...], dt: DType) -> Any:
        return self.gen.integers(low, high, shape, dtype=dt.name)

    def get_state(self) -> Any:
        return self.gen.bit_generator.state

    def set_state(self, state: Any) -> None:
        self.gen.bit_generator.state = state
