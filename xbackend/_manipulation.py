"""The Array API standard's manipulation functions (2025.12): concat, stack, reshape, ...

Design constraint: shapes, axes and result dtypes are worked out here, once, from Python ints and the
promotion table; the backend only receives normalised, non-negative axes and inputs that already have
the result dtype. Functions that only change the shape (``expand_dims``, ``squeeze``, ``moveaxis``) are
built from the backend's ``reshape``/``permute``, so they are views on every backend.

>>> import xbackend as xb
>>> x = xb.asarray([[1, 2], [3, 4]])
>>> xb.concat([x, xb.asarray([[5.0, 6.0]])]).tolist()  # int64 with float64 promotes to float64
[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
>>> xb.stack([x, x], axis=-1).shape, xb.expand_dims(x, axis=(0, -1)).shape
((2, 2, 2), (1, 2, 2, 1))
"""

from __future__ import annotations

import operator
from typing import Any, Sequence

from . import _args as A, _dtypes as D
from ._array import Array, _alloc, _check_partner, _new
from ._boundary import boundary
from ._coerce import first_array, is_native, to_array, weak
from ._errors import ArgumentTypeError, ArgumentValueError, AxisError, CopyError, ShapeError

_SCALARS = (bool, int, float, complex)

__all__ = [
    "broadcast_arrays", "broadcast_shapes", "broadcast_to", "concat", "expand_dims", "flip", "moveaxis",
    "permute_dims", "repeat", "reshape", "roll", "squeeze", "stack", "tile", "unstack",
]  # fmt: skip


# --- helpers shared with _searching / _utility: the argument checks of xbackend/_args.py ---------------------
def _int(v: Any, what: str) -> int:
    fname, _, param = what.partition("() ")
    return A.integer(v, fname, param or "argument")


_axis = A.axis
_axes = A.axes


def _same_place(arrays: Sequence[Array]) -> None:
    first = arrays[0]
    for a in arrays[1:]:
        if a._be is not first._be or a._dev is not first._dev:
            _check_partner(first, a)


def _shape_tuple(shape: Any, name: str) -> tuple[int, ...]:
    return A.shape(shape, name, minimum=-1 if name == "reshape" else 0)


# --- broadcasting ----------------------------------------------------------------------------------
def broadcast_shapes(*shapes: tuple[int, ...]) -> tuple[int, ...]:
    """The shape that ``shapes`` broadcast to (``()`` for no shapes); ``ValueError`` if they do not.

    >>> import xbackend as xb
    >>> xb.broadcast_shapes((2, 1), (3,), ())
    (2, 3)
    """
    out: list[int] = []
    for s in shapes:
        s = _shape_tuple(s, "broadcast_shapes")
        if len(s) > len(out):
            out = [1] * (len(s) - len(out)) + out
        for i, n in enumerate(s, len(out) - len(s)):
            m = out[i]
            if m == 1:
                out[i] = n
            elif n != 1 and n != m:
                raise ShapeError(f"shapes {' and '.join(map(str, shapes))} cannot be broadcast together (dimension {m} vs {n}). "
                                 "Fix: make each dimension equal or 1, counting from the right")
    return tuple(out)


def broadcast_to(x: Array, /, shape: tuple[int, ...]) -> Array:
    """``x`` broadcast to ``shape`` (a read-only view where the backend has views).

    >>> import xbackend as xb
    >>> xb.broadcast_to(xb.asarray([1, 2]), (3, 2)).tolist()
    [[1, 2], [1, 2], [1, 2]]
    """
    x = x if type(x) is Array else to_array(x)
    shape = _shape_tuple(shape, "broadcast_to")
    A.check_size(shape, x._dt.itemsize, "broadcast_to")  # a view, but addressable as a whole (NumPy's rule)
    if any(s < 0 for s in shape) or len(shape) < x.ndim or broadcast_shapes(tuple(x._data.shape), shape) != shape:
        raise ShapeError(f"broadcast_to(): cannot broadcast shape {x.shape} to {shape}. Fix: the target needs at least "
                         "x.ndim dimensions, each equal to x's or x's being 1, counting from the right")  # fmt: skip
    if shape == x.shape:
        return x
    return _new(x._be.broadcast_to(x._data, shape), x._dt, x._dev, x._be)


