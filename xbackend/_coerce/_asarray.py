"""``asarray``: every kind of data becomes an Array here - Arrays, native arrays, Python scalars, nested lists and
tuples, buffers, DLPack producers - and Python data next to an Array takes its place, weakly typed (``weak``).

Design constraint: the fast cases first, each the least work that gives what the general path gives: an Array
returned as it is, a native array wrapped in one Array, a NumPy array moved to another CPU library by that
library's zero-copy import (``torch.from_numpy``) once the checks passed, Python data converted by NumPy once.
Moving between backends and DLPack are ``xbackend/_interchange.py``'s. ``requires_grad=True`` makes the result a
new leaf here (:func:`leaf`, :func:`asarray_leaf`): the creation functions share it.
"""

from __future__ import annotations

import contextlib
from typing import Any

import numpy as np

from .. import _config, _dtypes as D
from .._array import Array, _alloc, _check_partner, _new, wrap_native
from .._devices import CPU, split as _split
from .._dispatch import _instances, backend_for_type, get_backend
from .._errors import (CopyError, ForeignArrayError, GradientError, ScalarOverflowError, ShapeError,
                       UnsupportedDTypeError)
from .._interchange import HOST_IMPORTS, _transport, cpu_move, host_import, import_dlpack, move, shares_memory
from . import _sequences as H
from ._place import resolve, target
from ._scalars import SCALARS, py_scalar, scalar_array

__all__ = ["asarray", "weak", "weak_native", "from_arrays", "host_native", "leaf", "asarray_leaf"]

_current = _config.current


