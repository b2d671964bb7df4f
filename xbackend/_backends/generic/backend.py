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

import contextlib
import importlib
import importlib.util
import math
import sys
import warnings
from typing import Any, Callable

import numpy as np

from ... import _dtypes as D
from ..._backend import Backend, BackendInfo
from ..._devices import CPU, Device
from ..._dtypes import DType
from ..._errors import CopyError, ShapeError, UnknownDeviceError
from .index import fancy_get, fancy_set, is_array
from .kernels import make_generic_kernel

__all__ = ["GenericBackend", "generic_backend_for", "namespace_of_module"]

# the standard's dtypes, and float16 where the library has it (JAX); 32-bit before 64-bit (see __init__)
_STANDARD_DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                    "float16", "float32", "float64", "complex64", "complex128")  # fmt: skip


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
        try:
            spec = importlib.util.find_spec(top)
        except ValueError:  # a module without a spec: __main__ (a script, a notebook), an exec'd module
            spec = None
        if spec is None:
            return None
        cls = _CLASSES[top] = type(f"GenericBackend_{top}", (GenericBackend,), {"name": top, "module": top})
    return cls


class GenericBackend(Backend):
    """Any conforming library, through its standard namespace ``xp``."""

    name = "generic"
    module = "generic"
    fixed_default_device = True
    grad_fix = ("move the Arrays to a backend with gradients: x.to(backend='torch'), or x.to(backend='numpy') "
                "(xb.grad differentiates NumPy Arrays through torch)")

    def __init__(self) -> None:
        super().__init__()
        xp = self.xp = namespace_of_module(self.module)
        self._to: dict[DType, Any] = {}
        self._from: dict[Any, DType] = {}
        with warnings.catch_warnings():  # (JAX without x64 warns that it makes float64 float32)
            warnings.simplefilter("ignore")
            for n in _STANDARD_DTYPES:
                nd = getattr(xp, n, None)
                if nd is None:
                    continue
                self._to[D.dtype(n)] = nd
                self._from.setdefault(nd, D.dtype(n))
                # what an array of it reports (JAX: a NumPy dtype, not jnp.float32); a library that
                # narrows it (JAX without x64) already mapped the narrower dtype, 32-bit before 64-bit
                self._from.setdefault(xp.empty(0, dtype=nd).dtype, D.dtype(n))
            self._dev = xp.__array_namespace_info__().default_device()
            if self._dev is None:  # JAX: "None" means its default device
                self._dev = xp.asarray(0).device
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
        try:
            return self.xp.asarray(self.xp.from_dlpack(h), dtype=nd, copy=True)
        except Exception:  # no from_dlpack, or not for this dtype: the library's own conversion
            return self.xp.asarray(h, dtype=nd, copy=True)

    def to_host(self, x: Any, copy: bool | None = None) -> np.ndarray:
        try:
            h = np.from_dlpack(x)
        except Exception:  # a library without DLPack on the CPU: its own __array__
            h = np.asarray(x)
        return np.array(h, copy=True) if copy else h

    def wrap_native(self, x: Any, dt: DType | None, dev: Device | None, copy: bool | None) -> Any:
        if dev is not None:
            self.check_device(dev)
        if dt is not None and x.dtype != (nd := self.native_dtype(dt)):  # (refuses a dtype the library lacks)
            if copy is False:
                raise CopyError(f"casting {x.dtype} to {dt} needs a copy, but copy=False was given")
            return self.xp.astype(x, nd)
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
        return make_generic_kernel(self.xp, name, dt)

    def inplace(self, op: Callable[[Any, Any], Any], name: str, x: Any, y: Any) -> Any:
        """``x op= y`` through this backend's kernel (its special cases), written into ``x``."""
        r = self.kernel(name, self.dtype_of(x))(x, y)
        if r.shape != x.shape:  # x[...] = r would drop r's leading 1s: refused, as NumPy's x op= y is (the caller's
            raise ShapeError(f"in-place {name}: the result has shape {tuple(r.shape)}, not x's {tuple(x.shape)}. "
                             "Fix: x = x op y (out of place)")  # binary_failed then names both operands)
        out = self.setitem(x, Ellipsis, r)
        return x if out is None else out

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
    def _check_ints(self, x: Any, key: tuple[Any, ...]) -> None:
        """IndexError for an out-of-range int in a complete key (JAX clamps them silently)."""
        axis = 0
        for k in key:
            if type(k) is int and axis < x.ndim and not -x.shape[axis] <= k < x.shape[axis]:
                raise IndexError(f"index {k} is out of bounds for axis {axis} with size {x.shape[axis]}")
            if k is not None:
                axis += k.ndim if is_array(k) and k.dtype == self.xp.bool else 1

    def getitem(self, x: Any, key: Any) -> Any:
        key = self.normalize_key(x, key)
        self._check_ints(x, key)
        if not any(is_array(k) for k in key):
            return x[key]
        mask = self._sole_mask(x, key)
        if mask is not None:
            return x[mask]
        return fancy_get(self.xp, x, key)

    def _sole_mask(self, x: Any, key: tuple[Any, ...]) -> Any:
        """The mask of a key that is one boolean mask (of 1+ dims) then whole axes, else None."""
        k = key[0]
        whole = all(type(s) is slice and s == slice(None) for s in key[1:])  # (an array == slice: strict refuses it)
        return k if is_array(k) and k.dtype == self.xp.bool and k.ndim and whole else None

    def setitem(self, x: Any, key: Any, value: Any) -> Any:
        """``x[key] = value`` with NumPy's semantics; returns None when ``x`` was written into (a library
        with immutable arrays, JAX, returns the new array: see :meth:`_put`)."""
        xp = self.xp
        if type(value) in (bool, int, float, complex):
            value = xp.asarray(value, dtype=x.dtype)
        items = self.normalize_key(x, key)
        self._check_ints(x, items)
        zero_d = [k for k in items if is_array(k) and k.dtype == xp.bool and k.ndim == 0]
        if zero_d and not all(bool(k) for k in zero_d):  # x[False] = v writes nothing
            return None
        if zero_d or any(k is None for k in items):  # new axes (None, x[True]) select nothing more: dropped, as
            value = xp.broadcast_to(value, self.getitem(x, items).shape)  # strict libraries refuse them in a write
            items = tuple(k for k in items if k is not None and not (is_array(k) and k.dtype == xp.bool and k.ndim == 0))
            value = xp.reshape(value, self.getitem(x, items).shape)
        if not any(is_array(k) for k in items):
            lead = (value.ndim - sum(type(k) is slice for k in items)) if is_array(value) else 0  # the leading 1s
            if lead > 0 and all(n == 1 for n in value.shape[:lead]):  # beyond the selection dropped, as NumPy's
                value = xp.reshape(value, value.shape[lead:])  # x[:] = v and torch do (strict refuses x[0] = [v])
            return self._put(x, items or Ellipsis, value)
        mask = self._sole_mask(x, items)
        if mask is not None and value.ndim == 0:
            m = xp.reshape(mask, mask.shape + (1,) * (x.ndim - mask.ndim))
            return self._put(x, Ellipsis, xp.where(m, value, x))
        basic, region = fancy_set(xp, x, items, value)
        return self._put(x, basic or Ellipsis, region)

    def _put(self, x: Any, key: Any, value: Any) -> Any:
        """Basic-index write; None: ``x`` itself now holds it."""
        x[key] = value
        return None

    def normalize_key(self, x: Any, key: Any) -> Any:
        """NumPy's indexing in the standard's terms, as a *complete* key (one item per axis, no ``...``):
        slice bounds clamped to the axis (strict libraries refuse out-of-range bounds, which NumPy
        clamps), Python bools as 0-d bool arrays."""
        items = key if type(key) is tuple else (key,)
        shape, xp, used = x.shape, self.xp, 0
        for k in items:
            if k is not None and k is not Ellipsis and type(k) is not bool:
                used += k.ndim if is_array(k) and k.dtype == xp.bool else 1
        out: list[Any] = []
        axis = 0
        ellipsis = False
        for k in items:
            t = type(k)
            if k is Ellipsis:
                if ellipsis:
                    raise IndexError("an index can only have a single ellipsis ('...')")
                ellipsis = True
                fill = max(len(shape) - used, 0)
                out += [slice(None)] * fill
                axis += fill
                continue
            if t is slice:
                out.append(_clamp(k, shape[axis]) if axis < len(shape) else k)
                axis += 1
                continue
            if t is bool:
                k = xp.asarray(k)
            elif k is not None:
                axis += k.ndim if t is not int and k.dtype == xp.bool else 1
            out.append(k)
        if not ellipsis:
            out += [slice(None)] * max(len(shape) - axis, 0)
        return tuple(out)

    def reshape(self, x: Any, shape: tuple[int, ...], copy: bool | None = None) -> Any:
        if any(type(s) is bool for s in shape):  # (True == 1: xb.reshape's cache of valid shapes cannot tell them
            raise TypeError(f"reshape(): shape entries must be ints, got {shape}")  # apart; Cubed takes True as 1)
        if any(s < -1 for s in shape):
            raise ValueError(f"reshape(): negative size in shape {shape}")
        if -1 in shape:  # resolved here: libraries disagree on the error (JAX: ZeroDivisionError for (0, -1))
            known = math.prod(s for s in shape if s != -1)
            size = math.prod(x.shape)
            if shape.count(-1) > 1 or known == 0 or size % known:
                raise ValueError(f"reshape(): cannot reshape an array of size {size} into shape {shape}")
            shape = tuple(size // known if s == -1 else s for s in shape)
        if copy is False and 0 in x.shape:  # nothing to copy (array-api-strict refuses copy=False here)
            return self.xp.reshape(x, shape)
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
        if (repeats < 0) if isinstance(repeats, int) else bool(self.xp.any(repeats < 0)):
            raise ValueError("repeat(): repeats must be non-negative")
        return self.xp.repeat(x, repeats, axis=axis)

    def tile(self, x: Any, reps: tuple[int, ...]) -> Any:
        return self.xp.tile(x, reps) if reps else self.xp.asarray(x, copy=True)

    def _num(self, x: Any) -> Any:
        """bool as uint8 (0/1, the same order) for the functions the standard defines on numbers only."""
        return self.xp.astype(x, self.xp.uint8) if x.dtype == self.xp.bool else x

    def argmax(self, x: Any, axis: int | None, keepdims: bool) -> Any:
        return self.xp.astype(self.xp.argmax(self._num(x), axis=axis, keepdims=keepdims), self.xp.int64)

    def argmin(self, x: Any, axis: int | None, keepdims: bool) -> Any:
        return self.xp.astype(self.xp.argmin(self._num(x), axis=axis, keepdims=keepdims), self.xp.int64)

    def count_nonzero(self, x: Any, axes: tuple[int, ...], keepdims: bool) -> Any:
        return self.xp.astype(self.xp.count_nonzero(x, axis=axes, keepdims=keepdims), self.xp.int64)

    def nonzero(self, x: Any) -> tuple[Any, ...]:
        return tuple(self.xp.astype(i, self.xp.int64) for i in self.xp.nonzero(x))

    def searchsorted(self, x1: Any, x2: Any, side: str, sorter: Any) -> Any:
        x1, x2 = self._num(x1), self._num(x2)
        return self.xp.astype(self.xp.searchsorted(x1, x2, side=side, sorter=sorter), self.xp.int64)

    def where(self, condition: Any, x1: Any, x2: Any) -> Any:
        return self.xp.where(condition, x1, x2)

    def take_along_axis(self, x: Any, indices: Any, axis: int) -> Any:
        n = x.shape[axis]  # checked here: JAX clamps out-of-range indices silently
        indices = self.xp.astype(indices, self.xp.int64)
        if math.prod(indices.shape) and bool(self.xp.any((indices < -n) | (indices >= n))):
            raise IndexError(f"take_along_axis(): index out of bounds for axis {axis} with size {n}")
        return self.xp.take_along_axis(x, indices, axis=axis)

    # -- sorting / set: the NumPy backend's orders, in the standard's terms ----------------------
    def _order_key(self, x: Any, dt: DType, descending: bool) -> Any:
        x = self._num(x)
        if not descending:
            return x
        return -x if dt.kind == "f" else self.xp.bitwise_invert(x)  # -NaN is NaN: NaNs stay last

    def sort_indices(self, x: Any, dt: DType, axis: int, descending: bool) -> Any:
        key = self._order_key(x, dt, descending)
        return self.xp.astype(self.xp.argsort(key, axis=axis, stable=True), self.xp.int64)

    def sort_values(self, x: Any, dt: DType, axis: int, descending: bool) -> Any:
        if not descending:
            return self.xp.astype(self.xp.sort(self._num(x), axis=axis, stable=True), x.dtype)
        return self.xp.take_along_axis(x, self.sort_indices(x, dt, axis, True), axis=axis)

    def unique_sorted(self, x: Any, dt: DType, want_index: bool, want_inverse: bool,
                      want_counts: bool) -> tuple[Any, Any, Any, Any]:  # fmt: skip
        xp = self.xp
        if dt.kind == "b":
            v, first, inv, counts = self.unique_sorted(self._num(x), D.uint8, want_index, want_inverse, want_counts)
            return xp.astype(v, xp.bool), first, inv, counts
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
            counts = xp.concat([starts[1:] if n else starts, xp.full(1, n, dtype=xp.int64)]) - starts
        inv = None
        if want_inverse:
            group = xp.cumulative_sum(xp.astype(new, xp.int64)) - 1
            inv = xp.take(group, xp.argsort(order, stable=True))  # the inverse permutation
        return xp.take(s, starts), first, inv, counts

    def isin(self, x1: Any, x2: Any, dt: DType, invert: bool) -> Any:
        """Membership by a binary search in sorted ``x2`` (strict libraries define ``isin`` on integers
        only); complex values, which have no order, by comparing with every element."""
        xp = self.xp
        flat = xp.reshape(x2, (-1,))
        if flat.shape[0] == 0:
            hit = xp.zeros(x1.shape, dtype=xp.bool)
        elif dt.kind == "c":
            hit = xp.any(xp.expand_dims(x1, axis=-1) == flat, axis=-1)
        else:
            s = xp.sort(self._num(flat))
            v = self._num(x1)
            i = xp.clip(xp.searchsorted(s, v), 0, s.shape[0] - 1)  # (NaN: never equal, so never found)
            hit = xp.take(s, xp.reshape(i, (-1,))) == xp.reshape(v, (-1,))
            hit = xp.reshape(hit, x1.shape)
        return xp.logical_not(hit) if invert else hit

    # -- statistical ----------------------------------------------------------------------------
    def _in_float32(self, fn: Callable[..., Any], x: Any, *args: Any, **kw: Any) -> Any:
        """float16 accumulates in float32 and rounds once (xbackend's rule, as on NumPy and torch)."""
        xp = self.xp
        with np.errstate(all="ignore"):
            return xp.astype(fn(xp.astype(x, xp.float32), *args, **kw), x.dtype)

    def reduce(self, name: str, x: Any, dt: DType, axes: tuple[int, ...], keepdims: bool) -> Any:
        if dt is D.float16:
            return self._in_float32(lambda y: self.reduce(name, y, D.float32, axes, keepdims), x)
        fn = getattr(self.xp, name)
        if dt.kind == "b" and name in ("max", "min"):
            return self.xp.astype(fn(self._num(x), axis=axes, keepdims=keepdims), x.dtype)
        if name in ("sum", "prod"):
            return fn(x, axis=axes, keepdims=keepdims, dtype=x.dtype)
        if name == "mean" and dt.kind == "c":
            xp = self.xp
            re = xp.mean(xp.real(x), axis=axes, keepdims=keepdims)
            im = xp.mean(xp.imag(x), axis=axes, keepdims=keepdims)
            return xp.astype(re, x.dtype) + xp.astype(im, x.dtype) * xp.asarray(1j, dtype=x.dtype)
        return fn(x, axis=axes, keepdims=keepdims)

    def moment(self, name: str, x: Any, axes: tuple[int, ...], correction: float, keepdims: bool) -> Any:
        xp = self.xp
        if self.dtype_of(x) is D.float16:
            return self._in_float32(lambda y: self.moment(name, y, axes, correction, keepdims), x)
        if xp.isdtype(x.dtype, "complex floating"):  # var = var(re) + var(im) (the standard: real dtypes only)
            v = sum(xp.var(p(x), axis=axes, correction=correction, keepdims=keepdims) for p in (xp.real, xp.imag))
            return xp.sqrt(v) if name == "std" else v
        with np.errstate(all="ignore"):
            return getattr(xp, name)(x, axis=axes, correction=correction, keepdims=keepdims)

    def cumulative(self, name: str, x: Any, dt: DType, axis: int, include_initial: bool) -> Any:
        if dt is D.float16:
            return self._in_float32(lambda y: self.cumulative(name, y, D.float32, axis, include_initial), x)
        return getattr(self.xp, name)(x, axis=axis, dtype=x.dtype, include_initial=include_initial)

    def diff(self, x: Any, dt: DType, axis: int, n: int) -> Any:
        if dt.kind != "b":
            return self.xp.diff(x, axis=axis, n=n)
        for _ in range(n):  # NumPy's bool diff: neighbours differ
            lo = (slice(None),) * axis + (_clamp(slice(None, -1), x.shape[axis]),)
            hi = (slice(None),) * axis + (_clamp(slice(1, None), x.shape[axis]),)
            x = x[hi + (Ellipsis,)] != x[lo + (Ellipsis,)]
        return x

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
        xp = self.xp  # NumPy's rule: singular values above rtol * the largest (libraries' defaults differ)
        s = xp.linalg.svdvals(x)
        cut = xp.max(s, axis=-1, keepdims=True) * (rtol if isinstance(rtol, float) else xp.expand_dims(rtol, axis=-1))
        return xp.sum(xp.astype(s > cut, xp.int64), axis=-1)

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
        return self.xp.asarray(self.xp.linalg.diagonal(x, offset=offset), copy=True)  # (strict: a read-only view)

    def fft_1d(self, name: str, x: Any, n: int | None, axis: int, norm: str) -> Any:
        return getattr(self.xp.fft, name)(x, n=n, axis=axis, norm=norm)

    def fft_nd(self, name: str, x: Any, s: list[int] | None, axes: list[int], norm: str) -> Any:
        return getattr(self.xp.fft, name)(x, s=s, axes=axes, norm=norm)

    def fft_shift(self, name: str, x: Any, axes: tuple[int, ...] | None) -> Any:
        if self.xp.isdtype(x.dtype, ("real floating", "complex floating")):
            return getattr(self.xp.fft, name)(x, axes=axes)
        axes = tuple(range(x.ndim)) if axes is None else axes  # any dtype, as NumPy: a roll by half
        half = tuple(x.shape[a] // 2 if name == "fftshift" else -(x.shape[a] // 2) for a in axes)
        return self.xp.roll(x, shift=half, axis=axes) if axes else self.xp.asarray(x, copy=True)

    def info_dtypes(self, dev: Device) -> list[DType]:
        held = []
        for d in self._to:
            try:
                self.native_dtype(d)
            except D.UnsupportedDTypeError:
                continue
            held.append(d)
        return held

    def info_max_dims(self) -> int | None:
        return self.xp.__array_namespace_info__().capabilities().get("max dimensions")


class ArrayApiStrictBackend(GenericBackend):
    """array-api-strict: the standard's reference implementation (a CI target: it finds non-standard calls)."""

    name = module = "array_api_strict"


class JaxBackend(GenericBackend):
    """JAX (its ``jax.numpy`` namespace; CPU device). Tested when JAX is installed.

    JAX arrays are immutable: writes (``x[k] = v``, ``x += y``) build the updated array with ``x.at[k].set`` and the
    Array holds it from then on (no views: an earlier ``x[1]`` does not see the write). 64-bit dtypes need JAX's
    ``jax_enable_x64``; without it they are refused with that fix (xbackend never changes JAX's global configuration,
    and never lets JAX narrow float64 to float32 silently)."""

    name = module = "jax"
    exception_modules = ("jaxlib",)
    _WIDE = frozenset([D.int64, D.uint64, D.float64, D.complex128])

    def native_dtype(self, dt: DType) -> Any:
        if dt in self._WIDE and not _jax_x64():
            raise self.unsupported(dt, "enable 64-bit JAX first: jax.config.update('jax_enable_x64', True) (or "
                                       "JAX_ENABLE_X64=1), or use 32-bit dtypes: xb.using(default_float=xb.float32, "
                                       "default_int=xb.int32)")  # fmt: skip
        return super().native_dtype(dt)

    def _put(self, x: Any, key: Any, value: Any) -> Any:
        return x.at[key].set(value)

    def capabilities(self) -> dict[str, Any]:
        """What the inspection API adds for JAX: no views (writes rebind the Array), whether 64-bit dtypes are on."""
        return {"views": False, "64-bit dtypes": _jax_x64()}

    grad_fix = "differentiate a function instead (JAX has no requires_grad or .grad): g = xb.grad(loss)(w) (jax.grad)"

    def detach(self, x: Any) -> Any:
        import jax

        return jax.lax.stop_gradient(x)

    def value_and_grad(self, fn: Callable[[list[Any]], tuple[Any, list[Any]]], xs: list[Any], wrt: tuple[int, ...],
                       nested: bool) -> tuple[Any, list[Any], list[Any]]:  # fmt: skip
        from .grad import value_and_grad

        return value_and_grad(fn, xs, wrt)

    def compile(self, fn: Callable[..., Any], example: list[Any], options: dict[str, Any]) -> Callable[..., Any] | None:
        from .jit import compile_jax

        # ``backend`` is torch.compile's compiler name; jax.jit's (an XLA platform) is deprecated and never ours
        return compile_jax(fn, example, {k: v for k, v in options.items() if k != "backend"})


def _jax_x64() -> bool:
    import jax

    return bool(jax.config.read("jax_enable_x64"))


_CLASSES.update({"array_api_strict": ArrayApiStrictBackend, "jax": JaxBackend})


def _clamp(s: slice, n: int) -> slice:
    """``s`` with NumPy's clamping applied for an axis of size ``n``: every bound in range."""
    start, stop, step = s.indices(n)  # (an empty range: slice(0, 0, 1); stop -1: past the first element, stepping back)
    return slice(start, None if stop < 0 else stop, step) if range(start, stop, step) else slice(0, 0, 1)


_PLAIN_LINALG = frozenset("det eigvalsh eigvals inv solve svdvals".split())


def get_numpy() -> Any:
    from ..._dispatch import get_backend

    return get_backend("numpy")