def broadcast_arrays(*arrays: Array) -> tuple[Array, ...]:
    """Arrays broadcast against one another (a tuple, 2025.12).

    >>> import xbackend as xb
    >>> a, b = xb.broadcast_arrays(xb.asarray([1, 2]), xb.asarray([[0], [1]]))
    >>> a.shape, b.shape
    ((2, 2), (2, 2))
    """
    xs = [a if type(a) is Array else to_array(a) for a in arrays]
    if not xs:
        return ()
    _same_place(xs)
    shape = broadcast_shapes(*(tuple(a._data.shape) for a in xs))
    return tuple(broadcast_to(a, shape) for a in xs)


# --- joining and splitting -----------------------------------------------------------------------
def _joined(arrays: Any, name: str) -> tuple[list[Array], D.DType]:
    if type(arrays) is Array or not isinstance(arrays, (list, tuple)):
        raise ArgumentTypeError(f"{name}() takes a list or tuple of Arrays, got {type(arrays).__name__}. "
                                f"Fix: {name}([x, y])")  # fmt: skip
    if not arrays:
        raise ArgumentValueError(f"{name}() needs at least one Array, got an empty {type(arrays).__name__}")
    anchor = first_array(*arrays)
    if anchor is None:
        anchor = to_array(arrays[0])
    # Arrays and native arrays decide the dtype; Python data among them is weak to it, as next to one Array
    placed = [to_array(a, anchor) if type(a) is Array or is_native(a) else None for a in arrays]
    dt = anchor._dt
    for p in placed:
        if p is not None and p._dt is not dt:
            dt = D.promote(dt, p._dt)
    like = _new(anchor._data, dt, anchor._dev, anchor._be)
    xs = [p if p is not None else weak(a, like) for p, a in zip(placed, arrays)]
    for a in xs:
        if a._dt is not dt:
            dt = D.promote(dt, a._dt)
    return xs, dt


def _natives(xs: list[Array], dt: D.DType) -> list[Any]:
    return [a._data if a._dt is dt else a._be.astype(a._data, dt) for a in xs]


def concat(arrays: tuple[Array, ...] | list[Array], /, *, axis: int | None = 0) -> Array:
    """Join Arrays along an existing axis (``axis=None``: flatten first). Mixed dtypes promote.

    >>> import xbackend as xb
    >>> xb.concat([xb.asarray([1, 2]), xb.asarray([3])]).tolist()
    [1, 2, 3]
    >>> xb.concat([xb.asarray([[1]]), xb.asarray([[2]])], axis=None).tolist()
    [1, 2]
    """
    xs, dt = _joined(arrays, "concat")
    first = xs[0]
    if axis is None:
        data = [a._be.reshape(a._data, (-1,)) for a in xs]
        data = [d if a._dt is dt else a._be.astype(d, dt) for a, d in zip(xs, data)]
        return _new(first._be.concat(data, 0), dt, first._dev, first._be)
    nd = first.ndim
    if nd == 0:
        raise ShapeError("concat(): 0-d Arrays have no axis to join along. Fix: xb.stack(arrays) or axis=None")
    ax = _axis(axis, nd, "concat")
    ref = first.shape
    for a in xs[1:]:
        s = a.shape
        if len(s) != nd or any(s[i] != ref[i] for i in range(nd) if i != ax):
            raise ShapeError(f"concat(): shapes {ref} and {s} differ outside axis {ax}. Fix: make every other "
                             "dimension equal (concat joins along one axis only)")  # fmt: skip
    if len(xs) == 1:
        return _new(first._be.astype(first._data, dt, copy=True), dt, first._dev, first._be)
    return _new(first._be.concat(_natives(xs, dt), ax), dt, first._dev, first._be)


