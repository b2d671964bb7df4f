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

import inspect

import math
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from . import _args as A, _dtypes as D
from ._array import Array, _check_partner, _new
from ._operators import binary, unary
from ._coerce import is_native, py_scalar, scalar_dtype as _scalar_dtype, to_array, wrap_native
from . import _boundary
from ._errors import ArgumentTypeError, ArgumentValueError, PromotionError, ShapeError
from ._rules import ELEMENTWISE

# written out (type checkers read a literal ``__all__`` only); checked against the category table at import
__all__ = [
    "abs", "acos", "acosh", "add", "asin", "asinh", "atan", "atan2", "atanh", "bitwise_and", "bitwise_invert",
    "bitwise_left_shift", "bitwise_or", "bitwise_right_shift", "bitwise_xor", "cbrt", "ceil", "clip", "conj",
    "copysign", "cos", "cosh", "divide", "equal", "exp", "expm1", "floor", "floor_divide", "greater",
    "greater_equal", "hypot", "imag", "isfinite", "isinf", "isnan", "less", "less_equal", "log", "log10",
    "log1p", "log2", "logaddexp", "logical_and", "logical_not", "logical_or", "logical_xor", "maximum",
    "minimum", "multiply", "negative", "nextafter", "not_equal", "positive", "pow", "real", "reciprocal",
    "remainder", "round", "sign", "signbit", "sin", "sinh", "sqrt", "square", "subtract", "tan", "tanh", "trunc",
]  # fmt: skip
if sorted(__all__) != sorted([n for n in ELEMENTWISE if n != "matmul"] + ["clip"]):  # pragma: no cover
    raise ImportError("xbackend._elementwise.__all__ is out of date with _rules.ELEMENTWISE")

_SCALARS = (int, float, complex, bool)


def _make_binary(name: str) -> Callable[..., Array]:
    fwd = binary(name)
    rev = binary(name, reflected=True)

    def fn(x1: Any, x2: Any, /) -> Array:
        if type(x1) is Array:
            r = fwd(x1, x2)
        elif type(x2) is Array:
            r = rev(x2, x1)
        elif is_native(x1):
            r = fwd(wrap_native(x1), x2)  # Python data takes the place of the native array
        elif is_native(x2):
            r = rev(wrap_native(x2), x1)
        elif type(x1) in _SCALARS:
            r = rev(to_array(x2), x1)
        else:
            r = fwd(to_array(x1), x2)
        if r is NotImplemented:
            raise ArgumentTypeError(f"{name}() takes Arrays, native arrays, Python scalars or nested lists of "
                                    f"numbers, got {type(x1).__name__} and {type(x2).__name__}")  # fmt: skip
        return r

    fn.__name__ = fn.__qualname__ = name
    doc = f"Elementwise ``{name}`` of the Array API standard; one argument may be a Python scalar."
    public = binary(name, slow=fn)  # the operator's fast path itself, with fn for a first argument not an Array
    public.__name__ = public.__qualname__ = name
    public.__module__ = __name__
    public.__doc__ = fn.__doc__ = doc
    public.__signature__ = inspect.signature(fn)  # (x1, x2, /), as fn spells it
    return public


#: the elementwise functions beyond the standard, with their documentation
BEYOND = {
    "cbrt": """The real cube root of each element (IEEE 754's ``rootn(x, 3)``; not in the Array API standard):
    negative for negative ``x``, ``+-0`` and ``+-inf`` kept, NaN for NaN; the exact root correctly rounded in float32
    and float64 on every backend, so every backend gives the same value (float16: within 1 ulp). NumPy's own
    ``cbrt`` is off by up to 2 ulps on some machines; xbackend refines the library's root (or ``|x| ** (1/3)``
    where a library has none) with one Newton step and one step whose residual is exact.
    Integers and bools are computed in the default float dtype.

    >>> import xbackend as xb
    >>> xb.cbrt(xb.asarray([-27.0, 8.0, 0.001, -0.0])).tolist()
    [-3.0, 2.0, 0.1, -0.0]
    """,
}


def _make_unary(name: str) -> Callable[..., Array]:
    fn = unary(name)  # takes non-Arrays too (through asarray): one call, not two, on the hot path
    fn.__name__ = fn.__qualname__ = name
    fn.__module__ = __name__
    fn.__doc__ = BEYOND.get(name) or f"Elementwise ``{name}`` of the Array API standard."
    return fn


