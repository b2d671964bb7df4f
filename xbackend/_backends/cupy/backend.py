"""The CuPy backend (CUDA). CuPy mirrors NumPy's API, so this subclasses the NumPy backend and
overrides only what differs: devices, host transfers, DLPack, detection, and the kernels where CuPy's
results differ from NumPy's (the corrections live in ``fixes.py`` as functions of ``xp``, so
CI tests them on NumPy arrays; ``self.xp`` is CuPy wrapped in ``SignSafeNamespace`` so that ``-0.0``
survives creation).

Design constraint: "installed but no usable device" is detected quickly and quietly
(``cupy.cuda.is_available()``, then the runtime's own error for the reason) and reported, never
raised as a traceback from ``import xbackend`` or ``xb.backends()``.
"""

from __future__ import annotations

import contextlib
import importlib.util
from typing import Any

import numpy as np

from ..._backend import BackendInfo, byte_bounds
from ..._devices import Device, device as _device
from ..._dtypes import DType
from ..._errors import HostTransferError, UnknownDeviceError
from . import fixes as F
from ..common.kernels import negative_integer_power, standard_floor_divide
from ..numpy.backend import NumpyBackend

cupy: Any = None
_NULL = contextlib.nullcontext()  # reusable


def _import_cupy() -> Any:
    global cupy
    if cupy is None:
        import cupy as _cupy

        cupy = _cupy
    return cupy


