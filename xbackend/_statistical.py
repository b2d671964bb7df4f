"""The Array API standard's statistical functions: cumulative_sum, cumulative_prod, max, mean, min, prod,
std, sum, var.

Design constraint: the result dtype comes from the table below, decided here before any backend runs,
and every reduction returns an Array (0-d for a full reduction), never a Python or NumPy scalar.

==========================================  ==============================================================
input dtype (``dtype=None``)                result dtype
==========================================  ==============================================================
sum, prod, cumulative_sum, cumulative_prod  bool -> default int; signed int -> default int (or wider);
                                            unsigned -> the unsigned int with the default int's bits
                                            (``uint64``); float/complex -> unchanged. ``dtype=`` casts
                                            the input first and computes in that dtype.
max, min                                    unchanged (real dtypes and bool; complex raises)
mean                                        float/complex unchanged; bool/int -> default float
std, var                                    real float unchanged; complex -> its real dtype;
                                            bool/int -> default float
==========================================  ==============================================================

Special values (the same on every backend):

* ``max``/``min`` propagate NaN and raise ``ValueError`` over an empty axis (NumPy raises, torch
  raises a different error, neither has an identity);
* ``mean`` of an empty axis is NaN, ``std``/``var`` are NaN where ``N - correction <= 0`` (no warning);
* complex ``mean`` averages the real and imaginary parts separately, so a NaN in one part stays there;
* integer sums and products wrap around silently (two's complement), as on NumPy and torch.
"""

from __future__ import annotations

import math
from typing import Any

from . import _args as A, _dtypes as D
from ._array import Array, _alloc, _new
from ._boundary import FP_SIGNALS, boundary, quiet, raise_translated
from ._config import current
from ._dtypes import DType
from ._errors import ArgumentValueError, ShapeError, UnsupportedDTypeError
from ._coerce import to_array
from ._utility import normalize_axis, normalize_axes, reduce_native, reduced_shape

__all__ = ["cumulative_prod", "cumulative_sum", "max", "mean", "min", "prod", "std", "sum", "var"]

_UINT_OF_BITS = {8: D.uint8, 16: D.uint16, 32: D.uint32, 64: D.uint64}
_SAME_SUM = frozenset(D.FLOATING)  # input dtypes whose sum has their own dtype whatever the config
_FULL_SUM: dict[Any, dict[DType, Any]] = {}  # backend -> dtype -> its full sum (``Backend.full_reducer``) or None
#: max/min/mean: name -> backend -> dtype -> the full reduction or None (complex max/min raise; ints' mean is float)
_FULL: dict[str, dict[Any, dict[DType, Any]]] = {"max": {}, "min": {}, "mean": {}}
_FULL_OK = {"max": frozenset(d for d in D.ALL if d.kind != "c"), "min": frozenset(d for d in D.ALL if d.kind != "c"),
            "mean": frozenset(d for d in D.FLOATING if d.kind == "f")}  # fmt: skip


def _full_fast(name: str, x: Any) -> Array | None:
    """``name`` over every axis of an Array of a dtype it keeps, by the backend's full reduction (no axis or flag
    to check); None where that is not the case or the native call fails (an empty max: the general path raises
    the typed error)."""
    if type(x) is not Array or 0 in x._data.shape:  # empty: the general path's NaN or error
        return None
    be, d = x._be, x._dt
    try:
        fn = _FULL[name][be][d]
    except KeyError:
        fn = _FULL[name].setdefault(be, {})[d] = be.full_reducer(name, d) if d in _FULL_OK[name] else None
    if fn is None:
        return None
    try:
        data = fn(x._data)
    except Exception:  # noqa: BLE001 - the general path gives the error its typed form
        return None
    out = _alloc()
    out._data = data
    out._dt = d
    out._dev = x._dev
    out._be = be
    return out


