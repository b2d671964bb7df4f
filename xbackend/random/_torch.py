"""``xb.random`` on torch: the portable stream on the CPU and on CUDA devices, and ``torch.Generator``.

Design constraint: the numbers are made on the tensor's device. On the CPU that device is NumPy's too, so
the words come from NumPy's C Philox and are wrapped with ``torch.from_numpy`` (no copy, the same memory).
On CUDA one kernel launch makes a whole draw - uniforms, normals, exponentials, integers with their
rejections, permutation keys - into one freshly allocated tensor: the raw kernel of
:mod:`._cuda` (the one CuPy runs), compiled by NVRTC on first use and launched on torch's current stream
(:mod:`xbackend._backends.torch.nvrtc`). Where it cannot be built, a jiterator kernel makes the words and the
uniforms (an index tensor in, four outputs stacked: slower), and past that the rounds run as xbackend uint64
operations (int64 tensors and masks on the device; the default :class:`~xbackend.random._source.PhiloxSource` path,
which tests run on CPU tensors), each fallback after one warning. Either way nothing passes through the host, and
the numbers are the same.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np

from .. import _config, _dtypes as D
from .._array import Array, _alloc, _new
from .._boundary import raise_translated
from .._devices import Device
from .._dispatch import get_backend
from .._dtypes import DType
from ._engine import Native as _NativeBase
from ._source import PhiloxSource, source_for
from ._cuda import KERNEL_ARGS, MODES, cupy_source, gamma_mode, integer_mode, jiterator_source
from .._backends.torch.nvrtc import THREADS, RawKernel

__all__ = ["Source", "Native", "JiteratorPhilox", "RAW"]

_M64 = (1 << 64) - 1
_C256 = 1 << 256


def _signed(v: int) -> int:
    return v - (1 << 64) if v >= 1 << 63 else v


#: the raw kernel (NVRTC; ``RAW.broken`` says why it is not used, after the one warning)
RAW = RawKernel(cupy_source, "xb_philox", len(KERNEL_ARGS))


class JiteratorPhilox:
    """The CUDA kernel through ``torch.cuda.jiterator`` (built once per process); ``None`` from
    :meth:`blocks` when it cannot be built or run (then the caller falls back and this warns once)."""

    def __init__(self) -> None:
        self.fn: Callable[..., Any] | None = None
        self.broken: str | None = None

    def blocks(self, torch: Any, key: tuple[int, int], ctr: int, first: int, m: int, mode: int, tdev: Any) -> Any:
        """The 4m words (int64 bits, or float bits per ``mode``) of blocks ``first .. first + m - 1``."""
        if self.broken is not None:
            return None
        try:
            if self.fn is None:
                from torch.cuda import jiterator

                self.fn = jiterator._create_multi_output_jit_fn(
                    jiterator_source(), num_outputs=4, c0=0, c1=0, c2=0, c3=0, k0=0, k1=0, mode=0)  # fmt: skip
            c = (ctr + 1 + first) % _C256
            lanes = [_signed((c >> s) & _M64) for s in (0, 64, 128, 192)]
            j = torch.arange(m, dtype=torch.int64, device=tdev)
            outs = self.fn(j, c0=lanes[0], c1=lanes[1], c2=lanes[2], c3=lanes[3], k0=_signed(key[0]),
                           k1=_signed(key[1]), mode=mode)  # fmt: skip
            return torch.stack(list(outs), dim=1).reshape(-1)
        except Exception as exc:  # no NVRTC, an old torch: the xbackend-operations path (same numbers)
            self.broken = f"{type(exc).__name__}: {exc}"
            warnings.warn(f"xb.random: the CUDA Philox kernel could not be built ({self.broken}); torch on CUDA uses "
                          "the slower emulated rounds (the same numbers)", RuntimeWarning, stacklevel=4)  # fmt: skip
            return None


_KERNEL = JiteratorPhilox()


class Source(PhiloxSource):
    """torch's portable-stream words: NumPy's on the CPU (shared memory), one kernel launch per draw on GPUs."""

    def __init__(self, be: Any) -> None:
        super().__init__(be)
        import torch

        self.torch = torch
        self.kernel = _KERNEL
        self.raw = RAW
        self._places: dict[Device, tuple[Any, int]] = {}  # Device -> (torch.device, CUDA index)
        t = torch
        self._f = {D.float64: (MODES["float64"], 4, t.float64), D.float32: (MODES["float32"], 8, t.float32)}
        self._normal = {D.float64: (MODES["normal64"], t.float64), D.float32: (MODES["normal32"], t.float32)}
        self._exp = {D.float64: (MODES["exponential64"], t.float64), D.float32: (MODES["exponential32"], t.float32)}

    def _host(self) -> Any:
        return source_for(get_backend("numpy"))

    def _on_kernel(self, dev: Device) -> bool:
        """Whether draws on ``dev`` are made by the CUDA kernels (tests point CPU tensors at a host build)."""
        return dev.type == "cuda"

    def _place(self, dev: Device) -> tuple[Any, int]:
        p = self._places.get(dev)
        if p is None:
            td = self.torch.device(str(dev.physical))
            p = self._places[dev] = (td, td.index if td.index is not None else 0)
        return p

    def _launch(self, dev: Device, mode: int, per: int, tdt: Any, key: tuple[int, int], ctr: int, start: int,
                n: int, arg: int = 0, thr: int = 0, low: int = 0) -> Any:  # fmt: skip
        """Outputs ``start .. start + n - 1`` of draw ``mode`` (``per`` per counter block, of torch dtype ``tdt``)
        from one launch of the raw kernel, in a new tensor of ``n``; None when the kernel is unusable (after one
        warning) or ``n`` is 0."""
        raw = self.raw
        if raw.broken is not None or n <= 0:
            return None
        first = start // per
        m = (start + n - 1) // per - first + 1
        p = self._places.get(dev) or self._place(dev)
        out = self.torch.empty(n, dtype=tdt, device=p[0])
        c = (ctr + 1 + first) % _C256
        try:
            raw(self.torch, p[1], (m + THREADS - 1) // THREADS, [m, c, c >> 64, c >> 128, c >> 192, key[0], key[1],
                mode, arg, thr, low, start - first * per, n, out.data_ptr()])  # fmt: skip
        except Exception as exc:  # no NVRTC or driver API, an old torch: the jiterator, or the emulation
            raw.broken = f"{type(exc).__name__}: {exc}"
            warnings.warn(f"xb.random: the CUDA Philox kernel could not be built or launched through NVRTC "
                          f"({raw.broken}); torch on CUDA uses slower kernels (the same numbers)", RuntimeWarning,
                          stacklevel=3)  # fmt: skip
            return None
        return out

    def words(self, key: tuple[int, int], ctr: int, start: int, n: int, width: int, dev: Device) -> Array:
        dt = D.uint64 if width == 64 else D.uint32
        t = self.torch
        if not self._on_kernel(dev):
            return _new(t.from_numpy(self._host().raw(key, ctr, start, n, width)), dt, dev.physical, self.be)
        w = (self._launch(dev, MODES["raw"], 4, t.uint64, key, ctr, start, n) if width == 64 else
             self._launch(dev, MODES["raw32"], 8, t.uint32, key, ctr, start, n))  # fmt: skip
        if w is None:
            w = self._cuda(key, ctr, start, n, width, MODES["raw"], dev)
            if w is None:
                return super().words(key, ctr, start, n, width, dev)
            w = w.view(t.uint64 if width == 64 else t.uint32)
        return _new(w, dt, dev.physical, self.be)

    def uniform(self, key: tuple[int, int], ctr: int, start: int, n: int, dt: DType, dev: Device) -> Array | None:
        f = self._f.get(dt)
        if f is None:
            return None
        if not self._on_kernel(dev):
            out = self._host().floats(key, ctr, start, n, dt)
            return None if out is None else _new(self.torch.from_numpy(out), dt, dev.physical, self.be)
        mode, per, tdt = f
        w = self._launch(dev, mode, per, tdt, key, ctr, start, n)
        if w is None:
            w = self._cuda(key, ctr, start, n, 64 if dt is D.float64 else 32, mode, dev)
            if w is None:
                return None
            w = w.view(tdt)
        return _new(w, dt, dev.physical, self.be)

    def fused(self, draw: str, key: tuple[int, int], ctr: int, start: int, n: int, dt: DType, arg: Any,
              dev: Device) -> Array | None:  # fmt: skip
        if not self._on_kernel(dev):
            return None
        t = self.torch
        if draw == "integers":
            low, r = arg
            mode, karg, thr, per = integer_mode(r)
            w = self._launch(dev, mode, per, t.uint64 if dt is D.uint64 else t.int64, key, ctr, start, n, karg, thr,
                             low)  # fmt: skip
            if w is None:
                return None
            if dt is not D.int64 and dt is not D.uint64:
                w = self.be.astype(w, dt)  # in dt's range: exact
            return _new(w, dt, dev.physical, self.be)
        if draw == "keys":
            w = self._launch(dev, MODES["keys"], 4, t.int64, key, ctr, start, n)
            return None if w is None else _new(w, D.int64, dev.physical, self.be)
        if draw == "gamma":  # float64 in the kernel, rounded once below (shape 0: the general path's zeros)
            if float(arg) == 0.0:
                return None
            mode, karg, thr, low = gamma_mode(float(arg))
            w = self._launch(dev, mode, 1, t.float64, key, ctr, start, n, karg, thr, low)
            if w is None:
                return None
            return _new(w if dt is D.float64 else self.be.astype(w, dt), dt, dev.physical, self.be)
        table = self._normal if draw == "normal" else self._exp if draw == "exponential" else None
        if table is None:
            return None
        mode, tdt = table.get(dt) or table[D.float64]  # other float dtypes: float64, rounded once below
        w = self._launch(dev, mode, 4, tdt, key, ctr, start, n)
        if w is None:
            return None
        out = _new(w, D.float64 if tdt is t.float64 else dt, dev.physical, self.be)
        return out if out.dtype is dt else _new(self.be.astype(w, dt), dt, dev.physical, self.be)

    def one_call_for(self, engine: Any, dev: Device) -> Callable[[dict[str, Any]], dict[str, Any]] | None:
        """On the kernel path: ``random``, ``standard_normal`` (an int shape, float32/float64) and ``integers``
        (int64 inside int64's range, an int shape) of a placed portable generator as closures that take the
        counter blocks and launch, with no other frame in between (the per-call cost of a 100-value draw is
        the goal: raw ``torch.rand`` + 5 µs on CUDA); any other call goes to the general path. The numbers
        are those of the general path (tests compare them)."""
        if not self._on_kernel(dev):
            return None
        return lambda general: self._one_call(engine, dev, general)

    def _one_call(self, engine: Any, dev: Device, general: dict[str, Any]) -> dict[str, Any]:
        from ._draws import DRAWS

        launch, take, key, f, normals, ctx, cfg = (self._launch, engine.take, engine.key, self._f, self._normal,
                                                   _config._ctx.get, _config)  # fmt: skip
        alloc, xbe, phys, i64, ints = _alloc, self.be, dev.physical, D.int64, self.torch.int64
        g_random, g_std, g_normal, g_ints = (general[k] for k in ("random", "standard_normal", "normal", "integers"))
        d_uniform, d_normal, d_ints = DRAWS["uniform"], DRAWS["normal"], DRAWS["integers"]

        def random(shape: Any = None, dtype: Any = None) -> Array:
            try:
                if dtype is None:
                    c = ctx()
                    dtype = (cfg._base if c is None else c).default_float
                t = f.get(dtype)
                if t is None or type(shape) is not int or shape <= 0:
                    return g_random(shape, dtype)
                mode, per, tdt = t
                ctr = take(-(-shape // per))
                w = launch(dev, mode, per, tdt, key, ctr, 0, shape)
                if w is None:  # the kernel is unusable: the same numbers from the fallbacks, at the counter taken
                    return d_uniform(self, dev, key, ctr, 0, shape, dtype)
                a = alloc()
                a._data, a._dt, a._dev, a._be = w, dtype, phys, xbe
                return a
            except Exception as exc:  # a native error: typed at the boundary
                raise_translated(exc, "random.Generator.random")
                raise  # (raise_translated always raises)

        def standard_normal(shape: Any = None, dtype: Any = None) -> Array:
            try:
                if dtype is None:
                    c = ctx()
                    dtype = (cfg._base if c is None else c).default_float
                t = normals.get(dtype)
                if t is None or type(shape) is not int or shape <= 0:
                    return g_std(shape, dtype)
                ctr = take((-(-shape // 2) + 1) // 2)  # pairs of 64-bit words, 4 words a block
                w = launch(dev, t[0], 4, t[1], key, ctr, 0, shape)
                if w is None:
                    return d_normal(self, dev, key, ctr, 0, shape, dtype)
                a = alloc()
                a._data, a._dt, a._dev, a._be = w, dtype, phys, xbe
                return a
            except Exception as exc:  # a native error: typed at the boundary
                raise_translated(exc, "random.Generator.standard_normal")
                raise  # (raise_translated always raises)

        def normal(loc: Any = 0.0, scale: Any = 1.0, shape: Any = None, dtype: Any = None) -> Array:
            try:
                return g_normal(loc, scale, shape, dtype)
            except Exception as exc:  # a native error: typed at the boundary
                raise_translated(exc, "random.Generator.normal")
                raise  # (raise_translated always raises)

        def integers(low: Any, high: Any = None, shape: Any = None, dtype: Any = None,
                     endpoint: bool = False) -> Array:  # fmt: skip
            try:
                if dtype is None:
                    c = ctx()
                    dtype = (cfg._base if c is None else c).default_int
                if not (dtype is i64 and type(shape) is int and shape > 0 and type(low) is int and type(high) is int
                        and not endpoint and -(1 << 63) <= low < high <= 1 << 63):  # fmt: skip
                    return g_ints(low, high, shape, dtype, endpoint)
                r = high - low
                mode, karg, thr, per = integer_mode(r)
                ctr = take(-(-shape // per))
                w = launch(dev, mode, per, ints, key, ctr, 0, shape, karg, thr, low)
                if w is None:
                    return d_ints(self, dev, key, ctr, 0, shape, i64, (low, r))
                a = alloc()
                a._data, a._dt, a._dev, a._be = w, i64, phys, xbe
                return a
            except Exception as exc:  # a native error: typed at the boundary
                raise_translated(exc, "random.Generator.integers")
                raise  # (raise_translated always raises)

        return {"random": random, "standard_normal": standard_normal, "normal": normal, "integers": integers}

    def _cuda(self, key: tuple[int, int], ctr: int, start: int, n: int, width: int, mode: int, dev: Device) -> Any:
        """Words ``start .. start + n - 1`` from the jiterator kernel, as the int64 tensor of their bits (viewed
        as ``width``-bit words), or None."""
        per = 4 if width == 64 else 8
        first, last = start // per, (start + n - 1) // per
        if n == 0:
            return None
        blocks = self.kernel.blocks(self.torch, key, ctr, first, last - first + 1, mode,
                                    self.torch.device(str(dev.physical)))  # fmt: skip
        if blocks is None:
            return None
        if width == 32:
            blocks = blocks.view(self.torch.int32)
        off = start - first * per
        return blocks[off : off + n]


class Native(_NativeBase):
    """torch's own generator (``torch.Generator`` on the device, seeded from the seed sequence)."""

    direct = frozenset((D.float16, D.bfloat16, D.float32, D.float64))

    def __init__(self, be: Any, dev: Device, seed_seq: Any, chunks: Any = None) -> None:
        super().__init__(be, dev, seed_seq, chunks)
        import torch

        self.torch = torch
        self.tdev = torch.device(str(dev))
        self.gen = torch.Generator(device=self.tdev)
        self.gen.manual_seed(int(seed_seq.generate_state(1, np.uint64)[0]))

    def one_call_methods(self, general: dict[str, Any]) -> dict[str, Any]:
        """``random``, ``standard_normal``, ``normal``, ``integers``: one torch call and an Array for the common
        calls (an int shape, a float dtype, or int64; Python-number parameters); any other call goes to
        ``general[name]`` (the generator's general path)."""
        torch, tg, tdev, alloc, ctx, cfg, xbe, dev = (self.torch, self.gen, self.tdev, _alloc, _config._ctx.get,
                                                      _config, self.be, self.dev)  # fmt: skip
        rand, randn, tnormal, randint = torch.rand, torch.randn, torch.normal, torch.randint
        t_i64, i64 = torch.int64, D.int64
        floats = {d: self.be.to_t[d] for d in self.direct}
        kw: dict[str, Any] = {"generator": tg} if tdev.type == "cpu" else {"generator": tg, "device": tdev}
        g_random, g_std, g_normal, g_ints = (general[k] for k in ("random", "standard_normal", "normal", "integers"))
        num = (int, float)
        on_cpu = tdev.type == "cpu"

        def random(shape: Any = None, dtype: Any = None, *, size: Any = None) -> Array:
            try:
                if dtype is None:
                    c = ctx()
                    dtype = (cfg._base if c is None else c).default_float
                t = floats.get(dtype)
                if t is None or type(shape) is not int or shape < 0 or size is not None:
                    return g_random(shape, dtype, size)
                a = alloc()
                a._data = (rand(shape, generator=tg, dtype=t) if on_cpu else
                           rand(shape, generator=tg, dtype=t, device=tdev))  # fmt: skip
                a._dt = dtype
                a._dev = dev
                a._be = xbe
                return a
            except Exception as exc:  # a native error: typed at the boundary
                raise_translated(exc, "random.Generator.random")
                raise  # (raise_translated always raises)

        def standard_normal(shape: Any = None, dtype: Any = None, *, size: Any = None) -> Array:
            try:
                if dtype is None:
                    c = ctx()
                    dtype = (cfg._base if c is None else c).default_float
                t = floats.get(dtype)
                if t is None or type(shape) is not int or shape < 0 or size is not None:
                    return g_std(shape, dtype, size)
                a = alloc()
                a._data = randn(shape, dtype=t, **kw)
                a._dt = dtype
                a._dev = dev
                a._be = xbe
                return a
            except Exception as exc:  # a native error: typed at the boundary
                raise_translated(exc, "random.Generator.standard_normal")
                raise  # (raise_translated always raises)

        def normal(loc: Any = 0.0, scale: Any = 1.0, shape: Any = None, dtype: Any = None, *,
                   size: Any = None) -> Array:
            try:
                if dtype is None:
                    c = ctx()
                    dtype = (cfg._base if c is None else c).default_float
                t = floats.get(dtype)
                if (t is None or type(shape) is not int or shape < 0 or type(loc) not in num or type(scale) not in num
                        or not scale >= 0 or size is not None):  # fmt: skip
                    return g_normal(loc, scale, shape, dtype, size)
                a = alloc()
                a._data = tnormal(float(loc), float(scale), (shape,), dtype=t, **kw)
                a._dt = dtype
                a._dev = dev
                a._be = xbe
                return a
            except Exception as exc:  # a native error: typed at the boundary
                raise_translated(exc, "random.Generator.normal")
                raise  # (raise_translated always raises)

        def integers(low: Any, high: Any = None, shape: Any = None, dtype: Any = None,
                     endpoint: bool = False, *, size: Any = None) -> Array:  # fmt: skip
            try:
                if dtype is None:
                    c = ctx()
                    dtype = (cfg._base if c is None else c).default_int
                if (dtype is i64 and type(shape) is int and size is None and shape >= 0 and type(low) is int
                        and type(high) is int and not endpoint and -(1 << 63) <= low < high < 1 << 63):  # fmt: skip
                    a = alloc()
                    a._data = randint(low, high, (shape,), dtype=t_i64, **kw)
                    a._dt = i64
                    a._dev = dev
                    a._be = xbe
                    return a
                return g_ints(low, high, shape, dtype, endpoint, size)
            except Exception as exc:  # a native error: typed at the boundary
                raise_translated(exc, "random.Generator.integers")
                raise  # (raise_translated always raises)

        return {"random": random, "standard_normal": standard_normal, "normal": normal, "integers": integers}

    def _float(self, hook: Any, shape: tuple[int, ...], dt: DType) -> Array:
        return self._wrap(hook(shape, dt), dt)

    def _kw(self, dt: DType) -> dict[str, Any]:
        return {"generator": self.gen, "dtype": self.be.to_t[dt], "device": self.tdev}

    def _uniform(self, shape: tuple[int, ...], dt: DType) -> Any:
        return self.torch.rand(shape, **self._kw(dt))

    def _normal(self, shape: tuple[int, ...], dt: DType) -> Any:
        return self.torch.randn(shape, **self._kw(dt))

    def _exponential(self, shape: tuple[int, ...], dt: DType) -> Any:
        return self.torch.empty(shape, dtype=self.be.to_t[dt], device=self.tdev).exponential_(generator=self.gen)

    def _gamma(self, alpha: float, shape: tuple[int, ...], dt: DType) -> Any:
        t = self.torch
        return t._standard_gamma(t.full(shape, alpha, dtype=self.be.to_t[dt], device=self.tdev), generator=self.gen)

    def _beta(self, a: float, b: float, shape: tuple[int, ...], dt: DType) -> Any:
        x, y = self._gamma(a, shape, dt), self._gamma(b, shape, dt)
        return x / (x + y)

    def _integers(self, low: int, high: int, shape: tuple[int, ...], dt: DType) -> Any:
        if low < -(1 << 63) or high > (1 << 63) - 1:
            from .._errors import UnsupportedDTypeError

            raise UnsupportedDTypeError(
                f"torch's generator draws integers inside int64 (torch.randint), not [{low}, {high}). Fix: use the "
                "portable stream (xb.random.default_rng(seed)), which draws every integer dtype's whole "
                "range")  # fmt: skip
        x = self.torch.randint(low, high, shape, generator=self.gen, dtype=self.torch.int64, device=self.tdev)
        return x if dt is D.int64 else x.to(self.be.to_t[dt])

    def get_state(self) -> Any:
        return self.gen.get_state().numpy().tobytes()

    def set_state(self, state: Any) -> None:
        self.gen.set_state(self.torch.frombuffer(bytearray(state), dtype=self.torch.uint8))
