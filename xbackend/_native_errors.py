"""Native errors, translated: one typed error per situation on every backend.

Design constraint: these run only after a native kernel raised (the success path never calls them), so
they may be slow. A situation xbackend recognises becomes its one typed error on every backend (NumPy's
ValueError and torch's RuntimeError for the same mistake read alike); anything else returns and the caller
re-raises the native error. The functions read only ``_data``, ``_be`` and ``_dev`` of the Arrays they get,
so this module imports no other part of the core but the error tree.
"""

from __future__ import annotations

import contextlib
import re
from typing import Any

import numpy as _np

from ._boundary import raise_translated
from ._errors import IndexOutOfRangeError, index_out_of_range, shape_mismatch

__all__ = ["broadcast", "binary_failed", "matmul_failed", "index_failed", "any_failed"]


def broadcast(s1: tuple[int, ...], s2: tuple[int, ...]) -> tuple[int, ...] | None:
    out = []
    for i in range(1, max(len(s1), len(s2)) + 1):
        m = s1[-i] if i <= len(s1) else 1
        n = s2[-i] if i <= len(s2) else 1
        if m != n and m != 1 and n != 1:
            return None
        out.append(n if m == 1 else m)
    return tuple(reversed(out))


def binary_failed(name: str, a: Any, b: Any, exc: BaseException, inplace: bool = False) -> None:
    """``a op b`` raised natively (``b`` an Array): shapes that do not broadcast, or an in-place result
    that would change ``a``'s shape, raise :class:`~xbackend.ShapeError`."""
    sa, sb = tuple(a._data.shape), tuple(b._data.shape)
    r = broadcast(sa, sb)
    if r is None:
        raise shape_mismatch(f"{name} of {a._be.name} Arrays on {a._dev}", (sa, sb), "cannot be broadcast together",
                             "make each dimension equal or 1, counting from the right, e.g. y[:, None] or "
                             "xb.broadcast_to(y, shape)") from exc  # fmt: skip
    if inplace and r != sa:
        raise shape_mismatch(f"in-place {name} of {a._be.name} Arrays on {a._dev}", (sa, sb),
                             f"broadcast to {r}, not to the left operand's shape",
                             "write x = x op y (out of place); an in-place result keeps x's shape") from exc  # fmt: skip


def any_failed(name: str, exc: BaseException) -> None:
    """The last resort of every inline error path: ``exc`` translated (``xbackend/_boundary.py``)."""
    raise_translated(exc, name)


def matmul_failed(a: Any, b: Any, exc: BaseException) -> None:
    sa, sb = tuple(a._data.shape), tuple(b._data.shape)
    k1 = sa[-1]
    k2 = sb[-2] if len(sb) > 1 else sb[0]
    if k1 != k2:
        raise shape_mismatch(f"matmul (x @ y) of {a._be.name} Arrays on {a._dev}", (sa, sb),
                             f"do not fit: x.shape[-1] is {k1} but y.shape[-2] is {k2}",
                             "make the inner sizes equal, e.g. transpose one (y.mT) or reshape it") from exc  # fmt: skip
    if len(sa) > 2 and len(sb) > 2 and broadcast(sa[:-2], sb[:-2]) is None:
        raise shape_mismatch(f"matmul (x @ y) of {a._be.name} Arrays on {a._dev}", (sa, sb),
                             f"have batch dimensions {sa[:-2]} and {sb[:-2]} that cannot be broadcast together",
                             "make each batch dimension equal or 1") from exc  # fmt: skip
    raise_translated(exc, "matmul")


_OUT_OF_RANGE = re.compile(r"index (-?\d+ )?is out of bounds for (?:axis|dimension) (\d+) with size (\d+)",
                           re.I)
"""NumPy and torch name the index; Dask writes "Index", and names none for an index array."""


def _name_bad_index(m: Any, key: Any) -> Any:
    """``(index, axis, size)`` with the first out-of-range value of a one-axis index array ``key``, or None."""
    ax, n = int(m.group(2)), int(m.group(3))
    k = key[ax] if type(key) is tuple and ax < len(key) else key
    with contextlib.suppress(Exception):
        vals = _np.asarray(getattr(k, "_data", k)).ravel()
        bad = vals[(vals >= n) | (vals < -n)]
        if bad.size:
            return (str(int(bad[0])), str(ax), str(n))
    return None


def _first_out_of_range(shape: tuple[int, ...], key: Any) -> tuple[int, int, int] | None:
    """``(index, axis, size)`` of the first index in ``key`` outside its axis, found from the key itself (ints and
    integer index arrays, copied to the host: this runs on the error path only), or None."""
    from ._backends.common.keys import map_index_arrays

    items = key if type(key) is tuple else (key,)
    host = []
    for k in items:
        d = getattr(k, "_data", k)
        if type(k) is int or (type(k) is not bool and isinstance(k, _np.integer)):
            d = _np.asarray(int(k))
        elif not (k is None or k is Ellipsis or type(k) in (slice, bool)):
            with contextlib.suppress(Exception):
                d = _np.asarray(getattr(k, "numpy", lambda: d)() if hasattr(k, "_data") else d)
        host.append(d)
    found: list[tuple[int, int, int]] = []

    def check(k: Any, axis: int, n: int) -> Any:
        bad = (k < -n) | (k >= n)
        if not found and bool(bad.any()):
            found.append((int(_np.asarray(k)[bad].ravel()[0]), axis, n))
        return k

    try:
        map_index_arrays(shape, tuple(host), lambda k: isinstance(k, _np.ndarray), lambda k: k.dtype.kind == "b",
                         check)  # fmt: skip
    except Exception:  # noqa: BLE001 - a key the walk cannot follow: the library's own numbers below
        return None
    return found[0] if found else None


def index_failed(a: Any, key: Any, exc: BaseException) -> None:
    """Indexing raised: an index outside an axis is IndexOutOfRangeError on every backend, with the same text (the
    offending index and its axis are found from the key, not read from the library's message); ours pass
    unchanged; anything else is translated."""
    if getattr(type(exc), "__module__", "").startswith("xbackend"):
        raise exc
    text = str(exc)
    if "out of bounds" not in text and "out of range" not in text:
        raise_translated(exc, "__getitem__")
    shape = tuple(a._data.shape)
    hit = _first_out_of_range(shape, key)
    if hit is None:
        m = _OUT_OF_RANGE.search(text)
        groups = None if m is None else m.groups() if m.group(1) is not None else _name_bad_index(m, key)
        hit = None if groups is None else tuple(int(g.strip()) for g in groups)  # type: ignore[assignment]
    if hit is None:
        raise IndexOutOfRangeError(f"an index is out of range for a {a._be.name} Array of shape {shape}. Fix: along "
                                   "an axis of size n, use indices -n..n-1") from exc  # fmt: skip
    raise index_out_of_range(*hit, a._be.name, shape) from exc
