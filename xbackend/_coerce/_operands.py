"""The array arguments of a call next to its Array: the operators' other operand, a function's second argument,
arguments with a dtype of their own (indices, conditions).

Design constraint: one rule for every function (``xbackend/_coerce/__init__.py``). Arrays and native arrays of the
call's place are taken as they are, of another place refused with the fix; Python data takes the place.
"""

from __future__ import annotations

from typing import Any

import numpy as _np

from .._array import Array, _check_partner, _partners
from .._dispatch import backend_for_type
from ._asarray import asarray, weak
from ._natives import wrap_native
from ._scalars import SCALARS, py_scalar
from ._sequences import HOST_SEQUENCES

__all__ = ["operand", "to_array", "placed", "index_array", "operator_operand"]


def operand(v: Any, like: Array) -> Array:
    """Any array-like argument of a call whose Array is ``like``, as an Array at like's place (or an error)."""
    t = type(v)
    if t is Array:
        if v._be is not like._be or v._dev is not like._dev:
            _check_partner(like, v)
        return v
    if t in SCALARS or isinstance(v, (_np.generic, *HOST_SEQUENCES)):
        return weak(v, like)
    if backend_for_type(t) is not None:
        b = wrap_native(v)
        if b._be is not like._be or b._dev is not like._dev:
            b = _partners(like, b, inplace=True, native=True)[1]  # inside xb.grad: NumPy data as a constant
        return b
    return asarray(v, backend=like._be.name, device=like._dev)  # other array-likes: asarray's errors


def to_array(v: Any, like: Array | None = None) -> Array:
    """An array argument as an Array: at ``like``'s place (weakly typed) when given, else by ``asarray``'s rules."""
    if type(v) is Array:
        if like is not None and (v._be is not like._be or v._dev is not like._dev):
            _check_partner(like, v)
        return v
    if like is not None:
        return operand(v, like)
    return asarray(v)


def placed(v: Any, like: Array) -> Array:
    """An argument with a dtype of its own (indices, a condition, a sorter) at ``like``'s place: Arrays and native
    arrays as they are (same place, else the mismatch error), Python data as an Array of its own dtype (xbackend's
    defaults, never like's) made where ``like`` lives."""
    if type(v) is Array:
        return to_array(v, like)
    if backend_for_type(type(v)) is not None:
        return to_array(wrap_native(v), like)
    return asarray(v, backend=like._be.name, device=like._dev)


index_array = placed


def operator_operand(a: Array, other: Any) -> Any:
    """The non-Array operand of an operator of ``a`` as an Array at a's place or a Python scalar (the rule above),
    or ``NotImplemented`` for an object that is no array-like (Python then tries its reflected operator)."""
    if isinstance(other, _np.generic):
        return py_scalar(other)  # NumPy scalars act as Python scalars (weak) on every backend
    t = type(other)
    if t is list or t is tuple or t is memoryview or t is bytearray or backend_for_type(t) is not None:
        return operand(other, a)
    if hasattr(other, "__array__") or hasattr(other, "__array_namespace__") or hasattr(other, "__dlpack__"):
        return operand(other, a)  # foreign array-likes: asarray's refusal says the fix
    return NotImplemented