def stack(arrays: tuple[Array, ...] | list[Array], /, *, axis: int = 0) -> Array:
    """Join Arrays of one shape along a new axis. Mixed dtypes promote.

    >>> import xbackend as xb
    >>> xb.stack([xb.asarray([1, 2]), xb.asarray([3, 4])], axis=1).tolist()
    [[1, 3], [2, 4]]
    """
    xs, dt = _joined(arrays, "stack")
    first = xs[0]
    ref = first.shape
    for a in xs[1:]:
        if a.shape != ref:
            raise ShapeError(f"stack(): all Arrays need the same shape, got {ref} and {a.shape}. Fix: reshape or "
                             "broadcast them to one shape first")  # fmt: skip
    ax = _axis(axis, first.ndim + 1, "stack")
    return _new(first._be.stack(_natives(xs, dt), ax), dt, first._dev, first._be)


def unstack(x: Array, /, *, axis: int = 0) -> tuple[Array, ...]:
    """Split ``x`` along ``axis`` into a tuple of views.

    >>> import xbackend as xb
    >>> [a.tolist() for a in xb.unstack(xb.asarray([[1, 2], [3, 4]]), axis=1)]
    [[1, 3], [2, 4]]
    """
    x = x if type(x) is Array else to_array(x)
    ax = _axis(axis, x.ndim, "unstack")
    be, data = x._be, x._data
    if ax == 0:  # x[i]: the backends' int-key fast path (a tuple key takes their general path)
        return tuple(_new(be.getitem(data, i), x._dt, x._dev, be) for i in range(data.shape[0]))
    pre = (slice(None),) * ax
    return tuple(_new(be.getitem(data, pre + (i,)), x._dt, x._dev, be) for i in range(data.shape[ax]))


# --- shape -----------------------------------------------------------------------------------------
_SHAPES_OK: set[tuple[Any, ...]] = set()  # shapes seen with no entry below -1 (``min()`` costs ~0.15 µs a call)
_last_ok: list[Any] = [None]  # the shape _shape_ok last accepted (a hint: validity depends on the shape alone)


_NEAR_LIMIT = ((1 << 63) - 1) // 16  # no shape beyond it is safe for every dtype (complex128: 16 bytes)


def _shape_ok(shape: tuple[Any, ...]) -> bool:
    if shape and min(shape) < -1:
        return False
    n = 1
    for s in shape:
        n *= s if s > 1 else 1
    if n > _NEAR_LIMIT:  # near the addressable bound (sizes of 0 counting as 1): the checks apply the dtype's
        return False
    if len(_SHAPES_OK) >= 512:  # bounded: programs with many shapes start over
        _SHAPES_OK.clear()
    _SHAPES_OK.add(shape)
    _last_ok[0] = shape
    return True


def reshape(x: Array, /, shape: tuple[int, ...], *, copy: bool | None = None) -> Array:
    """``x`` with a new shape (one entry may be ``-1``). ``copy=False`` raises ``ValueError`` where a
    view is impossible; ``copy=True`` always copies.

    >>> import xbackend as xb
    >>> xb.reshape(xb.arange(6), (2, -1)).tolist()
    [[0, 1, 2], [3, 4, 5]]
    """
    if type(x) is not Array:
        x = x if type(x) is Array else to_array(x)
    if copy is None and type(shape) is tuple:
        be = x._be
        # fast path: with no entry below -1 (NumPy takes -2 as -1) the native reshape accepts exactly the valid
        # shapes; the rest falls through to the checks. The tuple last accepted (often a constant of the caller)
        # needs no hash; an unhashable one never gets into the set (TypeError: the checks below)
        try:
            if shape is _last_ok[0] or shape in _SHAPES_OK or _shape_ok(shape):
                out = _alloc()
                f = be.reshape_fn
                out._data = x._data.reshape(shape) if f is None else f(x._data, shape)
                out._dt = x._dt
                out._dev = x._dev
                out._be = be
                return out
        except (RuntimeError, ValueError, TypeError):
            pass  # the checks and their messages below
    return _reshape_checked(x, shape, copy)


