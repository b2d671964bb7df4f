"""Creation functions of the Array API standard (2025.12).

Design constraint: the backend and device come from the arguments, else from the context
(``xb.using``), resolved once here; dtypes default to xbackend's defaults (float64/int64 on every
backend), never to the backend's own.
"""

from __future__ import annotations

import contextlib
import math
import operator
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from . import _autograd, _config, _dtypes as D
from ._array import Array, _Late, _alloc, _check_partner, _new
from ._devices import Device, device as _device, split as _split
from ._dispatch import _instances, backend_for_type, get_backend
from ._dtypes import DType
from ._errors import CopyError, ForeignArrayError, ScalarOverflowError, UnsupportedDTypeError, XBackendError
from ._interchange import import_dlpack, move

_ctx_get = _config._ctx.get

__all__ = [
    "asarray", "arange", "empty", "empty_like", "eye", "from_dlpack", "full", "full_like", "linspace",
    "meshgrid", "ones", "ones_like", "tril", "triu", "zeros", "zeros_like",
]  # fmt: skip

_SCALARS = (bool, int, float, complex)


def _target(backend: Any, device: Any) -> tuple[Any, Device]:
    """Resolve (backend object, concrete device) from arguments and context."""
    be, dev, _ = _resolve(backend, device)
    return be, dev


def _resolve(backend: Any, device: Any) -> tuple[Any, Device, _config.Config]:
    """(backend object, concrete device, config in force), from arguments and context.

    Resolutions are cached per Config object (configs are immutable; ``using``/``set_default`` make new
    ones): the backend always, the device when it cannot change behind our back (an explicit device, or a
    backend whose default device is fixed, NumPy's cpu); otherwise the cache says ``None`` and the backend's
    ``default_device()`` is asked on every call (torch's follows ``torch.set_default_device``).
    """
    c = _ctx_get()
    cfg = _config._base if c is None else c
    try:
        hit = cfg.places.get((backend, device))
    except TypeError:  # an unhashable device argument (never cached)
        hit = None
    if hit is not None:
        dev = hit[1]
        return hit[0], hit[0].default_device() if dev is None else dev, cfg
    bk, dev = _split(backend, device)  # a device bound to a backend (x.device) decides the backend
    if bk is None:
        name = cfg.backend
        if dev is None:
            dev = cfg.device
    else:
        name = bk if type(bk) is str else getattr(bk, "name", bk)
    try:
        be = _instances.get(name) or get_backend(name)
    except XBackendError as exc:
        if bk is None:  # the configured backend: maybe XBACKEND_BACKEND chose it
            raise _config.blame_environment(exc, "backend") from exc
        raise
    if dev is None:
        dev = be.default_device()
        if not be.fixed_default_device:  # cache the backend; the device is asked for on every call
            with contextlib.suppress(TypeError):
                cfg.places[backend, device] = (be, None)
            return be, dev, cfg
    else:
        try:
            dev = be.check_device(dev)
        except XBackendError as exc:
            if device is None:  # the configured device: maybe XBACKEND_DEVICE chose it
                raise _config.blame_environment(exc, "device") from exc
            raise
    with contextlib.suppress(TypeError):  # an unhashable device argument: just don't cache
        cfg.places[backend, device] = (be, dev)
    return be, dev, cfg


def _dt(dtype: Any, default: DType) -> DType:
    return default if dtype is None else D.dtype(dtype)


def _shape(shape: Any) -> tuple[int, ...]:
    if type(shape) is int and shape >= 0:
        return (shape,)
    if type(shape) is tuple and all(type(s) is int and s >= 0 for s in shape):
        return shape
    if isinstance(shape, int) or hasattr(shape, "__index__"):
        shape = (shape,)
    out = tuple(operator.index(s) for s in shape)
    if any(s < 0 for s in out):
        raise ValueError(f"negative dimensions are not allowed, got shape {out}")
    return out


