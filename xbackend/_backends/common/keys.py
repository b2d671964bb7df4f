"""Index-key helpers shared by the backends whose kernels do not check bounds themselves (CuPy wraps
out-of-bounds integer indices around, torch on CUDA fails with a device-side assert).

Design constraint: duck-typed over native arrays (``<``, ``|``, ``.any()``, ``.ndim``), so one walk of
the key serves every backend; the caller says which key parts are index arrays and which are masks.
"""

from __future__ import annotations

from typing import Any, Callable


def _masks(k: Any, is_array: Callable[[Any], bool], is_mask: Callable[[Any], bool]) -> bool:
    """``k`` is a boolean mask (it consumes ``k.ndim`` dimensions): the caller's masks, and any NumPy-typed bool
    array (Dask's lazy masks, which its host-index check does not count as index arrays)."""
    return is_array(k) and is_mask(k) or getattr(getattr(k, "dtype", None), "kind", None) == "b"


def key_dims(key: tuple[Any, ...], is_array: Callable[[Any], bool], is_mask: Callable[[Any], bool]) -> int:
    """How many dimensions of the indexed array ``key`` consumes (``...`` not counted)."""
    n = 0
    for k in key:
        if k is None or k is Ellipsis or type(k) is bool:
            continue
        n += k.ndim if _masks(k, is_array, is_mask) else 1
    return n


def map_index_arrays(shape: tuple[int, ...], key: Any, is_array: Callable[[Any], bool],
                     is_mask: Callable[[Any], bool], fn: Callable[[Any, int, int], Any],
                     on_int: Callable[[int, int, int], Any] | None = None) -> Any:  # fmt: skip
    """``key`` with each integer index array ``k`` replaced by ``fn(k, axis, size)`` (``axis`` the dimension it
    indexes, ``size`` that dimension's length), and each Python int next to them by ``on_int(i, axis, size)`` when
    given; ``IndexError`` with NumPy's text for more indices than dimensions."""
    items = key if type(key) is tuple else (key,)
    if not any(is_array(k) and not is_mask(k) for k in items):
        return key  # no integer index array: nothing to check (the getitem fast paths come here)
    rest = len(shape) - key_dims(items, is_array, is_mask)
    if rest < 0:
        raise IndexError(f"too many indices for array: array is {len(shape)}-dimensional, but "
                         f"{len(shape) - rest} were indexed")  # NumPy's text, on every backend
    dim = 0
    out = []
    for k in items:
        if k is Ellipsis:
            dim += rest
        elif k is None or type(k) is bool:
            pass
        elif _masks(k, is_array, is_mask):
            dim += k.ndim
        elif is_array(k):
            k = fn(k, dim, shape[dim])
            dim += 1
        else:
            if on_int is not None and type(k) is int:
                k = on_int(k, dim, shape[dim])
            dim += 1
        out.append(k)
    return tuple(out) if type(key) is tuple else out[0]


def _raise_out_of_bounds(k: Any, dim: int, n: int) -> Any:
    bad = (k < -n) | (k >= n)
    if bool(bad.any()):
        raise IndexError(f"index {int(k[bad].ravel()[0])} is out of bounds for axis {dim} with size {n}")
    return k


def check_bounds(shape: tuple[int, ...], key: Any, is_array: Callable[[Any], bool],
                 is_mask: Callable[[Any], bool]) -> None:  # fmt: skip
    """Raise ``IndexError`` if an integer index array in ``key`` is outside its dimension."""
    map_index_arrays(shape, key, is_array, is_mask, _raise_out_of_bounds)


def _out_of_bounds(i: int, dim: int, n: int) -> IndexError:
    return IndexError(f"index {i} is out of bounds for axis {dim} with size {n}")  # NumPy's text


def check_bounds_at_once(shape: tuple[int, ...], key: Any, is_array: Callable[[Any], bool],
                         is_mask: Callable[[Any], bool], outside: Callable[[Any, int], Any],
                         read: Callable[[list[Any]], list[bool]]) -> None:  # fmt: skip
    """``IndexError`` if an integer index in ``key`` is outside its dimension, reading the device at most once:
    Python ints next to index arrays are checked on the host; ``outside(k, size)`` is the elementwise
    out-of-bounds mask of index array ``k``, and ``read`` brings every array's ``mask.any()`` to the host together
    (one synchronisation on a GPU, however many index arrays). The offending value is read only to raise.

    >>> import numpy as np
    >>> arr, mask = lambda k: isinstance(k, np.ndarray), lambda k: k.dtype == bool
    >>> out, read = lambda k, n: (k < -n) | (k >= n), lambda flags: [bool(f) for f in flags]
    >>> check_bounds_at_once((3, 4), (np.array([0, 2]), 1), arr, mask, out, read)
    >>> check_bounds_at_once((3, 4), (np.array([0, 2]), 4), arr, mask, out, read)
    Traceback (most recent call last):
    IndexError: index 4 is out of bounds for axis 1 with size 4
    >>> check_bounds_at_once((3, 4), (np.array([0, -5]), 1), arr, mask, out, read)
    Traceback (most recent call last):
    IndexError: index -5 is out of bounds for axis 0 with size 3
    """
    arrays: list[tuple[Any, Any, int, int]] = []

    def on_int(i: int, dim: int, n: int) -> int:
        if not -n <= i < n:
            raise _out_of_bounds(i, dim, n)
        return i

    def on_array(k: Any, dim: int, n: int) -> Any:
        arrays.append((k, outside(k, n), dim, n))
        return k

    map_index_arrays(shape, key, is_array, is_mask, on_array, on_int)
    if not arrays:
        return
    flags = read([m.any() for _, m, _, _ in arrays])
    for (k, m, dim, n), f in zip(arrays, flags):
        if f:
            raise _out_of_bounds(int(k[m].reshape(-1)[:1].tolist()[0]), dim, n)  # (tolist: uint64 above int64)
