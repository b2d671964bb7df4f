"""NumPy's ways into an Array: ``x.reshape(2, 3)``, ``x.sum(axis=0)``, ``x.swapaxes(0, 1)`` and ``np.abs(x)``.

Design constraint: the standard's array object has none of these, but NumPy's ndarray and torch.Tensor do, and
code written for them - SciPy's and scikit-learn's among it - calls them on whatever array it is given. Each
one forwards to the xbackend function of the same meaning, so its result (value, dtype, device) is the same on
every backend; where NumPy and torch disagree, NumPy's meaning is the standard's (``x.max(axis=0)`` is the
values, not torch's ``(values, indices)``).

- The methods ``reshape``, ``swapaxes``, ``sum``, ``prod``, ``mean``, ``max``, ``min``, ``any`` and ``all``
  take NumPy's arguments (``axis`` positional or keyword, ``keepdims``; ``dtype`` for ``sum``/``prod``).
  ``out=`` and ``order=`` exist so that ``np.sum(x)`` and ``np.reshape(x, s)``, which call the method, work;
  ``out`` must be None and ``order`` ``"C"``.
- ``__array_ufunc__`` (NEP 13): a NumPy ufunc called on Arrays (``np.abs(x)``, ``np.add(a, x)``) runs the
  xbackend function of that name on x's backend and device and returns an Array - on a GPU or lazily on Dask
  too, never through a silent host copy. NumPy's operators with an ndarray on the left (``a + x``) arrive here
  as well and give what ``x.__radd__(a)`` gives. A ufunc method (``np.add.reduce``), ``out=`` or other keywords,
  and ufuncs xbackend has no function for raise :class:`~xbackend.ArgumentTypeError` with the fix.

Importing this module changes nothing; ``xbackend/_assemble.py`` puts :func:`methods` on the Array.

>>> import numpy as np, xbackend as xb
>>> x = xb.asarray([[1.0, -2.0], [3.0, -4.0]], backend="numpy")
>>> x.reshape(4).tolist(), x.sum(axis=0).tolist(), x.swapaxes(0, 1).shape, float(x.max())
([1.0, -2.0, 3.0, -4.0], [4.0, -6.0], (2, 2), 3.0)
>>> r = np.abs(x)
>>> type(r).__name__, r.backend, r.tolist(), float(np.sum(x))
('Array', 'numpy', [[1.0, 2.0], [3.0, 4.0]], -2.0)
"""

from __future__ import annotations

import types
from typing import Any, Callable

import numpy as np

from ._errors import ArgumentTypeError, ArgumentValueError

__all__ = ["methods", "UFUNC_NAMES"]

#: NumPy ufunc name -> xbackend function name, where they differ; every other ufunc is looked up by its own name
UFUNC_NAMES = {
    "absolute": "abs", "power": "pow", "true_divide": "divide", "mod": "remainder", "conjugate": "conj",
    "arcsin": "asin", "arccos": "acos", "arctan": "atan", "arcsinh": "asinh", "arccosh": "acosh",
    "arctanh": "atanh", "arctan2": "atan2", "invert": "bitwise_invert", "left_shift": "bitwise_left_shift",
    "right_shift": "bitwise_right_shift", "rint": "round",
}  # fmt: skip
_REDUCE_AS = {"add": "sum", "multiply": "prod", "maximum": "max", "minimum": "min", "logical_and": "all",
              "logical_or": "any"}  # fmt: skip
_REDUCTIONS_WITH_DTYPE = ("sum", "prod")
_REDUCTIONS = ("sum", "prod", "mean", "max", "min", "any", "all")


def _no_out(out: Any, name: str) -> None:
    if out is not None:
        raise ArgumentTypeError(f"Array.{name}() writes no out= array; Fix: use the result, y = x.{name}(...)")


