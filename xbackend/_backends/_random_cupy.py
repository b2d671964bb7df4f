"""``xb.random`` on CuPy: the portable stream from a CUDA kernel, and CuPy's own ``RandomState``.

Design constraint: the words are made on the array's device by one raw kernel
(:func:`xbackend._backends._random_cuda.cupy_source`, one thread per Philox block, native 64-bit
integers), which writes raw words, float64 or float32 uniforms directly; everything else is xbackend
operations on CuPy arrays. No value passes through the host: the key and counter travel as kernel
arguments.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _dtypes as D
from .._array import Array, _new
from .._devices import Device
from .._dtypes import DType
from ..random._engine import Native as _NativeBase
from ..random._source import PhiloxSource
from ._random_cuda import MODES, cupy_source

__all__ = ["Source", "Native"]

_M64 = (1 << 64) - 1
_C256 = 1 << 256
_THREADS = 256


class Source(PhiloxSource):
    """CuPy's portable-stream words: the raw kernel."""

    def __init__(self, be: Any) -> None:
        super().__init__(be)
        import cupy

        self.cp = cupy
        self._kernels: dict[int, Any] = {}  # per device (a RawKernel loads its module per device)

    def _run(self, key: tuple[int, int], ctr: int, start: int, n: int, width: int, mode: int, dev: Device) -> Any:
        """Words ``start .. start + n - 1`` as a uint64 CuPy array of their bits (viewed per ``width``)."""
        cp = self.cp
        per = 4 if width == 64 else 8
        first = start // per
        m = max(0, (start + n - 1) // per - first + 1) if n else 0
        with self.be.device_scope(dev.physical):
            out = cp.empty(4 * m, dtype=cp.uint64)
            if m:
                k = self._kernels.get(dev.physical.index or 0)
                if k is None:
                    k = self._kernels[dev.physical.index or 0] = cp.RawKernel(cupy_source(), "xb_philox",
                                                                              options=("-std=c++17",))  # fmt: skip
                c = (ctr + 1 + first) % _C256
                lanes = [np.uint64((c >> s) & _M64) for s in (0, 64, 128, 192)]
                k(((m + _THREADS - 1) // _THREADS,), (_THREADS,),
                  (np.int64(m), *lanes, np.uint64(key[0]), np.uint64(key[1]), np.int64(mode), out))  # fmt: skip
        if width == 32:
            out = out.view(cp.uint32)
        off = start - first * per
        return out[off : off + n]

    def words(self, key: tuple[int, int], ctr: int, start: int, n: int, width: int, dev: Device) -> Array:
        w = self._run(key, ctr, start, n, width, MODES["raw"], dev)
        return _new(w, D.uint64 if width == 64 else D.uint32, dev.physical, self.be)

    def uniform(self, key: tuple[int, int], ctr: int, start: int, n: int, dt: DType, dev: Device) -> Array | None:
        if dt is not D.float64 and dt is not D.float32:
            return None
        w = self._run(key, ctr, start, n, 64 if dt is D.float64 else 32, MODES[dt.name], dev)
        return _new(w.view(self.cp.float64 if dt is D.float64 else self.cp.float32), dt, dev.physical, self.be)


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

    def _integers(self, low: int, high: int, shape: tuple[int, ...], dt: DType) -> Any:
        with self.be.device_scope(self.dev):
            return self.gen.randint(low, high, shape, dtype=dt.name)
