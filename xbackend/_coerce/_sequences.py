"""Python data and host buffers on their way into an Array: xbackend's dtypes for what NumPy inferred, exact ints
beyond int64, range checks that never wrap, typed buffers, and whether nested lists hold arrays.

Design constraint: host-side checks only, at C speed: a list is looked at by builtins that loop in C
(``set(map(type, level))`` over each level of lists, and over the numbers at the bottom ``sum``, whose result is a
Python number only when every element is one); NumPy does the conversion. What the data becomes on a backend is
``asarray``'s business (``xbackend/_coerce/_asarray.py``), which calls these.
"""

from __future__ import annotations

import array
from functools import reduce
from itertools import chain
from operator import iadd
from typing import Any, cast

import numpy as np

from .. import _config, _dtypes as D
from .._array import Array
from .._dispatch import backend_for_type
from .._dtypes import DType
from .._errors import DomainError, ScalarOverflowError, UnsupportedDTypeError

__all__ = ["host_dtype", "check_range", "exact_ints", "first_leaf", "foreign", "BUFFERS", "ragged", "NARROWER",
           "check_float_to_int", "holds_arrays", "survey", "ARRAYS", "host_numbers", "host_data", "weak_dtype",
           "HOST_SEQUENCES", "NOT_NUMBERS"]

#: the end of every refusal of data that holds no numbers (asarray, Python data beside an Array)
NOT_NUMBERS = ("an Array holds numbers and bools. Fix: pass numbers or bools (convert the values first, e.g. "
               "[float(v) for v in data])")

#: the types of Python data (no backend): they take the place of the call's Arrays
HOST_SEQUENCES = (list, tuple, memoryview, bytearray)


def host_dtype(a: np.ndarray, cfg: _config.Config) -> DType:
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
    raise UnsupportedDTypeError(f"Unsupported dtype {a.dtype} ({a.dtype.kind!r}): cannot make an Array from it; "
                                f"{NOT_NUMBERS}")


# Python ints NumPy inferred as int64 ("i") or uint64 ("u") need a range check only for a narrower target.
NARROWER = {(k, d): not (d is D.int64 and k == "i" or d is D.uint64 and k == "u") for k in "iu"
             for d in (*D.SIGNED, *D.UNSIGNED)}  # fmt: skip
_HUGE = float(1 << 63)


def first_leaf(obj: Any) -> Any:
    """The first scalar of nested Python data (cheap: follows index 0 only)."""
    while type(obj) is list or type(obj) is tuple:
        if not obj:
            return None
        obj = obj[0]
    return obj


def check_range(lo: int, hi: int, dt: DType) -> None:
    dlo, dhi = D._INT_RANGE[dt]
    if lo < dlo or hi > dhi:
        bad = lo if lo < dlo else hi
        wider = "int64" if -(1 << 63) <= bad < 1 << 63 else "uint64" if 0 <= bad < 1 << 64 else "float64"
        note = " (inexact: no integer dtype holds it)" if wider == "float64" else ""
        raise ScalarOverflowError(
            f"Python int {bad} in the data does not fit {dt} (range {dlo}..{dhi}); xbackend never wraps around. "
            f"Fix: pass a dtype that holds it, e.g. xb.asarray(data, dtype=xb.{wider}){note}"
        )


def exact_ints(obj: Any, host: np.ndarray, dt: DType | None) -> np.ndarray:
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
    check_range(lo, hi, target)
    return np.array(obj, dtype=np.uint64 if lo >= 0 else np.int64)


_HOST_MODULES = frozenset({"builtins", "array", "numpy", "ml_dtypes"})


def foreign(t: type) -> bool:
    """An array-like type of a library xbackend does not know (``__array__`` and not a Python/NumPy type)."""
    return (hasattr(t, "__array__") or hasattr(t, "__array_interface__")) and \
        t.__module__.partition(".")[0] not in _HOST_MODULES  # fmt: skip


BUFFERS = (memoryview, bytearray, bytes, array.array)


def ragged(exc: Exception) -> str:
    text = str(exc)
    return "the nested sequences have different lengths" if "inhomogeneous" in text or "sequence" in text else text


