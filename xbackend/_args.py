"""Checks of the non-array arguments every public function shares: ints, flags, axes, shapes, choices.

Design constraint: one function per kind of argument, one message per mistake, raised *before* any backend
runs, so that ``xb.sum(x, keepdims="yes")`` or ``xb.zeros(-1)`` says the same thing on every backend (never
torch's ``amax()`` signature or NumPy's C message). Every error is an :class:`~xbackend.XBackendError` and the
builtin a NumPy user catches: :class:`~xbackend.ArgumentTypeError` (``TypeError``) for a wrong type,
:class:`~xbackend.ArgumentValueError` (``ValueError``) for a wrong value, :class:`~xbackend.AxisError` for an
axis out of range.

>>> from xbackend._args import axes, flag
>>> axes((-1, 0), 3, "sum"), flag(True, "sum", "keepdims")
((2, 0), True)
>>> axes(3, 3, "sum")
Traceback (most recent call last):
xbackend._errors.AxisError: sum(): axis 3 is out of range for a 3-d Array. Fix: pass an axis in -3..2
"""

from __future__ import annotations

import operator
from typing import Any, Sequence

import numpy as _np

from ._errors import ArgumentTypeError, ArgumentValueError, AxisError, ShapeError

__all__ = ["integer", "flag", "axis", "axes", "shape", "check_size", "choice", "real_number", "describe"]

_MAX_BYTES = (1 << 63) - 1  # no array can hold more bytes than a signed 64-bit size (NumPy's limit too)


def describe(v: Any) -> str:
    """``v`` for a message: its type, and its value when short (``int 2**70`` shows as ``int 1180591620...``)."""
    r = repr(v)
    return f"{type(v).__name__} {r}" if len(r) <= 24 else type(v).__name__


def integer(v: Any, fname: str, what: str) -> int:
    """A Python int from an int, a NumPy integer or a 0-d integer Array (anything with ``__index__``); bools
    and floats are refused (``num=2.5`` is a mistake, not 2)."""
    if type(v) is int:
        return v
    if isinstance(v, (bool, _np.bool_)) or not hasattr(type(v), "__index__"):
        raise ArgumentTypeError(f"{fname}(): {what} must be an int, got {describe(v)}. "
                                f"Fix: pass a Python int ({what}=int(v) rounds towards zero)")  # fmt: skip
    try:
        return operator.index(v)
    except TypeError as exc:  # an Array that is not a 0-d integer Array
        raise ArgumentTypeError(f"{fname}(): {what} must be an int, got {describe(v)} ({exc})") from None


def flag(v: Any, fname: str, what: str) -> bool:
    """``True`` or ``False`` (a NumPy bool too); ints, strings and None are refused."""
    if v is True or v is False:
        return v
    if isinstance(v, _np.bool_):
        return bool(v)
    raise ArgumentTypeError(f"{fname}(): {what} must be a bool (True or False), got {describe(v)}")


def axis(a: Any, ndim: int, fname: str, what: str = "axis") -> int:
    """One axis in ``[-ndim, ndim)`` as a non-negative int."""
    a = integer(a, fname, what)
    if not -ndim <= a < ndim:
        if ndim:
            raise AxisError(f"{fname}(): {what} {a} is out of range for a {ndim}-d Array. Fix: pass an axis in "
                            f"{-ndim}..{ndim - 1}")  # fmt: skip
        raise AxisError(f"{fname}(): {what} {a} is out of range: a 0-d Array has no axes. Fix: give it one first, "
                        f"e.g. xb.reshape(x, (1,))")  # fmt: skip
    return a + ndim if a < 0 else a