def _make_round() -> Callable[..., Array]:
    op = unary("round")

    def round(x: Any, /, *, decimals: int = 0) -> Array:  # noqa: A001 - the standard's name
        """Round half to even (on every backend); ``decimals`` scales by ``10**decimals`` first.

        >>> import xbackend as xb
        >>> xb.round(xb.asarray([0.5, 1.5, 2.5, -0.5])).tolist()
        [0.0, 2.0, 2.0, -0.0]
        """
        x = x if type(x) is Array else to_array(x)
        decimals = A.integer(decimals, "round", "decimals")
        if decimals == 0 or x.dtype.kind in "biu":
            return op(x)
        if not -308 <= decimals <= 308:  # 10.0**decimals would overflow: one refusal instead of inf/NaN results
            raise ArgumentValueError(f"round(): decimals must be in -308..308 (float64's exponent range), got "
                                     f"{decimals}")  # fmt: skip
        scale = 10.0**decimals
        return op(x * scale) / scale

    return round


if TYPE_CHECKING:  # the functions the loop below builds from the category table, as type checkers see them
    def abs(x: Any, /) -> Array: ...
    def acos(x: Any, /) -> Array: ...
    def acosh(x: Any, /) -> Array: ...
    def add(x1: Any, x2: Any, /) -> Array: ...
    def asin(x: Any, /) -> Array: ...
    def asinh(x: Any, /) -> Array: ...
    def atan(x: Any, /) -> Array: ...
    def atan2(x1: Any, x2: Any, /) -> Array: ...
    def atanh(x: Any, /) -> Array: ...
    def bitwise_and(x1: Any, x2: Any, /) -> Array: ...
    def bitwise_invert(x: Any, /) -> Array: ...
    def bitwise_left_shift(x1: Any, x2: Any, /) -> Array: ...
    def bitwise_or(x1: Any, x2: Any, /) -> Array: ...
    def bitwise_right_shift(x1: Any, x2: Any, /) -> Array: ...
    def bitwise_xor(x1: Any, x2: Any, /) -> Array: ...
    def cbrt(x: Any, /) -> Array: ...
    def ceil(x: Any, /) -> Array: ...
    def conj(x: Any, /) -> Array: ...
    def copysign(x1: Any, x2: Any, /) -> Array: ...
    def cos(x: Any, /) -> Array: ...
    def cosh(x: Any, /) -> Array: ...
    def divide(x1: Any, x2: Any, /) -> Array: ...
    def equal(x1: Any, x2: Any, /) -> Array: ...
    def exp(x: Any, /) -> Array: ...
    def expm1(x: Any, /) -> Array: ...
    def floor(x: Any, /) -> Array: ...
    def floor_divide(x1: Any, x2: Any, /) -> Array: ...
    def greater(x1: Any, x2: Any, /) -> Array: ...
    def greater_equal(x1: Any, x2: Any, /) -> Array: ...
    def hypot(x1: Any, x2: Any, /) -> Array: ...
    def imag(x: Any, /) -> Array: ...
    def isfinite(x: Any, /) -> Array: ...
    def isinf(x: Any, /) -> Array: ...
    def isnan(x: Any, /) -> Array: ...
    def less(x1: Any, x2: Any, /) -> Array: ...
    def less_equal(x1: Any, x2: Any, /) -> Array: ...
    def log(x: Any, /) -> Array: ...
    def log10(x: Any, /) -> Array: ...
    def log1p(x: Any, /) -> Array: ...
    def log2(x: Any, /) -> Array: ...
    def logaddexp(x1: Any, x2: Any, /) -> Array: ...
    def logical_and(x1: Any, x2: Any, /) -> Array: ...
    def logical_not(x: Any, /) -> Array: ...
    def logical_or(x1: Any, x2: Any, /) -> Array: ...
    def logical_xor(x1: Any, x2: Any, /) -> Array: ...
    def maximum(x1: Any, x2: Any, /) -> Array: ...
    def minimum(x1: Any, x2: Any, /) -> Array: ...
    def multiply(x1: Any, x2: Any, /) -> Array: ...
    def negative(x: Any, /) -> Array: ...
    def nextafter(x1: Any, x2: Any, /) -> Array: ...
    def not_equal(x1: Any, x2: Any, /) -> Array: ...
    def positive(x: Any, /) -> Array: ...
    def pow(x1: Any, x2: Any, /) -> Array: ...
    def real(x: Any, /) -> Array: ...
    def reciprocal(x: Any, /) -> Array: ...
    def remainder(x1: Any, x2: Any, /) -> Array: ...
    def round(x: Any, /, *, decimals: int = 0) -> Array: ...  # noqa: A001
    def sign(x: Any, /) -> Array: ...
    def signbit(x: Any, /) -> Array: ...
    def sin(x: Any, /) -> Array: ...
    def sinh(x: Any, /) -> Array: ...
    def sqrt(x: Any, /) -> Array: ...
    def square(x: Any, /) -> Array: ...
    def subtract(x1: Any, x2: Any, /) -> Array: ...
    def tan(x: Any, /) -> Array: ...
    def tanh(x: Any, /) -> Array: ...
    def trunc(x: Any, /) -> Array: ...

for _name, (_n, _cat) in ELEMENTWISE.items():
    if _name == "matmul":
        continue
    if _name == "round":
        globals()[_name] = _make_round()
    else:
        globals()[_name] = (_make_binary if _n == 2 else _make_unary)(_name)


