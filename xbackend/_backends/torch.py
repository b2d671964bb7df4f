"""The PyTorch backend (CPU, CUDA, and ``meta`` for shape-only work and device tests).

Design constraint: every torch quirk is handled here and nowhere else:

* operators take a Python scalar on either side (``operator`` functions, not ``torch.sub``);
* functions that need two tensors get scalars converted in the array's dtype and device;
* integer division/remainder by zero gives 0 as on NumPy (torch raises);
* uint16/uint32/uint64 arithmetic, which torch lacks, is emulated bit-exactly in int64 (uint16/32) or
  on the int64 bit pattern (uint64: add, subtract, multiply, bitwise ops, comparisons via the
  sign-flip trick); what cannot be emulated exactly (uint64 division) raises UnsupportedDTypeError;
* negative-step slices (torch has none) are emulated with ``flip``;
* NumPy data comes in through ``torch.from_numpy`` (shares memory) except read-only, negatively
  strided or byte-swapped arrays, which are copied (torch would write to or crash on them);
* exports resolve the conjugate and negative bits first (torch drops the neg bit through DLPack).
"""

from __future__ import annotations

import importlib.util
import operator
from typing import Any, Callable

import numpy as np

from .. import _dtypes as D
from .._backend import Backend, BackendInfo, byte_bounds
from .._devices import CPU, Device, device as _device
from .._dtypes import DType
from .._errors import CopyError, UnknownDeviceError, UnsupportedDTypeError

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
                      "bitwise_invert bitwise_left_shift equal not_equal".split())  # fmt: skip
_ORDERED = frozenset("less less_equal greater greater_equal maximum minimum".split())


