"""The NumPy backend (CPU). Also the base of the CuPy backend, which mirrors NumPy's API.

Design constraint: every NumPy quirk is handled in this package and nowhere else. Kernels are ufuncs looked up
by name in ``xp`` (``numpy`` here, ``cupy`` in the subclass), with the few differences from the
Array API standard patched per kernel (``kernels.py``): ``x ** 0.5`` with a scalar exponent (NumPy takes a sqrt fast
path, wrong at ``-0``/``-inf``), float16 ``nextafter(x, y)`` with ``x == y`` (must return ``y``),
complex ``sign`` (``x/|x|``), integer division by zero (0, quietly). Beside the class: its fast paths (``fast.py``)
and its linear algebra (``linalg.py``).
"""

from __future__ import annotations

import contextlib
import functools
from typing import Any, Callable, ClassVar

import numpy as np

from ... import _dtypes as D
from ..._backend import Backend, BackendInfo, byte_bounds, dlpack_kwargs
from ..._devices import CPU, Device
from ..._dtypes import DType
from ..._errors import UnknownDeviceError
from ..common.keys import check_bounds
from ..common.linspace import complex_parts, real_linspace
from ..._saturate import inner_bounds
from .fast import NumpyFastPathsMixin
from .kernels import NumpyKernelsMixin


def _quiet_switch() -> tuple[Callable[..., Any], Callable[..., Any], Any]:
    """``(set, reset, state)``: NumPy's floating-point error state as a context variable, and its "ignore
    everything" value: ``token = set(state) ... reset(token)`` is ``with np.errstate(all="ignore")`` for ~0.1 µs
    instead of ~1 µs (NumPy 2 keeps the state in ``numpy._core._ufunc_config._extobj_contextvar``). Where that is
    not so, ``np.errstate`` itself."""
    try:
        from numpy._core._ufunc_config import _extobj_contextvar as var  # type: ignore[attr-defined]

        with np.errstate(all="ignore"):
            state = var.get()
        return var.set, var.reset, state
    except (ImportError, AttributeError):  # pragma: no cover - another NumPy: the public way
        def enter(cm: Any) -> Any:
            cm.__enter__()
            return cm

        return enter, (lambda cm: cm.__exit__(None, None, None)), np.errstate(all="ignore")


_QUIET_SET, _QUIET_RESET, _QUIET = _quiet_switch()
from .linalg import NumpyLinalgMixin

#: in-place operators whose kernels NumpyBackend patches for every dtype (NumpyBackend.patched)
_PATCHED_INPLACE = frozenset({"pow", "bitwise_right_shift", "bitwise_left_shift"})


def _ml_dtypes_bfloat16() -> Any:
    try:
        import ml_dtypes
    except ImportError:
        return None
    return np.dtype(ml_dtypes.bfloat16)