def check_float_to_int(host: np.ndarray, dt: DType) -> None:
    """Float data to an integer dtype truncates towards zero (as NumPy and torch do); NaN, infinities and values
    outside the dtype's range have no integer, and raise instead of wrapping (NumPy gives INT_MIN, torch garbage)."""
    if not np.isfinite(host).all():
        raise DomainError(f"cannot convert NaN or an infinity to {dt}: no integer holds it. Fix: replace them first, "
                          f"e.g. xb.where(xb.isfinite(x), x, 0), or keep a floating dtype")  # fmt: skip
    lo, hi = D._INT_RANGE[dt]
    vmin, vmax = float(host.min()), float(host.max())
    if vmin <= lo - 1 or vmax >= hi + 1:
        bad = vmin if vmin <= lo - 1 else vmax
        raise ScalarOverflowError(f"value {bad!r} does not fit {dt} (range {lo}..{hi}); xbackend never wraps around. "
                                  "Fix: clip first, or pass a dtype that holds it")  # fmt: skip


_NUMBERS = frozenset({int, float, bool, complex})
_SUMS = frozenset({int, float, complex})  # what ``sum`` of Python numbers is
_SEQS = frozenset({list, tuple})


def _flat(level: list[Any]) -> list[Any]:
    """The items of lists and tuples ``level`` in one new list: ``+=`` row by row in C (twice as fast as
    ``list(chain.from_iterable(level))``)."""
    return reduce(iadd, level, [])


#: what ``survey`` says of nested lists that hold an array somewhere
ARRAYS = "arrays"


def survey(obj: list[Any] | tuple[Any, ...]) -> Any:
    """What nested lists and tuples ``obj`` hold, looked at level by level at C speed: ``ARRAYS`` when an Array or
    a native array sits anywhere (NumPy scalars are Python data); else ``(kind, depth, flat)`` when ``obj`` is a flat
    list of Python numbers (depth 1) or a list of lists of them (depth 2 or more), ``kind`` being the type of
    their sum (``int``, ``float`` or ``complex``: what ``host_numbers`` needs), and ``flat``: for short rows their
    numbers in one list, made for the sum and converted by ``host_numbers`` without a second chain, else None;
    else None.

    ``set(map(type, level))`` looks at the lists; over the numbers at the bottom ``sum`` is the check: the sum of
    Python numbers is one, with an array among them it is an array or raises, and the exact scan then decides."""
    level: Any = obj
    depth = 1
    exact = True  # every level so far all lists or all numbers (a mixed level: np.asarray decides the shape)
    while level:
        head = type(level[0])
        if head in _NUMBERS:  # the bottom, most likely all numbers: one C loop
            try:
                k = type(sum(level))
                if k in _SUMS:
                    return (k, depth, None) if exact else None
            except Exception:  # noqa: BLE001 - not all numbers: the exact scan below
                pass
        elif head is list or head is tuple:
            types = set(map(type, level))
            if types <= _SEQS:
                row, flat = level[0], cast(Any, None)
                if row and type(row[0]) in _NUMBERS:  # rows of numbers: one C loop over them all
                    try:  # (short rows: one list of them all, summed and handed to host_numbers: cheaper than
                        if len(row) > 32:  # chaining them twice or a sum call per row)
                            k = type(sum(map(sum, level)))
                            if k in _SUMS:
                                return (k, depth + 1, None) if exact else None
                        else:
                            flat = reduce(iadd, level, [])  # (_flat, inline: one call less)
                            k = type(sum(flat))
                            if k in _SUMS:
                                return (k, depth + 1, flat) if exact else None
                    except Exception:  # noqa: BLE001 - not all numbers: the exact scan below
                        pass
                level = reduce(iadd, level, []) if flat is None else flat  # (_flat, inline)
                depth += 1
                continue
        types = set(map(type, level))
        if types <= _NUMBERS:
            return None
        seqs = False
        for t in types:
            if t is list or t is tuple:
                seqs = True
            elif t is Array or (t not in _NUMBERS and backend_for_type(t) is not None):
                return ARRAYS
        if not seqs:
            return None
        exact = False
        level = list(chain.from_iterable(i for i in level if type(i) is list or type(i) is tuple))
        depth += 1
    return None


def holds_arrays(obj: list[Any] | tuple[Any, ...]) -> bool:
    """Whether nested lists and tuples ``obj`` hold an Array or a native array anywhere (``survey``)."""
    return survey(obj) is ARRAYS