@boundary
def _reshape_checked(x: Array, shape: Any, copy: bool | None) -> Array:
    """``reshape`` off its fast path: every check, with its message (a function of its own: the generator
    below makes cells of its locals, which would cost the fast path ~50 ns per call)."""
    shape = _shape_tuple(shape, "reshape")
    known = 1
    unknown = 0
    for s in shape:
        if s == -1:
            unknown += 1
        elif s < 0:
            raise ArgumentValueError(f"reshape(): invalid shape {shape}: entries must be >= 0, or -1 for one "
                                     "inferred dimension")  # fmt: skip
        else:
            known *= s
    size = x.size
    if size is None:
        raise ShapeError(f"reshape(): this lazy Array's size is not known yet (after a boolean mask); its sizes are "
                         f"{x.shape}. Fix: x = x.persist() first, which computes them")  # fmt: skip
    if unknown > 1:
        raise ArgumentValueError(f"reshape(): only one dimension may be -1, got {shape}")
    if unknown:
        if known == 0 or size % known:
            raise ShapeError(f"reshape(): cannot reshape an Array of size {size} into shape {shape}. Fix: the sizes "
                             "must multiply to x.size")  # fmt: skip
        shape = tuple(size // known if s == -1 else s for s in shape)
    elif known != size:
        raise ShapeError(f"reshape(): cannot reshape an Array of size {size} into shape {shape}. Fix: the sizes "
                         "must multiply to x.size")  # fmt: skip
    A.check_size(shape, x._dt.itemsize, "reshape")  # (2**62, 0, 4) holds nothing, but no index reaches it
    try:
        data = x._be.reshape(x._data, shape, copy=copy)
    except (AttributeError, RuntimeError, ValueError) as exc:
        if copy is False:
            raise CopyError(f"reshape(): copy=False, but shape {x.shape} -> {shape} needs a copy for this "
                             "memory layout. Fix: copy=None (copy only when needed)") from exc  # fmt: skip
        raise
    return _new(data, x._dt, x._dev, x._be)


def expand_dims(x: Array, /, axis: int | tuple[int, ...] = 0) -> Array:
    """Insert size-1 axes at ``axis`` (an int or, since 2025.12, a tuple of positions in the result).

    ``axis`` defaults to 0 as in the 2024.12 signature, so older code keeps working.

    >>> import xbackend as xb
    >>> xb.expand_dims(xb.asarray([1, 2]), axis=-1).shape
    (2, 1)
    """
    x = x if type(x) is Array else to_array(x)
    if axis is None:
        raise ArgumentTypeError("expand_dims(): axis must be an int or a tuple of ints, got None. Fix: pass the "
                                "position(s) of the new axes, e.g. axis=0")  # fmt: skip
    n = len(axis) if type(axis) is tuple or type(axis) is list else 1
    new = _axes(axis, x.ndim + n, "expand_dims")
    it = iter(x._data.shape)
    shape = tuple(1 if i in new else next(it) for i in range(x.ndim + n))
    return _new(x._be.reshape(x._data, shape), x._dt, x._dev, x._be)


def squeeze(x: Array, /, axis: int | tuple[int, ...]) -> Array:
    """Remove size-1 axes; an axis whose size is not 1 raises ``ValueError``.

    >>> import xbackend as xb
    >>> xb.squeeze(xb.zeros((1, 3, 1)), axis=(0, 2)).shape
    (3,)
    """
    x = x if type(x) is Array else to_array(x)
    if axis is None:
        raise ArgumentTypeError("squeeze(): axis must be an int or a tuple of ints (the standard has no 'squeeze "
                                "all'). Fix: name the axes, e.g. axis=0")  # fmt: skip
    gone = _axes(axis, x.ndim, "squeeze")
    shape = x._data.shape
    for a in gone:
        if shape[a] != 1:
            raise ShapeError(f"squeeze(): axis {a} has size {shape[a]}, not 1 (shape {tuple(shape)}). Fix: squeeze only "
                             "axes of size 1")  # fmt: skip
    new = tuple(s for i, s in enumerate(shape) if i not in gone)
    return _new(x._be.reshape(x._data, new), x._dt, x._dev, x._be)


def permute_dims(x: Array, /, axes: tuple[int, ...]) -> Array:
    """Permute the axes of ``x`` (negative axes allowed since 2025.12).

    >>> import xbackend as xb
    >>> xb.permute_dims(xb.zeros((2, 3, 4)), (-1, 0, 1)).shape
    (4, 2, 3)
    """
    x = x if type(x) is Array else to_array(x)
    perm = _axes(tuple(axes), x.ndim, "permute_dims")
    if len(perm) != x.ndim:
        raise AxisError(f"permute_dims(): axes {tuple(axes)} is not a permutation of {x.ndim} axes")
    return _new(x._be.permute(x._data, perm), x._dt, x._dev, x._be)


def moveaxis(x: Array, source: int | tuple[int, ...], destination: int | tuple[int, ...], /) -> Array:
    """Move axes to new positions; the other axes keep their order.

    >>> import xbackend as xb
    >>> xb.moveaxis(xb.zeros((2, 3, 4)), 0, -1).shape
    (3, 4, 2)
    """
    x = x if type(x) is Array else to_array(x)
    src = _axes(source, x.ndim, "moveaxis")
    dst = _axes(destination, x.ndim, "moveaxis")
    if len(src) != len(dst):
        raise ArgumentValueError(f"moveaxis(): source {source} and destination {destination} differ in length")
    rest = [i for i in range(x.ndim) if i not in src]
    for d, s in sorted(zip(dst, src)):
        rest.insert(d, s)
    return _new(x._be.permute(x._data, tuple(rest)), x._dt, x._dev, x._be)


# --- rearranging values ----------------------------------------------------------------------------
def flip(x: Array, /, *, axis: int | tuple[int, ...] | None = None) -> Array:
    """Reverse the order of elements along ``axis`` (default: every axis).

    >>> import xbackend as xb
    >>> xb.flip(xb.asarray([[1, 2], [3, 4]]), axis=1).tolist()
    [[2, 1], [4, 3]]
    """
    x = x if type(x) is Array else to_array(x)
    axes = _axes(axis, x.ndim, "flip")
    return _new(x._be.flip(x._data, axes), x._dt, x._dev, x._be)


def roll(x: Array, /, shift: int | tuple[int, ...], *, axis: int | tuple[int, ...] | None = None) -> Array:
    """Shift elements along ``axis``; elements leaving one end come back at the other.
    ``axis=None`` rolls the flattened Array and restores the shape.

    >>> import xbackend as xb
    >>> xb.roll(xb.asarray([1, 2, 3, 4]), 1).tolist()
    [4, 1, 2, 3]
    """
    x = x if type(x) is Array else to_array(x)
    be = x._be
    if axis is None:
        if type(shift) is tuple or type(shift) is list:
            raise ArgumentTypeError("roll(): a tuple shift needs a tuple axis of the same length")
        flat = be.reshape(x._data, (-1,))
        out = be.roll(flat, (_int(shift, "roll() shift") % max(1, x.size or 1),), (0,))
        return _new(be.reshape(out, x._data.shape), x._dt, x._dev, be)
    axes = tuple(_axis(a, x.ndim, "roll") for a in (axis if isinstance(axis, (tuple, list)) else (axis,)))
    if type(shift) is tuple or type(shift) is list:
        if len(shift) != len(axes):
            raise ArgumentValueError(f"roll(): shift {tuple(shift)} and axis {axis} differ in length")
        shifts = tuple(_int(s, "roll() shift") % max(1, x.shape[a] or 1) for s, a in zip(shift, axes))
        if len(shifts) != len(axes):
            raise ArgumentValueError(f"roll(): shift {tuple(shift)} and axis {axis} differ in length")
    else:
        shifts = tuple(_int(shift, "roll() shift") % max(1, x.shape[a] or 1) for a in axes)
    if not axes:
        return _new(be.astype(x._data, x._dt, copy=True), x._dt, x._dev, be)
    return _new(be.roll(x._data, shifts, axes), x._dt, x._dev, be)


def repeat(x: Array, repeats: int | Array, /, *, axis: int | None = None) -> Array:
    """Repeat each element ``repeats`` times (an int, or an integer Array of shape ``(1,)`` or ``(n,)``).
    ``axis=None`` works on the flattened Array. An Array of repeats makes the output shape
    data-dependent (one device synchronisation on a GPU).

    >>> import xbackend as xb
    >>> xb.repeat(xb.asarray([1, 2]), 2).tolist(), xb.repeat(xb.asarray([1, 2]), xb.asarray([0, 3])).tolist()
    ([1, 1, 2, 2], [2, 2, 2])
    """
    x = x if type(x) is Array else to_array(x)
    be = x._be
    data = x._data
    if axis is None:
        data = be.reshape(data, (-1,))
        ax, n = 0, x.size
    else:
        ax = _axis(axis, x.ndim, "repeat")
        n = x.shape[ax]
    if type(repeats) is Array:
        if repeats._be is not be or repeats._dev is not x._dev:
            _check_partner(x, repeats)
        if repeats._dt.kind not in "iu":
            raise ArgumentTypeError(f"repeat(): repeats must be an int or an integer Array, got {repeats._dt}")
        if repeats.ndim != 1 or repeats.shape[0] not in (1, n):
            raise ShapeError(f"repeat(): repeats of shape {repeats.shape} does not broadcast to ({n},)")
        r: Any = repeats._data
    else:
        r = _int(repeats, "repeat() repeats")
        A.check_size((n or 0, max(r, 0)), x._dt.itemsize, "repeat")
        if r < 0:
            raise ShapeError(f"repeat(): repeats must be non-negative, got {r} (an axis cannot have a negative size). "
                             "Fix: pass repeats >= 0 (0 drops the elements)")
    return _new(be.repeat(data, r, ax), x._dt, x._dev, be)


def tile(x: Array, repetitions: tuple[int, ...], /) -> Array:
    """Tile ``x``: ``repetitions[i]`` copies along axis ``i`` (shorter sides get leading ones).

    >>> import xbackend as xb
    >>> xb.tile(xb.asarray([1, 2]), (2, 2)).tolist()
    [[1, 2, 1, 2], [1, 2, 1, 2]]
    """
    x = x if type(x) is Array else to_array(x)
    reps = _shape_tuple(repetitions, "tile")
    if any(r < 0 for r in reps):
        raise ArgumentValueError(f"tile(): repetitions must be non-negative, got {reps}")
    n = max(len(reps), x.ndim)
    reps = (1,) * (n - len(reps)) + reps
    xs = (1,) * (n - x.ndim) + tuple(x._data.shape)
    out = tuple(a * b for a, b in zip(xs, reps))
    A.check_size(out, x._dt.itemsize, "tile")
    if any(d >= 2**63 for d in out):  # a dimension no array can have, even an empty one
        raise ShapeError(f"tile(): the result would have a dimension of {max(out)}, more than any array can have. "
                         "Fix: ask for fewer repetitions")  # fmt: skip
    if 0 in out:  # nothing to copy (and repetitions beyond int64 that some libraries cannot take)
        return _new(x._be.zeros(out, x._dt, x._dev), x._dt, x._dev, x._be)
    data = x._data
    if x.ndim < n:
        data = x._be.reshape(data, (1,) * (n - x.ndim) + tuple(data.shape))
    return _new(x._be.tile(data, reps), x._dt, x._dev, x._be)