def _host_dtype(a: np.ndarray, cfg: _config.Config) -> DType:
    """xbackend's dtype for data NumPy inferred from Python objects (defaults, not NumPy's)."""
    k = a.dtype.kind
    if k == "b":
        return D.bool
    if k == "i":
        return cfg.default_int
    if k == "u":
        return D.uint64  # Python ints above int64's range
    if k == "f":
        return cfg.default_float
    if k == "c":
        return cfg.default_complex
    raise UnsupportedDTypeError(f"cannot make an Array from {a.dtype} data ({a.dtype.kind!r}); use numbers only")


def asarray(obj: Any, /, *, dtype: DType | None = None, device: Any = None, copy: bool | None = None,
            backend: str | None = None, chunks: Any = None, requires_grad: bool = False) -> Array:  # fmt: skip
    """Convert Python data, NumPy arrays, native arrays of any backend, or Arrays to an Array.

    Data that has a dtype keeps it unless ``dtype=`` is given; Python data gets xbackend's defaults.
    A native array stays on its own backend and device unless ``backend=``/``device=`` say otherwise.
    ``copy=None`` shares memory where safe, ``True`` always copies, ``False`` raises where it can't share.
    ``chunks=`` splits the result of a chunked backend (``backend="dask"``); see :func:`xbackend.rechunk`.
    ``requires_grad=True`` makes the result a new leaf that requires grad (torch; other backends raise
    :class:`~xbackend.GradientError` with the fix); with ``copy=None`` it owns its memory unless the data
    already was on its backend (parameters are updated in place; the caller's NumPy data stays as it was).

    >>> import numpy as np, xbackend as xb
    >>> xb.asarray([[1, 2], [3, 4]]).dtype, xb.asarray(np.float32(1.5)).dtype
    (xb.int64, xb.float32)
    >>> a = np.arange(3.0)
    >>> x = xb.asarray(a)
    >>> x.native is a
    True
    """
    if requires_grad:
        x = asarray(obj, dtype=dtype, device=device, copy=copy, backend=backend, chunks=chunks)
        return _autograd.asarray_leaf(x, obj, copy)
    if chunks is not None:  # xb.rechunk(asarray(...), chunks)
        x = asarray(obj, dtype=dtype, device=device, copy=copy, backend=backend)
        return _new(x._be.rechunk(x._data, chunks), x._dt, x._dev, x._be)
    dt = None if dtype is None else D.dtype(dtype)
    if device is not None:
        backend, device = _split(backend, device)  # device=x.device names x's backend too
    t = type(obj)
    if t is Array:
        if dt is not None:
            D.check_cast(obj._dt, dt)
        if (backend is None or obj._be.name == backend) and (device is None or device is obj._dev):
            data = obj._be.wrap_native(obj._data, dt, None, copy)
            return obj if data is obj._data and dt in (None, obj._dt) else _new(data, dt or obj._dt, obj._dev, obj._be)
        return move(obj, backend=backend, device=device, dtype=dt, copy=copy)
    src = backend_for_type(t) if not isinstance(obj, np.generic) else None
    if src is not None:
        return asarray(_new(obj, src.dtype_of(obj), src.device_of(obj), src), dtype=dt, device=device, copy=copy,
                       backend=backend)  # fmt: skip
    if hasattr(obj, "__dlpack__") and not isinstance(obj, (np.ndarray, np.generic)):
        return from_dlpack(obj, device=device, copy=copy, backend=backend)
    be, dev = _target(backend, device)
    cfg = _config.current()
    if t in _SCALARS:
        if dt is not None and t is complex:
            D.check_cast(D.complex128, dt)
        dt = dt or D.python_scalar_dtype(obj, cfg.default_float, cfg.default_int)
        if t is int and dt.kind in "iu":
            _check_range(obj, obj, dt)
        return _new(be.from_host(np.asarray(obj), dt, dev, True), dt, dev, be)
    if isinstance(obj, np.generic):
        if dt is not None:
            D.check_cast(D.from_numpy_dtype(obj.dtype), dt)
        dt = dt or D.from_numpy_dtype(obj.dtype)
        return _new(be.from_host(np.asarray(obj), dt, dev, True), dt, dev, be)
    if _foreign(t):
        raise ForeignArrayError(
            f"xbackend does not know {t.__module__}.{t.__name__} and it does not implement the Array API standard "
            "(__array_namespace__): converting it with np.asarray could compute or copy it silently. Fix: convert "
            "it explicitly, e.g. xb.asarray(np.asarray(obj)) or the library's own to-NumPy method"
        )
    if copy is False:
        raise CopyError(f"copy=False, but a {t.__name__} must be copied to become an Array; use copy=None")
    try:
        host = np.asarray(obj)
    except (ValueError, TypeError) as exc:
        host = _from_nested_arrays(obj, exc)
    except RuntimeError as exc:  # tensors (or Arrays) that require grad in nested data
        raise _autograd.nested_grad_error(obj, exc) from exc
    if host.dtype.kind == "O":
        if type(_first_leaf(obj)) is int:  # ints beyond uint64 (and int64): NumPy keeps Python objects
            with contextlib.suppress(TypeError, ValueError):
                leaves = np.asarray(obj, dtype=object).ravel()
                if all(type(v) is int or type(v) is bool for v in leaves):
                    if dt is not None and dt.kind in "fc":
                        host = np.array(obj, dtype=np.float64)  # asked for floats: rounding is expected
                    else:
                        lo, hi = int(min(leaves)), int(max(leaves))
                        _check_range(lo, hi, dt if dt is not None and dt.kind in "iu" else D.int64 if lo < 0 else D.uint64)
        if host.dtype.kind == "O":
            host = _from_nested_arrays(obj, None)
    k = host.dtype.kind
    if dt is not None and k == "c":
        D.check_cast(D.complex128, dt)
    if k == "f" and (dt is None or dt.kind in "iu") and type(_first_leaf(obj)) is int:
        host = _exact_ints(obj, host, dt)  # ints beyond int64 that NumPy turned into float64
        k = host.dtype.kind
    dt = dt or _host_dtype(host, cfg)
    if (k == "i" or k == "u") and (dt.kind == "i" or dt.kind == "u") and host.size and _NARROWER[k, dt]:
        _check_range(int(host.min()), int(host.max()), dt)  # only when the target is narrower than the data
    return _new(be.from_host(host, dt, dev, True), dt, dev, be)


