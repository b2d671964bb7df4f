"""The Array API standard's set functions (isin, unique_all, unique_counts, unique_inverse, unique_values).

Design constraint: one algorithm, identical on every backend: flatten, stable sort (the order of
:func:`xbackend.sort`: NaNs last), then split where neighbours differ (``!=``). Therefore

* ``values`` is **sorted** ascending on every backend (torch's ``unique(sorted=False)`` and NumPy's
  future unsorted default never leak through);
* **every NaN is distinct** (``nan != nan``): ``[nan, 1, nan]`` has three unique values ``[1, nan, nan]``,
  each NaN with count 1; ``isin`` never finds a NaN;
* **-0.0 and +0.0 are one value**; ``values`` holds whichever occurs first in ``x``;
* ``indices`` are the first occurrences, ``inverse_indices`` has ``x``'s shape, and ``indices``,
  ``inverse_indices`` and ``counts`` have the default integer dtype;
* complex values sort lexicographically (real part, then imaginary part, NaNs last in each).
"""

from __future__ import annotations

from typing import Any, NamedTuple, cast

import numpy as np

from . import _dtypes as D
from . import _args as A
from ._array import Array, _new
from ._coerce import first_array, is_native, py_scalar, scalar_array, to_array
from ._config import current
from ._errors import ArgumentTypeError, PromotionError

__all__ = ["isin", "unique_all", "unique_counts", "unique_inverse", "unique_values"]

_SCALARS = (bool, int, float, complex)


class UniqueAllResult(NamedTuple):
    values: Array
    indices: Array
    inverse_indices: Array
    counts: Array


class UniqueCountsResult(NamedTuple):
    values: Array
    counts: Array


class UniqueInverseResult(NamedTuple):
    values: Array
    inverse_indices: Array


def _unique(x: Any, fname: str, want_index: bool, want_inverse: bool, want_counts: bool) -> list[Array | None]:
    x = x if type(x) is Array else to_array(x)
    be = x._be
    flat = be.reshape(x._data, (x.size,))
    vals, first, inv, counts = be.unique_sorted(flat, x._dt, want_index, want_inverse, want_counts)
    idt = current().default_int
    out: list[Array | None] = [_new(vals, x._dt, x._dev, be)]
    for nat, want in ((first, want_index), (inv, want_inverse), (counts, want_counts)):
        if not want:
            out.append(None)
            continue
        if nat is inv:
            nat = be.reshape(nat, x.shape)
        out.append(_new(be.astype(nat, idt, copy=False), idt, x._dev, be))
    return out


def unique_all(x: Array, /) -> UniqueAllResult:
    """Sorted unique values of ``x``, their first indices, the inverse indices and the counts.

    >>> import xbackend as xb
    >>> r = xb.unique_all(xb.asarray([3, 1, 3, 2, 1]))
    >>> r.values.tolist(), r.indices.tolist(), r.inverse_indices.tolist(), r.counts.tolist()
    ([1, 2, 3], [1, 3, 0], [2, 0, 2, 1, 0], [2, 1, 2])
    """
    v, i, inv, c = _unique(x, "unique_all", True, True, True)
    return UniqueAllResult(v, i, inv, c)  # type: ignore[arg-type]


def unique_counts(x: Array, /) -> UniqueCountsResult:
    """Sorted unique values of ``x`` and how often each occurs (each NaN counts once).

    >>> import xbackend as xb
    >>> r = xb.unique_counts(xb.asarray([1.0, float("nan"), 1.0, float("nan")]))
    >>> r.values.tolist(), r.counts.tolist()
    ([1.0, nan, nan], [2, 1, 1])
    """
    v, _, _, c = _unique(x, "unique_counts", False, False, True)
    return UniqueCountsResult(v, c)  # type: ignore[arg-type]


def unique_inverse(x: Array, /) -> UniqueInverseResult:
    """Sorted unique values of ``x`` and the indices (shaped like ``x``) that rebuild ``x`` from them.

    >>> import xbackend as xb
    >>> r = xb.unique_inverse(xb.asarray([[5, 7], [7, 5]]))
    >>> r.values.tolist(), r.inverse_indices.tolist()
    ([5, 7], [[0, 1], [1, 0]])
    """
    v, _, inv, _ = _unique(x, "unique_inverse", False, True, False)
    return UniqueInverseResult(v, inv)  # type: ignore[arg-type]


def unique_values(x: Array, /) -> Array:
    """Sorted unique values of ``x`` (a 1-D Array; each NaN is its own value).

    >>> import xbackend as xb
    >>> xb.unique_values(xb.asarray([[2, 1], [2, 3]])).tolist()
    [1, 2, 3]
    """
    return _unique(x, "unique_values", False, False, False)[0]  # type: ignore[return-value]


def isin(x1: Array | int, x2: Array | int, /, *, invert: bool = False) -> Array:
    """Elementwise: whether each element of ``x1`` equals some element of ``x2`` (``==``, so NaN never matches).

    Either argument may be a Python scalar (a scalar ``x1`` gives a 0-d result). Both are compared in
    their promoted dtype.

    >>> import xbackend as xb
    >>> xb.isin(xb.asarray([1, 2, 3, 4]), xb.asarray([2, 4])).tolist()
    [False, True, False, True]
    >>> xb.isin(xb.asarray([1.0, float("nan")]), float("nan"), invert=True).tolist()
    [True, True]
    """
    args: list[Any] = []  # Arrays and Python scalars
    for v in (x1, x2):
        if isinstance(v, np.generic):
            v = py_scalar(v)  # NumPy scalars act as Python scalars
        args.append(v)
    x1, x2 = args
    if type(x1) in _SCALARS and type(x2) in _SCALARS:
        raise ArgumentTypeError("isin() needs at least one Array argument, got two scalars. "
                                "Fix: wrap one, e.g. xb.isin(xb.asarray(x1), x2)")  # fmt: skip
    anchor = first_array(x1, x2)
    if anchor is None:  # Python data only
        anchor = to_array(x1 if type(x1) not in _SCALARS else x2)
    x1, x2 = (v if type(v) in _SCALARS else to_array(v, anchor if type(v) is Array or is_native(v) else
                                                        _other(v, x1, x2, anchor)) for v in (x1, x2))  # fmt: skip
    invert = A.flag(invert, "isin", "invert")
    ref: Array = cast(Array, x1 if type(x1) is Array else x2)
    cfg = current()
    dts = []
    for v in (x1, x2):
        if type(v) is Array:
            dts.append(v._dt)
    dt = dts[0]
    if len(dts) == 2:
        p = D.PROMOTION.get((dts[0], dts[1]))
        if p is None:
            raise PromotionError(f"isin(): no common dtype for {dts[0]} and {dts[1]}. Fix: cast one side explicitly, "
                                 "e.g. x2.astype(x1.dtype)")  # fmt: skip
        dt = p
    for v in (x1, x2):
        if type(v) is not Array:
            dt = D.scalar_result(dt, v, cfg.default_float, cfg.default_int)
    be = ref._be
    natives = []
    for v in (x1, x2):
        if type(v) is Array:
            natives.append(v._data if v._dt is dt else be.astype(v._data, dt))
        else:
            natives.append(scalar_array(v, dt, be, ref._dev))
    return _new(be.isin(natives[0], natives[1], dt, invert), D.bool, ref._dev, be)


def _other(v: Any, x1: Any, x2: Any, anchor: Array) -> Array:
    """The Array next to which Python data ``v`` is weak: the other argument when it is an Array, else ``anchor``."""
    o = x2 if v is x1 else x1
    return o if type(o) is Array else anchor