_FROMITER = {float: np.dtype(np.float64), complex: np.dtype(np.complex128), int: np.dtype(np.int64)}


def host_numbers(obj: list[Any] | tuple[Any, ...], found: Any) -> np.ndarray | None:
    """``np.asarray(obj)`` for what ``survey`` found to be a flat list of Python numbers or nested lists of equal
    lengths of them, made by ``np.fromiter`` (one pass, ~40 % faster: NumPy's discovery of the dtype and shape is what
    ``survey`` already did); None where the result could differ (bools alone, ints beyond int64, ragged rows,
    an empty level): then ``np.asarray`` decides. A sum of type float means floats with ints or bools (float64), of
    type int ints with bools (int64, when the first is an int), of type complex complex128."""
    if type(found) is not tuple:
        return None
    kind, depth = found[0], found[1]  # (and found[2]: survey's list of the numbers, or None)
    dt = _FROMITER[kind]
    try:
        if depth == 1:
            if kind is int and type(obj[0]) is not int:  # bools alone are bool data
                return None
            a = np.fromiter(obj, dt, len(obj))
        else:
            shape: tuple[int, ...] = (len(obj),)
            level: Any = obj
            i = 1
            while True:  # each level's lengths (equal, not 0: else np.asarray says how)
                widths = set(map(len, level))
                if len(widths) != 1:
                    return None
                w = widths.pop()
                if not w:
                    return None
                shape += (w,)
                i += 1
                if i == depth:
                    break
                level = _flat(level)
            flat: Any = found[2]
            if flat is not None:  # survey's list of them all
                leaf = flat[0]
            else:
                flat, leaf = chain.from_iterable(level), first_leaf(obj)
            if kind is int and type(leaf) is not int:
                return None
            a = np.fromiter(flat, dt, len(level) * w)
    except (OverflowError, TypeError, ValueError):  # ints beyond int64 & co.: NumPy's own dtype for them
        return None
    if kind is not int:  # an int beyond int64/uint64 among floats makes NumPy's array of objects: a float beyond them
        r = a if kind is float else a.real
        if not (_FMIN(r) > _LOW and _FMAX(r) < _HIGH):
            return None
    return a if depth == 1 else a.reshape(shape)


_FMIN, _FMAX = np.fmin.reduce, np.fmax.reduce  # (NaN aside)
_LOW, _HIGH = -(2.0**63), 2.0**64  # every int NumPy keeps as a number lies in [-2**63, 2**64): strictly inside them


def host_data(v: Any) -> np.ndarray | None:
    """Python data (a list, tuple or buffer, nested) as a NumPy array, or None if ``v`` is not Python data."""
    t = type(v)
    if t is list or t is tuple:
        found = survey(v)
        if found is ARRAYS:
            return None
        h = host_numbers(v, found)
        if h is not None:
            return h
    elif not isinstance(v, HOST_SEQUENCES):
        return None
    try:
        h = np.asarray(v)
    except (ValueError, TypeError):
        return None
    return h if h.dtype.kind in "biufc" else None


def weak_dtype(like: DType, h: np.ndarray) -> DType:
    """The dtype Python data ``h`` takes next to an Array of dtype ``like`` (the weak-scalar rule, for arrays)."""
    if h.size == 0:
        return like
    cfg = _config.current()
    k = h.dtype.kind
    if k == "b":
        return D.scalar_result(like, True, cfg.default_float, cfg.default_int)
    if k in "iu":
        if like.kind == "f" or like.kind == "c":
            return like  # ints next to a float Array take its dtype whatever their values (no range to check)
        lo, hi = int(h.min()), int(h.max())
        D.scalar_result(like, lo, cfg.default_float, cfg.default_int)  # range checks (ScalarOverflowError)
        return D.scalar_result(like, hi, cfg.default_float, cfg.default_int)
    if k == "f":
        return D.scalar_result(like, 0.5, cfg.default_float, cfg.default_int)
    if k == "c":
        return D.scalar_result(like, 0.5j, cfg.default_float, cfg.default_int)
    raise UnsupportedDTypeError(f"Unsupported dtype {h.dtype}: cannot make an Array from it; {NOT_NUMBERS}")