# Python ints NumPy inferred as int64 ("i") or uint64 ("u") need a range check only for a narrower target.
_NARROWER = {(k, d): not (d is D.int64 and k == "i" or d is D.uint64 and k == "u") for k in "iu"
             for d in (*D.SIGNED, *D.UNSIGNED)}  # fmt: skip
_HUGE = float(1 << 63)


def _first_leaf(obj: Any) -> Any:
    """The first scalar of nested Python data (cheap: follows index 0 only)."""
    while type(obj) is list or type(obj) is tuple:
        if not obj:
            return None
        obj = obj[0]
    return obj


def _check_range(lo: int, hi: int, dt: DType) -> None:
    dlo, dhi = D._INT_RANGE[dt]
    if lo < dlo or hi > dhi:
        bad = lo if lo < dlo else hi
        wider = "int64" if -(1 << 63) <= bad < 1 << 63 else "uint64" if 0 <= bad < 1 << 64 else "float64"
        note = " (inexact: no integer dtype holds it)" if wider == "float64" else ""
        raise ScalarOverflowError(
            f"Python int {bad} in the data does not fit {dt} (range {dlo}..{dhi}); xbackend never wraps around. "
            f"Fix: pass a dtype that holds it, e.g. xb.asarray(data, dtype=xb.{wider}){note}"
        )