class NumpyBackend(NumpyFastPathsMixin, NumpyKernelsMixin, NumpyLinalgMixin, Backend):
    name = "numpy"
    module = "numpy"
    fixed_default_device = True
    native_basic_indexing = True
    native_reshape = True
    int_key_view = False  # x[i] of a 1-d array is a NumPy scalar: x[i, ...] is the 0-d view
    xp: Any = np
    index_checks = False  # NumPy raises IndexError for out-of-bounds indices itself (CuPy wraps: True there)
    # xb.grad: torch's autograd on zero-copy views (xbackend/_grad/); CuPy inherits it
    grad_via: ClassVar[str | None] = "torch"

    def __init__(self) -> None:
        super().__init__()
        xp = self.xp
        self.to_np: dict[DType, Any] = {d: np.dtype(d.name) for d in D.ALL if d is not D.bfloat16}
        bf16 = _ml_dtypes_bfloat16()
        if bf16 is not None and self._supports_ml_bfloat16():
            self.to_np[D.bfloat16] = bf16
        self.from_np: dict[Any, DType] = {v: k for k, v in self.to_np.items()}
        self.from_np.update({v.type: k for k, v in self.to_np.items()})  # scalar types too
        self._inplace_patched: dict[tuple[str, Any], bool] = {}  # (name, NumPy dtype) -> inplace() via the kernel
        self._array_type = xp.ndarray

    def _supports_ml_bfloat16(self) -> bool:
        return True

    @classmethod
    def probe(cls) -> BackendInfo:
        return BackendInfo("numpy", installed=True, usable=True, version=np.__version__, devices=("cpu",))

    def native_array_types(self) -> tuple[type, ...]:
        return (self._array_type,)

    def adopt(self, x: Any) -> Any:
        """Subclasses as plain arrays (a view: ``np.matrix`` would make ``*`` a matrix product and keep results
        2-d; ``memmap`` stays mapped through the view's base). A masked array's mask has no place in an Array:
        refused with the fix."""
        if type(x) is self._array_type or not isinstance(x, self._array_type):
            return x
        if isinstance(x, np.ma.MaskedArray):
            from ..._errors import ArgumentTypeError

            raise ArgumentTypeError("a NumPy masked array: its mask would be dropped silently. Fix: fill the masked "
                                    "values first, e.g. xb.asarray(np.ma.filled(m, 0.0)), or pass m.data to ignore "
                                    "the mask")  # fmt: skip
        return x.view(self._array_type)

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
            if not x.dtype.isnative and x.dtype.newbyteorder("=") in self.from_np:  # byte-swapped: native order
                return self.from_np[x.dtype.newbyteorder("=")]
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
                from ..._errors import CopyError

                raise CopyError(f"casting {x.dtype} to {dt} needs a copy, but copy=False was given")
            return x.astype(self.native_dtype(dt))
        if copy:  # a NumPy scalar's copy() can be itself (np.True_ is a singleton): copy=True must give a new one
            return x.copy() if not isinstance(x, np.generic) else np.array(x)
        return x

    def to_device(self, x: Any, dev: Device) -> Any:
        self.check_device(dev)
        return x

    def memory_range(self, x: Any) -> tuple[int, int]:
        ai = x.__array_interface__
        strides = ai["strides"] or tuple(x.strides)
        return byte_bounds(ai["data"][0], x.shape, strides, x.itemsize)

    def import_dlpack(self, obj: Any) -> Any:
        return self.xp.from_dlpack(obj)

    # -- interchange / transfer --------------
    def export_dlpack(self, x: Any) -> Any:
        """``x`` in a layout every DLPack consumer reads correctly (torch aborts on negative strides)."""
        if x.dtype.isnative and all(s >= 0 and s % x.itemsize == 0 for s in x.strides):
            return x
        if not x.dtype.isnative:
            x = x.astype(x.dtype.newbyteorder("="))
        return self.xp.ascontiguousarray(x)

    def dlpack(self, x: Any, stream: Any = None, max_version: Any = None, dl_device: Any = None,
               copy: bool | None = None) -> Any:  # fmt: skip
        kw = dlpack_kwargs(stream, max_version, dl_device, copy)
        try:
            return x.__dlpack__(**kw)
        except TypeError:
            if dl_device is not None or copy is not None:
                raise
            return x.__dlpack__(stream=stream)  # NumPy < 2.1: legacy capsules only

    def device_scope(self, dev: Device) -> Any:
        return contextlib.nullcontext()

    def data_ptr(self, x: Any) -> int:
        return x.__array_interface__["data"][0]

    def astype(self, x: Any, dt: DType, copy: bool = True) -> Any:
        try:
            nd = self.to_np[dt]
        except KeyError:
            nd = self.native_dtype(dt)
        return x.astype(nd) if copy else x.astype(nd, copy=False)


    def normalize_key(self, x: Any, key: Any) -> Any:
        """``key`` with a trailing ``...`` where NumPy would return a scalar (every axis indexed by an int):
        ``x[(i, ...)]`` is the 0-d *view* torch returns, and an Array never holds a NumPy scalar."""
        if type(key) is tuple:
            for k in key:
                if k is Ellipsis:
                    return key
            return key + (Ellipsis,)
        return key if key is Ellipsis else (key, Ellipsis)

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

    def saturating_cast(self, x: Any, src: DType, dst: DType, dev: Device) -> Any:
        """xbackend/_saturate.py's rule in place (``putmask``: NumPy's ``where`` took 7x as long here); CuPy too."""
        xp = self.xp
        lo, hi = D._INT_RANGE[dst]
        lo_f, hi_f = inner_bounds(src, dst)
        c = xp.empty_like(x)  # (an out= keeps a 0-d array an array)
        xp.clip(x, lo_f, hi_f, out=c)  # NaN stays NaN
        xp.putmask(c, xp.isnan(c), 0)
        out = c.astype(self.native_dtype(dst))
        if hi_f != hi:  # beyond the largest in-range float: the maximum
            xp.putmask(out, x > hi_f, hi)
        if lo_f != lo:
            xp.putmask(out, x < lo_f, lo)
        return out

    def linspace(self, start: Any, stop: Any, num: int, dt: DType, dev: Device, endpoint: bool) -> Any:
        xp = self.xp

        def f64(n: int) -> Any:
            return xp.arange(n, dtype=np.float64)

        with np.errstate(all="ignore"):  # inf * 0 at a non-finite endpoint is NaN by the rule, not a warning
            if dt.kind != "c":
                return real_linspace(f64, float(start), float(stop), num, endpoint).astype(self.native_dtype(dt))
            (r0, r1), (i0, i1) = complex_parts(start, stop)
            out = xp.empty(num, dtype=self.native_dtype(dt))
            out.real = real_linspace(f64, r0, r1, num, endpoint)
            out.imag = real_linspace(f64, i0, i1, num, endpoint)
            return out

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
        if self.index_checks:
            self.check_index(x, key)
        return x[key]

    def setitem(self, x: Any, key: Any, value: Any) -> None:
        if self.index_checks:
            self.check_index(x, key)
        x[key] = value

    def item(self, x: Any) -> Any:
        return x.item()

    def tolist(self, x: Any) -> Any:
        return x.tolist()

    def reshape(self, x: Any, shape: tuple[int, ...], copy: bool | None = None) -> Any:
        if copy is None:
            return x.reshape(shape)
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
        return x.transpose(axes)  # the method: np.transpose's Python frame costs ~0.4 µs (CuPy's is the same method)

    def inplace(self, op: Callable[[Any, Any], Any], name: str, x: Any, y: Any) -> Any:
        try:
            through = self._inplace_patched[name, x.dtype]  # (a dict lookup: no call on the hot path)
        except KeyError:
            through = self._inplace_patched[name, x.dtype] = self.patched(name, self.from_np[x.dtype])
        if through:  # through the patched kernel (x ** 0.5, int ** -1, inf // y, x >>= 64)
            r = self.kernel(name, self.from_np[x.dtype])(x, y)
            if r.shape != x.shape:  # (x[...] = r would drop r's leading 1s: refused, as the library's x op= y does)
                raise ValueError(f"non-broadcastable output operand with shape {x.shape} doesn't match the "
                                 f"broadcast shape {r.shape}")  # fmt: skip
            x[...] = r
            return x
        if (name == "floor_divide" or name == "remainder") and x.dtype.kind in "iu":
            with np.errstate(divide="ignore", invalid="ignore"):  # x //= 0 is 0 quietly, as x // 0
                return op(x, y)
        try:
            return op(x, y)
        except (FloatingPointError, RuntimeWarning):  # np.seterr / -W error: NumPy signals after it wrote the
            return x  # whole IEEE result into x (a retry would apply the operation twice)

    def patched(self, name: str, dt: DType) -> bool:
        """Whether this backend's kernel ``name`` for ``dt`` is more than the library's own, so that an in-place
        operator must go through it (``x op= y`` is ``x[...] = kernel(x, y)`` then)."""
        return name in _PATCHED_INPLACE or (name == "floor_divide" and dt.kind == "f")

    def format(self, x: Any) -> str:
        return np.array2string(self.to_host(x), separator=", ", threshold=50)

    def export_for_numpy(self, x: Any, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        """What ``np.asarray(array)`` sees (``Array.__array__``)."""
        if dtype is not None:
            return np.asarray(x, dtype=dtype) if not copy else np.array(x, dtype=dtype, copy=True)
        return np.array(x, copy=True) if copy else x

    def info_dtypes(self, dev: Device) -> list[DType]:
        """Dtypes this backend holds on ``dev`` (for ``__array_namespace_info__().dtypes()``)."""
        return [d for d in D.ALL if d in self.to_np]

    def info_max_dims(self) -> int | None:
        return 64 if int(np.__version__.split(".")[0]) >= 2 else 32

    # -- manipulation / searching / indexing --------------------------------------------------
    # Axes arrive normalised (non-negative ints, tuples where several); result dtypes are decided in
    # the core. Index results are int64; the core casts them when the default int dtype differs.
    def check_index(self, x: Any, key: Any) -> None:
        """IndexError for out-of-bounds integer index arrays (for backends whose kernels wrap around)."""
        at = self._array_type
        check_bounds(tuple(x.shape), key, lambda k: isinstance(k, at), lambda k: k.dtype.kind == "b")

    def broadcast_to(self, x: Any, shape: tuple[int, ...]) -> Any:
        return self.xp.broadcast_to(x, shape)

    def concat(self, xs: list[Any], axis: int) -> Any:
        return self.xp.concatenate(xs, axis=axis)

    def stack(self, xs: list[Any], axis: int) -> Any:
        return self.xp.stack(xs, axis=axis)

    def flip(self, x: Any, axes: tuple[int, ...]) -> Any:
        return self.xp.flip(x, axis=axes) if axes else x.copy()

    def roll(self, x: Any, shifts: tuple[int, ...], axes: tuple[int, ...]) -> Any:
        return self.xp.roll(x, shifts, axis=axes)

    def repeat(self, x: Any, repeats: Any, axis: int) -> Any:
        if not isinstance(repeats, int):
            if bool((repeats < 0).any()):
                raise ValueError("repeat(): repeats must be non-negative")
            repeats = repeats.astype(np.int64, copy=False)
        return self.xp.repeat(x, repeats, axis=axis)

    def tile(self, x: Any, reps: tuple[int, ...]) -> Any:
        return self.xp.tile(x, reps) if reps else x.copy()

    def argmax(self, x: Any, axis: int | None, keepdims: bool) -> Any:
        return self.xp.asarray(self.xp.argmax(x, axis=axis, keepdims=keepdims), dtype=np.int64)

    def argmin(self, x: Any, axis: int | None, keepdims: bool) -> Any:
        return self.xp.asarray(self.xp.argmin(x, axis=axis, keepdims=keepdims), dtype=np.int64)

    def count_nonzero(self, x: Any, axes: tuple[int, ...], keepdims: bool) -> Any:
        return self.xp.asarray((x != 0).sum(axis=axes, keepdims=keepdims, dtype=np.int64))

    def nonzero(self, x: Any) -> tuple[Any, ...]:
        return tuple(self.xp.asarray(i, dtype=np.int64) for i in self.xp.nonzero(x))

    def searchsorted(self, x1: Any, x2: Any, side: str, sorter: Any) -> Any:
        if sorter is not None:
            sorter = sorter.astype(np.int64, copy=False)
        return self.xp.asarray(self.xp.searchsorted(x1, x2, side=side, sorter=sorter), dtype=np.int64)

    def where(self, condition: Any, x1: Any, x2: Any) -> Any:
        return self.xp.where(condition, x1, x2)

    def take_along_axis(self, x: Any, indices: Any, axis: int) -> Any:
        n = x.shape[axis]
        if indices.size and bool(((indices < -n) | (indices >= n)).any()):
            raise IndexError(f"take_along_axis(): index out of bounds for axis {axis} with size {n}")
        return self.xp.take_along_axis(x, indices, axis=axis)


    # -- sorting / set / statistical / utility --------------------------------------------------
    #: ``kind=`` for a stable sort (CuPy's sorts are always stable and accept only ``None``)
    sort_kind: Any = "stable"

    def _order_key(self, x: Any, dt: DType, descending: bool) -> Any:
        """An array whose stable ascending order is the order we want for ``x`` (NaNs last either way)."""
        if not descending:
            return x
        return -x if dt.kind == "f" else ~x  # -NaN is NaN; ~ reverses bool and (un)signed ints exactly

    def sort_indices(self, x: Any, dt: DType, axis: int, descending: bool) -> Any:
        key = self._order_key(x, dt, descending)
        return self.xp.argsort(key, axis=axis, kind=self.sort_kind).astype(np.int64, copy=False)

    def sort_values(self, x: Any, dt: DType, axis: int, descending: bool) -> Any:
        if not descending:
            return self.xp.sort(x, axis=axis, kind=self.sort_kind)
        return self.xp.take_along_axis(x, self.sort_indices(x, dt, axis, True), axis=axis)

    def unique_sorted(self, x: Any, dt: DType, want_index: bool, want_inverse: bool,
                      want_counts: bool) -> tuple[Any, Any, Any, Any]:  # fmt: skip
        """Sorted unique values of 1-D ``x`` split where neighbours differ (``!=``: every NaN distinct)."""
        xp = self.xp
        n = x.shape[0]
        if dt.kind == "c":  # lexicographic: stable sort by imag, then by real
            order = xp.argsort(x.imag, kind=self.sort_kind)
            order = order[xp.argsort(x.real[order], kind=self.sort_kind)]
        else:
            order = xp.argsort(x, kind=self.sort_kind)
        order = order.astype(np.int64, copy=False)
        s = x[order]
        new = xp.ones(n, dtype=bool)
        if n > 1:
            xp.not_equal(s[1:], s[:-1], out=new[1:])
        starts = xp.flatnonzero(new).astype(np.int64, copy=False)
        first = order[starts] if want_index else None
        counts = None
        if want_counts:
            counts = xp.diff(xp.concatenate([starts, xp.full(1, n, dtype=np.int64)]))
        inv = None
        if want_inverse:
            inv = xp.empty(n, dtype=np.int64)
            inv[order] = xp.cumsum(new, dtype=np.int64) - 1
        return s[starts], first, inv, counts

    def isin(self, x1: Any, x2: Any, dt: DType, invert: bool) -> Any:
        return self.xp.asarray(self.xp.isin(x1, x2, invert=invert))

    def _acc(self, x: Any) -> Any:
        """float16/bfloat16 accumulate in float32 and round once (as torch does), else ``None``."""
        return self.xp.float32 if x.dtype.itemsize == 2 and x.dtype.kind not in "iu" else None

    @functools.cached_property
    def _reducers(self) -> dict[str, Callable[..., Any]]:
        """NumPy: the ufuncs' own ``reduce`` (skips ``np.sum``'s Python wrapper); CuPy: the functions."""
        xp = self.xp
        if xp is np:
            return {"sum": np.add.reduce, "prod": np.multiply.reduce, "max": np.maximum.reduce,
                    "min": np.minimum.reduce, "all": np.logical_and.reduce, "any": np.logical_or.reduce,
                    "mean": np.mean}  # fmt: skip
        return {n: getattr(xp, n) for n in ("sum", "prod", "max", "min", "all", "any", "mean")}

    # sum/prod/max/min call the ufunc's reduce directly; NumPy's own floating-point warnings (inf - inf,
    # overflow) stay, as for elementwise operators. mean (empty slices) and the float16/bfloat16 paths
    # (float32 accumulation, then a rounding cast) are quiet, as on torch.
    def reduce(self, name: str, x: Any, dt: DType, axes: tuple[int, ...], keepdims: bool) -> Any:
        """``name`` in sum, prod, max, min, mean, all, any over non-empty ``axes``; always an array (0-d too)."""
        xp = self.xp
        fn = self._reducers[name]
        k = dt.kind
        half = (k == "f" or k == "c") and x.dtype.itemsize == 2
        if name != "mean" and not half:
            if name == "sum" or name == "prod":
                return xp.asarray(fn(x, axis=axes, keepdims=keepdims, dtype=x.dtype))
            return xp.asarray(fn(x, axis=axes, keepdims=keepdims))
        if name == "mean" and k == "f" and not half and xp is np:  # np.mean's own steps (its sum, / count): quiet
            n = 1
            for a in axes:
                n *= x.shape[a]
            token = _QUIET_SET(_QUIET)
            try:
                return np.asarray(np.add.reduce(x, axis=axes, keepdims=keepdims) / n)  # type: ignore[call-overload]
            finally:
                _QUIET_RESET(token)
        with np.errstate(all="ignore"):
            acc = self._acc(x)
            if acc is not None:
                return xp.asarray(fn(x.astype(acc), axis=axes, keepdims=keepdims)).astype(x.dtype)
            if name == "mean" and k == "c":  # real and imaginary parts separately (NaN stays in its part)
                re = xp.asarray(fn(x.real, axis=axes, keepdims=keepdims))
                out = xp.empty(re.shape, dtype=x.dtype)
                out.real = re
                out.imag = fn(x.imag, axis=axes, keepdims=keepdims)
                return out
            return xp.asarray(fn(x, axis=axes, keepdims=keepdims))

    def moment(self, name: str, x: Any, axes: tuple[int, ...], correction: float, keepdims: bool) -> Any:
        fn = self.xp.var if name == "var" else self.xp.std
        acc = self._acc(x)
        with np.errstate(all="ignore"):
            if acc is not None:
                return self.xp.asarray(fn(x.astype(acc), axis=axes, ddof=correction, keepdims=keepdims)).astype(x.dtype)
            return self.xp.asarray(fn(x, axis=axes, ddof=correction, keepdims=keepdims))

    def cumulative(self, name: str, x: Any, dt: DType, axis: int, include_initial: bool) -> Any:
        xp = self.xp
        fn = xp.cumsum if name == "cumulative_sum" else xp.cumprod
        acc = self._acc(x)
        with np.errstate(all="ignore"):
            out = fn(x, axis=axis, dtype=x.dtype) if acc is None else fn(x, axis=axis, dtype=acc).astype(x.dtype)
        if include_initial:
            shape = list(x.shape)
            shape[axis] = 1
            init = (xp.zeros if name == "cumulative_sum" else xp.ones)(tuple(shape), dtype=x.dtype)
            out = xp.concatenate([init, out], axis=axis)
        return out

    def diff(self, x: Any, dt: DType, axis: int, n: int) -> Any:
        """The ``n``-th difference along ``axis`` (n >= 1; edges are already attached by the core)."""
        with np.errstate(all="ignore"):
            return self.xp.diff(x, n=n, axis=axis)
