"""Native arrays (``numpy.ndarray``, ``torch.Tensor``, ``cupy.ndarray``, ...) on their way in: recognised by exact
type (one cached dict lookup), wrapped without a copy as Arrays of their own backend and device.

Design constraint: the one place a native array becomes an Array (``wrap_native``); NumPy scalars are Python data,
not arrays (``backend_for_type`` knows no scalar type). Whether the Array may meet the call's other Arrays is the
caller's question (``xbackend/_coerce/_operands.py``): a move is never implicit.
"""

from __future__ import annotations

from typing import Any

import numpy as _np

from .._array import Array, _new
from .._devices import Device
from .._dispatch import backend_for_type
from .._errors import ArgumentTypeError, XBackendError

__all__ = ["is_native", "wrap_native", "first_array", "cpu_move"]

_NUMBERS = frozenset({int, float, bool, complex})


def is_native(v: Any) -> bool:
    """Whether ``v`` is an array of a known backend's library (NumPy scalars are Python data, not arrays)."""
    return backend_for_type(type(v)) is not None


def wrap_native(v: Any) -> Array:
    """A native array as an Array of its own backend and device (no copy); a NumPy scalar as a 0-d NumPy Array.
    Anything else raises :class:`~xbackend.ArgumentTypeError` naming ``xb.asarray``."""
    be = backend_for_type(type(v))
    if be is None:
        if not isinstance(v, _np.generic):
            raise ArgumentTypeError(f"expected an xbackend Array or a native array, got {type(v).__name__}; use "
                                    "xb.asarray()")  # fmt: skip
        v = _np.asarray(v)
        be = backend_for_type(_np.ndarray)
    v = be.adopt(v)  # type: ignore[union-attr]
    return _new(v, be.dtype_of(v), be.device_of(v), be)  # type: ignore[union-attr]


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


_STAYS: dict[tuple[Any, Device], bool] = {}  # (target backend, device) -> the target holds data on that device


def cpu_move(src: Any, x: Any, dt: Any, dev: Device, dst: Any) -> Any:
    """``x`` (a native array of backend ``src`` in dtype ``dt`` on the CPU device ``dev``) as a native array of
    another backend ``dst`` on the same device: ``dst``'s import of host memory (``torch.from_numpy`` where that is
    safe, else a copy), which is what moving it there does (``xbackend/_interchange.py``) when nothing else is
    asked; None where the move is not that simple (``dst`` keeps no data on ``dev``, ``x`` carries a graph: the
    move's checks and errors decide)."""
    try:
        stays = _STAYS[dst, dev]
    except KeyError:
        try:
            stays = dst.check_device(dev) is dev
        except XBackendError:
            stays = False
        _STAYS[dst, dev] = stays
    if not stays or src.requires_grad(x):
        return None
    dst.native_dtype(dt)  # a typed error with the fix (bfloat16 without ml_dtypes) before any work, as a move
    return dst.from_host(src.to_host(x), dt, dev, None)
