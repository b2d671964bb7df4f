"""The NumPy backend (CPU). Also the base of the CuPy backend, which mirrors NumPy's API.

Design constraint: every NumPy quirk is handled here and nowhere else. Kernels are ufuncs looked up
by name in ``xp`` (``numpy`` here, ``cupy`` in the subclass), with the few differences from the
Array API standard patched per kernel.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .. import _dtypes as D
from .._backend import Backend, BackendInfo, byte_bounds
from .._devices import CPU, Device
from .._dtypes import DType
from .._errors import UnknownDeviceError

# standard name -> NumPy ufunc name, where they differ
NP_NAMES = {
    "acos": "arccos", "acosh": "arccosh", "asin": "arcsin", "asinh": "arcsinh", "atan": "arctan",
    "atan2": "arctan2", "atanh": "arctanh", "bitwise_invert": "invert", "bitwise_left_shift": "left_shift",
    "bitwise_right_shift": "right_shift", "pow": "power", "conj": "conjugate", "round": "rint",
}  # fmt: skip

# Elementwise functions NumPy's ufuncs implement exactly as the standard asks
PLAIN = (
    "abs acos acosh add asin asinh atan atan2 atanh bitwise_and bitwise_invert bitwise_left_shift bitwise_or "
    "bitwise_right_shift bitwise_xor ceil conj copysign cos cosh divide equal exp expm1 floor floor_divide greater "
    "greater_equal hypot isfinite isinf isnan less less_equal log log1p log2 log10 logaddexp logical_and "
    "logical_not logical_or logical_xor maximum minimum multiply negative nextafter not_equal positive pow "
    "reciprocal remainder round sign signbit sin sinh sqrt square subtract tan tanh trunc real imag"
).split()


def _ml_dtypes_bfloat16() -> Any:
    try:
        import ml_dtypes
    except ImportError:
        return None
    return np.dtype(ml_dtypes.bfloat16)


class NumpyBackend(Backend):
    name = "numpy"
    module = "numpy"
    fixed_default_device = True
    xp: Any = np

    def __init__(self) -> None:
        super().__init__()
        xp = self.xp
        self.to_np: dict[DType, Any] = {d: np.dtype(d.name) for d in D.ALL if d is not D.bfloat16}
        bf16 = _ml_dtypes_bfloat16()
        if bf16 is not None and self._supports_ml_bfloat16():
            self.to_np[D.bfloat16] = bf16
        self.from_np: dict[Any, DType] = {v: k for k, v in self.to_np.items()}
        self.from_np.update({v.type: k for k, v in self.to_np.items()})  # scalar types too
        self._array_type = xp.ndarray

    def _supports_ml_bfloat16(self) -> bool:
        return True

    @classmethod
    def probe(cls) -> BackendInfo:
        return BackendInfo("numpy", installed=True, usable=True, version=np.__version__, devices=("cpu",))

    def native_array_types(self) -> tuple[type, ...]:
        return (self._array_type,)

    # -- dtypes ---------------------------------------------------------------------------------
    def native_dtype(self, dt: DType) -> Any:
        try:
            return self.to_np[dt]
        except KeyError:
            raise self.unsupported(
                dt, "install ml_dtypes (pip install ml_dtypes) for bfloat16 on NumPy, or use xb.float32"
            ) from None

    def dtype_of(self, x: Any) -> DType:
        try:
            return self.from_np[x.dtype]
        except KeyError:
            raise D.UnsupportedDTypeError(
                f"{self.name} array of dtype {x.dtype} has no xbackend dtype (supported: "
                f"{', '.join(d.name for d in self.to_np)}). Fix: convert it first, e.g. a.astype('float64')"
            ) from None

    # -- devices --------------------------------------------------------------------------------
    def device_of(self, x: Any) -> Device:
        return CPU

    def default_device(self) -> Device:
        return CPU

    def devices(self) -> list[Device]:
        return [CPU]

    def check_device(self, dev: Device) -> Device:
        if dev is not CPU:
            raise UnknownDeviceError(
                f"the numpy backend only has device 'cpu', not {dev}. "
                "Fix: use device='cpu', or backend='torch'/'cupy' for GPU data"
            )
        return dev

    # -- moving data ----------------------------------------------------------------------------
    def from_host(self, a: np.ndarray, dt: DType, dev: Device, copy: bool | None) -> Any:
        nd = self.native_dtype(dt)
        if copy:
            return np.array(a, dtype=nd, copy=True)
        return np.asarray(a, dtype=nd)

    def to_host(self, x: Any, copy: bool | None = None) -> np.ndarray:
        return np.array(x, copy=True) if copy else x

    def wrap_native(self, x: Any, dt: DType | None, dev: Device | None, copy: bool | None) -> Any:
        if dev is not None:
            self.check_device(dev)
        if dt is not None and x.dtype != self.to_np.get(dt):
            if copy is False:
                from .._errors import CopyError

                raise CopyError(f"casting {x.dtype} to {dt} needs a copy, but copy=False was given")
            return x.astype(self.native_dtype(dt))
        if copy:
            return x.copy()
        return x

    def to_device(self, x: Any, dev: Device) -> Any:
        self.check_device(dev)
        return x

    def memory_range(self, x: Any) -> tuple[int, int]:
        ai = x.__array_interface__
        strides = ai["strides"] or tuple(x.strides)
        return byte_bounds(ai["data"][0], x.shape, strides, x.itemsize)

    def import_dlpack(self, obj: Any) -> Any:
        return np.from_dlpack(obj)

    def export_dlpack(self, x: Any) -> Any:
        return x

    def astype(self, x: Any, dt: DType, copy: bool = True) -> Any:
        return x.astype(self.native_dtype(dt), copy=copy)

    def requires_grad(self, x: Any) -> bool:
        return False

    # -- kernels --------------------------------------------------------------------------------
    def make_kernel(self, name: str, dt: DType) -> Callable[..., Any]:
        special = getattr(self, "_k_" + name, None)
        if special is not None:
            return special(dt)
        return getattr(self.xp, NP_NAMES.get(name, name))

    def _k_round(self, dt: DType) -> Callable[..., Any]:
        if dt.kind in "biu":
            return self.xp.positive if dt.kind != "b" else self.xp.copy
        return self.xp.rint

    def _k_ceil(self, dt: DType) -> Callable[..., Any]:
        return self.xp.ceil if dt.kind == "f" else self.xp.positive

    def _k_floor(self, dt: DType) -> Callable[..., Any]:
        return self.xp.floor if dt.kind == "f" else self.xp.positive

    def _k_trunc(self, dt: DType) -> Callable[..., Any]:
        return self.xp.trunc if dt.kind == "f" else self.xp.positive

    def _k_sign(self, dt: DType) -> Callable[..., Any]:
        xp = self.xp
        if dt.kind != "c":
            return xp.sign

        def csign(x: Any) -> Any:  # the standard: x / |x|, 0 for 0 (NumPy 1.x used a different rule)
            a = xp.abs(x)
            with np.errstate(invalid="ignore", divide="ignore"):
                return xp.where(a == 0, xp.zeros_like(x), x / a)

        return csign

    def _k_reciprocal(self, dt: DType) -> Callable[..., Any]:
        one = self.native_dtype(dt).type(1)
        return lambda x: self.xp.divide(one, x)

    def _int_div(self, dt: DType, fn: Callable[..., Any]) -> Callable[..., Any]:
        if dt.kind not in "iu":
            return fn

        def quiet(x: Any, y: Any) -> Any:  # integer division by zero gives 0, without a warning
            with np.errstate(divide="ignore", invalid="ignore"):
                return fn(x, y)

        return quiet

    def _k_floor_divide(self, dt: DType) -> Callable[..., Any]:
        return self._int_div(dt, self.xp.floor_divide)

    def _k_remainder(self, dt: DType) -> Callable[..., Any]:
        return self._int_div(dt, self.xp.remainder)

    def _k_real(self, dt: DType) -> Callable[..., Any]:
        return self.xp.real if dt.kind == "c" else self.xp.positive

    def _k_imag(self, dt: DType) -> Callable[..., Any]:
        xp = self.xp
        return xp.imag if dt.kind == "c" else xp.zeros_like

    def _k_conj(self, dt: DType) -> Callable[..., Any]:
        return self.xp.conjugate if dt.kind == "c" else self.xp.positive

    def _k_clip(self, dt: DType) -> Callable[..., Any]:
        xp = self.xp

        def clip(x: Any, lo: Any, hi: Any) -> Any:
            out = x
            if lo is not None:
                out = xp.maximum(out, lo) if dt.kind != "f" else xp.where(xp.isnan(out), out, xp.maximum(out, lo))
            if hi is not None:
                out = xp.minimum(out, hi) if dt.kind != "f" else xp.where(xp.isnan(out), out, xp.minimum(out, hi))
            return out if out is not x else x.copy()

        return clip

    # -- creation -------------------------------------------------------------------------------
    def empty(self, shape: tuple[int, ...], dt: DType, dev: Device) -> Any:
        return self.xp.empty(shape, dtype=self.native_dtype(dt))

    def zeros(self, shape: tuple[int, ...], dt: DType, dev: Device) -> Any:
        try:
            return self.xp.zeros(shape, self.to_np[dt])
        except KeyError:
            return self.xp.zeros(shape, self.native_dtype(dt))

    def ones(self, shape: tuple[int, ...], dt: DType, dev: Device) -> Any:
        return self.xp.ones(shape, dtype=self.native_dtype(dt))

    def full(self, shape: tuple[int, ...], value: Any, dt: DType, dev: Device) -> Any:
        return self.xp.full(shape, value, dtype=self.native_dtype(dt))

    def arange(self, start: Any, stop: Any, step: Any, dt: DType, dev: Device, n: int) -> Any:
        nd = self.native_dtype(dt)
        if dt.kind in "iu":
            return self.xp.arange(start, start + n * step, step, dtype=nd)
        return (self.xp.arange(n, dtype=np.float64) * step + start).astype(nd)  # exactly n values

    def linspace(self, start: Any, stop: Any, num: int, dt: DType, dev: Device, endpoint: bool) -> Any:
        return self.xp.linspace(start, stop, num, dtype=self.native_dtype(dt), endpoint=endpoint)

    def eye(self, n: int, m: int, k: int, dt: DType, dev: Device) -> Any:
        return self.xp.eye(n, m, k=k, dtype=self.native_dtype(dt))

    def tril(self, x: Any, k: int) -> Any:
        return self.xp.tril(x, k)

    def triu(self, x: Any, k: int) -> Any:
        return self.xp.triu(x, k)

    def meshgrid(self, xs: list[Any], indexing: str) -> list[Any]:
        return list(self.xp.meshgrid(*xs, indexing=indexing))

    def empty_like_native(self, x: Any) -> Any:
        return self.xp.empty_like(x)

    # -- access ---------------------------------------------------------------------------------
    def getitem(self, x: Any, key: Any) -> Any:
        return x[key]

    def setitem(self, x: Any, key: Any, value: Any) -> None:
        x[key] = value

    def item(self, x: Any) -> Any:
        return x.item()

    def tolist(self, x: Any) -> Any:
        return x.tolist()

    def reshape(self, x: Any, shape: tuple[int, ...], copy: bool | None = None) -> Any:
        if copy:
            return self.xp.reshape(x, shape).copy()
        if copy is False:
            try:
                return self.xp.reshape(x, shape, copy=False)  # NumPy >= 2.1: ValueError if a copy is needed
            except TypeError:  # no copy= keyword (CuPy, old NumPy)
                out = x.view()
                out.shape = shape  # raises if a copy would be needed
                return out
        return self.xp.reshape(x, shape)

    def permute(self, x: Any, axes: tuple[int, ...]) -> Any:
        return self.xp.transpose(x, axes)

    def normalize_key(self, x: Any, key: Any) -> Any:
        return key

    def inplace(self, op: Callable[[Any, Any], Any], name: str, x: Any, y: Any) -> Any:
        return op(x, y)

    def format(self, x: Any) -> str:
        return np.array2string(self.to_host(x), separator=", ", threshold=50)

    def export_for_numpy(self, x: Any, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        """What ``np.asarray(array)`` sees (``Array.__array__``)."""
        if dtype is not None:
            return np.asarray(x, dtype=dtype) if not copy else np.array(x, dtype=dtype, copy=True)
        return np.array(x, copy=True) if copy else x
