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
from .._array import Array, _alloc, _new
from .._boundary import raise_translated
from .._devices import CPU, Device
from .._dtypes import DType
from ._engine import Native as _NativeBase
from ._source import PhiloxSource

__all__ = ["Source", "Native", "philox_numpy", "one_call_methods_of"]

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


def one_call_methods_of(gen: Any, be: Any, dev: Device, general: dict[str, Any]) -> dict[str, Any]:
    """``random``, ``standard_normal``, ``normal`` and ``integers`` of a native generator on a NumPy-like
    ``Generator`` ``gen``: one library call and an Array for the common calls (an int shape, float32/float64
    or int64, Python-number parameters); any other call goes to ``general[name]`` (the generator's general
    path, which also raises xbackend's errors)."""
    f64, f32, i64, f32_np = D.float64, D.float32, D.int64, np.float32
    alloc, ctx, cfg = _alloc, _config._ctx.get, _config
    rnd, std, nrm, ints = gen.random, gen.standard_normal, gen.normal, gen.integers
    g_random, g_std, g_normal, g_ints = (general[k] for k in ("random", "standard_normal", "normal", "integers"))
    num = (int, float)

    def random(shape: Any = None, dtype: Any = None, *, size: Any = None) -> Array:
        try:
            if dtype is None:
                c = ctx()
                dtype = (cfg._base if c is None else c).default_float
            if type(shape) is int and shape >= 0 and size is None:  # (a negative size: the general path says why)
                if dtype is f64:
                    a = alloc()
                    a._data = rnd(shape)
                    a._dt = f64
                    a._dev = dev
                    a._be = be
                    return a
                if dtype is f32:
                    a = alloc()
                    a._data = rnd(shape, f32_np)
                    a._dt = f32
                    a._dev = dev
                    a._be = be
                    return a
            return g_random(shape, dtype, size)
        except Exception as exc:  # a native error: typed at the boundary
            raise_translated(exc, "random.Generator.random")
            raise  # (raise_translated always raises)

    def standard_normal(shape: Any = None, dtype: Any = None, *, size: Any = None) -> Array:
        try:
            if dtype is None:
                c = ctx()
                dtype = (cfg._base if c is None else c).default_float
            if type(shape) is int and shape >= 0 and size is None:
                if dtype is f64:
                    a = alloc()
                    a._data = std(shape)
                    a._dt = f64
                    a._dev = dev
                    a._be = be
                    return a
                if dtype is f32:
                    a = alloc()
                    a._data = std(shape, f32_np)
                    a._dt = f32
                    a._dev = dev
                    a._be = be
                    return a
            return g_std(shape, dtype, size)
        except Exception as exc:  # a native error: typed at the boundary
            raise_translated(exc, "random.Generator.standard_normal")
            raise  # (raise_translated always raises)

    def normal(loc: Any = 0.0, scale: Any = 1.0, shape: Any = None, dtype: Any = None, *,
                   size: Any = None) -> Array:
        try:
            if dtype is None:
                c = ctx()
                dtype = (cfg._base if c is None else c).default_float
            if (dtype is f64 and type(shape) is int and shape >= 0 and size is None and type(loc) in num
                    and type(scale) in num and scale >= 0):  # fmt: skip
                a = alloc()
                a._data = nrm(loc, scale, shape)
                a._dt = f64
                a._dev = dev
                a._be = be
                return a
            return g_normal(loc, scale, shape, dtype, size)
        except Exception as exc:  # a native error: typed at the boundary
            raise_translated(exc, "random.Generator.normal")
            raise  # (raise_translated always raises)

    def integers(low: Any, high: Any = None, shape: Any = None, dtype: Any = None, endpoint: bool = False, *,
                 size: Any = None) -> Array:
        try:
            if dtype is None:
                c = ctx()
                dtype = (cfg._base if c is None else c).default_int
            if (dtype is i64 and type(shape) is int and shape >= 0 and size is None and type(low) is int
                    and type(high) is int and not endpoint and -(1 << 63) <= low < high <= 1 << 63):  # fmt: skip
                a = alloc()
                a._data = ints(low, high, shape)
                a._dt = i64
                a._dev = dev
                a._be = be
                return a
            return g_ints(low, high, shape, dtype, endpoint, size)
        except Exception as exc:  # a native error: typed at the boundary
            raise_translated(exc, "random.Generator.integers")
            raise  # (raise_translated always raises)

    random.__doc__ = "Uniform floats in [0, 1) from NumPy's own generator (see Generator.random)."
    standard_normal.__doc__ = "Standard normal floats from NumPy's own generator (see Generator.standard_normal)."
    normal.__doc__ = "Normal floats from NumPy's own generator (see Generator.normal)."
    integers.__doc__ = "Integers from NumPy's own generator (see Generator.integers)."
    return {"random": random, "standard_normal": standard_normal, "normal": normal, "integers": integers}


class Native(_NativeBase):
    """NumPy's own ``Generator(PCG64(seed_seq))``."""

    def __init__(self, be: Any, dev: Device, seed_seq: Any, chunks: Any = None) -> None:
        super().__init__(be, dev, seed_seq, chunks)
        self.gen = np.random.Generator(np.random.PCG64(seed_seq))

    def one_call_methods(self, general: dict[str, Any]) -> dict[str, Any]:
        """The generator's one-call methods (:func:`one_call_methods_of`)."""
        return one_call_methods_of(self.gen, self.be, CPU, general)

    def _uniform(self, shape: tuple[int, ...], dt: DType) -> Any:
        return self.gen.random(shape, dtype=dt.name)  # type: ignore[call-overload]

    def _normal(self, shape: tuple[int, ...], dt: DType) -> Any:
        return self.gen.standard_normal(shape, dtype=dt.name)  # type: ignore[call-overload]

    def _exponential(self, shape: tuple[int, ...], dt: DType) -> Any:
        return self.gen.standard_exponential(shape, dtype=dt.name)  # type: ignore[call-overload]

    def _gamma(self, alpha: float, shape: tuple[int, ...], dt: DType) -> Any:
        return self.gen.standard_gamma(alpha, shape, dtype=dt.name)  # type: ignore[call-overload]

    def _beta(self, a: float, b: float, shape: tuple[int, ...], dt: DType) -> Any:
        return self.gen.beta(a, b, shape).astype(dt.name, copy=False)

    def _integers(self, low: int, high: int, shape: tuple[int, ...], dt: DType) -> Any:
        return self.gen.integers(low, high, shape, dtype=dt.name)

    def get_state(self) -> Any:
        return self.gen.bit_generator.state

    def set_state(self, state: Any) -> None:
        self.gen.bit_generator.state = state
