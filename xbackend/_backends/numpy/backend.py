"""The NumPy backend (CPU). Also the base of the CuPy backend, which mirrors NumPy's API.

Design constraint: every NumPy quirk is handled here and nowhere else. Kernels are ufuncs looked up
by name in ``xp`` (``numpy`` here, ``cupy`` in the subclass), with the few differences from the
Array API standard patched per kernel: ``x ** 0.5`` with a scalar exponent (NumPy takes a sqrt fast
path, wrong at ``-0``/``-inf``), float16 ``nextafter(x, y)`` with ``x == y`` (must return ``y``),
complex ``sign`` (``x/|x|``), integer division by zero (0, quietly).
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
from ..._rules import ELEMENTWISE
from ..common import kernels as R
from ..common.kernels import complex_log1p, standard_floor_divide  # noqa: F401 (this module's names before)
from ..common.keys import check_bounds
from ..common.linspace import complex_parts, real_linspace
from ..._saturate import inner_bounds
from .fast import NumpyFastPathsMixin


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


#: in-place operators whose kernels NumpyBackend patches for every dtype (NumpyBackend.patched)
_PATCHED_INPLACE = frozenset({"pow", "bitwise_right_shift", "bitwise_left_shift"})


def _ml_dtypes_bfloat16() -> Any:
    try:
        import ml_dtypes
    except ImportError:
        return None
    return np.dtype(ml_dtypes.bfloat16)


def negative_integer_power() -> Exception:
    """The one error for an integer raised to a negative integer power, on every backend."""
    from ..._errors import DomainError

    return DomainError("integers to negative integer powers are not defined (the result is not an integer). "
                       "Fix: cast to a float dtype first, e.g. x.astype(xb.float64) ** y")


def arrays_out(fn: Callable[..., Any], name: str) -> Callable[..., Any]:
    """``fn`` returning an ndarray where NumPy returns a scalar (a ufunc whose operands are all 0-d).

    0-d Arrays are 0-d arrays (never NumPy scalars), so ``np.asarray(x)``, DLPack and in-place writes treat
    them as they treat every other Array. One ``type`` test per call; the conversion only runs for 0-d results.
    """
    nd, asarray = np.ndarray, np.asarray
    arity = ELEMENTWISE.get(name, (0,))[0]
    if arity == 1:

        def unary(x: Any) -> Any:
            r = fn(x)
            return r if type(r) is nd else asarray(r)

        return unary
    if arity == 2:

        def binary(x: Any, y: Any) -> Any:
            r = fn(x, y)
            return r if type(r) is nd else asarray(r)

        return binary

    def other(*args: Any) -> Any:  # clip (3 arguments)
        r = fn(*args)
        return r if type(r) is nd else asarray(r)

    return other


class NumpyBackend(NumpyFastPathsMixin, NumpyLinalgMixin, Backend):
    name = "numpy"
    module = "numpy"
    fixed_default_device = True
    native_basic_indexing = True
    native_reshape = True
    int_key_view = False  # x[i] of a 1-d array is a NumPy scalar: x[i, ...] is the 0-d view
    xp: Any = np
    index_checks = False  # NumPy raises IndexError for out-of-bounds indices itself (CuPy wraps: True there)
    grad_via: ClassVar[str | None] = "torch"  # xb.grad: torch's autograd on zero-copy views (xbackend/_grad.py); CuPy inherits it

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
            if not x.dtype.isnative and x.dtype.newbyteorder("=") in self.from_np:  # byte-swapped data (issue 4)
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

    # -- interchange / transfer (issue 4) ----
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


    # -- kernels --------------------------------------------------------------------------------
    def make_kernel(self, name: str, dt: DType) -> Callable[..., Any]:
        special = getattr(self, "_k_" + name, None)
        fn = special(dt) if special is not None else getattr(self.xp, NP_NAMES.get(name, name))
        return arrays_out(fn, name) if self.xp is np else fn


    def normalize_key(self, x: Any, key: Any) -> Any:
        """``key`` with a trailing ``...`` where NumPy would return a scalar (every axis indexed by an int):
        ``x[(i, ...)]`` is the 0-d *view* torch returns, and an Array never holds a NumPy scalar."""
        if type(key) is tuple:
            for k in key:
                if k is Ellipsis:
                    return key
            return key + (Ellipsis,)
        return key if key is Ellipsis else (key, Ellipsis)

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
            out = xp.empty_like(x)
            with np.errstate(invalid="ignore", divide="ignore"):  # divide by the real |x| per component
                out.real = x.real / a  # (a complex division would turn -0 into +0 and inf into NaN)
                out.imag = x.imag / a
            return xp.where(a == 0, xp.zeros_like(x), out)

        return csign

    def _k_expm1(self, dt: DType) -> Callable[..., Any]:
        xp = self.xp
        if dt.kind != "c":
            return xp.expm1

        def cexpm1(x: Any) -> Any:
            # The standard's special cases NumPy misses: on the real axis (b = +-0) expm1 is the real expm1
            # with imaginary part b (NumPy: -0+0j at -0+0j, inf+nanj at inf+0j); at a = -inf it is exactly
            # -1 + 0*cis(b) (NumPy's complex64 gives -0.99999988), -1 +-0j for b = +-inf (+0j for NaN); at a = +inf
            # with b infinite or NaN it is inf + NaN j (NumPy: NaN + NaN j; array-api-tests, issue 28)
            with np.errstate(all="ignore"):
                r = xp.expm1(x)
                a, b = x.real, x.imag
                axis, minf, pinf = b == 0, a == -np.inf, (a == np.inf) & ~xp.isfinite(b)
                zero_b = xp.where(xp.isnan(b), xp.zeros_like(b), xp.copysign(xp.zeros_like(b), b))
                out = xp.empty_like(r)
                out.real = xp.where(axis, xp.expm1(a) + 0.0, xp.where(minf, -1.0, xp.where(pinf, np.inf, r.real)))
                out.imag = xp.where(axis, b, xp.where(minf, xp.where(xp.isfinite(b), xp.copysign(
                    xp.zeros_like(b), xp.sin(b)), zero_b), xp.where(pinf, np.nan, r.imag)))  # fmt: skip
            return out

        return cexpm1

    def _k_tanh(self, dt: DType) -> Callable[..., Any]:
        xp = self.xp
        if dt.kind != "c":
            return xp.tanh

        def ctanh(x: Any) -> Any:
            # The standard's cases at infinities, which some libraries miss (CUDA builds give NaN+NaNj for
            # +-0 + inf j): a = +-0 with b infinite or NaN is +-0 + NaN j; a = +-inf is +-1 +- 0j (b's sign)
            with np.errstate(all="ignore"):
                r = xp.tanh(x)
                a, b = x.real, x.imag
                zero = (a == 0) & ~xp.isfinite(b)
                inf = xp.isinf(a)
                out = xp.empty_like(r)
                out.real = xp.where(zero, a, xp.where(inf, xp.sign(a), r.real))
                out.imag = xp.where(zero, np.nan, xp.where(inf, xp.copysign(xp.zeros_like(b), b), r.imag))
            return out

        return ctanh

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
        xp = self.xp
        if dt.kind != "f":
            return self._int_div(dt, xp.floor_divide)

        native = xp.floor_divide
        return lambda x, y: standard_floor_divide(xp, x, y, native)

    def _k_remainder(self, dt: DType) -> Callable[..., Any]:
        return self._int_div(dt, self.xp.remainder)

    def _k_pow(self, dt: DType) -> Callable[..., Any]:
        xp = self.xp
        if dt.kind in "iu":

            def ipow(x: Any, y: Any) -> Any:
                try:
                    return xp.power(x, y)
                except ValueError as exc:  # NumPy: "Integers to negative integer powers are not allowed."
                    raise negative_integer_power() from exc

            return ipow
        if dt.kind != "f":
            return xp.power

        def fpow(x: Any, y: Any) -> Any:
            r = xp.power(x, y)
            if (type(y) is float or getattr(y, "ndim", 1) == 0) and (y == 0.5 or y == -0.5):
                # NumPy's sqrt fast path for a scalar exponent differs from C pow at -0 and -inf (standard: pow)
                neg_inf, zero = x == -np.inf, x == 0
                if y == 0.5:
                    return xp.where(neg_inf, np.inf, xp.where(zero, 0.0, r))
                return xp.where(neg_inf, 0.0, xp.where(zero, np.inf, r))
            return r

        return fpow

    def _k_nextafter(self, dt: DType) -> Callable[..., Any]:  # float16: on the bits (_np_rules; NumPy's returns x
        return R.nextafter16(self.xp) if dt is D.float16 else self.xp.nextafter  # for x == y, CuPy's NaN at inf)

    #: float dtypes whose library maximum/minimum already give the second argument on a -0.0/+0.0 tie: NumPy's
    #: float32/64 loops (contiguous, strided and scalar; tests/test_elementwise.py's zero-sign test checks it on
    #: every run), not its float16 loop. The formula costs 4-5x the kernel at 1e6 elements, so it runs only where
    #: the library differs. CuPy (CUDA orders -0.0 below +0.0): none.
    tie_second_natively: frozenset[DType] = frozenset({D.float32, D.float64})

    # one formula on every backend where libraries' kernels disagree (_np_rules.py; torch's backend: the same rules)
    def _k_maximum(self, dt: DType) -> Callable[..., Any]:
        if dt.kind == "f" and dt not in self.tie_second_natively:
            return R.tie_second(self.xp, self.xp.maximum)
        return self.xp.maximum

    def _k_minimum(self, dt: DType) -> Callable[..., Any]:
        if dt.kind == "f" and dt not in self.tie_second_natively:
            return R.tie_second(self.xp, self.xp.minimum)
        return self.xp.minimum

    def _k_bitwise_right_shift(self, dt: DType) -> Callable[..., Any]:
        return R.shift_right(self.xp, self.xp.right_shift)

    def _k_bitwise_left_shift(self, dt: DType) -> Callable[..., Any]:
        return R.shift_left(self.xp, self.xp.left_shift)

    def _k_real(self, dt: DType) -> Callable[..., Any]:
        return self.xp.real if dt.kind == "c" else self.xp.positive

    def _k_imag(self, dt: DType) -> Callable[..., Any]:
        xp = self.xp
        return xp.imag if dt.kind == "c" else xp.zeros_like

    def _k_conj(self, dt: DType) -> Callable[..., Any]:
        return self.xp.conjugate if dt.kind == "c" else self.xp.positive

    def _k_log1p(self, dt: DType) -> Callable[..., Any]:
        xp = self.xp
        if dt.kind != "c":
            return xp.log1p

        return lambda z: complex_log1p(xp, z)

    def _k_clip(self, dt: DType) -> Callable[..., Any]:
        xp = self.xp
        if dt.kind == "f" and dt not in self.tie_second_natively:
            return R.clip_floats(xp)  # a tie gives the bound, a NaN bound NaN: torch's formula (_np_rules)
        # (floats whose maximum/minimum give the second argument on a tie: the bound, and NaN bounds propagate)

        def clip(x: Any, lo: Any, hi: Any) -> Any:
            out = x
            if lo is not None:
                out = xp.maximum(out, lo)
            if hi is not None:
                out = xp.minimum(out, hi)
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
        return self.xp.transpose(x, axes)

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

    # -- manipulation / searching / indexing (issue 3) ----------------------------------------
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


    # -- sorting / set / statistical / utility (issue 3) ----------------------------------------
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