def asarray(obj: Any, /, *, dtype: D.DType | None = None, device: Any = None, copy: bool | None = None,
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
    if backend is not None and type(obj) is np.ndarray and dtype is None and device is None and copy is None \
            and chunks is None and not requires_grad:  # NumPy -> torch on the CPU: the target's zero-copy import
        entry: Any = HOST_IMPORTS.get(backend) or host_import(backend)  # (name -> backend, its import or False)
        dst = _instances.get(backend) if entry and entry[1] else None
        if dst is not None and entry[0] is dst:
            r = entry[1](obj)
            if r is not None:
                y = _alloc()  # (_new: a tensor is never a NumPy scalar)
                y._data, y._dt, y._dev, y._be = r[0], r[1], CPU, dst
                return y
    if requires_grad:
        x = asarray(obj, dtype=dtype, device=device, copy=copy, backend=backend, chunks=chunks)
        return asarray_leaf(x, obj, copy)
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
            if copy is False and dt is not obj._dt:
                raise CopyError(f"asarray(): casting {obj._dt} to {dt} needs a copy, but copy=False was given. Fix: "
                                f"allow the copy, e.g. xb.asarray(x, dtype=xb.{dt.name}, copy=None)")  # fmt: skip
            if obj._dt.kind == "f" and dt.kind in "iu":  # a cast of array data: saturating, as astype (_saturate.py)
                obj, dt, copy = obj.astype(dt), None, None  # (already a new array)
        if (backend is None or obj._be.name == backend) and (device is None or device is obj._dev):
            data = obj._be.wrap_native(obj._data, dt, None, copy)
            return obj if data is obj._data and (dt is None or dt is obj._dt) else _new(data, dt or obj._dt, obj._dev, obj._be)
        return move(obj, backend=backend, device=device, dtype=dt, copy=copy)
    if t in SCALARS:  # (first: a float is no native array, and hasattr(1.5, "__dlpack__") raises inside)
        be, dev, cfg = resolve(backend, device)
        if dt is not None and t is complex:
            D.check_cast(D.complex128, dt)
        dt = dt or D.python_scalar_dtype(obj, cfg.default_float, cfg.default_int)
        if t is int and dt.kind in "iu":
            H.check_range(obj, obj, dt)
        elif t is float and dt.kind in "iu":
            H.check_float_to_int(np.asarray(obj), dt)
        if _OWN_KIND[t] == dt.kind or t is float and dt.kind == "c" or t is bool:  # a 0-d array made on the place
            return _new(scalar_array(obj, dt, be, dev), dt, dev, be)  # (ints into floats: NumPy's rounding below)
        return _new(be.from_host(np.asarray(obj), dt, dev, True), dt, dev, be)
    src = backend_for_type(t)
    if src is not None:
        if dt is None and copy is None and device is None:  # where it is, or NumPy -> torch: zero-copy
            obj = src.adopt(obj)
            if backend is None or backend == src.name:
                return _new(obj, src.dtype_of(obj), src.device_of(obj), src)
            if type(backend) is str:
                dst = _instances.get(backend) or get_backend(backend)
                sdev = src.device_of(obj)
                if dst is not src and sdev.type == "cpu":
                    sdt = src.dtype_of(obj)
                    y = cpu_move(src, obj, sdt, sdev, dst)
                    if y is not None:
                        return _new(y, sdt, sdev, dst)
        return asarray(wrap_native(obj), dtype=dt, device=device, copy=copy, backend=backend)
    if t is list or t is tuple:
        found = H.survey(obj)
        if found is H.ARRAYS:  # [t1, t2]: built where those arrays live, never on the host
            x = from_arrays(obj)
            return asarray(x, dtype=dt, device=device, copy=copy, backend=backend)
        be, dev = target(backend, device)
        return _python_data(obj, t, dt, be, dev, copy, found)  # the commonest data: straight to NumPy
    if hasattr(obj, "__dlpack__") and not isinstance(obj, (np.ndarray, np.generic)):
        return import_dlpack(obj, device=device, copy=copy, backend=backend)
    be, dev = target(backend, device)
    if isinstance(obj, np.generic):
        src_dt = D.from_numpy_dtype(obj.dtype)
        if dt is not None:
            D.check_cast(src_dt, dt)
            if src_dt.kind == "f" and dt.kind in "iu":
                H.check_float_to_int(np.asarray(obj), dt)
        dt = dt or src_dt
        return _new(be.from_host(np.asarray(obj), dt, dev, True), dt, dev, be)
    if H.foreign(t) and issubclass(t, np.ndarray):
        raise ForeignArrayError(
            f"xbackend does not know {t.__module__}.{t.__name__}, a subclass of numpy.ndarray: what it adds to the "
            "values (units, a mask, other rules) would be lost in an Array, silently. Fix: if the values alone are "
            "what you mean, take them explicitly, e.g. xb.asarray(obj.view(np.ndarray))"
        )
    if H.foreign(t):
        raise ForeignArrayError(
            f"xbackend does not know {t.__module__}.{t.__name__} and it does not implement the Array API standard "
            "(__array_namespace__): converting it with np.asarray could compute or copy it silently. Fix: convert "
            "it explicitly, e.g. xb.asarray(np.asarray(obj)) or the library's own to-NumPy method"
        )
    return _python_data(obj, t, dt, be, dev, copy)


_OWN_KIND = {int: "i", float: "f", complex: "c", bool: "b"}  # a Python scalar's kind (ints: signed)
_INTS, _NUMBER_TYPES = frozenset({int, bool}), frozenset({int, bool, float, complex})


def _floats_of(obj: Any, cplx: bool) -> np.ndarray:
    """Numbers holding an int beyond uint64 beside floats, as float64 (complex128): each int rounded as ``float(i)``
    rounds it; one beyond float64's range is refused, as Python's ``float(2**1024)`` is."""
    try:
        return np.array(obj, dtype=np.complex128 if cplx else np.float64)
    except OverflowError:
        raise ScalarOverflowError("a Python int in the data is beyond float64's range (about 1.8e308), which the "
                                  "floats beside it make the dtype. Fix: scale the values first, or keep them as "
                                  "Python ints") from None


def _python_data(obj: Any, t: type, dt: D.DType | None, be: Any, dev: Any, copy: bool | None,
                 found: Any = None) -> Array:  # fmt: skip
    """``asarray`` of nested lists and tuples (holding no arrays) and buffers: converted by NumPy once, then
    xbackend's dtypes and range checks on the host. A list's NumPy array is new: it is handed over, not copied."""
    if copy is False:
        raise CopyError(f"copy=False, but a {t.__name__} must be copied to become an Array; use copy=None")
    cfg = _current()
    try:
        host = H.host_numbers(obj, found)  # NumPy's array, by np.fromiter where survey() showed how
        if host is None:
            host = np.asarray(obj)
    except (ValueError, TypeError) as exc:
        raise ShapeError(f"cannot make an Array from {t.__name__}: {H.ragged(exc)}. Fix: give every row the same "
                         "length (nested lists must be rectangular)") from None  # fmt: skip
    except RuntimeError as exc:  # tensors (or Arrays) that require grad in nested data
        raise nested_grad_error(obj, exc) from exc
    if isinstance(obj, H.BUFFERS):  # typed memory keeps its type: memoryview of float32 is float32, bytes are uint8
        if host.dtype.kind not in "biufc":
            raise UnsupportedDTypeError(f"cannot make an Array from a {t.__name__} of format {host.dtype}; "
                                        "use a buffer of numbers")  # fmt: skip
        dt = dt or D.from_numpy_dtype(host.dtype)
    if host.dtype.kind == "O":  # ints beyond uint64 (and int64) among the numbers: NumPy keeps Python objects
        with contextlib.suppress(TypeError, ValueError):
            leaves = np.asarray(obj, dtype=object).ravel()
            kinds = set(map(type, leaves))
            if kinds <= _INTS:
                if dt is not None and dt.kind in "fc":
                    host = np.array(obj, dtype=np.float64)  # asked for floats: rounding is expected
                else:
                    lo, hi = int(min(leaves)), int(max(leaves))
                    H.check_range(lo, hi, dt if dt is not None and dt.kind in "iu" else D.int64 if lo < 0 else D.uint64)
            elif kinds <= _NUMBER_TYPES:  # floats beside them: Python's int + float, a float (complex: complex)
                host = _floats_of(obj, complex in kinds)
        if host.dtype.kind == "O":
            raise UnsupportedDTypeError(f"Unsupported data: cannot make an Array from a {t.__name__} of "
                                        f"{type(H.first_leaf(obj)).__name__} values; {H.NOT_NUMBERS}")
    k: str = host.dtype.kind
    if k not in "biufc":
        raise UnsupportedDTypeError(f"Unsupported dtype {host.dtype}: cannot make an Array from "
                                    f"{type(H.first_leaf(obj)).__name__} values; {H.NOT_NUMBERS}")
    if dt is not None and k == "c":
        D.check_cast(D.complex128, dt)
    if k == "f" and (dt is None or dt.kind in "iu") and type(H.first_leaf(obj)) is int:
        host = H.exact_ints(obj, host, dt)  # ints beyond int64 that NumPy turned into float64
        k = host.dtype.kind
    dt = dt or H.host_dtype(host, cfg)
    if (k == "i" or k == "u") and (dt.kind == "i" or dt.kind == "u") and host.size and H.NARROWER[k, dt]:
        H.check_range(int(host.min()), int(host.max()), dt)  # only when the target is narrower than the data
    elif k == "f" and dt.kind in "iu" and host.size:
        H.check_float_to_int(host, dt)
    fresh = t is list or t is tuple  # NumPy made a new array (a buffer's may share the caller's memory)
    return _new(be.from_host(host, dt, dev, None if fresh else True), dt, dev, be)


def host_native(h: np.ndarray, dt: D.DType, be: Any, dev: Any) -> Any:
    """Host data ``h`` (a NumPy array of Python data) as a native array of ``be`` on ``dev`` in dtype ``dt``: what
    moving it there gives (``xbackend/_interchange.py``): narrowing casts on the host (NumPy's rounding), widening
    ones on the target."""
    npb = backend_for_type(np.ndarray)
    cur = npb.dtype_of(h)  # type: ignore[union-attr]
    if be is npb:
        return npb.wrap_native(h, dt, None, None)
    be.native_dtype(dt)  # a typed error with the fix before any work
    if dt is not cur and dt.itemsize < cur.itemsize:
        h, cur = npb.astype(h, dt), dt  # type: ignore[union-attr]
    y = _transport(npb, h, cur, npb.default_device(), be, dev)  # type: ignore[union-attr]
    return y if cur is dt else be.astype(y, dt)


def weak_native(v: Any, like: Array) -> tuple[Any, D.DType] | None:
    """Python data ``v`` (a nested list or tuple of numbers) next to ``like``: (native array at like's place, its
    weak dtype), converted once; None for anything else (arrays inside, other types: ``weak`` decides)."""
    h = H.host_data(v)
    if h is None:
        return None
    dt = H.weak_dtype(like._dt, h)
    return host_native(h, dt, like._be, like._dev), dt


def weak(v: Any, like: Array) -> Array:
    """Python data ``v`` (a scalar or nested sequence) next to ``like``: an Array at like's place, weakly typed."""
    if isinstance(v, np.generic):
        v = py_scalar(v)  # NumPy scalars are weak, like Python scalars
    if type(v) in SCALARS:
        cfg = _current()
        dt = D.scalar_result(like._dt, v, cfg.default_float, cfg.default_int)
        return _new(scalar_array(v, dt, like._be, like._dev), dt, like._dev, like._be)
    r = weak_native(v, like)
    if r is None:
        return asarray(v, backend=like._be.name, device=like._dev)  # Arrays inside, or an error
    return _new(r[0], r[1], like._dev, like._be)


def from_arrays(obj: Any) -> Array:
    """A (nested) sequence holding Arrays or native arrays, stacked on *their* backend and device: nothing goes
    through the host, and arrays of two places are refused with the fix (never converted silently)."""

    def build(o: Any) -> Any:
        if type(o) is Array:
            return o
        if backend_for_type(type(o)) is not None:
            return wrap_native(o)
        if type(o) is list or type(o) is tuple:
            parts = [build(i) for i in o]
            anchor = next((p for p in parts if type(p) is Array), None)
            if anchor is None:
                return list(o)  # Python data alone: its parent gives it a place
            for p in parts:
                if type(p) is Array and (p._be is not anchor._be or p._dev is not anchor._dev):
                    _check_partner(anchor, p)
            dt = anchor._dt
            for p in parts:
                if type(p) is Array and p._dt is not dt:
                    dt = D.promote(dt, p._dt)
            like = _new(anchor._data, dt, anchor._dev, anchor._be)
            return _stacked([p if type(p) is Array else weak(p, like) for p in parts])
        return o

    out = build(obj)
    return out if type(out) is Array else asarray(out)


def _stacked(parts: list[Array]) -> Array:
    """Arrays of one place stacked along a new first axis, their dtypes promoted: what ``xb.stack(parts)`` gives."""
    first = parts[0]
    dt = first._dt
    for p in parts[1:]:
        if p._dt is not dt:
            dt = D.promote(dt, p._dt)
    ref = first.shape
    for p in parts[1:]:
        if p.shape != ref:
            raise ShapeError(f"stack(): all Arrays need the same shape, got {ref} and {p.shape}. Fix: reshape or "
                             "broadcast them to one shape first")  # fmt: skip
    be = first._be
    natives = [p._data if p._dt is dt else be.astype(p._data, dt) for p in parts]
    return _new(be.stack(natives, 0), dt, first._dev, be)


# --- requires_grad=: a new leaf (xb.asarray and the creation functions) --------------------------------------------
def leaf(x: Array) -> Array:
    """``x``, a freshly created Array, made a leaf that requires grad (``requires_grad=True`` of the creation
    functions); on a backend without autograd, :class:`~xbackend.GradientError` with the fix."""
    x._data = x._be.set_requires_grad(x._data, True)
    return x


def asarray_leaf(x: Array, obj: Any, copy: bool | None) -> Array:
    """``xb.asarray(obj, ..., requires_grad=True)``, where ``x`` is what ``asarray`` made of ``obj``.

    The result is a new leaf: a tensor passed in keeps its own ``requires_grad`` (the leaf aliases its memory,
    as ``asarray`` does). With ``copy=None``, data of another library (a NumPy array becoming a torch
    parameter) is copied: a parameter is updated in place, and those updates must not rewrite the caller's
    NumPy data. An Array that already is a leaf that requires grad is returned as it is.
    """
    be = x._be
    data = x._data
    if be.requires_grad(data):
        if be.is_leaf(data):
            return x
        raise GradientError(
            "xb.asarray(y, requires_grad=True) of an Array computed from others (part of an autograd graph): it "
            "cannot become a leaf. Fix: start a new leaf from its values, xb.asarray(y.detach(), requires_grad=True)"
        )
    src = obj._data if type(obj) is Array else obj
    if data is src:
        data = be.detach(data)  # a new tensor on the same memory: the caller's tensor keeps its flag
    elif copy is None and _shares_foreign(x, obj):
        data = be.astype(data, x._dt, copy=True)
    return leaf(_new(data, x._dt, x._dev, be))


def _shares_foreign(x: Array, obj: Any) -> bool:
    """Whether ``x`` shares memory with ``obj``, an array of another library (NumPy data on torch's CPU)."""
    other: Any = obj._be if type(obj) is Array else backend_for_type(type(obj))
    if other is None or other is x._be:
        return False
    with contextlib.suppress(Exception):
        return bool(shares_memory(x, obj))
    return False


def nested_grad_error(obj: Any, exc: BaseException) -> BaseException:
    """What ``xb.asarray(data)`` raises when NumPy failed on nested ``data`` holding tensors (or Arrays) that
    require grad: a :class:`~xbackend.GradientError` with the fix, else ``exc`` itself."""
    stack = [obj]
    while stack:
        o = stack.pop()
        if isinstance(o, (list, tuple)):  # subclasses too (a namedtuple, a list subclass: what reaches NumPy here)
            stack.extend(o)
            continue
        data = o._data if type(o) is Array else o
        be: Any = o._be if type(o) is Array else backend_for_type(type(o))
        if be is not None and be.requires_grad(data):
            return GradientError(
                f"xb.asarray() of a {type(obj).__name__} holding {be.name} arrays that require grad would gather "
                "them on the host and drop their autograd graph. Fix: xb.stack([xb.asarray(t) for t in data]) "
                "keeps the graph (on their backend), or detach them first: [t.detach() for t in data]"
            )
    return exc