def axes(v: Any, ndim: int, fname: str, what: str = "axis", *, sort: bool = False,
         unique: bool = True) -> tuple[int, ...]:  # fmt: skip
    """``None`` -> every axis; an int, or a tuple or list of ints -> unique non-negative axes (in the order
    given, or sorted); a repeated axis raises :class:`~xbackend.AxisError`."""
    if v is None:
        return tuple(range(ndim))
    if type(v) is tuple or type(v) is list:
        out = tuple(axis(a, ndim, fname, what) for a in v)
        if unique and len(set(out)) != len(out):
            raise AxisError(f"{fname}(): {what} {tuple(v)} names an axis more than once")
        return tuple(sorted(out)) if sort else out
    return (axis(v, ndim, fname, what),)


_last: list[Any] = [None]  # the tuple object last accepted (a loop's constant shape costs one identity test)


def shape(v: Any, fname: str, what: str = "shape", *, minimum: int = 0) -> tuple[int, ...]:
    """A shape: an int or a tuple/list of ints, every entry ``>= minimum`` (``reshape`` passes -1).

    Entries must be ints, not floats or bools that compare equal to them (``(2.0,)``, ``(True,)``): a set of
    accepted tuples would let those through, so only the very tuple object accepted last skips the loop."""
    if type(v) is int and v >= minimum:
        return (v,)
    if type(v) is tuple:
        if v is _last[0]:
            return v
        for s in v:
            if type(s) is not int or s < 0:
                break
        else:
            _last[0] = v
            return v
    if type(v) is tuple or type(v) is list:
        out = tuple(integer(s, fname, f"{what} entry") for s in v)
    elif hasattr(type(v), "__index__") and not isinstance(v, (bool, _np.bool_)):
        out = (integer(v, fname, what),)
    else:
        raise ArgumentTypeError(f"{fname}(): {what} must be an int or a tuple of ints, got {describe(v)}")
    if any(s < minimum for s in out):
        raise ArgumentValueError(f"{fname}(): negative dimensions are not allowed, got {what} {out}" if minimum == 0
                                 else f"{fname}(): invalid {what} {out}: entries must be >= 0, or -1 for one inferred "
                                 "dimension")  # fmt: skip
    return out


def check_size(sizes: Sequence[int], itemsize: int, fname: str) -> None:
    """Refuse a result that no machine could address (more than 2**63 - 1 bytes), on every backend alike.

    NumPy's rule: the sizes count with 0 read as 1, so ``eye(2**63, 0)`` is refused although it holds nothing
    (NumPy raises there; torch's sizes overflow a C++ ``int64``)."""
    n = itemsize
    for s in sizes:
        n *= max(s, 1)
    if n > _MAX_BYTES:
        raise ShapeError(f"{fname}(): a result of shape {tuple(sizes)} would need {n} bytes (counting sizes of 0 as 1), "
                         "more than any machine can address. Fix: ask for a smaller shape")  # fmt: skip


def choice(v: Any, options: Sequence[Any], fname: str, what: str) -> Any:
    """One of ``options`` (compared with ``==``; a wrong type is a TypeError, a wrong value a ValueError)."""
    for o in options:
        if type(v) is type(o) and v == o:
            return o
    if not any(isinstance(v, type(o)) for o in options):
        raise ArgumentTypeError(f"{fname}(): {what} must be one of {', '.join(map(repr, options))}, got {describe(v)}")
    raise ArgumentValueError(f"{fname}(): {what} must be one of {', '.join(map(repr, options))}, got {v!r}")


def real_number(v: Any, fname: str, what: str) -> float | int:
    """A real Python number (int or float; NumPy and 0-d Array reals too); bools, complex and None refused."""
    if type(v) is int or type(v) is float:
        return v
    if isinstance(v, (bool, _np.bool_)) or isinstance(v, (complex, _np.complexfloating)):
        raise ArgumentTypeError(f"{fname}(): {what} must be a real number, got {describe(v)}")
    if isinstance(v, _np.integer):
        return int(v)
    if isinstance(v, _np.floating):
        return float(v)
    if hasattr(v, "__float__") and getattr(v, "ndim", 0) == 0 and getattr(getattr(v, "dtype", None), "kind", "f") in "iuf":
        return float(v)
    raise ArgumentTypeError(f"{fname}(): {what} must be a real number, got {describe(v)}")