class CupyBackend(NumpyBackend):
    name = "cupy"
    module = "cupy"
    exception_modules = ("cupyx", "cupy_backends")
    index_checks = True  # CuPy wraps out-of-bounds integer indices around; xbackend raises IndexError
    native_reshape = False  # CuPy's reshape takes a bool shape entry as an int: ``reshaper`` lets only ints through
    fixed_default_device = False  # the current CUDA device can change
    native_basic_indexing = False  # out-of-bounds checks go through check_index
    tie_second_natively: frozenset[DType] = frozenset()  # CUDA orders -0.0 below +0.0 in max/min (common/kernels)

    def __init__(self) -> None:
        self.cp = cp = self._library()
        self.xp = F.SignSafeNamespace(cp)
        super().__init__()
        self._devs: dict[int, Device] = {}
        # one GPU: it is always current, so per-call ``with x.device:`` (~1 µs) is skipped
        self._ndev = cp.cuda.runtime.getDeviceCount()  # fixed for the life of a CUDA process
        self._multi = self._ndev > 1

    def _library(self) -> Any:
        """The CuPy module every computation goes through (``self.cp``; ``self.xp`` is it in ``SignSafeNamespace``).
        tests/fakecupy.py swaps in NumPy with CuPy's observed kernel behaviour, so CI runs this module's code."""
        return _import_cupy()

    def reshaper(self) -> Any:
        """``x.reshape(shape)`` for shapes of Python ints; anything else (``True``: CuPy reshaped by it) is
        left to ``xb.reshape``'s checks, which refuse it as on every backend."""

        def reshape(x: Any, shape: tuple[Any, ...]) -> Any:
            for s in shape:
                if type(s) is not int:
                    raise TypeError(f"shape entry {s!r} is not an int")
            return x.reshape(shape)

        return reshape

    def _supports_ml_bfloat16(self) -> bool:
        # CuPy 14 stores ml_dtypes.bfloat16, but several routines (tril, where with scalars, ...) return
        # float32 for it and comparisons flush bfloat16 subnormals: an Array labelled bfloat16 would not
        # hold bfloat16 data. xbackend refuses bfloat16 on CuPy at creation instead.
        return False

    def native_dtype(self, dt: DType) -> Any:
        try:
            return self.to_np[dt]
        except KeyError:
            raise self.unsupported(
                dt, "use dtype=xb.float32 on CuPy, or backend='torch' for bfloat16 on the GPU (CuPy computes "
                "parts of bfloat16 in float32, so xbackend does not hold it there)"
            ) from None

    @classmethod
    def probe(cls) -> BackendInfo:
        if importlib.util.find_spec("cupy") is None:
            return BackendInfo("cupy", installed=False, usable=False, reason="cupy is not installed")
        try:
            cp = _import_cupy()
        except Exception as exc:
            return BackendInfo("cupy", installed=True, usable=False, reason=f"import cupy failed: {exc!r}")
        version = cp.__version__
        try:
            n = cp.cuda.runtime.getDeviceCount()
        except Exception as exc:  # CUDARuntimeError: cudaErrorInsufficientDriver / cudaErrorNoDevice / ...
            return BackendInfo("cupy", installed=True, usable=False, version=version,
                               reason=f"cupy {version} installed, no usable CUDA device: {exc}")  # fmt: skip
        if n == 0:
            return BackendInfo("cupy", installed=True, usable=False, version=version,
                               reason=f"cupy {version} installed, but CUDA reports 0 devices")  # fmt: skip
        return BackendInfo("cupy", installed=True, usable=True, version=version,
                           devices=tuple(f"cuda:{i}" for i in range(n)))  # fmt: skip

    def native_array_types(self) -> tuple[type, ...]:
        return (self.cp.ndarray,)

    # -- devices --------------------------------------------------------------------------------
    def device_of(self, x: Any) -> Device:
        i = x.device.id
        try:
            return self._devs[i]
        except KeyError:
            d = self._devs[i] = _device(f"cuda:{i}")
            return d

    def default_device(self) -> Device:
        return _device(f"cuda:{self.cp.cuda.runtime.getDevice()}")

    def devices(self) -> list[Device]:
        return [_device(f"cuda:{i}") for i in range(self.cp.cuda.runtime.getDeviceCount())]

    def check_device(self, dev: Device) -> Device:
        if dev.type != "cuda":
            raise UnknownDeviceError(
                f"the cupy backend only has CUDA devices, not {dev}. Fix: use device='cuda:0', or x.numpy() for the host"
            )
        if dev.index is None:
            return self.default_device()
        n = self._ndev
        if dev.index >= n:
            raise UnknownDeviceError(f"CuPy sees {n} CUDA device(s), so {dev} does not exist; use cuda:0..cuda:{n - 1}")
        return dev

    def _on(self, dev: Device) -> Any:
        """``dev`` made current (a no-op context with one GPU: it is always current)."""
        return self.cp.cuda.Device(dev.index or 0) if self._multi else _NULL

    # -- moving data ----------------------------------------------------------------------------
    def from_host(self, a: np.ndarray, dt: DType, dev: Device, copy: bool | None) -> Any:
        nd = self.native_dtype(dt)
        if a.dtype != nd and (a.dtype.itemsize > nd.itemsize or not a.dtype.isnative):
            a = a.astype(nd)  # cast on the host: fewer bytes cross the bus (CuPy rejects byte-swapped data)
        with self._on(dev):
            return self.xp.asarray(a).astype(nd, copy=False)  # 0-d data keeps the sign of zero

    def to_host(self, x: Any, copy: bool | None = None) -> np.ndarray:
        return x.get()

    def to_device(self, x: Any, dev: Device) -> Any:
        """A copy of ``x`` on ``dev``, ordered on both GPUs: the copy runs on ``dev``'s current stream, which
        first waits for the work queued on ``x``'s device (CuPy's peer copy does not), and ``x``'s device
        waits for the copy before anything there may reuse ``x``'s memory."""
        if self.device_of(x) is dev:
            return x
        with x.device:
            src = cupy.cuda.get_current_stream()
            ready = src.record()
        with cupy.cuda.Device(dev.index or 0):
            dst = cupy.cuda.get_current_stream()
            dst.wait_event(ready)
            y = cupy.asarray(x)
            copied = dst.record()
        with x.device:
            src.wait_event(copied)
        return y

    def wrap_native(self, x: Any, dt: DType | None, dev: Device | None, copy: bool | None) -> Any:
        if dev is not None and self.device_of(x) is not dev:
            x = self.to_device(x, dev)
            copy = False
        return super().wrap_native(x, dt, None, copy)

    def memory_range(self, x: Any) -> tuple[int, int]:
        return byte_bounds(x.data.ptr, x.shape, x.strides, x.itemsize)

    # -- interchange / transfer --------------
    # DLPack import/export and the layout normalisation are inherited from the NumPy backend (``self.xp``).
    # CuPy's from_dlpack passes its current stream to the producer, which makes that stream wait for the
    # producer's pending work; CuPy refuses copy=True from non-CPU producers (cupy/cupy#9842), so
    # xbackend never asks it to copy and copies afterwards instead.
    def device_scope(self, dev: Device) -> Any:
        return self._on(dev) if dev.type == "cuda" else _NULL

    def data_ptr(self, x: Any) -> int:
        return x.data.ptr

    def pinned_alloc(self, nbytes: int) -> tuple[Any, np.ndarray]:
        """A page-locked host buffer of ``nbytes`` bytes: (owner, uint8 NumPy view)."""
        import cupyx

        buf = cupyx.empty_pinned((nbytes,), dtype=np.uint8)
        return buf, buf

    def pinned_release(self) -> None:
        """Release the pinned blocks CuPy's pinned pool keeps for reuse."""
        cupy.get_default_pinned_memory_pool().free_all_blocks()

    # The staging protocol of xbackend/_transfer.py (its docstring says how the pieces fit).
    def copy_stream(self, dev: Device) -> Any:
        """The side stream staged copies run on (one per device, made once)."""
        streams = self.__dict__.setdefault("_copy_streams", {})
        s = streams.get(dev.index or 0)
        if s is None:
            with self._on(dev):
                s = streams[dev.index or 0] = cupy.cuda.Stream(non_blocking=True)
        return s

    def current_stream(self, dev: Device) -> Any:
        with self._on(dev):
            return cupy.cuda.get_current_stream()

    def alloc_on(self, nbytes: int, dev: Device, stream: Any) -> Any:
        """``nbytes`` of device memory from ``stream``'s arena of the pool (CuPy's pool is stream-ordered:
        a freed block is reused by allocations on the stream it was allocated on, at once)."""
        with self._on(dev), stream:
            return cupy.empty(nbytes, dtype=cupy.uint8)

    def stream_scope(self, stream: Any) -> Any:
        return stream  # a cupy Stream is a context manager: current inside

    def h2d_copy(self, raw: Any, lo: int, owner: Any, n: int, stream: Any) -> Any:
        """Queue ``owner[:n]`` (pinned) -> ``raw[lo:lo + n]`` on ``stream``; the event says when ``owner`` may
        be refilled."""
        raw[lo : lo + n].set(owner[:n], stream=stream)  # pinned source: asynchronous on `stream`
        return stream.record()

    def record_event(self, stream: Any) -> Any:
        return stream.record()

    def wait_event(self, stream: Any, ev: Any) -> None:
        stream.wait_event(ev)  # the stream waits; the host does not

    def record_stream(self, x: Any, stream: Any) -> Any:
        """CuPy has no ``record_stream``: a view of ``x`` whose owner (``FreeAfter``) makes the copy stream
        wait for ``stream``'s queued work when the last view dies, before ``x``'s block can be reused."""
        cs = self.__dict__.get("_copy_streams", {}).get(x.device.id)
        if cs is None or stream.ptr == cs.ptr or x.size == 0:
            return x
        keep = F.FreeAfter(x, stream, cs, cupy.cuda.Device(x.device.id))
        mem = cupy.cuda.UnownedMemory(x.data.ptr, x.nbytes, keep, x.device.id)
        return cupy.ndarray(x.shape, x.dtype, cupy.cuda.MemoryPointer(mem, 0), strides=x.strides)

    def bytes_as(self, raw: Any, dt: DType, shape: tuple[int, ...]) -> Any:
        return raw.view(self.native_dtype(dt)).reshape(shape)

    def d2h_start(self, x: Any) -> tuple[np.ndarray, Any]:
        """Start an asynchronous copy of ``x`` into pinned host memory on the current stream:
        (uint8 host view, event). The host view is undefined until the event completes."""
        import cupyx

        with cupy.cuda.Device(x.device.id):
            x = cupy.ascontiguousarray(x)
            out = cupyx.empty_pinned((x.nbytes,), dtype=np.uint8)
            cur = cupy.cuda.get_current_stream()
            if x.nbytes:
                x.reshape(-1).view(cupy.uint8).get(stream=cur, out=out, blocking=False)
            ev = cur.record()
        return out, ev

    def event_done(self, ev: Any) -> bool:
        return ev is None or bool(ev.done)

    def event_wait(self, ev: Any) -> None:
        if ev is not None:
            ev.synchronize()

    def timing_event(self, dev: Device) -> Any:
        """A CUDA event recorded now on ``dev``'s current stream (for ``xb.timer``)."""
        with self._on(dev):
            ev = cupy.cuda.Event()
            ev.record()
        return ev

    def elapsed_ms(self, start: Any, end: Any) -> float:
        end.synchronize()
        return float(cupy.cuda.get_elapsed_time(start, end))

    # -- creation (device-aware) ----------------------------------------------------------------
    def empty(self, shape: tuple[int, ...], dt: DType, dev: Device) -> Any:
        with self._on(dev):
            return super().empty(shape, dt, dev)

    def zeros(self, shape: tuple[int, ...], dt: DType, dev: Device) -> Any:
        with self._on(dev):
            return super().zeros(shape, dt, dev)

    def ones(self, shape: tuple[int, ...], dt: DType, dev: Device) -> Any:
        with self._on(dev):
            return super().ones(shape, dt, dev)

    def full(self, shape: tuple[int, ...], value: Any, dt: DType, dev: Device) -> Any:
        with self._on(dev):
            return super().full(shape, value, dt, dev)

    def arange(self, start: Any, stop: Any, step: Any, dt: DType, dev: Device, n: int) -> Any:
        with self._on(dev):
            return super().arange(start, stop, step, dt, dev, n)

    def linspace(self, start: Any, stop: Any, num: int, dt: DType, dev: Device, endpoint: bool) -> Any:
        with self._on(dev):  # NumpyBackend's formula (_linspace.py) in CuPy arrays; never cupy.linspace, which
            return super().linspace(start, stop, num, dt, dev, endpoint)  # calls float() on complex endpoints

    def eye(self, n: int, m: int, k: int, dt: DType, dev: Device) -> Any:
        with self._on(dev):
            return super().eye(n, m, k, dt, dev)

    def export_for_numpy(self, x: Any, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        raise HostTransferError("implicit conversion of CuPy data to NumPy; use x.numpy()")

    def format(self, x: Any) -> str:
        return np.array2string(x.get(), separator=", ", threshold=50)

    def synchronize(self, dev: Device) -> None:
        with self._on(dev):
            cupy.cuda.Device().synchronize()

    def gpu_devices_in_use(self) -> list[Device]:
        """The device ``xb.synchronize()`` waits for on CuPy: the current one (CuPy launches there)."""
        return [self.default_device()]

    def stream_handle(self, dev: Device) -> int | None:
        """The ``cudaStream_t`` current on ``dev`` (0: the legacy default stream): ``xb.grad`` runs torch's autograd
        on it, so the CuPy work before and after is ordered with it without a synchronisation."""
        if not self._multi:  # one GPU: no device to switch to (a move asks twice per hand-off)
            return int(cupy.cuda.get_current_stream().ptr)
        with self._on(dev):
            return int(cupy.cuda.get_current_stream().ptr)

    # -- sorting / set / statistical / utility --------------------------------------------------
    # CuPy's sort/argsort are always stable (thrust; NaNs last like NumPy) and accept only kind=None.
    # The NumPy code allocates helper arrays, which CuPy puts on the *current* device: run on x's.
    sort_kind = None

    def sort_indices(self, x: Any, dt: DType, axis: int, descending: bool) -> Any:
        with x.device:
            return super().sort_indices(x, dt, axis, descending)

    def sort_values(self, x: Any, dt: DType, axis: int, descending: bool) -> Any:
        with x.device:
            return super().sort_values(x, dt, axis, descending)

    def isin(self, x1: Any, x2: Any, dt: DType, invert: bool) -> Any:
        with x1.device:
            return super().isin(x1, x2, dt, invert)

    def moment(self, name: str, x: Any, axes: tuple[int, ...], correction: float, keepdims: bool) -> Any:
        with x.device:
            return super().moment(name, x, axes, correction, keepdims)

    def unique_sorted(self, x: Any, dt: DType, want_index: bool, want_inverse: bool,
                      want_counts: bool) -> tuple[Any, Any, Any, Any]:  # fmt: skip
        with x.device:
            return super().unique_sorted(x, dt, want_index, want_inverse, want_counts)

    def reduce(self, name: str, x: Any, dt: DType, axes: tuple[int, ...], keepdims: bool) -> Any:
        """CuPy reductions always return arrays: no ``asarray``; all axes -> ``axis=None`` (CuPy's fast
        path, as a raw ``cupy.sum(a)``); the device switch only with several GPUs."""
        if self._multi:
            with x.device:
                return super().reduce(name, x, dt, axes, keepdims)
        k = dt.kind
        if name == "mean" and k == "c" or x.dtype.itemsize == 2 and (k == "f" or k == "c"):
            return super().reduce(name, x, dt, axes, keepdims)  # float16 in float32, complex mean by parts
        axis = None if len(axes) == x.ndim else axes
        fn = self._reducers[name]
        if name == "sum" or name == "prod":
            return fn(x, axis=axis, keepdims=keepdims, dtype=x.dtype)
        return fn(x, axis=axis, keepdims=keepdims)

    def cumulative(self, name: str, x: Any, dt: DType, axis: int, include_initial: bool) -> Any:
        with x.device:
            return super().cumulative(name, x, dt, axis, include_initial)

    def diff(self, x: Any, dt: DType, axis: int, n: int) -> Any:
        with x.device:
            return super().diff(x, dt, axis, n)

    # -- manipulation / searching / indexing --------------------------------------------------
    def repeat(self, x: Any, repeats: Any, axis: int) -> Any:
        if not isinstance(repeats, int):  # cupy.repeat takes an int or a list, not an array (one sync)
            reps = [int(r) for r in repeats.tolist()]
            if any(r < 0 for r in reps):
                raise ValueError("repeat(): repeats must be non-negative")
            n = x.shape[axis]
            repeats = reps * n if len(reps) == 1 and n != 1 else reps
        with x.device:
            return self.cp.repeat(x, repeats, axis=axis)


    # -- indexing, linalg: CuPy quirks ----------------------------------------------------------
    def normalize_key(self, x: Any, key: Any) -> Any:
        return key  # CuPy returns 0-d arrays itself (NumPy's backend adds a trailing ... for that)

    def getitem(self, x: Any, key: Any) -> Any:
        key = F.clamp_slices(key)  # CuPy overflows on slice values beyond ssize_t
        if self._multi:
            with x.device:
                return super().getitem(x, key)
        return super().getitem(x, key)

    def setitem(self, x: Any, key: Any, value: Any) -> None:
        key = F.clamp_slices(key)
        if F.has_negative_zero(value):  # CuPy assigns scalars with fill(): -0.0 would be memset to +0.0
            value = self.xp.asarray(value, dtype=x.dtype)
        if self._multi:
            with x.device:
                return super().setitem(x, key, value)
        return super().setitem(x, key, value)

    def la_cholesky(self, x: Any, upper: bool) -> Any:
        low = F.nan_if_not_factored(self.xp, self.xp.linalg.cholesky(x))  # CuPy does not check info
        return self.xp.conj(self.xp.swapaxes(low, -1, -2)) if upper else low

    # -- kernels: where CuPy's results differ from NumPy's --------------------------------------
    def make_kernel(self, name: str, dt: DType) -> Any:
        fix = _KERNEL_FIXES.get(name)
        if fix is not None:
            k = fix(self, name, dt)
            if k is not None:
                return k
        return super().make_kernel(name, dt)

    def patched(self, name: str, dt: DType) -> bool:
        """In-place operators go through the kernels patched here too (``x %= y``, ``z /= 0j`` took CuPy's own:
        __imod__'s special cases failed array-api-tests on the GPU)."""
        known = self.__dict__.setdefault("_patched", {})
        hit = known.get((name, dt))
        if hit is None:
            fix = _KERNEL_FIXES.get(name)
            hit = known[(name, dt)] = super().patched(name, dt) or (fix is not None and fix(self, name, dt) is not None)
        return hit

    def _numpy_kernel(self, name: str, dt: DType) -> Any:
        from ..._dispatch import get_backend

        return get_backend("numpy").kernel(name, dt)


    # -- @xb.jit --------------------------------------------------------------------------------
    def compile(self, fn: Any, example: list[Any], options: dict[str, Any]) -> Any:
        """``@xb.jit`` runs eagerly on CuPy for now (``None``), on purpose: ``cupy.fuse`` traces with its
        own scalar-promotion rules (NumPy's value-based casting of Python scalars) and its own special
        cases, not the ones this module applies (integer division by zero, uint64 emulation, float16
        math in float32), so a fused kernel could change dtypes or values. A correct kernel generator
        must emit ElementwiseKernel code from our dtype decisions - see docs/jit.md."""
        return None


def _fix_divmod(be: CupyBackend, name: str, dt: DType) -> Any:
    if dt.kind != "f":
        return None
    xp = be.xp
    if name == "remainder":
        return lambda x, y: F.divmod_like_numpy(xp, x, y)[1]
    # NumPy's quotient, then the standard's values at infinities and zeros, exactly as the NumPy backend
    native = lambda a, b: F.divmod_like_numpy(xp, a, b)[0]  # noqa: E731
    return lambda x, y: standard_floor_divide(xp, x, y, native)


def _fix_divide(be: CupyBackend, name: str, dt: DType) -> Any:
    if dt.kind != "c":
        return None
    xp = be.xp
    return lambda x, y: F.complex_divide(xp, x, y)


def _fix_pow(be: CupyBackend, name: str, dt: DType) -> Any:
    if dt.kind != "i":
        return None
    xp = be.xp

    def ipow(x: Any, y: Any) -> Any:
        try:
            F.check_integer_power(xp, y, x)
        except ValueError as exc:  # the same typed error as on NumPy and torch
            raise negative_integer_power() from exc
        return xp.power(x, y)

    return ipow


def _fix_log(be: CupyBackend, name: str, dt: DType) -> Any:
    if dt.kind != "c":
        return None
    xp = be.xp
    # log1p: NumpyBackend's kernel, which also fixes |1 + z| overflowing (CuPy's own is right there on the H200; one
    # rule on every backend whatever the library gives: tests/fakecupy.py's NumPy-based log1p overflows)
    raw = NumpyBackend.make_kernel(be, name, dt) if name == "log1p" else getattr(xp, name)
    if name in ("log2", "log10"):  # NumPy scales the parts of log(z); CuPy divides by a complex log(2)
        return lambda z: F.complex_log(xp, name, z, F.complex_log(xp, "log", z, xp.log(z)))
    return lambda z: F.complex_log(xp, name, z, raw(z))


def _fix_nonfinite(be: CupyBackend, name: str, dt: DType) -> Any:
    if dt.kind != "c":
        return None
    xp = be.xp
    raw = NumpyBackend.make_kernel(be, name, dt)
    host = be._numpy_kernel(name, dt)
    return lambda z: F.patch_nonfinite(xp, z, raw(z), host, be.cp.asnumpy)


_KERNEL_FIXES: dict[str, Any] = {
    "floor_divide": _fix_divmod, "remainder": _fix_divmod, "divide": _fix_divide, "pow": _fix_pow,
    "log": _fix_log, "log1p": _fix_log, "log2": _fix_log, "log10": _fix_log,
    **{n: _fix_nonfinite for n in ("asin", "asinh", "acosh", "sin", "sinh", "tan", "tanh", "expm1")},
}  # fmt: skip


def _on_input_device(name: str) -> Any:
    """NumPy-backend method ``name``, run with the first input's GPU current (CuPy launches on the current one)."""
    base = getattr(NumpyBackend, name)

    def method(self: CupyBackend, x: Any, *args: Any) -> Any:
        if not self._multi:
            return base(self, x, *args)
        with (x[0] if type(x) is list else x).device:
            return base(self, x, *args)

    method.__name__ = name
    return method


for _name in ("broadcast_to", "concat", "stack", "flip", "roll", "tile", "argmax", "argmin", "count_nonzero",
              "nonzero", "searchsorted", "where", "take_along_axis"):  # fmt: skip
    if _name not in CupyBackend.__dict__:
        setattr(CupyBackend, _name, _on_input_device(_name))