def _exact_ints(obj: Any, host: np.ndarray, dt: DType | None) -> np.ndarray:
    """``obj`` as exact integers when it holds only Python ints, some beyond int64 (NumPy made them float64).

    Floats anywhere in the data keep the float64 result; ints beyond uint64 (or mixing signs beyond
    int64) raise :class:`ScalarOverflowError` unless ``dt`` is a float dtype (not called then)."""
    if not host.size or not np.abs(host).max() >= _HUGE:
        return host  # no int beyond int64: NumPy's float64 comes from float data
    leaves = np.asarray(obj, dtype=object).ravel()
    if not all(type(v) is int or type(v) is bool for v in leaves):
        return host
    lo, hi = int(min(leaves)), int(max(leaves))
    target = dt if dt is not None else D.uint64 if lo >= 0 else D.int64
    _check_range(lo, hi, target)
    return np.array(obj, dtype=np.uint64 if lo >= 0 else np.int64)


_HOST_MODULES = frozenset({"builtins", "array", "numpy", "ml_dtypes"})


def _foreign(t: type) -> bool:
    """An array-like type of a library xbackend does not know (``__array__`` and not a Python/NumPy type)."""
    return (hasattr(t, "__array__") or hasattr(t, "__array_interface__")) and \
        t.__module__.partition(".")[0] not in _HOST_MODULES  # fmt: skip


def _from_nested_arrays(obj: Any, exc: Exception | None) -> np.ndarray:
    """Sequences holding Arrays (``[xb.asarray(1.0), 2.0]``): only CPU Arrays may be gathered on the host."""
    if isinstance(obj, (list, tuple)):
        parts = []
        for o in obj:
            if type(o) is Array:
                parts.append(o.numpy())
            elif isinstance(o, (list, tuple)):
                parts.append(_from_nested_arrays(o, exc))
            else:
                parts.append(o)
        try:
            out = np.asarray(parts)
        except (ValueError, TypeError) as e:
            raise ValueError(f"cannot make an Array from {type(obj).__name__}: {e}") from e
        if out.dtype.kind != "O":
            return out
    raise TypeError(f"cannot make an Array from {type(obj).__name__}" + (f": {exc}" if exc else "")) from exc


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
        out._data = getattr(be, method)(shape if type(shape) is int and shape >= 0 else _shape(shape), dt, dev)
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
            return _autograd.leaf(fill(shape, dtype=dtype, device=device, backend=backend))
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
            shape = _shape(shape)
        out = _alloc()
        out._data = fn(shape) if arg is None else fn(shape, arg)
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


def _fill_dtype(fill_value: Any, dtype: Any) -> DType:
    cfg = _config.current()
    if dtype is not None:
        dt = D.dtype(dtype)
    elif type(fill_value) is Array:
        dt = fill_value.dtype
    elif isinstance(fill_value, np.generic):  # data with a dtype keeps it
        dt = D.from_numpy_dtype(fill_value.dtype)
    else:
        dt = D.python_scalar_dtype(fill_value, cfg.default_float, cfg.default_int)
    return dt


def _fill_value(fill_value: Any, dt: DType) -> Any:
    if type(fill_value) is Array:
        fill_value = fill_value.item()
    if isinstance(fill_value, np.generic):
        fill_value = fill_value.item()
    if type(fill_value) is int and dt.kind in "iu":
        D.check_int_fits(fill_value, dt)
    if type(fill_value) is complex and dt.kind != "c":
        raise TypeError(f"cannot fill an Array of dtype {dt} with complex {fill_value}; pass dtype=xb.complex128")
    if type(fill_value) is float and dt.kind in "biu":
        raise TypeError(f"cannot fill an Array of dtype {dt} with float {fill_value} without losing information")
    return fill_value


def full(shape: Any, fill_value: Any, *, dtype: DType | None = None, device: Any = None,
         backend: str | None = None, requires_grad: bool = False) -> Array:  # fmt: skip
    """An Array filled with ``fill_value`` (dtype from the value unless given).

    >>> import xbackend as xb
    >>> xb.full(2, 7).dtype, xb.full(2, 0.5).tolist()
    (xb.int64, [0.5, 0.5])
    """
    be, dev = _target(backend, device)
    dt = _fill_dtype(fill_value, dtype)
    return _leaf_if(_new(be.full(_shape(shape), _fill_value(fill_value, dt), dt, dev), dt, dev, be), requires_grad)


