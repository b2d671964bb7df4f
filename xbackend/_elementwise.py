"""Every elementwise function of the Array API standard (2025.12).

Design constraint: one implementation per arity. Each public function is the same code path as
the matching operator (``xb.add(x, y)`` is ``x + y``), built from the category table in ``_rules``:
the standard's special cases (NaN, +-inf, +-0) come from the backends' IEEE kernels, and the few
places where a backend deviates are patched in that backend's module.

Binary functions accept one Python scalar in either position (2024.12):

>>> import xbackend as xb
>>> x = xb.asarray([1.0, -2.0, 4.0])
>>> xb.add(x, 1).tolist(), xb.pow(2, x).tolist()
([2.0, -1.0, 5.0], [2.0, 0.25, 16.0])
>>> xb.sqrt(xb.asarray([4, 9])).dtype  # integer input computes in the default float dtype
xb.float64
>>> xb.clip(x, -1.0, 2.0).tolist()
[1.0, -1.0, 2.0]
"""

from __future__ import annotations

from typing import Any, Callable

from . import _dtypes as D
from ._array import Array, _check_partner, _scalar_dtype, binary, unary, _new
from ._creation import asarray
from ._errors import PromotionError
from ._rules import ELEMENTWISE

__all__ = sorted([n for n, (k, _) in ELEMENTWISE.items() if n != "matmul"] + ["clip"])

_SCALARS = (int, float, complex, bool)


def _as_array(x: Any) -> Array:

    return asarray(x)


def _make_binary(name: str) -> Callable[..., Array]:
    fwd = binary(name)
    rev = binary(name, reflected=True)

    def fn(x1: Any, x2: Any, /) -> Array:
        if type(x1) is Array:
            return fwd(x1, x2)
        if type(x2) is Array:
            return rev(x2, x1)
        if type(x1) in _SCALARS:
            return rev(_as_array(x2), x1)
        return fwd(_as_array(x1), x2)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise ``{name}`` of the Array API standard; one argument may be a Python scalar."
    return fn


def _make_unary(name: str) -> Callable[..., Array]:
    op = unary(name)

    def fn(x: Any, /) -> Array:
        return op(x if type(x) is Array else _as_array(x))

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise ``{name}`` of the Array API standard."
    return fn


def _make_round() -> Callable[..., Array]:
    op = unary("round")

    def round(x: Any, /, *, decimals: int = 0) -> Array:  # noqa: A001 - the standard's name
        """Round half to even (on every backend); ``decimals`` scales by ``10**decimals`` first.

        >>> import xbackend as xb
        >>> xb.round(xb.asarray([0.5, 1.5, 2.5, -0.5])).tolist()
        [0.0, 2.0, 2.0, -0.0]
        """
        x = x if type(x) is Array else _as_array(x)
        if decimals == 0 or x.dtype.kind in "biu":
            return op(x)
        scale = 10.0**decimals
        return op(x * scale) / scale

    return round


for _name, (_n, _cat) in ELEMENTWISE.items():
    if _name == "matmul":
        continue
    if _name == "round":
        globals()[_name] = _make_round()
    else:
        globals()[_name] = (_make_binary if _n == 2 else _make_unary)(_name)


def clip(x: Array, /, min: Any = None, max: Any = None) -> Array:  # noqa: A002 - the standard's names
    """Clamp ``x`` to ``[min, max]``; the result keeps ``x``'s dtype, NaN stays NaN.

    >>> import xbackend as xb
    >>> xb.clip(xb.asarray([1, 5, 9]), 2, 6).tolist()
    [2, 5, 6]
    """
    x = x if type(x) is Array else _as_array(x)
    if x.dtype.kind in "bc":
        raise D.UnsupportedDTypeError(f"clip() needs a real numeric dtype, got {x.dtype}")
    bounds = []
    for b in (min, max):
        if b is None or type(b) in _SCALARS:
            if b is not None and _scalar_dtype(x, b) is not x.dtype:
                raise PromotionError(f"clip() bound {b!r} does not fit {x.dtype}; cast x first")
            bounds.append(b)
            continue
        if type(b) is not Array:
            b = _as_array(b)
        if b._be is not x._be or b._dev is not x._dev:
            _check_partner(x, b)
        if D.PROMOTION.get((x.dtype, b.dtype)) is not x.dtype:
            raise PromotionError(f"clip() bound of dtype {b.dtype} does not fit {x.dtype}; cast it first")
        bounds.append(b._data if b.dtype is x.dtype else x._be.astype(b._data, x.dtype))
    if bounds[0] is None and bounds[1] is None:
        return _new(x._be.astype(x._data, x.dtype, copy=True), x.dtype, x._dev, x._be)
    return _new(x._be.kernel("clip", x.dtype)(x._data, bounds[0], bounds[1]), x.dtype, x._dev, x._be)