def _reshape(fn: Callable[..., Any]) -> Callable[..., Any]:
    def reshape(self: Any, *shape: Any, order: str = "C", copy: bool | None = None) -> Any:
        """NumPy's ``x.reshape(2, 3)`` or ``x.reshape((2, 3))``: :func:`xbackend.reshape`."""
        if order != "C":
            raise ArgumentValueError(f"Array.reshape() lays data out in C order only, got order={order!r}; "
                                     "Fix: drop order=")  # fmt: skip
        if len(shape) == 1 and not isinstance(shape[0], int):
            shape = shape[0]
        return fn(self, tuple(shape) if isinstance(shape, (tuple, list)) else shape, copy=copy)

    return reshape


def _swapaxes(fn: Callable[..., Any]) -> Callable[..., Any]:
    def swapaxes(self: Any, axis1: int, axis2: int, /) -> Any:
        """The Array with two axes exchanged (NumPy's and torch's ``swapaxes``): :func:`xbackend.permute_dims`."""
        axes = list(range(self.ndim))
        try:
            axes[axis1], axes[axis2] = axes[axis2], axes[axis1]
        except (IndexError, TypeError):
            raise ArgumentValueError(f"Array.swapaxes(): axes {axis1!r}, {axis2!r} are not both in -{self.ndim}.."
                                     f"{self.ndim - 1} for an Array of {self.ndim} dimension(s)") from None  # fmt: skip
        return fn(self, tuple(axes))

    return swapaxes


def _reduction(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    with_dtype = name in _REDUCTIONS_WITH_DTYPE

    def method(self: Any, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: bool = False) -> Any:
        _no_out(out, name)
        if dtype is None:
            return fn(self, axis=axis, keepdims=keepdims)
        if not with_dtype:
            raise ArgumentTypeError(f"Array.{name}() takes no dtype=; Fix: x.astype(dtype).{name}(...)")
        return fn(self, axis=axis, dtype=dtype, keepdims=keepdims)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"NumPy's ``x.{name}(axis, ...)``: :func:`xbackend.{name}`."
    return method


def _array_ufunc(root: types.ModuleType) -> Callable[..., Any]:
    cache: dict[str, Callable[..., Any] | None] = {}

    def __array_ufunc__(self: Any, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        name = ufunc.__name__
        fn = cache.get(name)
        if fn is None and name not in cache:
            fn = getattr(root, UFUNC_NAMES.get(name, name), None)
            if not getattr(fn, "__xb_recording__", False):  # never keep xb.testing.diverge's recording wrappers
                cache[name] = fn
        if fn is None or method != "__call__" or kwargs:
            what = f"np.{name}" if method == "__call__" else f"np.{name}.{method}"
            extra = f" with {', '.join(f'{k}=' for k in kwargs)}" if kwargs and method == "__call__" else ""
            if method == "reduce" and name in _REDUCE_AS:
                hint = f"xb.{_REDUCE_AS[name]}(...)"
            else:
                hint = f"xb.{UFUNC_NAMES.get(name, name)}(...)" if fn is not None else "the xbackend function"
            raise ArgumentTypeError(
                f"{what}{extra} has no xbackend counterpart for Arrays. Fix: call {hint} and use its result, or "
                "convert explicitly with x.numpy() to compute in NumPy"
            )
        # NumPy hands a scalar operand over as a 0-d ndarray in some paths (np.float32(1.5) == x with x bool):
        # it is the scalar, weakly typed as NumPy scalars are with Arrays of any backend
        return fn(*(i[()] if type(i) is np.ndarray and i.ndim == 0 else i for i in inputs))

    return __array_ufunc__


def methods(root: types.ModuleType) -> dict[str, Any]:
    """The methods and ``__array_ufunc__``, forwarding to ``root``'s (public) functions: ``xbackend/_assemble.py``
    puts them on the Array."""
    out: dict[str, Any] = {"reshape": _reshape(root.reshape), "swapaxes": _swapaxes(root.permute_dims)}
    for name in _REDUCTIONS:
        out[name] = _reduction(name, getattr(root, name))
    out["__array_ufunc__"] = _array_ufunc(root)
    return out
