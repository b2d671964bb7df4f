"""The generic backend: arrays of any library that implements the Array API standard
(``__array_namespace__``: array-api-strict, JAX, ...) are wrapped and kept in their library.

Design constraint: one class for every conforming library, written only against the standard's
namespace (``xp.concat``, ``xp.permute_dims``, ``xp.argsort(..., stable=True)``...), so the library's
arrays never pass through NumPy unless the user asks (``x.numpy()``). The backend is named after the
library's top-level module (``"array_api_strict"``, ``"jax"``) and created on first sight of one of its
arrays (:func:`generic_backend_for`), or by name (``xb.asarray(data, backend="array_api_strict")``).
xbackend's semantics sit on top as for NumPy: the core decides dtypes (promotion, int -> float rules,
reduction dtypes), and orders that the standard leaves open are fixed here exactly as the NumPy backend
fixes them (stable sorts, NaNs last in both directions, sorted ``unique`` with every NaN distinct).
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from typing import Any, Callable

import numpy as np

from .. import _dtypes as D
from .._backend import Backend, BackendInfo
from .._devices import CPU, Device
from .._dtypes import DType
from .._errors import CopyError, UnknownDeviceError

__all__ = ["GenericBackend", "generic_backend_for", "namespace_of_module"]

_STANDARD_DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                    "float32", "float64", "complex64", "complex128")  # fmt: skip


def namespace_of_module(top: str) -> Any:
    """The Array API namespace of library ``top`` (the module itself, or ``top.numpy`` as for JAX), or None."""
    for name in (top, f"{top}.numpy", f"{top}.array_api"):
        try:
            mod = sys.modules.get(name) or (importlib.import_module(name) if importlib.util.find_spec(name) else None)
        except ImportError:
            mod = None
        if mod is not None and hasattr(mod, "__array_api_version__") and hasattr(mod, "asarray"):
            return mod
    return None


_CLASSES: dict[str, type] = {}


def generic_backend_for(top: str) -> type["GenericBackend"] | None:
    """A :class:`GenericBackend` subclass named ``top`` (created once), if ``top`` has a standard namespace."""
    cls = _CLASSES.get(top)
    if cls is None:
        if importlib.util.find_spec(top) is None:
            return None
        cls = _CLASSES[top] = type(f"GenericBackend_{top}", (GenericBackend,), {"name": top, "module": top})
    return cls


class GenericBackend(Backend):
    """Any conforming library, through its standard namespace ``xp``."""

    name = "generic"
    module = "generic"
    fixed_default_device = True

    def __init__(self) -> None:
        super().__init__()
        xp = self.xp = namespace_of_module(self.module)
        self._to: dict[DType, Any] = {}
        for n in _STANDARD_DTYPES:
            nd = getattr(xp, n, None)
            if nd is not None:
                self._to[D.dtype(n)] = nd
        self._from = {v: k for k, v in self._to.items()}
        self._dev = xp.__array_namespace_info__().default_device()
        self._types: tuple[type, ...] = (type(xp.asarray(0)),)

    @classmethod
    def probe(cls) -> BackendInfo:
        if importlib.util.find_spec(cls.module) is None:
            return BackendInfo(cls.name, installed=False, usable=False, reason=f"{cls.module} is not installed")
        try:
            xp = namespace_of_module(cls.module)
        except Exception as exc:  # a broken library never breaks xbackend
            return BackendInfo(cls.name, installed=True, usable=False, reason=f"import failed: {exc!r}")
        if xp is None:
            return BackendInfo(cls.name, installed=True, usable=False,
                               reason=f"{cls.module} has no Array API namespace (__array_api_version__)")  # fmt: skip
        version = getattr(sys.modules.get(cls.module), "__version__", None)
        return BackendInfo(cls.name, installed=True, usable=True, version=version, devices=("cpu",),
                           extra={"array api": str(xp.__array_api_version__)})  # fmt: skip

    def native_array_types(self) -> tuple[type, ...]:
        return self._types

    # -- dtypes / devices -----------------------------------------------------------------------
    def native_dtype(self, dt: DType) -> Any:
        try:
            return self._to[dt]
        except KeyError:
            raise self.unsupported(dt, "cast to a standard dtype first, e.g. x.astype(xb.float32)") from None

    def dtype_of(self, x: Any) -> DType:
        try:
            return self._from[x.dtype]
        except (KeyError, TypeError):
            raise D.UnsupportedDTypeError(f"{self.name} array of dtype {x.dtype} has no xbackend dtype. "
                                          "Fix: cast it to a standard dtype first")  # fmt: skip

    def device_of(self, x: Any) -> Device:
        if x.device != self._dev:
            raise UnknownDeviceError(f"{self.name} array on {x.device}: xbackend wraps this library's default "
                                     f"device ({self._dev}) only. Fix: move it there with x.to_device(...)")  # fmt: skip
        return CPU

    def default_device(self) -> Device:
        return CPU

    def devices(self) -> list[Device]:
        return [CPU]

    def check_device(self, dev: Device) -> Device:
        if dev is not CPU:
            raise UnknownDeviceError(f"the {self.name} backend has device 'cpu' (its default device) only, not {dev}. "
                                     "Fix: device='cpu'")  # fmt: skip
        return dev

    # -- moving data ----------------------------------------------------------------------------
    def from_host(self, a: np.ndarray, dt: DType, dev: Device, copy: bool | None) -> Any:
        nd = self.native_dtype(dt)
        h = np.array(a, dtype=dt.name, copy=True, order="C")  # (ascontiguousarray would make 0-d 1-d)
        return self.xp.asarray(self.xp.from_dlpack(h) if hasattr(self.xp, "from_dlpack") else h, dtype=nd, copy=True)

    def to_host(self, x: Any, copy: bool | None = None) -> np.ndarray:
        try:
            h = np.from_dlpack(x)
        except Exception:  # a library without DLPack on the CPU: its own __array__
            h = np.asarray(x)
        return np.array(h, copy=True) if copy else h

    def wrap_native(self, x: Any, dt: DType | None, dev: Device | None, copy: bool | None) -> Any:
        if dev is not None:
            self.check_device(dev)
        if dt is not None and x.dtype != self._to.get(dt):
            if copy is False:
                raise CopyError(f"casting {x.dtype} to {dt} needs a copy, but copy=False was given")
            return self.xp.astype(x, self.native_dtype(dt))
        return self.xp.asarray(x, copy=True) if copy else x

    def to_device(self, x: Any, dev: Device) -> Any:
        self.check_device(dev)
        return x

    def memory_range(self, x: Any) -> tuple[int, int]:
        h = self.to_host(x)
        lo = h.__array_interface__["data"][0]
        return lo, lo + h.nbytes

    def data_ptr(self, x: Any) -> int:
        try:
            return np.from_dlpack(x).__array_interface__["data"][0]
        except Exception:
            return id(x)

    def import_dlpack(self, obj: Any) -> Any:
        return self.xp.from_dlpack(obj)

    def export_dlpack(self, x: Any) -> Any:
        return x

    def device_scope(self, dev: Device) -> Any:
        import contextlib

        return contextlib.nullcontext()

    def astype(self, x: Any, dt: DType, copy: bool = True) -> Any:
        return self.xp.astype(x, self.native_dtype(dt), copy=copy)

    def format(self, x: Any) -> str:
        return np.array2string(self.to_host(x), separator=", ", threshold=50)

    def export_for_numpy(self, x: Any, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        h = self.to_host(x, copy=bool(copy))
        return h if dtype is None else h.astype(dtype)

    def item(self, x: Any) -> Any:
        return self.to_host(x).item()

    def tolist(self, x: Any) -> Any:
        return self.to_host(x).tolist()

    # -- kernels: the standard's function of the same name --------------------------------------
    def make_kernel(self, name: str, dt: DType) -> Callable[..., Any]:
        xp = self.xp
        if name == "clip":
            return lambda x, lo, hi: xp.clip(x, lo, hi)
        return getattr(xp, name)

    def inplace(self, op: Callable[[Any, Any], Any], name: str, x: Any, y: Any) -> Any:
        return op(x, y)

    # -- creation -------------------------------------------------------------------------------
    def empty(self, shape: tuple[int, ...], dt: DType, dev: Device) -> Any:
        return self.xp.empty(shape, dtype=self.native_dtype(dt))

    def zeros(self, shape: tuple[int, ...], dt: DType, dev: Device) -> Any:
        return self.xp.zeros(shape, dtype=self.native_dtype(dt))

    def ones(self, shape: tuple[int, ...], dt: DType, dev: Device) -> Any:
        return self.xp.ones(shape, dtype=self.native_dtype(dt))

    def full(self, shape: tuple[int, ...], value: Any, dt: DType, dev: Device) -> Any:
        return self.xp.full(shape, value, dtype=self.native_dtype(dt))

    def arange(self, start: Any, stop: Any, step: Any, dt: DType, dev: Device, n: int) -> Any:
        h = get_numpy().arange(start, stop, step, dt, CPU, n)  # NumPy's exact values (n is known)
        return self.from_host(h, dt, dev, True)

    def linspace(self, start: Any, stop: Any, num: int, dt: DType, dev: Device, endpoint: bool) -> Any:
        return self.from_host(get_numpy().linspace(start, stop, num, dt, CPU, endpoint), dt, dev, True)

    def eye(self, n: int, m: int, k: int, dt: DType, dev: Device) -> Any:
        return self.xp.eye(n, m, k=k, dtype=self.native_dtype(dt))

    def tril(self, x: Any, k: int) -> Any:
        return self.xp.tril(x, k=k)

    def triu(self, x: Any, k: int) -> Any:
        return self.xp.triu(x, k=k)

    def meshgrid(self, xs: list[Any], indexing: str) -> list[Any]:
        return list(self.xp.meshgrid(*xs, indexing=indexing))

    def empty_like_native(self, x: Any) -> Any:
        return self.xp.empty_like(x)

    # -- access / manipulation ------------------------------------------------------------------
    def getitem(self, x: Any, key: Any) -> Any:
        return x[key]

    def setitem(self, x: Any, key: Any, value: Any) -> None:
        x[key] = value

    def normalize_key(self, x: Any, key: Any) -> Any:
        """NumPy's implicit trailing ``...`` (xbackend's rule), which strict libraries refuse."""
        items = key if type(key) is tuple else (key,)
        if Ellipsis in items or any(hasattr(k, "shape") for k in items):
            return key
        return items + (Ellipsis,)

    def reshape(self, x: Any, shape: tuple[int, ...], copy: bool | None = None) -> Any:
        return self.xp.reshape(x, shape, copy=copy)

    def permute(self, x: Any, axes: tuple[int, ...]) -> Any:
        return self.xp.permute_dims(x, axes)

    def broadcast_to(self, x: Any, shape: tuple[int, ...]) -> Any:
        return self.xp.broadcast_to(x, shape)

    def concat(self, xs: list[Any], axis: int) -> Any:
        return self.xp.concat(xs, axis=axis)

    def stack(self, xs: list[Any], axis: int) -> Any:
        return self.xp.stack(xs, axis=axis)

    def flip(self, x: Any, axes: tuple[int, ...]) -> Any:
        return self.xp.flip(x, axis=axes) if axes else self.xp.asarray(x, copy=True)

    def roll(self, x: Any, shifts: tuple[int, ...], axes: tuple[int, ...]) -> Any:
        return self.xp.roll(x, shift=shifts, axis=axes)

    def repeat(self, x: Any, repeats: Any, axis: int) -> Any:
        return self.xp.repeat(x, repeats, axis=axis)

    def tile(self, x: Any, reps: tuple[int, ...]) -> Any:
        return self.xp.tile(x, reps) if reps else self.xp.asarray(x, copy=True)

    def argmax(self, x: Any, axis: int | None, keepdims: bool) -> Any:
        return self.xp.astype(self.xp.argmax(x, axis=axis, keepdims=keepdims), self.xp.int64)

    def argmin(self, x: Any, axis: int | None, keepdims: bool) -> Any:
        return self.xp.astype(self.xp.argmin(x, axis=axis, keepdims=keepdims), self.xp.int64)

    def count_nonzero(self, x: Any, axes: tuple[int, ...], keepdims: bool) -> Any:
        return self.xp.astype(self.xp.count_nonzero(x, axis=axes, keepdims=keepdims), self.xp.int64)

    def nonzero(self, x: Any) -> tuple[Any, ...]:
        return tuple(self.xp.astype(i, self.xp.int64) for i in self.xp.nonzero(x))

    def searchsorted(self, x1: Any, x2: Any, side: str, sorter: Any) -> Any:
        return self.xp.astype(self.xp.searchsorted(x1, x2, side=side, sorter=sorter), self.xp.int64)

    def where(self, condition: Any, x1: Any, x2: Any) -> Any:
        return self.xp.where(condition, x1, x2)

    def take_along_axis(self, x: Any, indices: Any, axis: int) -> Any:
        return self.xp.take_along_axis(x, indices, axis=axis)

    # -- sorting / set: the NumPy backend's orders, in the standard's terms ----------------------
    def _order_key(self, x: Any, dt: DType, descending: bool) -> Any:
        if not descending:
            return x
        return -x if dt.kind == "f" else self.xp.bitwise_invert(x)  # -NaN is NaN: NaNs stay last

    def sort_indices(self, x: Any, dt: DType, axis: int, descending: bool) -> Any:
        key = self._order_key(x, dt, descending)
        return self.xp.astype(self.xp.argsort(key, axis=axis, stable=True), self.xp.int64)

    def sort_values(self, x: Any, dt: DType, axis: int, descending: bool) -> Any:
        if not descending:
            return self.xp.sort(x, axis=axis, stable=True)
        return self.xp.take_along_axis(x, self.sort_indices(x, dt, axis, True), axis=axis)

    def unique_sorted(self, x: Any, dt: DType, want_index: bool, want_inverse: bool,
                      want_counts: bool) -> tuple[Any, Any, Any, Any]:  # fmt: skip
        xp = self.xp
        n = x.shape[0]
        if dt.kind == "c":  # lexicographic: stable sort by imag, then by real
            order = xp.argsort(xp.imag(x), stable=True)
            order = xp.take(order, xp.argsort(xp.take(xp.real(x), order), stable=True))
        else:
            order = xp.argsort(x, stable=True)
        order = xp.astype(order, xp.int64)
        s = xp.take(x, order)
        new = xp.concat([xp.ones(1, dtype=xp.bool), s[1:] != s[:-1]]) if n else xp.zeros(0, dtype=xp.bool)
        starts = xp.astype(xp.nonzero(new)[0], xp.int64)
        first = xp.take(order, starts) if want_index else None
        counts = None
        if want_counts:
            counts = xp.concat([starts[1:], xp.full(1, n, dtype=xp.int64)]) - starts
        inv = None
        if want_inverse:
            group = xp.cumulative_sum(xp.astype(new, xp.int64)) - 1
            inv = xp.take(group, xp.argsort(order, stable=True))  # the inverse permutation
        return xp.take(s, starts), first, inv, counts

    def isin(self, x1: Any, x2: Any, dt: DType, invert: bool) -> Any:
        return self.xp.isin(x1, x2, invert=invert)

    # -- statistical ----------------------------------------------------------------------------
    def reduce(self, name: str, x: Any, dt: DType, axes: tuple[int, ...], keepdims: bool) -> Any:
        fn = getattr(self.xp, name)
        if name in ("sum", "prod"):
            return fn(x, axis=axes, keepdims=keepdims, dtype=x.dtype)
        if name == "mean" and dt.kind == "c":
            xp = self.xp
            re = xp.mean(xp.real(x), axis=axes, keepdims=keepdims)
            im = xp.mean(xp.imag(x), axis=axes, keepdims=keepdims)
            return xp.astype(re, x.dtype) + xp.astype(im, x.dtype) * xp.asarray(1j, dtype=x.dtype)
        return fn(x, axis=axes, keepdims=keepdims)

    def moment(self, name: str, x: Any, axes: tuple[int, ...], correction: float, keepdims: bool) -> Any:
        return getattr(self.xp, name)(x, axis=axes, correction=correction, keepdims=keepdims)

    def cumulative(self, name: str, x: Any, dt: DType, axis: int, include_initial: bool) -> Any:
        return getattr(self.xp, name)(x, axis=axis, dtype=x.dtype, include_initial=include_initial)

    def diff(self, x: Any, dt: DType, axis: int, n: int) -> Any:
        return self.xp.diff(x, axis=axis, n=n)

    # -- linalg / fft: the extensions, by the standard's names ----------------------------------
    @property
    def linalg_errors(self) -> tuple[type, ...]:
        return (np.linalg.LinAlgError,)

    def __getattr__(self, attr: str) -> Any:
        """``la_<name>`` -> ``xp.linalg.<name>`` for the linear-algebra functions without special arguments."""
        if attr.startswith("la_") and attr[3:] in _PLAIN_LINALG:
            return getattr(self.__dict__["xp"].linalg, attr[3:])
        raise AttributeError(attr)

    def la_cholesky(self, x: Any, upper: bool) -> Any:
        return self.xp.linalg.cholesky(x, upper=upper)

    def la_qr(self, x: Any, mode: str) -> tuple[Any, Any]:
        q, r = self.xp.linalg.qr(x, mode=mode)
        return q, r

    def la_svd(self, x: Any, full_matrices: bool) -> tuple[Any, Any, Any]:
        u, s, vh = self.xp.linalg.svd(x, full_matrices=full_matrices)
        return u, s, vh

    def la_slogdet(self, x: Any) -> tuple[Any, Any]:
        r = self.xp.linalg.slogdet(x)
        return r[0], r[1]

    def la_eigh(self, x: Any) -> tuple[Any, Any]:
        r = self.xp.linalg.eigh(x)
        return r[0], r[1]

    def la_eig(self, x: Any) -> tuple[Any, Any]:
        r = self.xp.linalg.eig(x)
        return r[0], r[1]

    def la_pinv(self, x: Any, rtol: Any) -> Any:
        return self.xp.linalg.pinv(x, rtol=rtol)

    def la_matrix_rank(self, x: Any, rtol: Any) -> Any:
        return self.xp.astype(self.xp.linalg.matrix_rank(x, rtol=rtol), self.xp.int64)

    def la_matrix_power(self, x: Any, n: int) -> Any:
        return self.xp.linalg.matrix_power(x, n)

    def la_matrix_norm(self, x: Any, ord: Any, keepdims: bool) -> Any:
        return self.xp.linalg.matrix_norm(x, keepdims=keepdims, ord=ord)

    def la_vector_norm(self, x: Any, axis: Any, keepdims: bool, ord: Any) -> Any:
        return self.xp.linalg.vector_norm(x, axis=axis, keepdims=keepdims, ord=ord)

    def la_cross(self, a: Any, b: Any, axis: int) -> Any:
        return self.xp.linalg.cross(a, b, axis=axis)

    def la_tensordot(self, a: Any, b: Any, axes: Any) -> Any:
        return self.xp.tensordot(a, b, axes=axes)

    def la_vecdot(self, a: Any, b: Any, axis: int) -> Any:
        return self.xp.vecdot(a, b, axis=axis)

    def la_trace(self, x: Any, offset: int) -> Any:
        return self.xp.linalg.trace(x, offset=offset, dtype=x.dtype)

    def la_diagonal(self, x: Any, offset: int) -> Any:
        return self.xp.linalg.diagonal(x, offset=offset)

    def fft_1d(self, name: str, x: Any, n: int | None, axis: int, norm: str) -> Any:
        return getattr(self.xp.fft, name)(x, n=n, axis=axis, norm=norm)

    def fft_nd(self, name: str, x: Any, s: list[int] | None, axes: list[int], norm: str) -> Any:
        return getattr(self.xp.fft, name)(x, s=s, axes=axes, norm=norm)

    def fft_shift(self, name: str, x: Any, axes: tuple[int, ...] | None) -> Any:
        return getattr(self.xp.fft, name)(x, axes=axes)

    def info_dtypes(self, dev: Device) -> list[DType]:
        return list(self._to)

    def info_max_dims(self) -> int | None:
        return self.xp.__array_namespace_info__().capabilities().get("max dimensions")


class ArrayApiStrictBackend(GenericBackend):
    """array-api-strict: the standard's reference implementation (a CI target: it finds non-standard calls)."""

    name = module = "array_api_strict"


class JaxBackend(GenericBackend):
    """JAX (its ``jax.numpy`` namespace; CPU device). Tested when JAX is installed."""

    name = module = "jax"


_CLASSES.update({"array_api_strict": ArrayApiStrictBackend, "jax": JaxBackend})

_PLAIN_LINALG = frozenset("det eigvalsh eigvals inv solve svdvals".split())


def get_numpy() -> Any:
    from .._dispatch import get_backend

    return get_backend("numpy")
