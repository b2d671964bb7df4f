"""The PyTorch backend (CPU, CUDA, and ``meta`` for shape-only work and device tests).

Design constraint: every torch quirk is handled here and nowhere else:

* operators take a Python scalar on either side (``operator`` functions, not ``torch.sub``);
* functions that need two tensors get scalars converted in the array's dtype and device;
* integer division/remainder by zero gives 0 as on NumPy (torch raises);
* uint16/uint32/uint64 arithmetic, which torch lacks, is emulated bit-exactly in int64 (uint16/32) or
  on the int64 bit pattern (uint64: add, subtract, multiply, bitwise ops and shifts, comparisons,
  maximum/minimum/clip via the sign-flip trick, pow by squaring, floor_divide/remainder by the
  halve-divide-correct trick); nothing of the standard raises UnsupportedDTypeError for uint64;
* negative-step slices (torch has none) are emulated with ``flip``;
* the standard's special cases where torch differs: complex ``+``/``-`` componentwise (torch gives
  ``0j + (inf+0j) == inf+nanj``), a zero ``remainder`` takes the divisor's sign, ``x ** 0.5`` and
  ``x ** -0.5`` at ``-0``/``-inf`` follow ``pow`` (not sqrt/rsqrt), ``sign(NaN)`` is NaN, a NaN ``clip``
  bound gives NaN; ``floor_divide`` at infinities, complex ``expm1``/``tanh`` special cases, complex
  ``sign`` and ``negative`` keep signed zeros, complex ``pow`` agrees with NumPy, ``scalar / x`` is a
  true division (torch multiplies by the reciprocal);
* NumPy data comes in through ``torch.from_numpy`` (shares memory) except read-only, negatively
  strided or byte-swapped arrays, which are copied (torch would write to or crash on them);
* exports resolve the conjugate and negative bits first (torch drops the neg bit through DLPack).
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import operator
from typing import Any, Callable

import numpy as np

from .. import _dtypes as D
from .._backend import Backend, BackendInfo, byte_bounds, dlpack_kwargs
from .._devices import CPU, Device, device as _device
from .._dtypes import DType
from .._errors import CopyError, UnknownDeviceError, UnsupportedDTypeError
from .numpy import negative_integer_power
from ._keys import check_bounds, key_dims

_NULL = contextlib.nullcontext()  # reusable
_CUDA_OK: set[Device] = set()  # concrete CUDA devices already checked


@functools.lru_cache(maxsize=1)
def _one_cuda_device() -> bool:
    return torch.cuda.device_count() == 1

torch: Any = None  # bound on first use


def _import_torch() -> Any:
    global torch
    if torch is None:
        import torch as _torch

        torch = _torch
    return torch


_OPS: dict[str, Callable[..., Any]] = {
    "add": operator.add, "subtract": operator.sub, "multiply": operator.mul, "divide": operator.truediv,
    "floor_divide": operator.floordiv, "remainder": operator.mod, "pow": operator.pow,
    "bitwise_and": operator.and_, "bitwise_or": operator.or_, "bitwise_xor": operator.xor,
    "bitwise_left_shift": operator.lshift, "bitwise_right_shift": operator.rshift,
    "equal": operator.eq, "not_equal": operator.ne, "less": operator.lt, "less_equal": operator.le,
    "greater": operator.gt, "greater_equal": operator.ge,
}  # fmt: skip
# standard name -> torch function name where they differ (binary ones need two tensors)
_TORCH_NAMES = {"bitwise_invert": "bitwise_not", "negative": "neg", "conj": "conj_physical"}
_NEEDS_TENSORS = frozenset(
    "atan2 copysign hypot logaddexp nextafter maximum minimum logical_and logical_or logical_xor".split()
)
_UINT_WIDE = (D.uint16, D.uint32, D.uint64)
# uint64 ops whose result on the int64 bit pattern is the right uint64 bit pattern
_BITEXACT = frozenset("add subtract multiply negative positive square bitwise_and bitwise_or bitwise_xor "
                      "bitwise_invert bitwise_left_shift equal not_equal matmul".split())  # fmt: skip
_SIGNED_OF = {D.uint16: D.int16, D.uint32: D.int32, D.uint64: D.int64}
_ORDERED = frozenset("less less_equal greater greater_equal maximum minimum clip".split())


_HOST_DT: dict[Any, DType | None] = {}


def _host_dtype(nd: Any) -> DType | None:
    """xbackend dtype of a NumPy dtype, or None (object, str, longdouble, ...); cached (``dtype.name`` is slow)."""
    try:
        return _HOST_DT[nd]
    except KeyError:
        dt = _HOST_DT[nd] = D.BY_NAME.get(nd.name) if nd.kind in "biufcV" else None
        return dt


class TorchBackend(Backend):
    name = "torch"
    module = "torch"
    native_basic_indexing = True  # ints and step-less slices; negative steps go through getitem below
    # pickle.dumps of a uint16/32/64 tensor succeeds but pickle.loads fails ("UntypedStorage has no attribute
    # 'dtype'", torch 2.13): Array.__reduce__ sends those as NumPy host copies
    pickle_via_host = frozenset({D.uint16, D.uint32, D.uint64})

    def __init__(self) -> None:
        t = _import_torch()
        super().__init__()
        names = {
            D.bool: "bool", D.int8: "int8", D.int16: "int16", D.int32: "int32", D.int64: "int64", D.uint8: "uint8",
            D.uint16: "uint16", D.uint32: "uint32", D.uint64: "uint64", D.float16: "float16",
            D.bfloat16: "bfloat16", D.float32: "float32", D.float64: "float64", D.complex64: "complex64",
            D.complex128: "complex128",
        }  # fmt: skip
        self.to_t = {d: getattr(t, n) for d, n in names.items() if hasattr(t, n)}
        self.from_t = {v: k for k, v in self.to_t.items()}
        self._devs: dict[Any, Device] = {}
        self._tensor = t.Tensor

    @classmethod
    def probe(cls) -> BackendInfo:
        if importlib.util.find_spec("torch") is None:
            return BackendInfo("torch", installed=False, usable=False, reason="torch is not installed")
        try:
            t = _import_torch()
        except Exception as exc:  # broken install: report, never raise
            return BackendInfo("torch", installed=True, usable=False, reason=f"import torch failed: {exc!r}")
        devs = ["cpu"]
        extra = {}
        try:
            if t.cuda.is_available():
                devs += [f"cuda:{i}" for i in range(t.cuda.device_count())]
                extra["cuda"] = str(t.version.cuda)
            else:
                extra["cuda"] = "no CUDA device" if t.version.cuda else "CPU-only build"
        except Exception as exc:
            extra["cuda"] = f"CUDA check failed: {exc!r}"
        return BackendInfo("torch", installed=True, usable=True, version=t.__version__, devices=tuple(devs),
                           extra=extra)  # fmt: skip

    def native_array_types(self) -> tuple[type, ...]:
        return (self._tensor,)

    # -- dtypes ---------------------------------------------------------------------------------
    def native_dtype(self, dt: DType) -> Any:
        try:
            return self.to_t[dt]
        except KeyError:
            raise self.unsupported(dt, "upgrade to torch>=2.3 for uint16/32/64, or cast to int64") from None

    def dtype_of(self, x: Any) -> DType:
        try:
            return self.from_t[x.dtype]
        except KeyError:
            raise UnsupportedDTypeError(
                f"torch tensor of dtype {x.dtype} has no xbackend dtype. Fix: convert it first, e.g. t.float()"
            ) from None

    # -- devices --------------------------------------------------------------------------------
    def device_of(self, x: Any) -> Device:
        d = x.device
        try:
            return self._devs[d]
        except KeyError:
            dev = self._devs[d] = _device(str(d) if d.type != "cuda" or d.index is not None else "cuda:0")
            return dev

    def default_device(self) -> Device:
        get = getattr(torch, "get_default_device", None)
        return self.check_device(_device(str(get()))) if get else CPU

    def devices(self) -> list[Device]:
        out = [CPU]
        if torch.cuda.is_available():
            out += [_device(f"cuda:{i}") for i in range(torch.cuda.device_count())]
        return out

    def check_device(self, dev: Device) -> Device:
        if dev.type in ("cpu", "meta") or dev in _CUDA_OK:
            return dev
        if dev.type == "cuda":
            if not torch.cuda.is_available():
                raise UnknownDeviceError(
                    f"torch has no CUDA device here (torch {torch.__version__}, "
                    f"{'CPU-only build' if not torch.version.cuda else 'no usable GPU'}); available: cpu, meta. "
                    "Fix: use device='cpu', or device=xb.preferred_device('torch') for code that runs on either"
                )
            n = torch.cuda.device_count()
            if dev.index is None:
                return _device(f"cuda:{torch.cuda.current_device()}")
            if dev.index >= n:
                raise UnknownDeviceError(f"torch sees {n} CUDA device(s), so {dev} does not exist; use cuda:0..cuda:{n - 1}")
            _CUDA_OK.add(dev)  # the CUDA devices of a process never change: checked once (~2 µs per move)
            return dev
        raise UnknownDeviceError(f"the torch backend does not support device {dev}; available: "
                                 f"{', '.join(str(d) for d in self.devices())}, meta")  # fmt: skip

    # -- moving data ----------------------------------------------------------------------------
    def _from_numpy(self, a: np.ndarray, src: DType | None = None) -> Any:
        if (src or _host_dtype(a.dtype)) is D.bfloat16:  # ml_dtypes: share the bits through int16
            return torch.from_numpy(self._safe_host(a).view(np.int16)).view(torch.bfloat16)
        return torch.from_numpy(self._safe_host(a))

    @staticmethod
    def _safe_host(a: np.ndarray) -> np.ndarray:
        """NumPy memory torch may share: writeable, native byte order, no negative strides."""
        if not a.dtype.isnative:
            a = a.astype(a.dtype.newbyteorder("="))
        if a.dtype.char in "qQ" and a.dtype.char != np.dtype(a.dtype.name).char:
            a = a.view(a.dtype.name)  # (u)longlong, e.g. np.asarray([2**63]): torch only knows (u)long
        if not a.flags.writeable or any(s < 0 for s in a.strides):
            a = np.array(a, copy=True)  # torch would write read-only memory, and aborts on negative strides
        return a

    def from_host(self, a: np.ndarray, dt: DType, dev: Device, copy: bool | None) -> Any:
        nd = self.native_dtype(dt)
        if type(a) is not np.ndarray:
            a = np.asarray(a)
        src = _host_dtype(a.dtype)
        if src is None:
            raise UnsupportedDTypeError(f"cannot move NumPy data of dtype {a.dtype} to torch; cast it first, "
                                        "e.g. a.astype('float64')")  # fmt: skip
        if dev is not CPU and dt.itemsize < src.itemsize and dt is not D.bfloat16:
            a, src = a.astype(dt.name), dt  # cast on the host: fewer bytes cross the bus
        t = self._from_numpy(a, src)
        if dev is CPU and t.dtype is nd:
            return t.clone() if copy else t
        return t.to(device=str(dev), dtype=nd)

    def to_host(self, x: Any, copy: bool | None = None) -> np.ndarray:
        if x.requires_grad:
            x = x.detach()
        if x.is_conj():
            x = x.resolve_conj()
        if x.is_neg():
            x = x.resolve_neg()
        if x.device.type != "cpu":
            if x.device.type == "meta":
                from .._errors import HostTransferError

                raise HostTransferError("a torch 'meta' tensor has a shape but no values, so it cannot go to NumPy. "
                                        "Fix: create the data on device='cpu' or 'cuda'")  # fmt: skip
            x = x.cpu()  # blocking: synchronises the current stream
        if x.dtype == torch.bfloat16:
            try:
                import ml_dtypes
            except ImportError:
                raise UnsupportedDTypeError(
                    "NumPy has no bfloat16 dtype. Fix: pip install ml_dtypes, or x.astype(xb.float32).numpy()"
                ) from None
            return x.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
        return x.numpy()

    def to_device(self, x: Any, dev: Device) -> Any:
        return x if self.device_of(x) is dev else x.to(str(dev))

    def wrap_native(self, x: Any, dt: DType | None, dev: Device | None, copy: bool | None) -> Any:
        nd = None if dt is None else self.native_dtype(dt)
        if (nd is not None and nd != x.dtype) or (dev is not None and self.device_of(x) is not dev):
            if copy is False:
                raise CopyError(f"changing dtype/device of a tensor needs a copy, but copy=False was given")
            return x.to(device=None if dev is None else str(dev), dtype=nd)
        return x.clone() if copy else x

    def memory_range(self, x: Any) -> tuple[int, int]:
        if x.device.type == "meta":
            return 0, 0
        es = x.element_size()
        return byte_bounds(x.data_ptr(), tuple(x.shape), tuple(s * es for s in x.stride()), es)

    def import_dlpack(self, obj: Any) -> Any:
        return torch.from_dlpack(obj)

    def export_dlpack(self, x: Any) -> Any:
        return x.resolve_conj().resolve_neg()

    # -- interchange / transfer (issue 4) ----
    def dlpack(self, x: Any, stream: Any = None, max_version: Any = None, dl_device: Any = None,
               copy: bool | None = None) -> Any:  # fmt: skip
        """``x.__dlpack__`` with ``stream`` always passed: torch's own default (-1) skips the stream sync
        (pytorch/pytorch#163242), while ``None`` means the legacy default stream, as the standard says."""
        x = x.resolve_conj().resolve_neg()
        kw = dlpack_kwargs(stream, max_version, dl_device, copy)
        with self.device_scope(self.device_of(x)):  # torch refuses tensors off the current CUDA device
            try:
                return x.__dlpack__(**kw)
            except TypeError:
                if dl_device is not None or copy is not None:
                    raise
                return x.__dlpack__(stream=stream)  # torch < 2.9: no max_version

    def data_ptr(self, x: Any) -> int:
        return 0 if x.device.type == "meta" else x.data_ptr()

    def device_scope(self, dev: Device) -> Any:
        if dev.type != "cuda" or _one_cuda_device():  # one GPU is always current: skip the switch (~3 µs)
            return _NULL
        return torch.cuda.device(dev.index or 0)

    def pinned_alloc(self, nbytes: int) -> tuple[Any, np.ndarray]:
        """A page-locked host buffer of ``nbytes`` bytes: (owner tensor, uint8 NumPy view)."""
        buf = torch.empty(nbytes, dtype=torch.uint8, pin_memory=True)
        return buf, buf.numpy()

    def _copy_stream(self, dev: Device) -> Any:
        streams = self.__dict__.setdefault("_copy_streams", {})
        s = streams.get(dev.index or 0)
        if s is None:
            s = streams[dev.index or 0] = torch.cuda.Stream(device=f"cuda:{dev.index or 0}")
        return s

    def h2d_open(self, nbytes: int, dev: Device) -> Any:
        """Start a staged host->device copy: a device buffer of ``nbytes`` (allocated in the current
        stream's order) and the copy stream, which first waits for the current stream (the block may
        still be in use by work queued there)."""
        with torch.cuda.device(dev.index or 0):
            cur = torch.cuda.current_stream()
            out = torch.empty(nbytes, dtype=torch.uint8, device=f"cuda:{dev.index or 0}")
            cs = self._copy_stream(dev)
            cs.wait_stream(cur)
        return out, cs, cur

    def h2d_copy(self, session: Any, buf: Any, lo: int, n: int) -> Any:
        """Queue ``buf[:n]`` (pinned) -> ``out[lo:lo + n]`` on the copy stream; the returned event says
        when ``buf`` may be refilled."""
        out, cs, _ = session
        with torch.cuda.stream(cs):
            out[lo : lo + n].copy_(buf[:n], non_blocking=True)
            ev = torch.cuda.Event()
            ev.record(cs)
        return ev

    def h2d_close(self, session: Any, wait: bool = True) -> tuple[Any, Any]:
        """(device buffer, event of the last copy); with ``wait`` the current stream waits for it."""
        out, cs, cur = session
        ev = torch.cuda.Event()
        ev.record(cs)
        if wait:
            cur.wait_event(ev)
        return out, ev

    def stream_wait(self, ev: Any, dev: Device) -> None:
        """Order the current stream of ``dev`` after ``ev`` (without blocking the host)."""
        with torch.cuda.device(dev.index or 0):
            torch.cuda.current_stream().wait_event(ev)

    def bytes_as(self, raw: Any, dt: DType, shape: tuple[int, ...]) -> Any:
        return raw.view(self.native_dtype(dt)).reshape(shape)

    def d2h_start(self, x: Any) -> tuple[np.ndarray, Any]:
        """Start an asynchronous copy of ``x`` into pinned host memory on the current stream:
        (uint8 host view, event). The host view is undefined until the event completes."""
        x = x.detach().resolve_conj().resolve_neg().contiguous()
        n = x.numel() * x.element_size()
        buf = torch.empty(n, dtype=torch.uint8, pin_memory=True)
        with torch.cuda.device(x.device.index or 0):
            cur = torch.cuda.current_stream()
            if n:
                buf.copy_(x.reshape(-1).view(torch.uint8), non_blocking=True)
            ev = torch.cuda.Event()
            ev.record(cur)
        return buf.numpy(), ev

    def event_done(self, ev: Any) -> bool:
        return ev is None or bool(ev.query())

    def event_wait(self, ev: Any) -> None:
        if ev is not None:
            ev.synchronize()

    def timing_event(self, dev: Device) -> Any:
        """A timing CUDA event recorded now on ``dev``'s current stream (for ``xb.timer``)."""
        with torch.cuda.device(dev.index or 0):
            ev = torch.cuda.Event(enable_timing=True)
            ev.record()
        return ev

    def elapsed_ms(self, start: Any, end: Any) -> float:
        end.synchronize()
        return float(start.elapsed_time(end))

    def astype(self, x: Any, dt: DType, copy: bool = True) -> Any:
        nd = self.native_dtype(dt)
        if x.dtype == nd:
            return x.clone() if copy else x
        return x.to(nd)

    def requires_grad(self, x: Any) -> bool:
        return x.requires_grad

    def detach(self, x: Any) -> Any:
        return x.detach()

    def synchronize(self, dev: Device) -> None:
        if dev.type == "cuda":
            torch.cuda.synchronize(dev.index)

    def export_for_numpy(self, x: Any, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        if x.requires_grad:
            from .._errors import GradientError

            raise GradientError("np.asarray() of a torch Array that requires grad would drop its graph. "
                                "Fix: x.detach().numpy()")  # fmt: skip
        h = self.to_host(x)
        if dtype is not None:
            h = h.astype(dtype, copy=bool(copy))
        elif copy:
            h = h.copy()
        return h

    # -- kernels --------------------------------------------------------------------------------
    def make_kernel(self, name: str, dt: DType) -> Callable[..., Any]:
        fn = self._plain_kernel(name, dt)
        if dt in _UINT_WIDE and name not in ("equal", "not_equal") and dt in self.to_t:
            return self._uint_kernel(name, dt, fn)
        return fn

    def _plain_kernel(self, name: str, dt: DType) -> Callable[..., Any]:
        special = getattr(self, "_k_" + name, None)
        if special is not None:
            return special(dt)
        if name in _OPS:
            return _OPS[name]
        f = getattr(torch, _TORCH_NAMES.get(name, name))
        if name in _NEEDS_TENSORS:
            nd = self.native_dtype(dt)

            def two_tensors(x: Any, y: Any) -> Any:
                if not isinstance(x, torch.Tensor):
                    x = torch.tensor(x, dtype=nd, device=y.device)
                elif not isinstance(y, torch.Tensor):
                    y = torch.tensor(y, dtype=nd, device=x.device)
                return f(x, y)

            if name == "maximum" or name == "minimum":  # a tie (-0.0 vs +0.0) gives the second argument, as
                return lambda x, y: two_tensors(y, x)  # NumPy does; torch gives the first (docs/behaviour.md)
            return two_tensors
        return f

    def _uint_kernel(self, name: str, dt: DType, fn: Callable[..., Any]) -> Callable[..., Any]:
        nd = self.to_t[dt]
        if dt is not D.uint64:  # exact in int64: compute there, wrap back
            back = name not in ("less", "less_equal", "greater", "greater_equal", "isnan", "isinf", "isfinite",
                                "signbit", "equal", "not_equal")  # fmt: skip
            i64 = torch.int64
            wide = self._plain_kernel(name, D.int64)

            def via_int64(*args: Any) -> Any:
                r = wide(*(a.to(i64) if isinstance(a, torch.Tensor) else a for a in args))
                return r.to(nd) if back and r.dtype == i64 else r

            return via_int64
        if name in _BITEXACT or name in _ORDERED:
            i64 = torch.int64
            wide = self._plain_kernel(name, D.int64)
            flip = name in _ORDERED
            sign = -(1 << 63)

            def on_bits(*args: Any) -> Any:
                conv: list[Any] = []
                for a in args:
                    if a is None:  # clip without one bound
                        conv.append(a)
                        continue
                    if isinstance(a, torch.Tensor):
                        a = a.view(i64)
                    elif isinstance(a, int):
                        a = a - (1 << 64) if a >= 1 << 63 else a
                    conv.append(a ^ sign if flip else a)
                r = wide(*conv)
                if r.dtype == i64:
                    r = (r ^ sign) if flip else r
                    return r.view(nd)
                return r

            return on_bits
        if name == "bitwise_right_shift":
            return self._uint64_right_shift(nd)
        if name == "floor_divide" or name == "remainder":
            return _uint64_divmod_kernel(name == "floor_divide")
        if name == "pow":
            return _uint64_pow
        if name in ("abs", "positive", "ceil", "floor", "trunc", "round", "conj", "real"):
            return lambda x: x.clone()  # identities on unsigned data (int64's abs would negate the high half)
        if name == "imag":
            return torch.zeros_like
        if name == "sign":
            return lambda x: (x != 0).to(nd)
        if name in ("isnan", "isinf"):
            return lambda x: torch.zeros(x.shape, dtype=torch.bool, device=x.device)
        if name == "isfinite":
            return lambda x: torch.ones(x.shape, dtype=torch.bool, device=x.device)

        def refuse(*args: Any) -> Any:
            raise UnsupportedDTypeError(
                f"{name}() on uint64 is not available on the torch backend (torch has no uint64 kernels and int64 "
                "cannot emulate it exactly). Fix: cast to int64 or float64 first, or use backend='numpy'"
            )

        return refuse

    @staticmethod
    def _uint64_right_shift(nd: Any) -> Callable[..., Any]:
        """Logical ``x >> s`` on uint64 from int64's arithmetic shift: mask off the copied sign bits."""
        i64 = torch.int64

        def bits(v: Any) -> Any:
            if isinstance(v, torch.Tensor):
                return v.view(i64)
            return v - (1 << 64) if v >= 1 << 63 else v

        def shift(x: Any, s: Any) -> Any:
            xs, ss = bits(x), bits(s)
            if isinstance(ss, torch.Tensor):
                ss = torch.where(ss < 0, 64, ss.clamp(max=64))  # uint64 shifts >= 2**63 look negative
            else:
                ss = 64 if ss < 0 or ss > 64 else ss
            if not isinstance(xs, torch.Tensor):
                xs = torch.tensor(xs, dtype=i64, device=ss.device)
            if isinstance(ss, int):
                if ss == 64:
                    return torch.zeros_like(xs).view(nd)
                mask = (1 << (64 - ss)) - 1
                mask = mask - (1 << 64) if mask >= 1 << 63 else mask
                return ((xs >> ss) & mask).view(nd)
            keep = torch.bitwise_not(torch.bitwise_left_shift(torch.full_like(ss, -1), 64 - ss))
            out = torch.bitwise_right_shift(xs, ss.clamp(max=63)) & keep
            return torch.where(ss >= 64, torch.zeros_like(out), out).view(nd)

        return shift

    def _int_div(self, dt: DType, op: Callable[..., Any]) -> Callable[..., Any]:
        if dt.kind not in "iu":
            return op

        def div0(x: Any, y: Any) -> Any:  # NumPy's rule: integer division by zero gives 0
            if isinstance(y, torch.Tensor):
                zero = y == 0
                if bool(zero.any()):
                    safe = torch.where(zero, torch.ones_like(y), y)
                    return torch.where(zero, torch.zeros((), dtype=y.dtype, device=y.device), op(x, safe))
                return op(x, y)
            if y == 0:
                return torch.zeros_like(x)
            return op(x, y)

        return div0

    def _k_floor_divide(self, dt: DType) -> Callable[..., Any]:
        if dt.kind != "f":
            return self._int_div(dt, operator.floordiv)

        def ffloordiv(x: Any, y: Any) -> Any:  # the standard's special cases: floor(x / y) (see the NumPy backend)
            q = torch.floor(operator.truediv(x, y))
            return torch.where(torch.isinf(q) | (q == 0), q, operator.floordiv(x, y))

        return ffloordiv

    def _k_remainder(self, dt: DType) -> Callable[..., Any]:
        if dt.kind != "f":
            return self._int_div(dt, operator.mod)

        def fmod_signed(x: Any, y: Any) -> Any:  # a zero result takes y's sign (standard, Python, NumPy)
            r = operator.mod(x, y)
            sign = y if isinstance(y, torch.Tensor) else torch.tensor(float(y), dtype=r.dtype, device=r.device)
            return torch.where(r == 0, torch.copysign(torch.zeros_like(r), sign), r)

        return fmod_signed

    def _k_acos(self, dt: DType) -> Callable[..., Any]:
        if dt.kind != "c":
            return torch.acos

        def cacos(x: Any) -> Any:  # C99/standard: acos(a + 0j) = acos(a) - 0j (torch returns +0j)
            r = torch.acos(x)
            flip = (x.imag == 0) & (r.imag == 0)
            return torch.where(flip, torch.complex(r.real, -torch.copysign(torch.zeros_like(r.imag), x.imag)), r)

        return cacos

    def _k_log1p(self, dt: DType) -> Callable[..., Any]:
        if dt.kind != "c":
            return torch.log1p
        # torch's complex log1p gives NaN+NaNj for infinite inputs with a NaN part; there log1p(x) is log(x)
        return lambda x: torch.where(torch.isinf(x), torch.log(x), torch.log1p(x))

    def _k_sqrt(self, dt: DType) -> Callable[..., Any]:
        if dt.kind != "c":
            return torch.sqrt

        def csqrt(x: Any) -> Any:  # the principal root's real part is +0, never -0 (torch-CUDA: sqrt(-0+0j))
            r = torch.sqrt(x)
            return torch.where(r.real == 0, torch.complex(torch.zeros_like(r.real), r.imag), r)

        return csqrt

    def _k_expm1(self, dt: DType) -> Callable[..., Any]:
        if dt.kind != "c":
            return torch.expm1

        def cexpm1(x: Any) -> Any:  # the standard's special cases torch misses (see the NumPy backend)
            r = torch.expm1(x)
            a, b = x.real, x.imag
            axis, minf = b == 0, a == -float("inf")
            re = torch.where(axis, torch.expm1(a) + 0.0, torch.where(minf, -1.0, r.real))
            im = torch.where(axis, b, torch.where(minf, torch.copysign(torch.zeros_like(b), torch.sin(b)), r.imag))
            return torch.complex(re, im)

        return cexpm1

    def _k_tanh(self, dt: DType) -> Callable[..., Any]:
        if dt.kind != "c":
            return torch.tanh

        def ctanh(x: Any) -> Any:  # the standard's cases at infinities (see the NumPy backend)
            r = torch.tanh(x)
            a, b = x.real, x.imag
            zero = (a == 0) & ~torch.isfinite(b)
            inf = torch.isinf(a)
            re = torch.where(zero, a, torch.where(inf, torch.sign(a), r.real))
            im = torch.where(zero, float("nan"), torch.where(inf, torch.copysign(torch.zeros_like(b), b), r.imag))
            return torch.complex(re, im)

        return ctanh

    def _complex_componentwise(self, dt: DType, op: Callable[..., Any]) -> Callable[..., Any]:
        """Complex +/- on the (real, imag) pairs: torch computes ``x + 1*y`` with a complex multiply, so
        ``0j + (inf+0j)`` gives ``inf+nanj``; the standard adds the components independently."""
        real_t = self.native_dtype(D.real_of(dt))

        def pairs(v: Any, like: Any) -> Any:
            if isinstance(v, torch.Tensor):
                return torch.view_as_real(v.resolve_conj().resolve_neg())
            v = complex(v)
            return torch.tensor([v.real, v.imag], dtype=real_t, device=like.device)

        def componentwise(x: Any, y: Any) -> Any:
            like = x if isinstance(x, torch.Tensor) else y
            return torch.view_as_complex(op(pairs(x, like), pairs(y, like)).contiguous())

        return componentwise

    def _k_add(self, dt: DType) -> Callable[..., Any]:
        return self._complex_componentwise(dt, operator.add) if dt.kind == "c" else operator.add

    def _k_subtract(self, dt: DType) -> Callable[..., Any]:
        return self._complex_componentwise(dt, operator.sub) if dt.kind == "c" else operator.sub

    def _k_divide(self, dt: DType) -> Callable[..., Any]:
        def div(x: Any, y: Any) -> Any:
            if isinstance(x, torch.Tensor):
                return x / y
            # scalar / tensor: torch's __rtruediv__ is reciprocal(y) * x, so 0 / 5e-324 gives 0 * inf = NaN
            # and 2.5 / 3 is off by an ulp; a 0-d CPU tensor keeps the true division (valid with CUDA too)
            return torch.div(torch.tensor(x, dtype=y.dtype), y)

        return div

    def _k_negative(self, dt: DType) -> Callable[..., Any]:
        if dt.kind != "c":
            return torch.neg
        # torch's vectorised complex neg (8+ elements on the CPU) computes 0 - x: -(0+0j) comes out +0+0j
        return lambda x: torch.view_as_complex(torch.neg(torch.view_as_real(x.resolve_conj())).contiguous())

    def _k_positive(self, dt: DType) -> Callable[..., Any]:
        return lambda x: x.clone()

    def _k_sign(self, dt: DType) -> Callable[..., Any]:
        if dt.kind == "c":

            def csign(x: Any) -> Any:  # x / |x| per component (torch.sgn loses -0: sign(-0+1j) is 0+1j)
                a = torch.abs(x)
                out = torch.view_as_complex((torch.view_as_real(x.resolve_conj()) / a.unsqueeze(-1)).contiguous())
                return torch.where(a == 0, torch.zeros_like(out), out)

            return csign
        if dt.kind == "f":
            return lambda x: torch.where(torch.isnan(x), x, torch.sign(x))
        return torch.sign

    def _k_round(self, dt: DType) -> Callable[..., Any]:
        if dt.kind in "biu":
            return lambda x: x.clone()
        if dt.kind == "c":
            return lambda x: torch.complex(torch.round(x.real), torch.round(x.imag))
        return torch.round

    def _rounding(self, name: str, dt: DType) -> Callable[..., Any]:
        if dt.kind == "f":
            return getattr(torch, name)
        return lambda x: x.clone()

    def _k_ceil(self, dt: DType) -> Callable[..., Any]:
        return self._rounding("ceil", dt)

    def _k_floor(self, dt: DType) -> Callable[..., Any]:
        return self._rounding("floor", dt)

    def _k_trunc(self, dt: DType) -> Callable[..., Any]:
        return self._rounding("trunc", dt)

    def _k_real(self, dt: DType) -> Callable[..., Any]:
        return (lambda x: torch.real(x).clone()) if dt.kind == "c" else (lambda x: x.clone())

    def _k_imag(self, dt: DType) -> Callable[..., Any]:
        return (lambda x: torch.imag(x).clone()) if dt.kind == "c" else torch.zeros_like

    def _k_conj(self, dt: DType) -> Callable[..., Any]:
        return torch.conj_physical if dt.kind == "c" else (lambda x: x.clone())

    def _k_signbit(self, dt: DType) -> Callable[..., Any]:
        return torch.signbit

    def _k_reciprocal(self, dt: DType) -> Callable[..., Any]:
        return lambda x: 1 / x

    def _k_matmul(self, dt: DType) -> Callable[..., Any]:
        return _int_matmul if dt.kind in "iu" else torch.matmul  # CUDA has no integer GEMM (pytorch#44428)

    def _k_clip(self, dt: DType) -> Callable[..., Any]:
        nd = self.native_dtype(dt)
        floating = dt.kind == "f"

        def clip(x: Any, lo: Any, hi: Any) -> Any:
            out = x
            if lo is not None:
                lo = lo if isinstance(lo, torch.Tensor) else torch.tensor(lo, dtype=nd, device=x.device)
                out = torch.where(out <= lo, lo, out)  # a tie (-0.0 vs +0.0) gives the bound, as NumPy
                if floating:  # a NaN bound gives NaN (standard; NumPy), not x
                    out = torch.where(torch.isnan(lo), lo, out)
            if hi is not None:
                hi = hi if isinstance(hi, torch.Tensor) else torch.tensor(hi, dtype=nd, device=x.device)
                out = torch.where(out >= hi, hi, out)
                if floating:
                    out = torch.where(torch.isnan(hi), hi, out)
            return out if out is not x else x.clone()

        return clip

    def _k_pow(self, dt: DType) -> Callable[..., Any]:
        if dt.kind == "f":

            def fpow(x: Any, y: Any) -> Any:
                r = operator.pow(x, y)
                if not isinstance(y, torch.Tensor) and (y == 0.5 or y == -0.5):
                    # torch's sqrt/rsqrt fast paths differ from C pow at -0 and -inf (standard: pow)
                    neg_inf, zero = x == -float("inf"), x == 0
                    if y == 0.5:
                        return torch.where(neg_inf, float("inf"), torch.where(zero, 0.0, r))
                    return torch.where(neg_inf, 0.0, torch.where(zero, float("inf"), r))
                return r

            return fpow
        if dt.kind == "c":

            def cpow(x: Any, y: Any) -> Any:
                # One answer on every backend, NumPy's (C99/Python): x ** 0 is 1; 0 ** y is 0 where real(y) > 0,
                # else NaN; small integer exponents multiply exactly (torch goes through exp/log: -32768 ** 1
                # gets an imaginary part); 1 ** NaN is NaN (the standard's exp(y * log(x)); torch gives 1)
                r = operator.pow(x, y)
                xt = x if isinstance(x, torch.Tensor) else torch.tensor(x, dtype=r.dtype, device=r.device)
                yt = y if isinstance(y, torch.Tensor) else torch.tensor(y, dtype=r.dtype, device=r.device)
                xt, yt = torch.broadcast_tensors(xt, yt)
                nan = torch.full_like(r, complex(float("nan"), float("nan")))
                r = torch.where((xt == 1) & torch.isnan(yt), nan, r)
                n = yt.real
                small = (yt.imag == 0) & (n == torch.round(n)) & (n.abs() < 100)
                if bool(small.any()):
                    r = torch.where(small, _cpow_int(xt, torch.where(small, n, 0).to(torch.int64)), r)
                zero = torch.where(yt.real > 0, torch.zeros_like(r), nan)
                r = torch.where(xt == 0, zero, r)
                return torch.where(yt == 0, torch.ones_like(r), r)

            return cpow
        if dt.kind not in "iu":
            return operator.pow

        def ipow(x: Any, y: Any) -> Any:
            neg = (y < 0).any() if isinstance(y, torch.Tensor) else y < 0
            if neg:
                t = x if isinstance(x, torch.Tensor) else y
                shape = torch.broadcast_shapes(*(v.shape for v in (x, y) if isinstance(v, torch.Tensor)))
                if all(shape):
                    raise negative_integer_power()
                return torch.empty(shape, dtype=t.dtype, device=t.device)  # as on NumPy: nothing to raise for
            return operator.pow(x, y)

        return ipow

    # -- creation -------------------------------------------------------------------------------
    def empty(self, shape: tuple[int, ...], dt: DType, dev: Device) -> Any:
        return torch.empty(shape, dtype=self.native_dtype(dt), device=str(dev))

    def zeros(self, shape: tuple[int, ...], dt: DType, dev: Device) -> Any:
        return torch.zeros(shape, dtype=self.native_dtype(dt), device=str(dev))

    def ones(self, shape: tuple[int, ...], dt: DType, dev: Device) -> Any:
        return torch.ones(shape, dtype=self.native_dtype(dt), device=str(dev))

    def full(self, shape: tuple[int, ...], value: Any, dt: DType, dev: Device) -> Any:
        return torch.full(shape, value, dtype=self.native_dtype(dt), device=str(dev))

    def arange(self, start: Any, stop: Any, step: Any, dt: DType, dev: Device, n: int) -> Any:
        nd = self.native_dtype(dt)
        if dt.kind in "iu":
            return torch.arange(start, start + n * step, step, dtype=torch.int64, device=str(dev)).to(nd)
        return (torch.arange(n, dtype=torch.float64, device=str(dev)) * step + start).to(nd)

    def linspace(self, start: Any, stop: Any, num: int, dt: DType, dev: Device, endpoint: bool) -> Any:
        wide = torch.complex128 if dt.kind == "c" else torch.float64
        if endpoint:
            out = torch.linspace(start, stop, num, dtype=wide, device=str(dev))
        else:
            out = torch.linspace(start, stop, num + 1, dtype=wide, device=str(dev))[:-1]
        return out.to(self.native_dtype(dt))

    def eye(self, n: int, m: int, k: int, dt: DType, dev: Device) -> Any:
        out = torch.zeros((n, m), dtype=self.native_dtype(dt), device=str(dev))
        if -n < k < m:  # a diagonal outside the matrix is empty (torch cannot take |k| >= 2**63 at all)
            out.diagonal(k).fill_(1)
        return out

    def _same_width_signed(self, x: Any) -> Any:
        """torch has no tril/triu for uint16/32/64: they only zero elements, so work on the signed bits."""
        dt = self.from_t.get(x.dtype)
        return self.to_t[_SIGNED_OF[dt]] if dt in _SIGNED_OF else None

    def tril(self, x: Any, k: int) -> Any:
        s = self._same_width_signed(x)
        return torch.tril(x, k) if s is None else torch.tril(x.view(s), k).view(x.dtype)

    def triu(self, x: Any, k: int) -> Any:
        s = self._same_width_signed(x)
        return torch.triu(x, k) if s is None else torch.triu(x.view(s), k).view(x.dtype)

    def meshgrid(self, xs: list[Any], indexing: str) -> list[Any]:
        return [g.clone() for g in torch.meshgrid(*xs, indexing=indexing)]

    # -- access ---------------------------------------------------------------------------------
    # -- manipulation / searching / indexing (issue 3): keys ----------------------------------
    def normalize_key(self, x: Any, key: Any) -> Any:
        Tensor = self._tensor
        if type(key) is tuple:
            if not any(isinstance(k, Tensor) for k in key):
                return key
            # torch applies a Python int next to index tensors as a basic index first; NumPy treats it as
            # a 0-d advanced index, which moves the result axes when the indices are not adjacent. As
            # 1-element int64 tensors the ints broadcast exactly like NumPy's 0-d ones.
            dev = x.device
            return tuple(
                self._index_tensor(k) if isinstance(k, Tensor)
                else torch.tensor([k], dtype=torch.int64, device=dev) if type(k) is int else k
                for k in key
            )  # fmt: skip
        if isinstance(key, Tensor):
            return self._index_tensor(key)
        return key

    def _index_tensor(self, k: Any) -> Any:
        """torch indexes with int64 or bool only (uint8 would be read as a mask)."""
        dt = k.dtype
        if dt == torch.int64 or dt == torch.bool:
            return k
        if dt == torch.uint64 and k.numel() and bool((k.view(torch.int64) < 0).any()):
            raise IndexError("index out of bounds (uint64 index above 2**63)")
        return k.to(torch.int64)

    def _check_index(self, x: Any, key: Any) -> None:
        Tensor = self._tensor
        check_bounds(tuple(x.shape), key, lambda k: isinstance(k, Tensor), lambda k: k.dtype == torch.bool)

    def _negative_steps(self, x: Any, key: Any) -> tuple[list[int], Any] | None:
        items = key if type(key) is tuple else (key,)
        if not any(type(k) is slice and k.step is not None and k.step < 0 for k in items):
            return None
        Tensor = self._tensor
        is_mask = lambda k: k.dtype == torch.bool  # noqa: E731
        consumed = key_dims(items, lambda k: isinstance(k, Tensor), is_mask)
        out: list[Any] = []
        flips: list[int] = []
        dim = 0
        for k in items:
            if k is Ellipsis:
                dim += x.ndim - consumed
                out.append(k)
            elif k is None or type(k) is bool:
                out.append(k)
            elif type(k) is slice and k.step is not None and k.step < 0:
                n = x.shape[dim]
                r = range(*k.indices(n))
                if len(r) == 0:
                    out.append(slice(0, 0))
                else:
                    flips.append(dim)
                    out.append(slice(n - 1 - r[0], n - r[-1], -k.step))
                dim += 1
            else:  # int, positive slice or index tensor: flipping other axes does not change its meaning
                out.append(k)
                dim += k.ndim if isinstance(k, Tensor) and is_mask(k) else 1
        return flips, tuple(out)

    def getitem(self, x: Any, key: Any) -> Any:
        t = type(key)
        if t is int or (t is slice and (key.step is None or key.step > 0)):
            return x[key]  # the hot path: a view, bounds checked on the host by torch
        if x.is_cuda:
            self._check_index(x, key)  # CUDA kernels assert (and poison the context) instead of raising
        sep = self._empty_ellipsis_separator(x, key)
        if sep is not None:
            x, key, after = sep
            r = self.getitem(x, key)
            return r.squeeze(r.ndim - 1 - after)
        neg = self._negative_steps(x, key)
        signed = self._signed_view.get(x.dtype)
        if signed is not None:  # uint16/32/64 lack gather/flip kernels: move the same bits as intN
            s = x.view(signed)
            return (s[key] if neg is None else s.flip(neg[0])[neg[1]]).view(x.dtype)
        if neg is None:
            return x[key]
        flips, key = neg
        return x.flip(flips)[key]

    def _empty_ellipsis_separator(self, x: Any, key: Any) -> tuple[Any, Any, int] | None:
        """NumPy counts an Ellipsis that covers no dimension as a separator between index arrays (their
        result axes then go first); torch does not. Make the separation real for torch: a size-1 axis at
        the Ellipsis (a view) indexed by ``:``. Returns (view, key, result axes after the new one), or None."""
        if type(key) is not tuple or Ellipsis not in key:
            return None
        Tensor = self._tensor
        e = key.index(Ellipsis)
        before, rest = key[:e], key[e + 1 :]
        if not (any(isinstance(k, Tensor) for k in before) and any(isinstance(k, Tensor) for k in rest)):
            return None
        is_mask = lambda k: k.dtype == torch.bool  # noqa: E731
        is_tensor = lambda k: isinstance(k, Tensor)  # noqa: E731
        if key_dims(key, is_tensor, is_mask) != x.ndim:
            return None  # the Ellipsis covers some axes: torch already sees the indices as separated
        pos = key_dims(before, is_tensor, is_mask)
        after = sum(1 for k in rest if k is None or type(k) is slice)
        return x.unsqueeze(pos), before + (slice(None),) + rest, after

    def setitem(self, x: Any, key: Any, value: Any) -> None:
        if x.is_cuda:
            self._check_index(x, key)
        sep = self._empty_ellipsis_separator(x, key)
        if sep is not None:
            x, key, after = sep
            if isinstance(value, self._tensor) and value.ndim > after:
                value = value.unsqueeze(value.ndim - after)
            return self.setitem(x, key, value)
        neg = self._negative_steps(x, key)
        base = x
        signed = self._signed_view.get(x.dtype)
        if signed is not None:  # uint16/32/64 lack index_put_/flip kernels: write the same bits as intN
            if not isinstance(value, self._tensor):
                value = torch.tensor(value, dtype=x.dtype, device=x.device)
            base, value = x.view(signed), value.view(signed)
        target, k = (base, key) if neg is None else (base.flip(neg[0]), neg[1])
        try:
            target[k] = value
        except RuntimeError as exc:  # NumPy (and the standard's broadcasting rules) say ValueError
            msg = str(exc)
            if "must match" in msg or "shape mismatch" in msg or "broadcast" in msg:
                raise ValueError(f"cannot broadcast the value into the indexed shape: {msg}") from exc
            raise
        if neg is not None:
            base.copy_(target.flip(neg[0]))

    def inplace(self, op: Callable[[Any, Any], Any], name: str, x: Any, y: Any) -> Any:
        dt = self.from_t[x.dtype]
        r = self.kernel(name, dt)(x, y)
        x.copy_(r)
        return x

    def item(self, x: Any) -> Any:
        if x.device.type == "meta":
            raise _no_values()
        return x.item()

    def tolist(self, x: Any) -> Any:
        if x.device.type == "meta":
            raise _no_values()
        return x.tolist()

    def reshape(self, x: Any, shape: tuple[int, ...], copy: bool | None = None) -> Any:
        if copy:
            return x.reshape(shape).clone()
        if copy is False:
            return x.view(shape)
        return x.reshape(shape)

    def permute(self, x: Any, axes: tuple[int, ...]) -> Any:
        return x.permute(axes)

    def format(self, x: Any) -> str:
        if x.device.type == "meta":
            return f"<meta, shape={tuple(x.shape)}>"
        h = self.to_host(x.float() if x.dtype == torch.bfloat16 else x)
        return np.array2string(h, separator=", ", threshold=50)

    # -- linalg / fft (issue 3) ----------------------------------------------------------------
    # Inputs arrive in the compute dtype chosen by xbackend/linalg.py and fft.py. torch.linalg checks
    # for singular input (and synchronises on CUDA to do it); failures are torch.linalg.LinAlgError.
    @property
    def linalg_errors(self) -> tuple[type[Exception], ...]:
        return (torch.linalg.LinAlgError,)

    def _int_wide(self, fn: Callable[..., Any], *xs: Any) -> Any:
        """Integer contractions torch lacks for uint16/32/64 run on int64 and wrap back (exact modulo 2**bits)."""
        dt = self.from_t[xs[0].dtype]
        if dt not in _UINT_WIDE:
            return fn(*xs)
        i64 = torch.int64
        r = fn(*(x.view(i64) if x.dtype == torch.uint64 else x.to(i64) for x in xs))
        return r.view(torch.uint64) if dt is D.uint64 else r.to(self.to_t[dt])

    def la_cholesky(self, x: Any, upper: bool) -> Any:
        return torch.linalg.cholesky(x, upper=upper)

    def la_det(self, x: Any) -> Any:
        return torch.linalg.det(x)

    def la_slogdet(self, x: Any) -> tuple[Any, Any]:
        sign, logabs = torch.linalg.slogdet(x)
        return sign, logabs

    def la_eigh(self, x: Any) -> tuple[Any, Any]:
        w, v = torch.linalg.eigh(x)
        return w, v

    def la_eigvalsh(self, x: Any) -> Any:
        return torch.linalg.eigvalsh(x)

    def la_eig(self, x: Any) -> tuple[Any, Any]:
        w, v = torch.linalg.eig(x)
        return w, v

    def la_eigvals(self, x: Any) -> Any:
        return torch.linalg.eigvals(x)

    def la_inv(self, x: Any) -> Any:
        return torch.linalg.inv(x)

    def la_solve(self, a: Any, b: Any) -> Any:
        # b is (..., M, K); equal batch shapes keep torch from reading b as a batch of vectors
        if a.shape[:-2] == b.shape[:-2]:
            return torch.linalg.solve(a, b)
        batch = torch.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        return torch.linalg.solve(a.expand(*batch, *a.shape[-2:]), b.expand(*batch, *b.shape[-2:]))

    def la_qr(self, x: Any, mode: str) -> tuple[Any, Any]:
        q, r = torch.linalg.qr(x, mode=mode)
        return q, r

    def la_svd(self, x: Any, full_matrices: bool) -> tuple[Any, Any, Any]:
        u, s, vh = torch.linalg.svd(x, full_matrices=full_matrices)
        return u, s, vh

    def la_svdvals(self, x: Any) -> Any:
        return torch.linalg.svdvals(x)

    def la_matrix_power(self, x: Any, n: int) -> Any:
        r = torch.linalg.matrix_power(x, n)
        return r.clone() if r is x else r

    def la_pinv(self, x: Any, rtol: Any) -> Any:
        return torch.linalg.pinv(x, rtol=rtol)

    def la_matrix_rank(self, x: Any, rtol: Any) -> Any:
        return torch.linalg.matrix_rank(x, rtol=rtol)

    def la_matrix_norm(self, x: Any, ord: Any, keepdims: bool) -> Any:
        return torch.linalg.matrix_norm(x, ord=ord, dim=(-2, -1), keepdim=keepdims)

    def la_vector_norm(self, x: Any, axis: Any, keepdims: bool, ord: Any) -> Any:
        return torch.linalg.vector_norm(x, ord=ord, dim=axis, keepdim=keepdims)

    def la_cross(self, a: Any, b: Any, axis: int) -> Any:
        if a.ndim != b.ndim:  # torch.linalg.cross broadcasts only operands of equal ndim (axis counts from the end)
            a, b = torch.broadcast_tensors(a, b)
        return self._int_wide(lambda p, q: torch.linalg.cross(p, q, dim=axis), a, b)

    def la_tensordot(self, a: Any, b: Any, axes: Any) -> Any:
        if a.device.type == "cuda" and not (a.is_floating_point() or a.is_complex()):
            return self._int_wide(lambda p, q: _int_tensordot(p, q, axes), a, b)  # CUDA has no integer GEMM
        return self._int_wide(lambda p, q: torch.tensordot(p, q, dims=axes), a, b)

    def la_vecdot(self, a: Any, b: Any, axis: int) -> Any:
        if a.is_floating_point() or a.is_complex():
            return torch.linalg.vecdot(a, b, dim=axis)
        return self._int_wide(lambda p, q: (p * q).sum(dim=axis, dtype=p.dtype), a, b)

    def la_trace(self, x: Any, offset: int) -> Any:
        return self._int_wide(lambda p: torch.diagonal(p, offset, -2, -1).sum(dim=-1, dtype=p.dtype), x)

    def la_diagonal(self, x: Any, offset: int) -> Any:
        return torch.diagonal(x, offset, -2, -1).clone()  # a copy, as on NumPy (torch's view is writable)

    def fft_1d(self, name: str, x: Any, n: int | None, axis: int, norm: str) -> Any:
        return getattr(torch.fft, name)(x, n=n, dim=axis, norm=norm)

    def fft_nd(self, name: str, x: Any, s: list[int] | None, axes: list[int], norm: str) -> Any:
        return getattr(torch.fft, name)(x, s=s, dim=axes, norm=norm)

    def fft_shift(self, name: str, x: Any, axes: tuple[int, ...] | None) -> Any:
        return getattr(torch.fft, name)(x, dim=axes)

    def info_dtypes(self, dev: Device) -> list[DType]:
        """Dtypes this backend holds on ``dev`` (for ``__array_namespace_info__().dtypes()``)."""
        return [d for d in D.ALL if d in self.to_t]

    def info_max_dims(self) -> int | None:
        return 64

    # -- manipulation / searching / indexing (issue 3) ----------------------------------------
    # Axes arrive normalised; index results are int64. Pure data movement on uint16/32/64 (which torch
    # lacks kernels for) runs on the same bits viewed as int16/32/64; comparisons use order-preserving
    # int64 images (uint64: the sign-flip trick).
    @functools.cached_property
    def _signed_view(self) -> dict[Any, Any]:
        t = torch
        return {getattr(t, f"uint{b}"): getattr(t, f"int{b}") for b in (16, 32, 64) if hasattr(t, f"uint{b}")}

    def _ordered(self, x: Any) -> Any:
        """``x`` in a dtype torch can compare/sort, preserving order (bool -> uint8, uintN -> int64)."""
        dt = x.dtype
        if dt == torch.bool:
            return x.to(torch.uint8)
        if dt in self._signed_view:
            if dt == torch.uint64:
                return x.view(torch.int64) ^ -(1 << 63)
            return x.to(torch.int64)
        return x

    def broadcast_to(self, x: Any, shape: tuple[int, ...]) -> Any:
        return torch.broadcast_to(x, shape)

    def _bits(self, fn: Callable[..., Any], x: Any, *args: Any) -> Any:
        """``fn`` (pure data movement) on uint16/32/64 data viewed as intN, which torch has kernels for."""
        signed = self._signed_view.get(x.dtype)
        if signed is None:
            return fn(x, *args)
        return fn(x.view(signed), *args).view(x.dtype)

    def concat(self, xs: list[Any], axis: int) -> Any:
        signed = self._signed_view.get(xs[0].dtype)
        if signed is not None:
            return torch.cat([x.view(signed) for x in xs], dim=axis).view(xs[0].dtype)
        return torch.cat(xs, dim=axis)

    def stack(self, xs: list[Any], axis: int) -> Any:
        signed = self._signed_view.get(xs[0].dtype)
        if signed is not None:
            return torch.stack([x.view(signed) for x in xs], dim=axis).view(xs[0].dtype)
        return torch.stack(xs, dim=axis)

    def flip(self, x: Any, axes: tuple[int, ...]) -> Any:
        return self._bits(torch.flip, x, axes) if axes else x.clone()

    def roll(self, x: Any, shifts: tuple[int, ...], axes: tuple[int, ...]) -> Any:
        return self._bits(torch.roll, x, shifts, axes)

    def repeat(self, x: Any, repeats: Any, axis: int) -> Any:
        if not isinstance(repeats, int):
            repeats = repeats.to(torch.int64)
            if repeats.numel() and bool((repeats < 0).any()):
                raise ValueError("repeat(): repeats must be non-negative")
            n = x.shape[axis]
            if repeats.shape[0] == 1 and n != 1:
                repeats = repeats.expand(n)
        return self._bits(lambda v: torch.repeat_interleave(v, repeats, dim=axis), x)

    def tile(self, x: Any, reps: tuple[int, ...]) -> Any:
        return self._bits(torch.tile, x, reps) if reps else x.clone()

    def argmax(self, x: Any, axis: int | None, keepdims: bool) -> Any:
        return torch.argmax(self._ordered(x), dim=axis, keepdim=keepdims)

    def argmin(self, x: Any, axis: int | None, keepdims: bool) -> Any:
        return torch.argmin(self._ordered(x), dim=axis, keepdim=keepdims)

    def count_nonzero(self, x: Any, axes: tuple[int, ...], keepdims: bool) -> Any:
        nz = x if x.dtype == torch.bool else x != 0
        if not axes:  # torch reads dim=() as "every axis"
            return nz.to(torch.int64)
        return nz.sum(dim=axes, keepdim=keepdims, dtype=torch.int64)

    def nonzero(self, x: Any) -> tuple[Any, ...]:
        return torch.nonzero(x if x.dtype == torch.bool else x != 0, as_tuple=True)

    def _total_order(self, x: Any) -> Any:
        """Real floats as integers in NumPy's sort order (-inf < ... < -0.0 == 0.0 < ... < inf < NaN)."""
        if not x.is_floating_point():
            return self._ordered(x)
        x = torch.where(torch.isnan(x), torch.full((), float("nan"), dtype=x.dtype, device=x.device), x) + 0.0
        b = x.view({2: torch.int16, 4: torch.int32, 8: torch.int64}[x.element_size()])
        return torch.where(b < 0, b ^ torch.iinfo(b.dtype).max, b)

    def searchsorted(self, x1: Any, x2: Any, side: str, sorter: Any) -> Any:
        # torch's binary search compares with `<`, so NaN (unordered) and -0.0 disagree with NumPy's
        # order; searching the integer images of the values agrees everywhere
        x1 = self._total_order(x1).contiguous()
        x2 = self._total_order(x2).contiguous()
        if sorter is not None:
            sorter = sorter.to(torch.int64).contiguous()
        if x2.ndim == 0:
            return torch.searchsorted(x1, x2.reshape(1), side=side, sorter=sorter).reshape(())
        return torch.searchsorted(x1, x2, side=side, sorter=sorter)

    def where(self, condition: Any, x1: Any, x2: Any) -> Any:
        signed = self._signed_view.get(x1.dtype)
        if signed is not None:
            return torch.where(condition, x1.view(signed), x2.view(signed)).view(x1.dtype)
        return torch.where(condition, x1, x2)

    def take_along_axis(self, x: Any, indices: Any, axis: int) -> Any:
        n = x.shape[axis]
        indices = indices.to(torch.int64)
        if indices.numel():
            if bool(((indices < -n) | (indices >= n)).any()):
                raise IndexError(f"take_along_axis(): index out of bounds for axis {axis} with size {n}")
            indices = torch.where(indices < 0, indices + n, indices)
        signed = self._signed_view.get(x.dtype)
        if signed is not None:
            return torch.take_along_dim(x.view(signed), indices, dim=axis).view(x.dtype)
        return torch.take_along_dim(x, indices, dim=axis)

    # -- sorting / set / statistical / utility (issue 3) ----------------------------------------
    # torch has no uint16/32/64 reductions, scans, comparisons or gathers: uint16/32 compute exactly in
    # int64 and cast back (sums and products wrap modulo 2**bits, as NumPy's do); uint64 runs on its own
    # bits viewed as int64 (two's complement add/multiply are the same bits), and is ordered through the
    # sign-flip image ``bits ^ -2**63``. torch.sum(dim=()) reduces every axis: the core never sends ().
    def _wide(self, x: Any, dt: DType) -> Any:
        """uint16/32 -> int64 values, uint64 -> int64 bits (for sums, products, differences)."""
        return x.view(torch.int64) if dt is D.uint64 else x.to(torch.int64)

    def _narrow(self, r: Any, dt: DType) -> Any:
        return r.view(torch.uint64) if dt is D.uint64 else r.to(self.to_t[dt])

    def _sort_key(self, x: Any, dt: DType, descending: bool) -> Any:
        """A tensor torch can sort whose stable ascending order is the order we want (NaNs last either way)."""
        if dt in _UINT_WIDE:
            x = (x.view(torch.int64) ^ -(1 << 63)) if dt is D.uint64 else x.to(torch.int64)
        if not descending:
            return x
        return -x if dt.kind == "f" else ~x  # -NaN is NaN; ~ reverses bool and (un)signed ints exactly

    def sort_indices(self, x: Any, dt: DType, axis: int, descending: bool) -> Any:
        return torch.argsort(self._sort_key(x, dt, descending), dim=axis, stable=True)

    def sort_values(self, x: Any, dt: DType, axis: int, descending: bool) -> Any:
        if not descending and dt not in _UINT_WIDE:
            return torch.sort(x, dim=axis, stable=True).values
        idx = self.sort_indices(x, dt, axis, descending)
        signed = self._signed_view.get(x.dtype)
        if signed is not None:
            return torch.gather(x.view(signed), axis, idx).view(x.dtype)
        return torch.gather(x, axis, idx)

    def unique_sorted(self, x: Any, dt: DType, want_index: bool, want_inverse: bool,
                      want_counts: bool) -> tuple[Any, Any, Any, Any]:  # fmt: skip
        """Sorted unique values of 1-D ``x`` split where neighbours differ (``!=``: every NaN distinct)."""
        n = x.shape[0]
        dev = x.device
        if dt.kind == "c":  # lexicographic: stable sort by imag, then by real
            order = torch.argsort(x.imag, stable=True)
            order = order[torch.argsort(x.real[order], stable=True)]
        else:
            order = torch.argsort(self._sort_key(x, dt, False), stable=True)
        signed = self._signed_view.get(x.dtype)
        s = x[order] if signed is None else x.view(signed)[order]  # same bits: != is exact
        new = torch.ones(n, dtype=torch.bool, device=dev)
        if n > 1:
            new[1:] = s[1:] != s[:-1]
        starts = torch.nonzero(new).flatten()
        values = s[starts] if signed is None else s[starts].view(x.dtype)
        first = order[starts] if want_index else None
        counts = None
        if want_counts:
            counts = torch.diff(starts, append=torch.full((1,), n, dtype=torch.int64, device=dev))
        inv = None
        if want_inverse:
            inv = torch.empty(n, dtype=torch.int64, device=dev)
            inv[order] = torch.cumsum(new, 0) - 1
        return values, first, inv, counts

    def isin(self, x1: Any, x2: Any, dt: DType, invert: bool) -> Any:
        if dt.kind == "c":  # torch.isin has no complex kernel: compare every pair
            r = (x1.reshape(-1, 1) == x2.reshape(1, -1)).any(1).reshape(x1.shape)
            return ~r if invert else r
        signed = torch.uint8 if x1.dtype == torch.bool else self._signed_view.get(x1.dtype)
        if signed is not None:  # equality of the same bits (torch.isin has no bool or uint16/32/64 kernel)
            x1, x2 = x1.view(signed), x2.view(signed)
        return torch.isin(x1, x2, invert=invert)

    @functools.cached_property
    def _full_reducers(self) -> dict[tuple[str, Any], Any]:
        """(name, torch dtype) -> the no-dim torch reduction whose result already has the right dtype."""
        keep = (torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.int64)
        table: dict[tuple[str, Any], Any] = {}
        for nd in keep + (torch.complex64, torch.complex128):
            table["sum", nd] = torch.sum
            table["prod", nd] = torch.prod
        for nd in keep + (torch.int8, torch.int16, torch.int32, torch.uint8, torch.bool):
            table["max", nd] = torch.amax
            table["min", nd] = torch.amin
        for nd in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
            table["mean", nd] = torch.mean
        return table

    def reduce(self, name: str, x: Any, dt: DType, axes: tuple[int, ...], keepdims: bool) -> Any:
        """``name`` in sum, prod, max, min, mean, all, any over non-empty ``axes``."""
        full = not keepdims and len(axes) == x.ndim  # torch's no-dim overloads cost half as much
        if full:  # the common case first: one dict lookup, no dtype= keyword (it costs ~0.15 µs)
            fn = self._full_reducers.get((name, x.dtype))
            if fn is not None:
                return fn(x)
        if name == "sum" or name == "prod":
            if dt in _UINT_WIDE:
                return self._narrow(self._sum_prod(name, self._wide(x, dt), axes, keepdims, torch.int64, full), dt)
            return self._sum_prod(name, x, axes, keepdims, x.dtype, full)
        if name == "max" or name == "min":
            fn = torch.amax if name == "max" else torch.amin
            if dt is D.uint64:  # order-preserving int64 image, and back
                sign = -(1 << 63)
                return (fn(x.view(torch.int64) ^ sign, dim=axes, keepdim=keepdims) ^ sign).view(torch.uint64)
            if dt in _UINT_WIDE:
                return fn(x.to(torch.int64), dim=axes, keepdim=keepdims).to(x.dtype)
            return fn(x) if full else fn(x, dim=axes, keepdim=keepdims)
        if name == "mean" and dt.kind == "c":  # real and imaginary parts separately (NaN stays in its part)
            return torch.complex(torch.mean(x.real, dim=axes, keepdim=keepdims),
                                 torch.mean(x.imag, dim=axes, keepdim=keepdims))  # fmt: skip
        fn = getattr(torch, name)  # mean, all, any
        return fn(x) if full else fn(x, dim=axes, keepdim=keepdims)

    @staticmethod
    def _sum_prod(name: str, x: Any, axes: tuple[int, ...], keepdims: bool, nd: Any, full: bool) -> Any:
        if name == "sum":
            return torch.sum(x, dtype=nd) if full else torch.sum(x, dim=axes, keepdim=keepdims, dtype=nd)
        if full:
            return torch.prod(x, dtype=nd)
        for a in reversed(axes):  # torch.prod takes one dim at a time
            x = torch.prod(x, dim=a, keepdim=keepdims, dtype=nd)
        return x

    def moment(self, name: str, x: Any, axes: tuple[int, ...], correction: float, keepdims: bool) -> Any:
        fn = torch.var if name == "var" else torch.std
        return fn(x, dim=axes, correction=correction, keepdim=keepdims)

    def cumulative(self, name: str, x: Any, dt: DType, axis: int, include_initial: bool) -> Any:
        fn = torch.cumsum if name == "cumulative_sum" else torch.cumprod
        if dt in _UINT_WIDE:
            out = self._narrow(fn(self._wide(x, dt), axis, dtype=torch.int64), dt)
        elif x.dtype in (torch.float16, torch.bfloat16):  # accumulate in float32 (CUDA's half cumsum does not)
            out = fn(x, axis, dtype=torch.float32).to(x.dtype)
        else:
            out = fn(x, axis, dtype=x.dtype)
        if include_initial:
            shape = list(x.shape)
            shape[axis] = 1
            init = (torch.zeros if name == "cumulative_sum" else torch.ones)(shape, dtype=x.dtype, device=x.device)
            out = torch.cat([init, out], dim=axis)
        return out

    def diff(self, x: Any, dt: DType, axis: int, n: int) -> Any:
        """The ``n``-th difference along ``axis`` (n >= 1; edges are already attached by the core)."""
        if dt in _UINT_WIDE:
            return self._narrow(torch.diff(self._wide(x, dt), n=n, dim=axis), dt)
        if dt.kind == "c":  # torch's complex subtraction leaks a NaN imaginary part into the real part
            return torch.view_as_complex(torch.diff(torch.view_as_real(x.resolve_conj()), n=n, dim=axis))
        return torch.diff(x, n=n, dim=axis)


_I64_MIN = -(1 << 63)


def _u64_bits(v: Any, like: Any) -> Any:
    """A uint64 operand as an int64 tensor with the same bits (Python ints above 2**63 wrap)."""
    if isinstance(v, torch.Tensor):
        return v.view(torch.int64)
    v = int(v) & ((1 << 64) - 1)
    return torch.tensor(v - (1 << 64) if v >= 1 << 63 else v, dtype=torch.int64, device=like.device)


def _u64_less(a: Any, b: Any) -> Any:
    """Unsigned ``a < b`` on int64 bit patterns (the sign-flip image preserves unsigned order)."""
    return (a ^ _I64_MIN) < (b ^ _I64_MIN)


def _uint64_divmod(n: Any, d: Any) -> tuple[Any, Any]:
    """Unsigned 64-bit quotient and remainder on int64 bits, exactly (Hacker's Delight, divlu).

    A divisor >= 2**63 (negative as int64) goes into n at most once. Otherwise halve n with a logical
    shift (now non-negative, so int64's division is unsigned division), divide, double the quotient and
    correct it by one where the remainder is still >= d. Division by zero gives 0 (the integer rule)."""
    big = d < 0
    zero = d == 0
    safe = torch.where(big | zero, torch.ones_like(d), d)
    q = ((n >> 1) & ~_I64_MIN) // safe << 1
    r = n - q * safe
    q = torch.where(_u64_less(r, safe), q, q + 1)
    q = torch.where(big, (~_u64_less(n, d)).to(torch.int64), q)
    q = torch.where(zero, torch.zeros_like(q), q)
    r = torch.where(zero, torch.zeros_like(q), n - q * d)
    return q, r


def _uint64_divmod_kernel(quotient: bool) -> Callable[..., Any]:
    def kernel(x: Any, y: Any) -> Any:
        like = x if isinstance(x, torch.Tensor) else y
        n, d = torch.broadcast_tensors(_u64_bits(x, like), _u64_bits(y, like))
        q, r = _uint64_divmod(n, d)
        return (q if quotient else r).view(torch.uint64)

    return kernel


def _uint64_pow(x: Any, y: Any) -> Any:
    """``x ** y`` modulo 2**64 by squaring on int64 bits (products wrap identically in two's complement)."""
    like = x if isinstance(x, torch.Tensor) else y
    base, e = torch.broadcast_tensors(_u64_bits(x, like), _u64_bits(y, like))
    out = torch.ones_like(base)
    nbits = 64 if isinstance(y, torch.Tensor) else (int(y) & ((1 << 64) - 1)).bit_length()
    for i in range(nbits):
        out = torch.where(((e >> i) & 1) == 1, out * base, out)
        if i + 1 < nbits:
            base = base * base
    return out.view(torch.uint64)


def _cmul(p: Any, q: Any) -> Any:
    """The textbook complex product (NumPy's): no NaN recovery, so infinities behave as on NumPy."""
    return torch.complex(p.real * q.real - p.imag * q.imag, p.real * q.imag + p.imag * q.real)


def _cpow_int(a: Any, n: Any) -> Any:
    """``a ** n`` for integer ``|n| < 100`` exactly as NumPy computes it: a, a*a, a*(a*a) for n = 1, 2, 3,
    else binary powering from 1 (then 1 / result for negative n)."""
    m = n.abs()
    p, acc = a, torch.ones_like(a)
    for bit in range(7):
        acc = torch.where(((m >> bit) & 1) == 1, _cmul(acc, p), acc)
        p = _cmul(p, p)
    a2 = _cmul(a, a)
    acc = torch.where(n < 0, 1 / acc, acc)
    return torch.where(n == 1, a, torch.where(n == 2, a2, torch.where(n == 3, _cmul(a, a2), acc)))


def _int_matmul(a: Any, b: Any) -> Any:
    """torch.matmul, computed exactly by broadcast multiply and sum on CUDA (no integer GEMM there)."""
    if a.device.type != "cuda" or a.ndim == 0 or b.ndim == 0:
        return torch.matmul(a, b)
    return _int_matmul_by_sum(a, b)


def _int_matmul_by_sum(a: Any, b: Any) -> Any:
    """The CUDA integer matmul: broadcast multiply, then sum in the operands' dtype (wraps like a GEMM would).
    Device-independent, so tests run it on the CPU against ``np.matmul``."""
    p = a.unsqueeze(0) if a.ndim == 1 else a  # (..., M, K)
    q = b.unsqueeze(-1) if b.ndim == 1 else b  # (..., K, N)
    if p.shape[-1] != q.shape[-2]:
        return torch.matmul(a, b)  # torch's own shape error
    out = (p.unsqueeze(-1) * q.unsqueeze(-3)).sum(dim=-2, dtype=p.dtype)
    if a.ndim == 1:
        out = out.squeeze(-2)
    return out.squeeze(-1) if b.ndim == 1 else out


def _int_tensordot(a: Any, b: Any, axes: Any) -> Any:
    """Exact integer tensordot by broadcast multiply and sum (for devices without integer matrix products)."""
    a1, a2 = axes
    free1 = [i for i in range(a.ndim) if i not in a1]
    free2 = [i for i in range(b.ndim) if i not in a2]
    k = 1
    for i in a1:
        k *= a.shape[i]
    p = a.permute(tuple(free1) + tuple(a1)).reshape(-1, k)
    q = b.permute(tuple(a2) + tuple(free2)).reshape(k, -1)
    out = (p[:, :, None] * q[None, :, :]).sum(dim=1, dtype=p.dtype)
    return out.reshape(tuple(a.shape[i] for i in free1) + tuple(b.shape[i] for i in free2))


def _no_values() -> Exception:
    from .._errors import HostTransferError

    return HostTransferError(
        "a torch Array on the 'meta' device has a shape and dtype but no values to read. "
        "Fix: create it on a real device, e.g. x.to_device('cpu') of data made there"
    )