def _accumulator(fname: str, dt: DType, dtype: Any) -> DType:
    """Compute/result dtype of sum, prod and the cumulative functions."""
    if dtype is not None:
        d = D.dtype(dtype)
        if d is D.bool:
            raise UnsupportedDTypeError(f"{fname}(dtype=xb.bool) is not supported; use xb.any/xb.all for bool logic")
        if dt.kind == "c" and d.kind != "c":
            raise UnsupportedDTypeError(
                f"{fname}(dtype={d}) would drop the imaginary part of a {dt} Array. Fix: pass xb.real(x) explicitly"
            )
        return d
    k = dt.kind
    if k == "f" or k == "c":
        return dt
    di = current().default_int
    if k == "u":
        du = _UINT_OF_BITS[di.bits]
        return du if du.bits >= dt.bits else dt
    if k == "i":
        return di if di.bits >= dt.bits else dt
    return di  # bool


def _cast(x: Array, cd: DType) -> Any:
    return x._data if x._dt is cd else x._be.astype(x._data, cd, copy=False)


def _count(shape: tuple[int, ...], axes: tuple[int, ...]) -> int:
    n = 1
    for a in axes:
        n *= shape[a]
    return n


def _full(x: Array, axes: tuple[int, ...], keepdims: bool, value: Any, dt: DType) -> Array:
    shape = reduced_shape(x._data.shape, axes, keepdims)
    return _new(x._be.full(shape, value, dt, x._dev), dt, x._dev, x._be)


def _reduce(fname: str, x: Array, axis: Any, keepdims: bool, cd: DType, rd: DType) -> Array:
    axes = normalize_axes(axis, x.ndim, fname)
    keepdims = A.flag(keepdims, fname, "keepdims")
    return _new(reduce_native(x, fname, _cast(x, cd), cd, axes, keepdims), rd, x._dev, x._be)


def sum(x: Array, /, *, axis: int | tuple[int, ...] | None = None, dtype: DType | None = None,
        keepdims: bool = False) -> Array:  # noqa: A001  # fmt: skip
    """Sum of the elements along ``axis`` (``0`` when empty); the dtype follows the module's table.

    >>> import xbackend as xb
    >>> x = xb.asarray([[1, 2], [3, 4]], dtype=xb.int8)
    >>> s = xb.sum(x)
    >>> s.item(), s.dtype, s.ndim
    (10, xb.int64, 0)
    >>> xb.sum(x, axis=0, dtype=xb.float32).tolist()
    [4.0, 6.0]
    """
    if axis is None and dtype is None and not keepdims and type(x) is Array:
        be = x._be
        d = x._dt
        try:  # fast path: a full sum of a float/complex Array (its own dtype); None for other dtypes
            fn = _FULL_SUM[be][d]
        except KeyError:
            fn = _FULL_SUM.setdefault(be, {})[d] = be.full_reducer("sum", d) if d in _SAME_SUM else None
        if fn is not None:
            out = _alloc()
            try:
                out._data = fn(x._data)
            except Exception as exc:  # free while nothing is raised
                if not isinstance(exc, FP_SIGNALS):
                    raise_translated(exc, "sum")
                out._data = quiet("sum", fn, x._data)  # an overflowing sum under np.seterr / -W error: inf
            out._dt = d
            out._dev = x._dev
            out._be = be
            return out
    return _sum(x, axis, dtype, keepdims)


@boundary
def _sum(x: Any, axis: Any, dtype: Any, keepdims: Any) -> Array:
    """``sum`` off its fast path (behind the boundary: its errors are translated like every public call's)."""
    x = x if type(x) is Array else to_array(x)
    cd = _accumulator("sum", x._dt, dtype)
    return _reduce("sum", x, axis, keepdims, cd, cd)


def prod(x: Array, /, *, axis: int | tuple[int, ...] | None = None, dtype: DType | None = None,
         keepdims: bool = False) -> Array:  # fmt: skip
    """Product of the elements along ``axis`` (``1`` when empty); the dtype follows the module's table.

    >>> import xbackend as xb
    >>> xb.prod(xb.asarray([[1, 2], [3, 4]]), axis=1).tolist()
    [2, 12]
    >>> xb.prod(xb.asarray([], dtype=xb.uint8)).dtype
    xb.uint64
    """
    x = x if type(x) is Array else to_array(x)
    cd = _accumulator("prod", x._dt, dtype)
    return _reduce("prod", x, axis, keepdims, cd, cd)


