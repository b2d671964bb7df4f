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

from ... import _dtypes as D
from ..._backend import Backend, BackendInfo, byte_bounds, dlpack_kwargs
from ..._devices import CPU, Device, device as _device
from ..._dtypes import DType
from ..._errors import CopyError, UnknownDeviceError, UnsupportedDTypeError
from . import uint as _torch_uint
from .uint import TorchUintMixin, _SIGNED_OF, _UINT_WIDE
from . import index as _torch_index
from .index import TorchIndexMixin
from ..common.arange import exact_int_arange
from ..common.linspace import complex_parts, real_linspace
from ..._saturate import inner_bounds
from . import linalg as _torch_linalg
from .linalg import TorchLinalgMixin
from . import complex as _torch_complex, kernels as _torch_kernels
from .kernels import TorchKernelsMixin
from . import reductions as _torch_reductions
from .reductions import TorchReductionsMixin
from . import fast as _torch_fast
from .fast import TorchFastPathsMixin
from . import cuda as _torch_cuda
from .cuda import TorchCudaMixin
from . import grad as _torch_grad
from .grad import TorchGradMixin, leaf_write_error

_NULL = contextlib.nullcontext()  # reusable
_CUDA_OK: set[Device] = set()  # concrete CUDA devices already checked


@functools.lru_cache(maxsize=1)
def _one_cuda_device() -> bool:
    return torch.cuda.device_count() == 1

torch: Any = None  # bound on first use
_tf_stack_len: Callable[[], int] = lambda: 1  # torch._C._len_torch_function_stack once torch is imported


def _import_torch() -> Any:
    global torch, _tf_stack_len
    if torch is None:
        import torch as _torch

        torch = _torch
        _tf_stack_len = getattr(_torch._C, "_len_torch_function_stack", _tf_stack_len)
        # the moved emulations' global, too
        _torch_uint.torch = _torch_index.torch = _torch_linalg.torch = _torch_kernels.torch = _torch_fast.torch = _torch
        _torch_cuda.torch = _torch_grad.torch = _torch_complex.torch = _torch_reductions.torch = _torch
    return torch


# uint64 ops whose result on the int64 bit pattern is the right uint64 bit pattern
_HOST_DT: dict[Any, DType | None] = {}


def _host_dtype(nd: Any) -> DType | None:
    """xbackend dtype of a NumPy dtype, or None (object, str, longdouble, ...); cached (``dtype.name`` is slow)."""
    try:
        return _HOST_DT[nd]
    except KeyError:
        dt = _HOST_DT[nd] = D.BY_NAME.get(nd.name) if nd.kind in "biufcV" else None
        return dt


