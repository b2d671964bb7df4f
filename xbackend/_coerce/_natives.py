"""Native arrays (``numpy.ndarray``, ``torch.Tensor``, ``cupy.ndarray``, ...) on their way in: recognised by exact
type (one cached dict lookup), wrapped without a copy as Arrays of their own backend and device.

Design constraint: a native array becomes an Array in one place, ``wrap_native`` (``xbackend/_array.py``, where the
rest of the house finds it too); NumPy scalars are Python data, not arrays (``backend_for_type`` knows no scalar
type). Whether the Array may meet the call's other Arrays is the
caller's question (``xbackend/_coerce/_operands.py``): a move is never implicit.
"""

from __future__ import annotations

from typing import Any

from .._array import Array, wrap_native
from .._dispatch import backend_for_type

__all__ = ["is_native", "wrap_native", "first_array"]

_NUMBERS = frozenset({int, float, bool, complex})


def is_native(v: Any) -> bool:
    """Whether ``v`` is an array of a known backend's library (NumPy scalars are Python data, not arrays)."""
    return backend_for_type(type(v)) is not None


def first_array(*values: Any) -> Array | None:
    """The first Array among ``values`` (looking one level into lists and tuples), else the first native array
    of a known backend (wrapped), else None: the Array whose place Python data takes. A list is looked at by
    the types it holds (one C loop), element by element only when it holds arrays."""
    native = None
    for v in values:
        t = type(v)
        if t is Array:
            return v
        if t is list or t is tuple:
            types = set(map(type, v))
            if types <= _NUMBERS:
                continue
            if Array in types:
                return next(i for i in v if type(i) is Array)
            if native is None:
                kinds = [k for k in types if backend_for_type(k) is not None]
                if kinds:
                    native = next(i for i in v if type(i) in kinds)
        elif native is None and backend_for_type(t) is not None:
            native = v
    return None if native is None else wrap_native(native)
