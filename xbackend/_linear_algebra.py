"""Linear algebra in the main namespace (the standard's section of that name): matmul, matrix_transpose, tensordot,
vecdot.

Design constraint: dtypes come from the promotion table, never from the backend; integer inputs stay
integer (these are numeric functions, not floating-point ones), and torch's missing uint16/32/64
kernels are emulated in its backend module. ``xb.linalg`` re-exports these under the same names.
"""

from __future__ import annotations

from typing import Any, Sequence

from . import _dtypes as D
from ._array import Array, _check_partner, _new
from ._coerce import first_array, to_array
from ._dtypes import DType
from ._errors import ArgumentTypeError, ArgumentValueError, AxisError, ShapeError, UnsupportedDTypeError
from ._operators import matmul as _matmul

__all__ = ["matmul", "matrix_transpose", "tensordot", "vecdot"]


def _pair(x1: Any, x2: Any) -> tuple[Array, Array]:
    """Both operands as Arrays on one backend and device (else the usual mismatch error); Python data takes the
    place of the other operand (``xbackend._coerce``)."""
    a = first_array(x1, x2)
    if a is None:
        a = to_array(x1)
    return to_array(x1, a), to_array(x2, a)


def _numeric_pair(x1: Any, x2: Any, name: str) -> tuple[Array, Array, DType]:
    """Both operands as Arrays on one backend/device, and their promoted numeric dtype."""
    x1, x2 = _pair(x1, x2)
    d1, d2 = x1._dt, x2._dt
    dt = d1 if d1 is d2 else D.promote(d1, d2)
    if dt.kind == "b":
        raise UnsupportedDTypeError(f"{name}() needs numeric Arrays, got {d1} and {d2}. Fix: x.astype(xb.int64)")
    return x1, x2, dt


def _native(x: Array, dt: DType) -> Any:
    return x._data if x._dt is dt else x._be.astype(x._data, dt)


def matrix_transpose(x: Array, /) -> Array:
    """Transpose the last two axes of ``x`` (a view where the backend has views), like ``x.mT``.

    >>> import xbackend as xb
    >>> xb.linalg.matrix_transpose(xb.asarray([[1, 2, 3]])).tolist()
    [[1], [2], [3]]
    """
    if type(x) is not Array:
        x = to_array(x)
    return x.mT


def tensordot(x1: Array, x2: Array, /, *, axes: int | tuple[Sequence[int], Sequence[int]] = 2) -> Array:
    """Sum of products over ``axes``: the last ``axes`` axes of ``x1`` with the first of ``x2``, or two
    sequences of axes (negative axes allowed). The dtype follows the promotion table.

    >>> import xbackend as xb
    >>> a = xb.asarray([[1.0, 2.0], [3.0, 4.0]])
    >>> xb.linalg.tensordot(a, a, axes=1).tolist(), float(xb.linalg.tensordot(a, a))
    ([[7.0, 10.0], [15.0, 22.0]], 30.0)
    """
    x1, x2, dt = _numeric_pair(x1, x2, "tensordot")
    n1, n2 = x1.ndim, x2.ndim
    s1, s2 = tuple(x1._data.shape), tuple(x2._data.shape)
    if isinstance(axes, int) and not isinstance(axes, bool):
        if axes < 0 or axes > n1 or axes > n2:
            raise ArgumentValueError(f"tensordot axes={axes} must be in 0..{min(n1, n2)} for shapes {s1} and {s2}")
        a1, a2 = list(range(n1 - axes, n1)), list(range(axes))
    else:
        try:
            a1, a2 = ([int(a) for a in ax] for ax in axes)  # type: ignore[union-attr]
        except (TypeError, ValueError):
            raise ArgumentTypeError(f"tensordot axes must be an int or two sequences of ints, got {axes!r}") from None
        if len(a1) != len(a2):
            raise ArgumentValueError(f"tensordot axes {axes!r}: both sequences need the same length")
        for a, n in zip((a1, a2), (n1, n2)):
            for i, v in enumerate(a):
                if not -n <= v < n:
                    raise AxisError(f"tensordot axis {v} is out of range for an Array with {n} dimensions")
                a[i] = v % n
    for i, j in zip(a1, a2):
        if s1[i] != s2[j]:
            raise ShapeError(f"tensordot: axis {i} of x1 (size {s1[i]}) and axis {j} of x2 (size {s2[j]}) differ")
    be = x1._be
    p, q = _native(x1, dt), _native(x2, dt)
    if not a1:  # no axes to contract (0-d operands included): the outer product, as a broadcast multiply
        p = be.reshape(p, tuple(s1) + (1,) * n2)  # (backends disagree on empty axes: CuPy refuses ([], []))
        return _new(be.kernel("multiply", dt)(p, q), dt, x1._dev, be)
    out = be.la_tensordot(p, q, (tuple(a1), tuple(a2)))
    return _new(out, dt, x1._dev, be)


def _vector_axis(axis: int, n1: int, n2: int, name: str) -> int:
    n = min(n1, n2)
    if isinstance(axis, bool) or not isinstance(axis, int) or not -n <= axis <= -1:
        raise AxisError(f"{name}() axis must be a negative int in [-{n}, -1] (the standard counts from the end), "
                         f"got {axis!r}")  # fmt: skip
    return axis


def vecdot(x1: Array, x2: Array, /, *, axis: int = -1) -> Array:
    """Dot product of vectors along ``axis`` (``sum(conj(x1) * x2)``), broadcasting the other axes.

    >>> import xbackend as xb
    >>> xb.linalg.vecdot(xb.asarray([[1.0, 2.0], [3.0, 4.0]]), xb.asarray([1.0, 1.0])).tolist()
    [3.0, 7.0]
    >>> xb.linalg.vecdot(xb.asarray([1j]), xb.asarray([1j])).item()  # the first argument is conjugated
    (1+0j)
    """
    x1, x2, dt = _numeric_pair(x1, x2, "vecdot")
    if x1.ndim == 0 or x2.ndim == 0:
        raise ShapeError("vecdot() needs Arrays with at least one dimension")
    axis = _vector_axis(axis, x1.ndim, x2.ndim, "vecdot")
    if x1.shape[axis] != x2.shape[axis]:
        raise ShapeError(f"vecdot(): the vectors along axis {axis} differ in length: {x1.shape} and {x2.shape}")
    be = x1._be
    return _new(be.la_vecdot(_native(x1, dt), _native(x2, dt), axis), dt, x1._dev, be)


def matmul(x1: Array, x2: Array, /) -> Array:
    """Matrix product with the standard's broadcasting rules.

    >>> import xbackend as xb
    >>> xb.matmul(xb.eye(2), xb.asarray([[1.0], [2.0]])).tolist()
    [[1.0], [2.0]]
    """
    if type(x1) is not Array:
        a = first_array(x1, x2)
        x1 = to_array(x1, a) if a is not None else to_array(x1)
    return _matmul(x1, x2)