def _like(x: Array, dtype: Any, device: Any) -> tuple[Any, Device, DType]:
    if type(x) is not Array:
        x = asarray(x)
    be = x._be
    if device is None:
        dev = x._dev
    else:
        bk, place = _split(None, device)  # device=y.device puts the result on y's backend
        if bk is not None and bk != be.name:
            be = _instances.get(bk) or get_backend(bk)
        dev = be.check_device(cast(Device, place))  # not None: a device was given
    return be, dev, (x._dt if dtype is None else D.dtype(dtype))


def empty_like(x: Array, /, *, dtype: DType | None = None, device: Any = None, requires_grad: bool = False) -> Array:
    """Uninitialised, with ``x``'s shape, dtype, backend and device unless given."""
    be, dev, dt = _like(x, dtype, device)
    return _leaf_if(_new(be.empty(tuple(x.shape), dt, dev), dt, dev, be), requires_grad)


def zeros_like(x: Array, /, *, dtype: DType | None = None, device: Any = None, requires_grad: bool = False) -> Array:
    """Zeros with ``x``'s shape, dtype, backend and device unless given.

    >>> import xbackend as xb
    >>> xb.zeros_like(xb.asarray([1, 2])).tolist()
    [0, 0]
    """
    be, dev, dt = _like(x, dtype, device)
    return _leaf_if(_new(be.zeros(tuple(x.shape), dt, dev), dt, dev, be), requires_grad)


def ones_like(x: Array, /, *, dtype: DType | None = None, device: Any = None, requires_grad: bool = False) -> Array:
    """Ones with ``x``'s shape, dtype, backend and device unless given."""
    be, dev, dt = _like(x, dtype, device)
    return _leaf_if(_new(be.ones(tuple(x.shape), dt, dev), dt, dev, be), requires_grad)


def full_like(x: Array, /, fill_value: Any, *, dtype: DType | None = None, device: Any = None,
              requires_grad: bool = False) -> Array:  # fmt: skip
    """``fill_value`` with ``x``'s shape, dtype, backend and device unless given.

    >>> import xbackend as xb
    >>> xb.full_like(xb.asarray([1.0, 2.0]), 3).tolist()
    [3.0, 3.0]
    """
    be, dev, dt = _like(x, dtype, device)
    return _leaf_if(_new(be.full(tuple(x.shape), _fill_value(fill_value, dt), dt, dev), dt, dev, be), requires_grad)


def arange(start: Any, /, stop: Any = None, step: Any = 1, *, dtype: DType | None = None, device: Any = None,
           backend: str | None = None, requires_grad: bool = False) -> Array:  # fmt: skip
    """Evenly spaced values in ``[start, stop)``.

    >>> import xbackend as xb
    >>> xb.arange(4).tolist(), xb.arange(0, 1, 0.25).tolist()
    ([0, 1, 2, 3], [0.0, 0.25, 0.5, 0.75])
    """
    if stop is None:
        start, stop = 0, start
    if step == 0:
        raise ValueError("arange() step must not be zero")
    be, dev = _target(backend, device)
    cfg = _config.current()
    if dtype is None:
        is_float = any(isinstance(v, float) for v in (start, stop, step))
        dt = cfg.default_float if is_float else cfg.default_int
    else:
        dt = D.dtype(dtype)
    n = max(0, math.ceil((stop - start) / step))
    if n == 0:
        return _leaf_if(_new(be.empty((0,), dt, dev), dt, dev, be), requires_grad)
    return _leaf_if(_new(be.arange(start, stop, step, dt, dev, n), dt, dev, be), requires_grad)