def _extremum(fname: str, x: Any, axis: Any, keepdims: bool) -> Array:
    x = x if type(x) is Array else to_array(x)
    if x._dt.kind == "c":
        raise UnsupportedDTypeError(f"{fname}() of a complex Array ({x._dt}) is not defined (complex numbers have no "
                                    f"order). Fix: reduce a real key, e.g. xb.{fname}(xb.abs(x))")  # fmt: skip
    shape = x._data.shape
    axes = normalize_axes(axis, len(shape), fname)
    keepdims = A.flag(keepdims, fname, "keepdims")
    for a in axes if 0 in shape else ():
        if shape[a] == 0:
            raise ShapeError(
                f"{fname}() of an empty axis ({a} of shape {tuple(shape)}) has no value (there is no identity). "
                f"Fix: check x.size first, or use xb.where() with a fill value"
            )
    return _new(reduce_native(x, fname, x._data, x._dt, axes, keepdims), x._dt, x._dev, x._be)


def max(x: Array, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Array:  # noqa: A001
    """Largest element along ``axis``; NaN if any element is NaN; an empty axis raises ``ValueError``.

    >>> import xbackend as xb
    >>> xb.max(xb.asarray([[1, 5], [7, 2]]), axis=1).tolist()
    [5, 7]
    >>> xb.max(xb.asarray([1.0, float("nan")])).item()
    nan
    """
    if axis is None and keepdims is False:
        r = _full_fast("max", x)
        if r is not None:
            return r
    return _extremum("max", x, axis, keepdims)


def min(x: Array, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Array:  # noqa: A001
    """Smallest element along ``axis``; NaN if any element is NaN; an empty axis raises ``ValueError``.

    >>> import xbackend as xb
    >>> xb.min(xb.asarray([[1, 5], [7, 2]]), axis=0, keepdims=True).tolist()
    [[1, 2]]
    """
    if axis is None and keepdims is False:
        r = _full_fast("min", x)
        if r is not None:
            return r
    return _extremum("min", x, axis, keepdims)


def _float_dtype(dt: DType) -> DType:
    return current().default_float if dt.kind in "biu" else dt


def mean(x: Array, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Array:
    """Arithmetic mean along ``axis``; integer and bool input is computed in the default float dtype.

    An empty axis gives NaN. Complex input averages the real and imaginary parts separately.

    >>> import xbackend as xb
    >>> m = xb.mean(xb.asarray([1, 2, 3, 4]))
    >>> m.item(), m.dtype
    (2.5, xb.float64)
    >>> xb.mean(xb.asarray([[1.0, 2.0], [3.0, 5.0]], dtype=xb.float32), axis=1).tolist()
    [1.5, 4.0]
    """
    if axis is None and keepdims is False and type(x) is Array and x._data.ndim:
        r = _full_fast("mean", x)
        if r is not None:
            return r
    x = x if type(x) is Array else to_array(x)
    cd = _float_dtype(x._dt)
    axes = normalize_axes(axis, x.ndim, "mean")
    keepdims = A.flag(keepdims, "mean", "keepdims")
    if x.size == 0:  # NaN where nothing is averaged, or an empty result: no backend warning
        return _full(x, axes, keepdims, complex(math.nan, math.nan) if cd.kind == "c" else math.nan, cd)
    return _new(reduce_native(x, "mean", _cast(x, cd), cd, axes, keepdims), cd, x._dev, x._be)


def _moment(fname: str, x: Any, axis: Any, correction: Any, keepdims: bool) -> Array:
    x = x if type(x) is Array else to_array(x)
    correction = A.real_number(correction, fname, "correction")
    if not correction >= 0:
        raise ArgumentValueError(f"{fname}(): correction must be a non-negative number, got {correction!r}")
    cd = _float_dtype(x._dt)
    rd = D.real_of(cd)
    axes = normalize_axes(axis, x.ndim, fname)
    keepdims = A.flag(keepdims, fname, "keepdims")
    if x.size == 0 or _count(x.shape, axes) - correction <= 0:  # NaN, or an empty result: no backend warning
        return _full(x, axes, keepdims, math.nan, rd)
    data = _cast(x, cd)
    be = x._be
    if not axes:
        data = be.reshape(data, tuple(data.shape) + (1,))
        return _new(be.moment(fname, data, (x.ndim,), correction, False), rd, x._dev, be)
    return _new(be.moment(fname, data, axes, correction, keepdims), rd, x._dev, be)


def var(x: Array, /, *, axis: int | tuple[int, ...] | None = None, correction: int | float = 0.0,
        keepdims: bool = False) -> Array:  # fmt: skip
    """Variance along ``axis``: ``sum(|x - mean|**2) / (N - correction)``; NaN where ``N - correction <= 0``.

    ``correction=0`` (the default) is the population variance, ``correction=1`` Bessel's correction.
    Integer input is computed in the default float dtype; complex input gives a real result.

    >>> import xbackend as xb
    >>> x = xb.asarray([1.0, 2.0, 3.0, 4.0])
    >>> xb.var(x).item(), xb.var(x, correction=1).item()
    (1.25, 1.6666666666666667)
    """
    return _moment("var", x, axis, correction, keepdims)


def std(x: Array, /, *, axis: int | tuple[int, ...] | None = None, correction: int | float = 0.0,
        keepdims: bool = False) -> Array:  # fmt: skip
    """Standard deviation along ``axis``: the square root of :func:`var` with the same arguments.

    >>> import xbackend as xb
    >>> xb.std(xb.asarray([[1, 3], [5, 7]]), axis=1).tolist()
    [1.0, 1.0]
    """
    return _moment("std", x, axis, correction, keepdims)


def _cumulative(fname: str, x: Any, axis: int | None, dtype: Any, include_initial: bool) -> Array:
    x = x if type(x) is Array else to_array(x)
    if x.ndim == 0:
        raise ShapeError(f"{fname}() needs an Array with at least one dimension, got a 0-d Array. Fix: "
                         f"xb.{fname}(xb.reshape(x, (1,)))")  # fmt: skip
    if axis is None:
        if x.ndim > 1:
            raise ArgumentValueError(f"{fname}() of a {x.ndim}-d Array needs axis= (the standard flattens nothing). "
                             f"Fix: pass axis=..., or reshape to 1-D first")  # fmt: skip
        axis = 0
    ax = normalize_axis(axis, x.ndim, fname)
    cd = _accumulator(fname, x._dt, dtype)
    be = x._be
    include_initial = A.flag(include_initial, fname, "include_initial")
    return _new(be.cumulative(fname, _cast(x, cd), cd, ax, include_initial), cd, x._dev, be)


def cumulative_sum(x: Array, /, *, axis: int | None = None, dtype: DType | None = None,
                   include_initial: bool = False) -> Array:  # fmt: skip
    """Running sum along ``axis`` (optional for 1-D input); ``include_initial`` prepends a zero.

    >>> import xbackend as xb
    >>> x = xb.asarray([1, 2, 3])
    >>> xb.cumulative_sum(x).tolist(), xb.cumulative_sum(x, include_initial=True).tolist()
    ([1, 3, 6], [0, 1, 3, 6])
    """
    return _cumulative("cumulative_sum", x, axis, dtype, include_initial)


def cumulative_prod(x: Array, /, *, axis: int | None = None, dtype: DType | None = None,
                    include_initial: bool = False) -> Array:  # fmt: skip
    """Running product along ``axis`` (optional for 1-D input); ``include_initial`` prepends a one.

    >>> import xbackend as xb
    >>> xb.cumulative_prod(xb.asarray([[1, 2], [3, 4]]), axis=1, include_initial=True).tolist()
    [[1, 1, 2], [1, 3, 12]]
    """
    return _cumulative("cumulative_prod", x, axis, dtype, include_initial)