class TorchBackend(Backend):
    name = "torch"
    module = "torch"

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
        if dev.type in ("cpu", "meta"):
            return dev
        if dev.type == "cuda":
            if not torch.cuda.is_available():
                raise UnknownDeviceError(
                    f"torch has no CUDA device here (torch {torch.__version__}, "
                    f"{'CPU-only build' if not torch.version.cuda else 'no usable GPU'}); available: cpu, meta. "
                    "Fix: use device='cpu'"
                )
            n = torch.cuda.device_count()
            if dev.index is None:
                return _device(f"cuda:{torch.cuda.current_device()}")
            if dev.index >= n:
                raise UnknownDeviceError(f"torch sees {n} CUDA device(s), so {dev} does not exist; use cuda:0..cuda:{n - 1}")
            return dev
        raise UnknownDeviceError(f"the torch backend does not support device {dev}; available: "
                                 f"{', '.join(str(d) for d in self.devices())}, meta")  # fmt: skip

    # -- moving data ----------------------------------------------------------------------------
    def _from_numpy(self, a: np.ndarray) -> Any:
        if a.dtype.name == "bfloat16":  # ml_dtypes: share the bits through int16
            return torch.from_numpy(self._safe_host(a).view(np.int16)).view(torch.bfloat16)
        return torch.from_numpy(self._safe_host(a))

    @staticmethod
    def _safe_host(a: np.ndarray) -> np.ndarray:
        """NumPy memory torch may share: writeable, native byte order, no negative strides."""
        if not a.dtype.isnative:
            a = a.astype(a.dtype.newbyteorder("="))
        if not a.flags.writeable or any(s < 0 for s in a.strides):
            a = np.array(a, copy=True)  # torch would write read-only memory, and aborts on negative strides
        return a

    def from_host(self, a: np.ndarray, dt: DType, dev: Device, copy: bool | None) -> Any:
        nd = self.native_dtype(dt)
        src_dt = D.from_numpy_dtype(a.dtype) if a.dtype.name in D.BY_NAME else None
        if dev.type != "cpu" and src_dt is not None and dt.itemsize < src_dt.itemsize and dt is not D.bfloat16:
            a = a.astype(dt.name)  # cast on the host: fewer bytes cross the bus
        if a.dtype.kind == "O" or a.dtype.name not in D.BY_NAME:
            raise UnsupportedDTypeError(f"cannot move NumPy data of dtype {a.dtype} to torch; cast it first")
        t = self._from_numpy(np.asarray(a))
        if copy and dev.type == "cpu" and t.dtype == nd:
            t = t.clone()
        return t.to(device=str(dev), dtype=nd)

    def to_host(self, x: Any, copy: bool | None = None) -> np.ndarray:
        x = x.detach().resolve_conj().resolve_neg()
        if x.device.type != "cpu":
            x = x.cpu()
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

    def dlpack(self, x: Any, **kwargs: Any) -> Any:
        kwargs = {k: v for k, v in kwargs.items() if v is not None}
        return x.resolve_conj().resolve_neg().__dlpack__(**kwargs)

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
                conv = []
                for a in args:
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
        return self._int_div(dt, operator.floordiv)

    def _k_remainder(self, dt: DType) -> Callable[..., Any]:
        return self._int_div(dt, operator.mod)

    def _k_positive(self, dt: DType) -> Callable[..., Any]:
        return lambda x: x.clone()

    def _k_sign(self, dt: DType) -> Callable[..., Any]:
        if dt.kind == "c":
            return torch.sgn
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
        return torch.matmul

    def _k_clip(self, dt: DType) -> Callable[..., Any]:
        nd = self.native_dtype(dt)

        def clip(x: Any, lo: Any, hi: Any) -> Any:
            out = x
            if lo is not None:
                lo = lo if isinstance(lo, torch.Tensor) else torch.tensor(lo, dtype=nd, device=x.device)
                out = torch.where(out < lo, lo, out)
            if hi is not None:
                hi = hi if isinstance(hi, torch.Tensor) else torch.tensor(hi, dtype=nd, device=x.device)
                out = torch.where(out > hi, hi, out)
            return out if out is not x else x.clone()

        return clip

    def _k_pow(self, dt: DType) -> Callable[..., Any]:
        if dt.kind not in "iu":
            return operator.pow

        def ipow(x: Any, y: Any) -> Any:
            neg = (y < 0).any() if isinstance(y, torch.Tensor) else y < 0
            if neg:
                raise ValueError("Integers to negative integer powers are not allowed. Fix: cast to float first")
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
        out.diagonal(k).fill_(1)
        return out

    def tril(self, x: Any, k: int) -> Any:
        return torch.tril(x, k)

    def triu(self, x: Any, k: int) -> Any:
        return torch.triu(x, k)

    def meshgrid(self, xs: list[Any], indexing: str) -> list[Any]:
        return [g.clone() for g in torch.meshgrid(*xs, indexing=indexing)]

    # -- access ---------------------------------------------------------------------------------
    def normalize_key(self, x: Any, key: Any) -> Any:
        return key

    def _negative_steps(self, x: Any, key: Any) -> tuple[list[int], Any] | None:
        items = key if type(key) is tuple else (key,)
        if not any(type(k) is slice and k.step is not None and k.step < 0 for k in items):
            return None
        consumed = sum(1 for k in items if k is not None and k is not Ellipsis)
        out, flips, dim = [], [], 0
        for k in items:
            if k is Ellipsis:
                dim += x.ndim - consumed
                out.append(k)
            elif k is None:
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
            elif isinstance(k, (int, slice)):
                out.append(k)
                dim += 1
            else:
                raise IndexError("negative-step slices cannot be mixed with array indices on the torch backend")
        return flips, tuple(out)

    def getitem(self, x: Any, key: Any) -> Any:
        neg = self._negative_steps(x, key)
        if neg is None:
            return x[key]
        flips, key = neg
        return x.flip(flips)[key]

    def setitem(self, x: Any, key: Any, value: Any) -> None:
        neg = self._negative_steps(x, key)
        if neg is None:
            x[key] = value
            return
        flips, fkey = neg
        view = x.flip(flips)
        view[fkey] = value
        x.copy_(view.flip(flips))

    def inplace(self, op: Callable[[Any, Any], Any], name: str, x: Any, y: Any) -> Any:
        dt = self.from_t[x.dtype]
        r = self.kernels[name, dt](x, y)
        x.copy_(r)
        return x

    def item(self, x: Any) -> Any:
        return x.item()

    def tolist(self, x: Any) -> Any:
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
