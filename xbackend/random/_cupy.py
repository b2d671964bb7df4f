"""``xb.random`` on CuPy: the portable stream from a CUDA kernel, and CuPy's own ``RandomState``.

Design constraint: a draw is made on the array's device by one launch of one raw kernel
(:func:`xbackend.random._cuda.cupy_source`, one thread per Philox block, native 64-bit
integers), which writes raw words, float64 or float32 uniforms, normals, exponentials, integers (their
rejections redrawn inside the kernel) or permutation keys directly; everything else is xbackend operations
on CuPy arrays. No value passes through the host: the key and counter travel as kernel arguments.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _dtypes as D
from .._array import Array, _new
from .._devices import Device
from .._dtypes import DType
from ._engine import Native as _NativeBase
from ._source import PhiloxSource
from ._cuda import MODES, counter_lanes, cupy_source, gamma_mode, integer_mode

__all__ = ["Source", "Native"]

_THREADS = 256


class Source(PhiloxSource):
    """CuPy's portable-stream words: the raw kernel."""

    def __init__(self, be: Any) -> None:
        super().__init__(be)
        import cupy

        self.cp = cupy
        self._kernels: dict[int, Any] = {}  # per device (a RawKernel loads its module per device)

    def _run(self, key: tuple[int, int], ctr: int, start: int, n: int, mode: int, per: int, dtype: Any, dev: Device,
             arg: int = 0, thr: int = 0, low: int = 0) -> Any:  # fmt: skip
        """Outputs ``start .. start + n - 1`` of draw ``mode`` (``per`` per counter block) from one launch, as a
        CuPy array of ``n`` values of ``dtype``."""
        cp = self.cp
        first = start // per
        m = (start + n - 1) // per - first + 1 if n else 0
        with self.be.device_scope(dev.physical):
            out = cp.empty(n, dtype=dtype)
            if m:
                k = self._kernels.get(dev.physical.index or 0)
                if k is None:
                    k = self._kernels[dev.physical.index or 0] = cp.RawKernel(cupy_source(), "xb_philox",
                                                                              options=("-std=c++17",))  # fmt: skip
                lanes = [np.uint64(v) for v in counter_lanes(ctr, first)]
                k(((m + _THREADS - 1) // _THREADS,), (_THREADS,),
                  (np.int64(m), *lanes, np.uint64(key[0]), np.uint64(key[1]), np.int64(mode), np.uint64(arg),
                   np.uint64(thr), np.uint64(low % (1 << 64)), np.int64(start - first * per), np.int64(n),
                   out))  # fmt: skip
        return out

    def words(self, key: tuple[int, int], ctr: int, start: int, n: int, width: int, dev: Device) -> Array:
        cp = self.cp
        w = (self._run(key, ctr, start, n, MODES["raw"], 4, cp.uint64, dev) if width == 64 else
             self._run(key, ctr, start, n, MODES["raw32"], 8, cp.uint32, dev))  # fmt: skip
        return _new(w, D.uint64 if width == 64 else D.uint32, dev.physical, self.be)

    def uniform(self, key: tuple[int, int], ctr: int, start: int, n: int, dt: DType, dev: Device) -> Array | None:
        if dt is D.float64:
            w = self._run(key, ctr, start, n, MODES["float64"], 4, self.cp.float64, dev)
        elif dt is D.float32:
            w = self._run(key, ctr, start, n, MODES["float32"], 8, self.cp.float32, dev)
        else:
            return None
        return _new(w, dt, dev.physical, self.be)

    def fused(self, draw: str, key: tuple[int, int], ctr: int, start: int, n: int, dt: DType, arg: Any,
              dev: Device) -> Array | None:  # fmt: skip
        cp = self.cp
        if draw == "integers":
            low, r = arg
            mode, karg, thr, per = integer_mode(r)
            w = self._run(key, ctr, start, n, mode, per, cp.uint64 if dt is D.uint64 else cp.int64, dev, karg, thr,
                          low)  # fmt: skip
            if dt is not D.int64 and dt is not D.uint64:
                w = self._cast(w, dt, dev)  # in dt's range: exact
            return _new(w, dt, dev.physical, self.be)
        if draw == "keys":
            return _new(self._run(key, ctr, start, n, MODES["keys"], 4, cp.int64, dev), D.int64, dev.physical,
                        self.be)  # fmt: skip
        if draw == "gamma":  # float64 in the kernel, rounded once (shape 0: the general path's zeros)
            if float(arg) == 0.0:
                return None
            mode, karg, thr, low = gamma_mode(float(arg))
            w = self._run(key, ctr, start, n, mode, 1, cp.float64, dev, karg, thr, low)
            return _new(w if dt is D.float64 else self._cast(w, dt, dev), dt, dev.physical, self.be)
        if draw != "normal" and draw != "exponential":
            return None
        f32 = dt is D.float32
        mode = MODES[f"{draw}{32 if f32 else 64}"]
        w = self._run(key, ctr, start, n, mode, 4, cp.float32 if f32 else cp.float64, dev)
        if not f32 and dt is not D.float64:  # float16: from float64, rounded once
            w = self._cast(w, dt, dev)
        return _new(w, dt, dev.physical, self.be)

    def _cast(self, w: Any, dt: DType, dev: Device) -> Any:
        with self.be.device_scope(dev.physical):
            return w.astype(self.be.native_dtype(dt))


class Native(_NativeBase):
    """CuPy's own generator (``cupy.random.RandomState`` on the device; its state stays on the GPU, so it
    cannot be pickled)."""

    def __init__(self, be: Any, dev: Device, seed_seq: Any, chunks: Any = None) -> None:
        super().__init__(be, dev, seed_seq, chunks)
        import cupy

        self.cp = cupy
        with be.device_scope(dev):
            self.gen = cupy.random.RandomState(int(seed_seq.generate_state(1, np.uint64)[0]))

    def _uniform(self, shape: tuple[int, ...], dt: DType) -> Any:
        with self.be.device_scope(self.dev):
            return self.gen.random_sample(shape, dtype=dt.name)

    def _normal(self, shape: tuple[int, ...], dt: DType) -> Any:
        with self.be.device_scope(self.dev):
            return self.gen.standard_normal(shape, dtype=dt.name)

    def _exponential(self, shape: tuple[int, ...], dt: DType) -> Any:
        with self.be.device_scope(self.dev):
            return self.gen.standard_exponential(shape, dtype=dt.name)

    def _gamma(self, alpha: float, shape: tuple[int, ...], dt: DType) -> Any:
        with self.be.device_scope(self.dev):
            return self.gen.standard_gamma(alpha, shape, dtype=dt.name)

    def _beta(self, a: float, b: float, shape: tuple[int, ...], dt: DType) -> Any:
        with self.be.device_scope(self.dev):
            return self.gen.beta(a, b, shape, dtype=dt.name)

    def _integers(self, low: int, high: int, shape: tuple[int, ...], dt: DType) -> Any:
        with self.be.device_scope(self.dev):
            return self.gen.randint(low, high, shape, dtype=dt.name)
