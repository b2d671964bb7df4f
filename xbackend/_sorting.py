"""The Array API standard's sorting functions (sort, argsort).

Design constraint: one order on every backend, so indices are identical, not just values:

* **stable always**: equal elements keep their input order, also for ``descending=True`` and also when
  ``stable=False`` is passed (the standard allows either; a stable sort costs little and makes
  ``argsort`` results backend-independent);
* **NaNs last** in both directions (``[nan, 1, 3]`` sorts to ``[1, 3, nan]`` ascending and
  ``[3, 1, nan]`` descending); NumPy has no descending sort and torch puts NaNs first when descending;
* **-0.0 and +0.0 compare equal**: they keep their input order (no ``-0.0 < +0.0`` rule);
* real dtypes and bool only: complex input raises :class:`~xbackend.UnsupportedDTypeError` (complex
  order is unspecified by the standard and torch cannot sort it).
"""

from __future__ import annotations

from ._array import Array, _new
from ._config import current
from . import _args as A
from ._errors import UnsupportedDTypeError
from ._coerce import to_array
from ._utility import normalize_axis

__all__ = ["argsort", "sort"]


def _check(x: Array, fname: str, axis: int) -> int:
    if x._dt.kind == "c":
        raise UnsupportedDTypeError(
            f"{fname}() of a complex Array ({x._dt}): complex numbers have no order in the Array API standard. "
            f"Fix: sort by a real key, e.g. xb.{fname}(xb.real(x)) or xb.{fname}(xb.abs(x))"
        )
    return normalize_axis(axis, x.ndim, fname)


def argsort(x: Array, /, *, axis: int = -1, descending: bool = False, stable: bool = True) -> Array:
    """Indices that sort ``x`` along ``axis`` (stable, NaNs last in both directions).

    The indices have the default integer dtype.

    >>> import xbackend as xb
    >>> x = xb.asarray([3.0, float("nan"), 1.0, 3.0])
    >>> xb.argsort(x).tolist(), xb.argsort(x, descending=True).tolist()
    ([2, 0, 3, 1], [0, 3, 2, 1])
    """
    x = x if type(x) is Array else to_array(x)
    ax = _check(x, "argsort", axis)
    A.flag(stable, "argsort", "stable")
    idt = current().default_int
    be = x._be
    r = be.sort_indices(x._data, x._dt, ax, A.flag(descending, "argsort", "descending"))
    return _new(be.astype(r, idt, copy=False), idt, x._dev, be)


def sort(x: Array, /, *, axis: int = -1, descending: bool = False, stable: bool = True) -> Array:
    """A sorted copy of ``x`` along ``axis`` (stable, NaNs last in both directions).

    >>> import xbackend as xb
    >>> x = xb.asarray([[3, 1, 2], [0, 5, 4]])
    >>> xb.sort(x).tolist(), xb.sort(x, axis=0, descending=True).tolist()
    ([[1, 2, 3], [0, 4, 5]], [[3, 5, 4], [0, 1, 2]])
    >>> xb.sort(xb.asarray([2.0, float("nan"), -1.0]), descending=True).tolist()
    [2.0, -1.0, nan]
    """
    x = x if type(x) is Array else to_array(x)
    ax = _check(x, "sort", axis)
    A.flag(stable, "sort", "stable")
    return _new(x._be.sort_values(x._data, x._dt, ax, A.flag(descending, "sort", "descending")), x._dt, x._dev, x._be)
