"""Explicit results of lazy Arrays: ``xb.compute``, ``xb.persist``, ``xb.rechunk``.

Design constraint: a lazy backend (Dask) computes only here and in the explicit conversions
(``x.numpy()``, ``float(x)``, ``bool(x)``, ``x.item()``, ``x.tolist()``); eager Arrays pass through
unchanged, so code written for Dask runs on every backend. This module names no backend: it asks each
Array's backend (``compute``, ``persist``, ``rechunk``, ``chunk_backend_name``).
"""

from __future__ import annotations

from typing import Any

from ._array import Array, _computed, _new
from ._coerce import to_array

__all__ = ["compute", "persist", "rechunk"]


def compute(*arrays: Any) -> tuple[Array, ...]:
    """Concrete values of several Arrays in one pass (work they share is done once).

    A Dask Array becomes an Array of its chunk library (NumPy for ``device="cpu"``, CuPy for CUDA);
    eager Arrays are returned as they are.

    >>> import xbackend as xb
    >>> x = xb.asarray([1.0, 2.0, 3.0])
    >>> m, s = xb.compute(xb.mean(x), xb.sum(x))
    >>> m.item(), s.item(), m.backend
    (2.0, 6.0, 'numpy')
    """
    xs = [to_array(a) for a in arrays]
    out: list[Any] = list(xs)
    groups: dict[int, list[int]] = {}
    for i, a in enumerate(xs):
        groups.setdefault(id(a._be), []).append(i)
    for idx in groups.values():
        be = xs[idx[0]]._be
        natives = be.compute([xs[i]._data for i in idx])
        for i, nat in zip(idx, natives):
            out[i] = _computed(xs[i], nat)
    return tuple(out)


def persist(x: Any) -> Array:
    """``x`` with its values computed and kept where they live (a Dask cluster's memory); still lazy-typed,
    so later operations build on the stored chunks. Unknown sizes (after boolean masks) become known.

    >>> import xbackend as xb
    >>> xb.persist(xb.asarray([1, 2])).tolist()
    [1, 2]
    """
    return to_array(x).persist()


def rechunk(x: Any, chunks: Any) -> Array:
    """``x`` (a Dask Array) split into new ``chunks``: an int, a tuple per axis, ``-1`` for one chunk along
    an axis, ``"auto"``, or a dict ``{axis: chunks}``. Other backends raise with the fix.

    >>> import xbackend as xb
    >>> xb.rechunk(xb.asarray([1.0, 2.0, 3.0, 4.0]), 2)  # doctest: +SKIP
    """
    x = x if type(x) is Array else to_array(x)
    return _new(x._be.rechunk(x._data, chunks), x._dt, x._dev, x._be)
