"""Creation functions of the Array API standard (2025.12).

Design constraint: the backend and device come from the arguments, else from the context
(``xb.using``), resolved once here; dtypes default to xbackend's defaults (float64/int64 on every
backend), never to the backend's own.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from . import _config, _dtypes as D
from ._array import Array, _alloc, _new
from ._devices import Device, split as _split
from ._dispatch import _instances, get_backend
from ._dtypes import DType
from . import _args as A
from ._boundary import raise_translated
from ._coerce import asarray, first_array, fit_scalar, is_native, py_scalar, to_array, wrap_native
from ._coerce import leaf as _leaf, resolve as _resolve, target as _target
from ._errors import (
    ArgumentTypeError, ArgumentValueError, DomainError, OutOfMemoryError, PromotionError, ScalarOverflowError,
    ShapeError, UnsupportedDTypeError,
)  # fmt: skip
from ._interchange import import_dlpack

_ctx_get = _config._ctx.get

__all__ = [
    "asarray", "arange", "empty", "empty_like", "eye", "from_dlpack", "full", "full_like", "linspace",
    "meshgrid", "ones", "ones_like", "tril", "triu", "zeros", "zeros_like",
]  # fmt: skip

_SCALARS = (bool, int, float, complex)


def _dt(dtype: Any, default: DType) -> DType:
    return default if dtype is None else D.dtype(dtype)


def _creation_failed(fname: str, shape: Any, dt: DType, exc: BaseException) -> None:
    """A creation call raised natively: a shape that is no shape, a result too big to address, or no memory left
    raise the one typed error on every backend (called only on the error path)."""
    A.check_size(A.shape(shape, fname), dt.itemsize, fname)
    if isinstance(exc, MemoryError) or "memory" in str(exc).lower():
        raise OutOfMemoryError(f"{fname}(): no memory for a result of shape {tuple(shape)} and dtype {dt}. Fix: ask "
                               "for less, or free memory (on a GPU: del unused Arrays)") from exc  # fmt: skip


def from_dlpack(x: Any, /, *, device: Any = None, copy: bool | None = None, backend: str | None = None) -> Array:
    """Import any DLPack producer (NumPy, torch, CuPy, JAX, an Array, ...) as an Array.

    >>> import numpy as np, xbackend as xb
    >>> a = np.arange(3.0)
    >>> xb.from_dlpack(a).native is a or xb.shares_memory(xb.from_dlpack(a), xb.asarray(a))
    True
    """
    return import_dlpack(x, device=device, copy=copy, backend=backend)


_NO_CALL = (_config, _config, _config, _config, None)  # matches no call: _config is never an argument


def _filled(method: str, doc: str) -> Any:
    """empty/zeros/ones. These are hot (``xb.zeros(100)`` should cost little more than ``np.zeros(100)``), so
    a call whose (backend, device, dtype) arguments were seen before under the same config takes one cached
    entry: the backend, the device, the dtype and the backend's ``creator`` for them (a native call with the
    dtype and device already converted). An entry whose device is the backend's *default* creates on the
    library's default device, and is used only while the backend's ``default_device_probe()`` says that the
    default is still the device it was made for (torch's follows ``torch.set_default_device``)."""

    def general(shape: Any, dtype: Any, device: Any, backend: Any) -> Array:
        be, dev, cfg = _resolve(backend, device)
        dt = cfg.default_float if dtype is None else (dtype if type(dtype) is DType else D.dtype(dtype))
        out = _alloc()
        try:
            out._data = getattr(be, method)(_sized(shape, dt, method), dt, dev)
        except Exception as exc:
            _creation_failed(method, shape, dt, exc)
            raise_translated(exc, method)
        out._dt = dt
        out._dev = dev
        out._be = be
        try:
            place = cfg.places.get((backend, device))  # what _resolve cached: None if it could not
        except TypeError:
            place = None
        if place is not None and (dtype is None or type(dtype) is DType or type(dtype) is str):
            probe = (None, None) if place[1] is not None else be.default_device_probe()  # None: cannot change
            cfg.places[method, backend, device, dtype] = (be, dev, dt, *be.creator(method, dt, place[1]), *probe)
        return out

    # (backend, device, dtype, context config, entry) of the last hit; the context config is None outside
    # ``xb.using(...)``, so a ``set_default`` (which replaces the base config) forgets it
    last: list[Any] = [_NO_CALL]
    _config.BASE_CHANGED.append(lambda: last.__setitem__(0, _NO_CALL))

    def fill(shape: Any, *, dtype: DType | None = None, device: Any = None, backend: str | None = None,
             requires_grad: bool = False) -> Array:  # fmt: skip
        if requires_grad:
            return _leaf(fill(shape, dtype=dtype, device=device, backend=backend))
        c = _ctx_get()
        b, v, d, f, hit = last[0]  # the same arguments (same objects) as last time: no key to build and hash
        if f is not c or b is not backend or v is not device or d is not dtype:
            cfg = _config._base if c is None else c
            try:
                hit = cfg.places.get((method, backend, device, dtype))
            except TypeError:  # an unhashable argument: never cached
                hit = None
            if hit is None:
                return general(shape, dtype, device, backend)
            last[0] = (backend, device, dtype, c, hit)  # one tuple: threads never see half an update
        be, dev, dt, fn, arg, probe, token = hit
        if probe is not None and probe() is not token:  # the default device changed: make a new entry
            last[0] = _NO_CALL
            return general(shape, dtype, device, backend)
        if type(shape) is not int or shape < 0:
            shape = A.shape(shape, method)
        out = _alloc()
        try:
            out._data = fn(shape) if arg is None else fn(shape, arg)
        except Exception as exc:  # no cost when nothing is raised
            _creation_failed(method, shape, dt, exc)
            raise_translated(exc, method)
        out._dt = dt
        out._dev = dev
        out._be = be
        return out

    fill.__name__ = fill.__qualname__ = method
    fill.__doc__ = doc
    fill.__module__ = __name__
    return fill


if TYPE_CHECKING:  # as type checkers see the three functions _filled builds
    def empty(shape: Any, *, dtype: DType | None = None, device: Any = None, backend: str | None = None,
              requires_grad: bool = False) -> Array: ...
    def zeros(shape: Any, *, dtype: DType | None = None, device: Any = None, backend: str | None = None,
              requires_grad: bool = False) -> Array: ...
    def ones(shape: Any, *, dtype: DType | None = None, device: Any = None, backend: str | None = None,
             requires_grad: bool = False) -> Array: ...
else:
    empty = _filled("empty", """An uninitialised Array (default dtype: the default float).

    >>> import xbackend as xb
    >>> xb.empty((2, 3)).shape
    (2, 3)
    """)
    zeros = _filled("zeros", """An Array of zeros.

    >>> import xbackend as xb
    >>> xb.zeros(3).tolist(), xb.zeros((1, 2), dtype=xb.int8).dtype
    ([0.0, 0.0, 0.0], xb.int8)
    """)
    ones = _filled("ones", """An Array of ones.

    >>> import xbackend as xb
    >>> xb.ones(2, dtype=xb.bool).tolist()
    [True, True]
    """)


def _value(v: Any, fname: str, what: str) -> Any:
    """A Python scalar from a Python scalar, a NumPy scalar or a one-element Array (``.item()``: synchronises a
    GPU); anything else raises :class:`~xbackend.ArgumentTypeError`."""
    if type(v) in _SCALARS:
        return v
    if isinstance(v, np.generic):
        return py_scalar(v)
    if type(v) is Array and v.ndim == 0:
        return v.item()
    if is_native(v) and getattr(v, "ndim", None) == 0:
        return wrap_native(v).item()
    raise ArgumentTypeError(f"{fname}(): {what} must be a number (a Python or NumPy scalar, or a 0-d Array), got "
                            f"{A.describe(v)}")  # fmt: skip


def _fill_dtype(fill_value: Any, dtype: Any) -> DType:
    cfg = _config.current()
    if dtype is not None:
        dt = D.dtype(dtype)
    elif type(fill_value) is Array:
        dt = fill_value.dtype
    elif isinstance(fill_value, np.generic):  # data with a dtype keeps it
        dt = D.from_numpy_dtype(fill_value.dtype)
    else:
        dt = D.python_scalar_dtype(_value(fill_value, "full", "fill_value"), cfg.default_float, cfg.default_int)
    return dt


def _fill_value(fill_value: Any, dt: DType, fname: str = "full") -> Any:
    """The Python scalar to fill an Array of ``dt`` with: ints range-checked (never wrapped), floats rounded to
    ``dt`` on the host (1e300 in float32 is inf, on every backend), complex and float data refused for dtypes
    that cannot hold them."""
    v = _value(fill_value, fname, "fill_value")
    t = type(v)
    k = dt.kind
    if t is int and k in "iu":
        D.check_int_fits(v, dt, f"pass a dtype that holds it, e.g. dtype=xb.{D.holder(v, dt).name}")
    elif t is complex and k != "c":
        raise PromotionError(f"{fname}(): cannot fill an Array of dtype {dt} with complex {v}. Fix: pass a complex "
                             "dtype, e.g. dtype=xb.complex128")  # fmt: skip
    elif t is float and k in "biu":
        raise PromotionError(f"{fname}(): cannot fill an Array of dtype {dt} with float {v} without losing "
                             "information. Fix: pass a float dtype, e.g. dtype=xb.float64, or an int value")  # fmt: skip
    elif t is int and k == "b":
        raise PromotionError(f"{fname}(): cannot fill a bool Array with int {v}. Fix: pass True or False, or an "
                             "integer dtype")  # fmt: skip
    elif k in "fc" and t is not bool and dt.itemsize < (16 if k == "c" else 8) and dt is not D.bfloat16:
        # rounded once on the host: 1e300 becomes inf in float32 everywhere (an int beyond float64 raises
        # OverflowError, as NumPy's conversion does)
        v = fit_scalar(float(v) if t is int else v, dt)
    elif k in "fc" and t is int:
        try:
            v = float(v)
        except OverflowError:  # beyond float64: an infinity, as rounding gives
            v = math.inf if v > 0 else -math.inf
    return v


def _sized(shape: Any, dt: DType, fname: str) -> tuple[int, ...]:
    s = A.shape(shape, fname)
    A.check_size(s, dt.itemsize, fname)
    return s


def full(shape: Any, fill_value: Any, *, dtype: DType | None = None, device: Any = None,
         backend: str | None = None, requires_grad: bool = False) -> Array:  # fmt: skip
    """An Array filled with ``fill_value`` (dtype from the value unless given).

    >>> import xbackend as xb
    >>> xb.full(2, 7).dtype, xb.full(2, 0.5).tolist()
    (xb.int64, [0.5, 0.5])
    """
    be, dev = _target(backend, device)
    dt = _fill_dtype(fill_value, dtype)
    v = _fill_value(fill_value, dt)
    return _leaf_if(_new(be.full(_sized(shape, dt, "full"), v, dt, dev), dt, dev, be), requires_grad)


def _like(x: Array, dtype: Any, device: Any) -> tuple[Any, Device, DType]:
    if type(x) is not Array:
        x = to_array(x)
    be = x._be
    if device is None:
        dev = x._dev
    else:
        bk, place = _split(None, device)  # device=y.device puts the result on y's backend
        if bk is not None and bk != be.name:
            be = _instances.get(bk) or get_backend(bk)
        dev = be.check_device(cast(Device, place))  # not None: a device was given
    return be, dev, (x._dt if dtype is None else D.dtype(dtype))


_LIKE = "like"  # Config.places[_LIKE, method, backend, dtype, device] -> the backend's creator


def _like_fast(method: str, x: Array) -> Array:
    """``zeros_like(x)`` & co. with nothing else given: the backend's creator (``Backend.creator``) for ``x``'s
    dtype and device, cached with the config in force (torch: a prototype's ``new_zeros``, no device string and
    keyword parsing; one made while ``xb.jit`` traces, under a config of its own, is a FakeTensor that stays there)."""
    be, dt, dev = x._be, x._dt, x._dev
    c = _ctx_get()
    places = (_config._base if c is None else c).places
    key = (_LIKE, method, be, dt, dev)
    pair = places.get(key)
    if pair is None:
        pair = places[key] = be.creator(method, dt, dev)
    fn, arg = pair
    shape = tuple(x._data.shape)
    return _new(fn(shape) if arg is None else fn(shape, arg), dt, dev, be)


def _unknown_sized(be: Any, x: Any) -> bool:
    """``x`` is an Array of ``be`` with sizes not known yet (Dask, after a boolean mask): *_like fills its graph."""
    return type(x) is Array and x._be is be and any(s != s for s in x._data.shape)


def empty_like(x: Array, /, *, dtype: DType | None = None, device: Any = None, requires_grad: bool = False) -> Array:
    """Uninitialised, with ``x``'s shape, dtype, backend and device unless given."""
    if dtype is None and device is None and not requires_grad and type(x) is Array and not x._be.unknown_shapes:
        return _like_fast("empty", x)
    be, dev, dt = _like(x, dtype, device)
    if be.unknown_shapes and _unknown_sized(be, x):
        return _new(be.filled_like(x._data, None, dt, dev), dt, dev, be)
    return _leaf_if(_new(be.empty(tuple(_shape_of(x)), dt, dev), dt, dev, be), requires_grad)


def _shape_of(x: Any) -> tuple[int, ...]:
    return tuple((x if type(x) is Array else to_array(x))._data.shape)


def zeros_like(x: Array, /, *, dtype: DType | None = None, device: Any = None, requires_grad: bool = False) -> Array:
    """Zeros with ``x``'s shape, dtype, backend and device unless given.

    >>> import xbackend as xb
    >>> xb.zeros_like(xb.asarray([1, 2])).tolist()
    [0, 0]
    """
    if dtype is None and device is None and not requires_grad and type(x) is Array and not x._be.unknown_shapes:
        return _like_fast("zeros", x)
    be, dev, dt = _like(x, dtype, device)
    if be.unknown_shapes and _unknown_sized(be, x):
        return _new(be.filled_like(x._data, 0, dt, dev), dt, dev, be)
    return _leaf_if(_new(be.zeros(_shape_of(x), dt, dev), dt, dev, be), requires_grad)


def ones_like(x: Array, /, *, dtype: DType | None = None, device: Any = None, requires_grad: bool = False) -> Array:
    """Ones with ``x``'s shape, dtype, backend and device unless given."""
    if dtype is None and device is None and not requires_grad and type(x) is Array and not x._be.unknown_shapes:
        return _like_fast("ones", x)
    be, dev, dt = _like(x, dtype, device)
    if be.unknown_shapes and _unknown_sized(be, x):
        return _new(be.filled_like(x._data, 1, dt, dev), dt, dev, be)
    return _leaf_if(_new(be.ones(_shape_of(x), dt, dev), dt, dev, be), requires_grad)


def full_like(x: Array, /, fill_value: Any, *, dtype: DType | None = None, device: Any = None,
              requires_grad: bool = False) -> Array:  # fmt: skip
    """``fill_value`` with ``x``'s shape, dtype, backend and device unless given.

    >>> import xbackend as xb
    >>> xb.full_like(xb.asarray([1.0, 2.0]), 3).tolist()
    [3.0, 3.0]
    """
    be, dev, dt = _like(x, dtype, device)
    v = _fill_value(fill_value, dt, "full_like")
    if be.unknown_shapes and _unknown_sized(be, x):
        return _new(be.filled_like(x._data, v, dt, dev), dt, dev, be)
    return _leaf_if(_new(be.full(_shape_of(x), v, dt, dev), dt, dev, be), requires_grad)


def _real_value(v: Any, fname: str, what: str) -> int | float:
    r = _value(v, fname, what)
    if type(r) is complex or type(r) is bool:
        raise ArgumentTypeError(f"{fname}(): {what} must be a real number, got {A.describe(r)}")
    if type(r) is float and not math.isfinite(r):
        raise ArgumentValueError(f"{fname}(): {what} must be finite, got {r}")
    return r


def arange(start: Any, /, stop: Any = None, step: Any = 1, *, dtype: DType | None = None, device: Any = None,
           backend: str | None = None, requires_grad: bool = False) -> Array:  # fmt: skip
    """Evenly spaced values in ``[start, stop)``.

    Integer results are range-checked, never wrapped: ``xb.arange(300, dtype=xb.uint8)`` raises. Float endpoints
    with an integer ``dtype`` raise (there is no exact answer).

    >>> import xbackend as xb
    >>> xb.arange(4).tolist(), xb.arange(0, 1, 0.25).tolist()
    ([0, 1, 2, 3], [0.0, 0.25, 0.5, 0.75])
    """
    if stop is None:
        start, stop = 0, start
    start, stop, step = (_real_value(v, "arange", w) for v, w in ((start, "start"), (stop, "stop"), (step, "step")))
    if step == 0:
        raise ArgumentValueError("arange(): step must not be zero")
    be, dev = _target(backend, device)
    cfg = _config.current()
    is_float = type(start) is float or type(stop) is float or type(step) is float
    if dtype is None:
        dt = cfg.default_float if is_float else cfg.default_int
    else:
        dt = D.dtype(dtype)
        if is_float and dt.kind in "biu":
            raise PromotionError(f"arange(): float endpoints with dtype={dt} have no exact integer values. Fix: pass "
                                 "int start/stop/step, or a float dtype")  # fmt: skip
    if is_float:
        n = max(0, math.ceil((stop - start) / step))
    else:
        n = max(0, -((start - stop) // step))  # ceil((stop - start) / step), exactly
    A.check_size((n,), dt.itemsize, "arange")
    if n == 0:
        return _leaf_if(_new(be.empty((0,), dt, dev), dt, dev, be), requires_grad)
    if dt.kind in "iu" or dt.kind == "b":
        last = start + (n - 1) * step
        if dt.kind == "b":
            if min(start, last) < 0 or max(start, last) > 1:
                raise PromotionError("arange(): dtype=xb.bool holds only 0 and 1. Fix: use an integer dtype")
        else:
            lo, hi = D._INT_RANGE[dt]
            bad = next((v for v in (start, last) if not lo <= v <= hi), None)
            if bad is not None:
                raise ScalarOverflowError(
                    f"arange(): value {bad} does not fit {dt} (range {lo}..{hi}); xbackend never wraps around. "
                    f"Fix: pass a dtype that holds it, e.g. dtype=xb.{D.holder(bad, dt).name}")
    if n == 1:  # one value: the step may be anything (even beyond int64, which some libraries cannot take)
        first = bool(start) if dt.kind == "b" else start
        return _leaf_if(_new(be.full((1,), _fill_value(first, dt, "arange"), dt, dev), dt, dev, be), requires_grad)
    return _leaf_if(_new(be.arange(start, stop, step, dt, dev, n), dt, dev, be), requires_grad)


def linspace(start: Any, stop: Any, /, num: int, *, dtype: DType | None = None, device: Any = None,
             endpoint: bool = True, backend: str | None = None, requires_grad: bool = False) -> Array:  # fmt: skip
    """``num`` evenly spaced values from ``start`` to ``stop``.

    The endpoints may be Python or NumPy scalars or 0-d Arrays. An integer ``dtype`` rounds the evenly spaced
    values down (towards -inf, as NumPy 2 does); ``num`` must be an int.

    >>> import xbackend as xb
    >>> xb.linspace(0, 1, 5).tolist(), xb.linspace(0, 10, 4, dtype=xb.int64).tolist()
    ([0.0, 0.25, 0.5, 0.75, 1.0], [0, 3, 6, 10])
    """
    num = A.integer(num, "linspace", "num")
    if num < 0:
        raise ArgumentValueError(f"linspace(): num must be non-negative, got {num}")
    endpoint = A.flag(endpoint, "linspace", "endpoint")
    start, stop = (_float(_value(v, "linspace", w)) for v, w in ((start, "start"), (stop, "stop")))
    be, dev = _target(backend, device)
    cfg = _config.current()
    is_complex = type(start) is complex or type(stop) is complex
    dt = D.dtype(dtype) if dtype is not None else (cfg.default_complex if is_complex else cfg.default_float)
    if is_complex and dt.kind != "c":
        raise PromotionError(f"linspace(): complex endpoints with dtype={dt} would drop the imaginary part. Fix: "
                             "pass a complex dtype, e.g. dtype=xb.complex128")  # fmt: skip
    A.check_size((num,), dt.itemsize, "linspace")
    if num == 1:  # one value: start itself (some libraries compute start + 0 * step, which is NaN for inf endpoints)
        first = _fill_value(start if dt.kind in "fc" else math.floor(start), dt, "linspace") if (
            dt.kind in "fc" or math.isfinite(start)) else start  # fmt: skip
        if dt.kind in "biu":
            return _leaf_if(_int_linspace(be, dev, float(start), float(stop), num, dt, endpoint), requires_grad)
        return _leaf_if(_new(be.full((1,), first, dt, dev), dt, dev, be), requires_grad)
    if dt.kind in "biu":
        return _leaf_if(_int_linspace(be, dev, float(start), float(stop), num, dt, endpoint), requires_grad)
    return _leaf_if(_new(be.linspace(start, stop, num, dt, dev, endpoint), dt, dev, be), requires_grad)


def _float(v: Any) -> float | complex:
    """An endpoint as the float (or complex) linspace computes with; ints beyond float64 are infinities."""
    if type(v) is complex:
        return v
    try:
        return float(v)
    except OverflowError:
        return math.inf if v > 0 else -math.inf


def _int_linspace(be: Any, dev: Device, start: float, stop: float, num: int, dt: DType, endpoint: bool) -> Array:
    """linspace with an integer or bool dtype: float64 values rounded down, range-checked, cast (NumPy 2's rule)."""
    for v in (start, stop):
        if not math.isfinite(v):
            raise DomainError(f"linspace(): no integer holds {v}. Fix: pass finite endpoints, or a float dtype")
    if dt.kind == "b":
        if not (0 <= min(start, stop) and max(start, stop) <= 1):
            raise PromotionError("linspace(): dtype=xb.bool holds only 0 and 1. Fix: use an integer dtype")
    else:
        lo, hi = D._INT_RANGE[dt]
        if math.floor(min(start, stop)) < lo or math.floor(max(start, stop)) > hi:
            bad = min(start, stop) if math.floor(min(start, stop)) < lo else max(start, stop)
            raise ScalarOverflowError(
                f"linspace(): value {bad} does not fit {dt} (range {lo}..{hi}); xbackend never wraps around. "
                f"Fix: pass a dtype that holds it, e.g. dtype=xb.{D.holder(math.floor(bad), dt).name}")
    try:
        ft = D.float64
        be.native_dtype(ft)
    except UnsupportedDTypeError:  # a library without float64 (JAX without x64): its widest float
        ft = D.float32
    f = be.linspace(start, stop, num, ft, dev, endpoint)
    f = be.kernel("floor", be.dtype_of(f))(f)
    return _new(be.astype(f, dt), dt, dev, be)


def eye(n_rows: int, n_cols: int | None = None, /, *, k: int = 0, dtype: DType | None = None, device: Any = None,
        backend: str | None = None, requires_grad: bool = False) -> Array:  # fmt: skip
    """A 2-D Array with ones on the ``k``-th diagonal.

    >>> import xbackend as xb
    >>> xb.eye(2, 3, k=1).tolist()
    [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    """
    n = A.integer(n_rows, "eye", "n_rows")
    m = n if n_cols is None else A.integer(n_cols, "eye", "n_cols")
    k = A.integer(k, "eye", "k")
    for v, what in ((n, "n_rows"), (m, "n_cols")):
        if v < 0:
            raise ArgumentValueError(f"eye(): {what} must be non-negative, got {v}")
    be, dev = _target(backend, device)
    dt = _dt(dtype, _config.current().default_float)
    A.check_size((n, m), dt.itemsize, "eye")
    return _leaf_if(_new(be.eye(n, m, k, dt, dev), dt, dev, be), requires_grad)


def _leaf_if(x: Array, requires_grad: bool) -> Array:
    """``requires_grad=`` of a creation function: ``x`` made a leaf that requires grad (``_coerce/_asarray.py``)."""
    return _leaf(x) if requires_grad else x


def _need_array(x: Any, name: str, min_ndim: int = 0) -> Array:
    if type(x) is not Array:
        x = to_array(x)
    if x.ndim < min_ndim:
        raise ShapeError(f"{name}() needs at least {min_ndim} dimensions, got a {x.ndim}-d Array. Fix: reshape it, "
                         f"e.g. xb.reshape(x, (1, -1))")  # fmt: skip
    return x


def tril(x: Array, /, *, k: int = 0) -> Array:
    """The lower triangle of the last two dimensions.

    >>> import xbackend as xb
    >>> xb.tril(xb.ones((2, 2))).tolist()
    [[1.0, 0.0], [1.0, 1.0]]
    """
    x = _need_array(x, "tril", 2)
    return _new(x._be.tril(x._data, _diagonal_offset(x, k, "tril")), x._dt, x._dev, x._be)


def triu(x: Array, /, *, k: int = 0) -> Array:
    """The upper triangle of the last two dimensions.

    >>> import xbackend as xb
    >>> xb.triu(xb.ones((2, 2))).tolist()
    [[1.0, 1.0], [0.0, 1.0]]
    """
    x = _need_array(x, "triu", 2)
    return _new(x._be.triu(x._data, _diagonal_offset(x, k, "triu")), x._dt, x._dev, x._be)


def _diagonal_offset(x: Array, k: Any, fname: str, what: str = "k") -> int:
    """A diagonal offset, clamped to ``[-rows, cols]``: every offset beyond selects the same (all or nothing), and
    no backend then meets an int it cannot hold."""
    k = A.integer(k, fname, what)
    n, m = x._data.shape[-2], x._data.shape[-1]
    return max(-n, min(m, k))


def meshgrid(*arrays: Array, indexing: str = "xy") -> tuple[Array, ...]:
    """Coordinate matrices from 1-D Arrays (all of one dtype, backend and device).

    >>> import xbackend as xb
    >>> gx, gy = xb.meshgrid(xb.asarray([1, 2]), xb.asarray([3, 4, 5]))
    >>> gx.shape, gy.tolist()[0]
    ((3, 2), [3, 3])
    """
    indexing = A.choice(indexing, ("xy", "ij"), "meshgrid", "indexing")
    if not arrays:
        return ()
    anchor = first_array(*arrays)
    xs = [_need_array(a if anchor is None else to_array(a, anchor), "meshgrid") for a in arrays]
    first = xs[0]
    for a in xs[1:]:
        if a._dt is not first._dt:
            raise PromotionError(f"meshgrid() needs Arrays of one dtype, got {first._dt} and {a._dt}. Fix: cast them "
                                 f"first, e.g. y.astype({first._dt!r})")  # fmt: skip
    for a in xs:
        if a.ndim != 1:
            raise ShapeError(f"meshgrid() needs 1-d Arrays, got a {a.ndim}-d one. Fix: xb.reshape(a, (-1,))")
    grids = first._be.meshgrid([a._data for a in xs], indexing)
    return tuple(_new(g, first._dt, first._dev, first._be) for g in grids)  # a tuple (2025.12)