class TorchBackend(TorchFastPathsMixin, TorchCudaMixin, TorchUintMixin, TorchIndexMixin, TorchLinalgMixin,
                   TorchKernelsMixin, TorchReductionsMixin, TorchGradMixin, Backend):  # fmt: skip
    name = "torch"
    module = "torch"
    native_basic_indexing = True  # ints and step-less slices; negative steps go through getitem below
    # native_reshape stays False: xb.reshape calls torch.reshape(x, shape) (reshaper), ~0.7 µs faster than the method
    # x.reshape(shape) (torch 2.13, 100 elements), which pays for the Python frame it costs
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
        self._shared_dt: dict[Any, DType | None] = {}  # NumPy dtype -> the dtype torch.from_numpy shares it as
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
        # torch.get_default_device() costs ~7 µs; with no torch function mode active (set_default_device and
        # `with torch.device(...)` each push one) it can only answer the CPU, so ask it only when a mode is on
        if not _tf_stack_len():
            return CPU
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

    def _shared_dtype(self, nt: Any) -> DType | None:
        """The dtype of NumPy data of dtype ``nt`` that ``torch.from_numpy`` shares as the same dtype (native byte
        order, not (u)longlong, not bfloat16), else None; cached per NumPy dtype in ``_shared_dt``."""
        dt = _host_dtype(nt)
        if dt is None or dt is D.bfloat16 or not nt.isnative or nt.char in "qQ" or dt not in self.to_t:
            return None
        try:
            return dt if torch.from_numpy(np.empty(0, nt)).dtype is self.to_t[dt] else None
        except TypeError:  # a C type torch does not take (np.ulonglong): the general path views it first
            return None

    def from_host(self, a: np.ndarray, dt: DType, dev: Device, copy: bool | None) -> Any:
        if dev is CPU and not copy and type(a) is np.ndarray:  # the common move: shared, no cast (xb.grad's views)
            nt = a.dtype
            try:  # (u)longlong equals (u)long as a key, but torch takes only the latter: its own check
                share = self._shared_dt[nt] if nt.char not in "qQ" else None
            except KeyError:
                share = self._shared_dt[nt] = self._shared_dtype(nt)
            if share is dt and a.flags.writeable and (not a.ndim or min(a.strides) >= 0):  # what _safe_host lets by
                return torch.from_numpy(a)
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
        if x.is_cpu and not (x.requires_grad or x.is_conj() or x.is_neg()) and x.dtype is not torch.bfloat16:
            return x.numpy()  # the common move (xb.grad's gradients): what the general path below ends in
        if x.requires_grad:
            x = x.detach()
        if x.is_conj():
            x = x.resolve_conj()
        if x.is_neg():
            x = x.resolve_neg()
        if x.device.type != "cpu":
            if x.device.type == "meta":
                from ..._errors import HostTransferError

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

    # -- interchange / transfer --------------
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

    def astype(self, x: Any, dt: DType, copy: bool = True) -> Any:
        nd = self.native_dtype(dt)
        if x.dtype == nd:
            return x.clone() if copy else x
        return x.to(dtype=nd)  # the keyword form: ~0.7 µs faster than x.to(nd) (torch 2.13)


    def export_for_numpy(self, x: Any, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        if x.requires_grad:
            from ..._errors import GradientError

            raise GradientError("np.asarray() of a torch Array that requires grad would drop its graph. "
                                "Fix: x.detach().numpy()")  # fmt: skip
        h = self.to_host(x)
        if dtype is not None:
            h = h.astype(dtype, copy=bool(copy))
        elif copy:
            h = h.copy()
        return h

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
            end = start + (n - 1) * step + (1 if step > 0 else -1)  # just past the last value: no int64 overflow
            if -(2**63) <= min(start, end) and max(start, end) < 2**63 and abs(end - start) < 2**63:  # (its size too)
                if -(2**53) < end - start < 2**53:
                    return torch.arange(start, end, step, dtype=torch.int64, device=str(dev)).to(nd)
                # torch sizes the range in float64: beyond 2**53 it can miss by one and refuse ("invalid size,
                # possible overflow?" for arange(0, 2**62 + 1, 2**62)); i * step + start is exact in int64 here
                i = torch.arange(n, dtype=torch.int64, device=str(dev))
                return (i * step + start).to(nd)
            return self.from_host(exact_int_arange(start, step, n, dt.name), dt, dev, True)  # beyond int64: exact
        return (torch.arange(n, dtype=torch.float64, device=str(dev)) * step + start).to(nd)

    def saturating_cast(self, x: Any, src: DType, dst: DType, dev: Device) -> Any:
        """xbackend/_saturate.py's rule: NaN to 0 and a clamp fused in two passes, then the cast."""
        lo, hi = D._INT_RANGE[dst]
        lo_f, hi_f = inner_bounds(src, dst)
        out = self.astype(torch.nan_to_num(x, nan=0.0).clamp_(lo_f, hi_f), dst, False)
        if hi_f != hi:  # beyond the largest in-range float: the maximum
            out = self.where(x > hi_f, self.full((), hi, dst, dev), out)
        if lo_f != lo:
            out = self.where(x < lo_f, self.full((), lo, dst, dev), out)
        return out

    def linspace(self, start: Any, stop: Any, num: int, dt: DType, dev: Device, endpoint: bool) -> Any:
        def f64(n: int) -> Any:  # NumPy's formula (_linspace.py), not torch.linspace's two-ended one
            return torch.arange(n, dtype=torch.float64, device=str(dev))

        if dt.kind != "c":
            return real_linspace(f64, float(start), float(stop), num, endpoint).to(self.native_dtype(dt))
        (r0, r1), (i0, i1) = complex_parts(start, stop)
        out = torch.complex(real_linspace(f64, r0, r1, num, endpoint), real_linspace(f64, i0, i1, num, endpoint))
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
    # -- manipulation / searching / indexing: keys --------------------------------------------
    def inplace(self, op: Callable[[Any, Any], Any], name: str, x: Any, y: Any) -> Any:
        dt = self.from_t[x.dtype]
        r = self.kernel(name, dt)(x, y)
        try:
            x.copy_(r)
        except RuntimeError as exc:
            err = leaf_write_error(x, f"in-place {name}", exc)
            if err is None:
                raise
            raise err from exc
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
        return torch.reshape(x, shape)

    def permute(self, x: Any, axes: tuple[int, ...]) -> Any:
        return x.permute(axes)

    def format(self, x: Any) -> str:
        if x.device.type == "meta":
            return f"<meta, shape={tuple(x.shape)}>"
        h = self.to_host(x.float() if x.dtype == torch.bfloat16 else x)
        return np.array2string(h, separator=", ", threshold=50)

    # -- linalg / fft --------------------------------------------------------------------------
    def info_dtypes(self, dev: Device) -> list[DType]:
        """Dtypes this backend holds on ``dev`` (for ``__array_namespace_info__().dtypes()``)."""
        return [d for d in D.ALL if d in self.to_t]

    def info_max_dims(self) -> int | None:
        return 64

    # -- manipulation / searching / indexing --------------------------------------------------
    def broadcast_to(self, x: Any, shape: tuple[int, ...]) -> Any:
        return torch.broadcast_to(x, shape)

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

    # -- sorting / set / statistical / utility --------------------------------------------------
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

    # -- @xb.jit --------------------------------------------------------------------------------
    def compile(self, fn: Callable[..., Any], example: list[Any], options: dict[str, Any]) -> Any:
        """``@xb.jit``: trace to the torch calls this module makes, then ``torch.compile`` (see jit.py)."""
        from .jit import compile_torch

        return compile_torch(fn, example, options)


def _no_values() -> Exception:
    from ..._errors import HostTransferError

    return HostTransferError(
        "a torch Array on the 'meta' device has a shape and dtype but no values to read. "
        "Fix: create it on a real device, e.g. x.to_device('cpu') of data made there"
    )
