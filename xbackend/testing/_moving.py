"""Arguments copied onto a target: how :func:`across_backends` and :func:`diverge` give a function the same inputs
on every backend.

Design constraint: a copy per target (``copy=True``), so a function that writes into its arguments on one backend
cannot change what the next one sees, and an ``xb.random`` generator placed on the target in the same state, so it
draws the same numbers there.
"""

from __future__ import annotations

import sys
from typing import Any

from .._array import Array
from .._dispatch import backend_for_type
from ._targets import Target

__all__ = ["_on", "_generator"]


def _generator(x: Any) -> bool:
    """Whether ``x`` is an ``xb.random.Generator`` (without importing xb.random when it was never used)."""
    mod = sys.modules.get("xbackend.random._generator")
    return mod is not None and isinstance(x, mod.Generator)


def _on(x: Any, t: Target) -> Any:
    """``x`` (host data, an Array or a native array; nested in tuples, lists, dicts) copied onto target ``t``; an
    ``xb.random.Generator`` becomes a copy of it placed on ``t`` (it draws the same numbers there)."""
    from .._creation import asarray

    if _generator(x):
        return x._placed(t.backend, t.device)
    if type(x) is Array or backend_for_type(type(x)) is not None:
        if type(x) is not Array:
            x = asarray(x)
        return asarray(x.detach(), backend=t.backend, device=t.device, copy=True)
    if hasattr(x, "__array__") and hasattr(x, "shape") and hasattr(x, "dtype"):  # NumPy scalars
        return asarray(x, backend=t.backend, device=t.device, copy=True)
    if isinstance(x, dict):
        return {k: _on(v, t) for k, v in x.items()}
    if isinstance(x, tuple):
        items = [_on(v, t) for v in x]
        return type(x)(*items) if hasattr(x, "_fields") else tuple(items)
    if isinstance(x, list):
        return [_on(v, t) for v in x]
    return x