def _clip_call(lo: Any, hi: Any) -> str:
    """``xb.clip({}, lo, hi)`` as the fixes of clip's errors spell the call (scalar bounds by value)."""
    show = [repr(py_scalar(b) if isinstance(b, np.generic) else b) if b is None or type(b) in _SCALARS or
            isinstance(b, np.generic) else name for b, name in ((lo, "min"), (hi, "max"))]  # fmt: skip
    return f"xb.clip({{}}, {show[0]}, {show[1]})"


def _bound(x: Array, b: Any, which: str, call: Callable[[], str]) -> Any:
    """One bound of ``clip``: None, a Python scalar that fits ``x``'s dtype, or a native array of x's dtype.

    An integer bound outside x's range is clamped to it (every value of x already lies inside, so the result is
    exact); only a lower bound above the range (or an upper one below it) has no answer in x's dtype and raises."""
    if isinstance(b, np.generic):
        b = py_scalar(b)  # NumPy scalars are weak, like Python scalars
    if b is None:
        return None
    dt = x._dt
    if type(b) in _SCALARS:
        if type(b) is bool:
            b = int(b)
        if type(b) is int and dt.kind in "iu":
            lo, hi = D._INT_RANGE[dt]
            if lo <= b <= hi:
                return b
            if (b > hi) == (which == "max"):
                return hi if b > hi else lo  # a bound beyond the range changes nothing
            h = D.holder(b, dt)
            raise D.ScalarOverflowError(
                f"clip(): {which}={b} lies outside {dt} (range {lo}..{hi}), so every result would be {b}, which {dt} "
                f"cannot hold. Fix: cast x to a dtype that holds it first, e.g. "
                f"{call().format(f'x.astype(xb.{h.name})')}")
        if type(b) is int:  # a float Array: the bound is rounded to a float on the host, as NumPy does (huge ints
            try:  # become +-inf); libraries that take the int itself fail beyond int64 (torch: "int too big")
                return float(b)
            except OverflowError:
                return math.inf if b > 0 else -math.inf
        if type(b) is float and dt.kind == "f":
            return b
        raise PromotionError(f"clip(): {which}={b!r} does not fit {dt} (a {type(b).__name__} bound with an {dt} Array "
                             f"would change its dtype). Fix: cast x first, e.g. "
                             f"{call().format('x.astype(xb.float64)')}")
    a = to_array(b, x)
    if D.PROMOTION.get((dt, a._dt)) is not dt:
        raise PromotionError(f"clip(): {which} of dtype {a._dt} does not fit {dt}; the result keeps x's dtype. Fix: "
                             f"cast the bound, e.g. {which}.astype({dt!r}), or x to a wider dtype")  # fmt: skip
    return a._data if a._dt is dt else x._be.astype(a._data, dt)


def clip(x: Array, /, min: Any = None, max: Any = None) -> Array:  # noqa: A002 - the standard's names
    """Clamp ``x`` to ``[min, max]``; ``x``, ``min`` and ``max`` broadcast together, the result keeps ``x``'s dtype,
    NaN stays NaN.

    >>> import xbackend as xb
    >>> xb.clip(xb.asarray([1, 5, 9]), 2, 6).tolist()
    [2, 5, 6]
    """
    x = x if type(x) is Array else to_array(x)
    if x.dtype.kind in "bc":
        raise D.UnsupportedDTypeError(f"clip() needs a real numeric dtype, got {x.dtype}. Fix: clip xb.real(x), or "
                                      "cast a bool Array, e.g. x.astype(xb.int64)")  # fmt: skip
    call = lambda: _clip_call(min, max)  # noqa: E731 - the error messages' spelling, made only when one is raised
    bounds = [_bound(x, min, "min", call), _bound(x, max, "max", call)]
    shape = xs = tuple(x._data.shape)
    for b, which in zip(bounds, ("min", "max")):  # x, min and max broadcast together (the standard; array-api-tests)
        bs = getattr(b, "shape", None)
        if bs is not None:
            r = _boundary.broadcast(tuple(bs), shape)
            if r is None:
                raise ShapeError(f"clip(): {which} of shape {tuple(bs)} does not broadcast with x's shape {xs}"
                                 f"{'' if shape == xs else f' and the other bound (together {shape})'}. Fix: reshape "
                                 f"the bound, e.g. xb.broadcast_to({which}, x.shape)")  # fmt: skip
            shape = r
    data = x._data if shape == xs else x._be.broadcast_to(x._data, shape)  # (the kernels write a new array)
    if bounds[0] is None and bounds[1] is None:
        return _new(x._be.astype(data, x.dtype, copy=True), x.dtype, x._dev, x._be)
    return _new(x._be.kernel("clip", x.dtype)(data, bounds[0], bounds[1]), x.dtype, x._dev, x._be)