def linspace(start: Any, stop: Any, /, num: int, *, dtype: DType | None = None, device: Any = None,
             endpoint: bool = True, backend: str | None = None, requires_grad: bool = False) -> Array:  # fmt: skip
    """``num`` evenly spaced values from ``start`` to ``stop``.

    >>> import xbackend as xb
    >>> xb.linspace(0, 1, 5).tolist()
    [0.0, 0.25, 0.5, 0.75, 1.0]
    """
    be, dev = _target(backend, device)
    cfg = _config.current()
    is_complex = isinstance(start, complex) or isinstance(stop, complex)
    dt = D.dtype(dtype) if dtype is not None else (cfg.default_complex if is_complex else cfg.default_float)
    if dt.kind in "biu":
        raise UnsupportedDTypeError(f"linspace() needs a floating dtype, got {dt}")
    if num < 0:
        raise ValueError(f"linspace() num must be non-negative, got {num}")
    return _leaf_if(_new(be.linspace(start, stop, int(num), dt, dev, endpoint), dt, dev, be), requires_grad)


def eye(n_rows: int, n_cols: int | None = None, /, *, k: int = 0, dtype: DType | None = None, device: Any = None,
        backend: str | None = None, requires_grad: bool = False) -> Array:  # fmt: skip
    """A 2-D Array with ones on the ``k``-th diagonal.

    >>> import xbackend as xb
    >>> xb.eye(2, 3, k=1).tolist()
    [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    """
    be, dev = _target(backend, device)
    dt = _dt(dtype, _config.current().default_float)
    m = n_rows if n_cols is None else n_cols
    return _leaf_if(_new(be.eye(int(n_rows), int(m), int(k), dt, dev), dt, dev, be), requires_grad)


def _leaf_if(x: Array, requires_grad: bool) -> Array:
    """``requires_grad=`` of a creation function: ``x`` made a leaf that requires grad (``_autograd.leaf``)."""
    return _autograd.leaf(x) if requires_grad else x


def _need_array(x: Any, name: str, min_ndim: int = 0) -> Array:
    if type(x) is not Array:
        x = asarray(x)
    if x.ndim < min_ndim:
        raise ValueError(f"{name}() needs at least {min_ndim} dimensions, got {x.ndim}")
    return x


def tril(x: Array, /, *, k: int = 0) -> Array:
    """The lower triangle of the last two dimensions.

    >>> import xbackend as xb
    >>> xb.tril(xb.ones((2, 2))).tolist()
    [[1.0, 0.0], [1.0, 1.0]]
    """
    x = _need_array(x, "tril", 2)
    return _new(x._be.tril(x._data, int(k)), x._dt, x._dev, x._be)


def triu(x: Array, /, *, k: int = 0) -> Array:
    """The upper triangle of the last two dimensions.

    >>> import xbackend as xb
    >>> xb.triu(xb.ones((2, 2))).tolist()
    [[1.0, 1.0], [0.0, 1.0]]
    """
    x = _need_array(x, "triu", 2)
    return _new(x._be.triu(x._data, int(k)), x._dt, x._dev, x._be)


def meshgrid(*arrays: Array, indexing: str = "xy") -> tuple[Array, ...]:
    """Coordinate matrices from 1-D Arrays (all of one dtype, backend and device).

    >>> import xbackend as xb
    >>> gx, gy = xb.meshgrid(xb.asarray([1, 2]), xb.asarray([3, 4, 5]))
    >>> gx.shape, gy.tolist()[0]
    ((3, 2), [3, 3])
    """
    if indexing not in ("xy", "ij"):
        raise ValueError(f"indexing must be 'xy' or 'ij', got {indexing!r}")
    xs = [_need_array(a, "meshgrid") for a in arrays]
    if not xs:
        return ()
    first = xs[0]
    for a in xs[1:]:
        if a._be is not first._be or a._dev is not first._dev:
            _check_partner(first, a)
        if a._dt is not first._dt:
            raise TypeError(f"meshgrid() needs Arrays of one dtype, got {first._dt} and {a._dt}; cast first")
    for a in xs:
        if a.ndim != 1:
            raise ValueError(f"meshgrid() needs 1-D Arrays, got {a.ndim}-D")
    grids = first._be.meshgrid([a._data for a in xs], indexing)
    return tuple(_new(g, first._dt, first._dev, first._be) for g in grids)  # a tuple (2025.12)


_Late.asarray = asarray  # host index and __setitem__ values of Array
