"""The operators and elementwise functions of :class:`~xbackend.Array`, built from the category table in ``_rules``.

One implementation per arity serves both the dunder (``x + y``) and the public function (``xb.add``): ``binary``,
``inplace``, ``unary`` and ``matmul`` are factories and functions over the Array's four slots. Importing this
module changes nothing: ``xbackend/_assemble.py`` builds the dunders with these factories and puts them on
:class:`Array`, so ``_array`` never imports this module.
"""

from __future__ import annotations

import functools
import math
import operator
from typing import Any, Callable, cast

from . import _dtypes as D
from ._array import (
    _BOOL,
    _PROMO,
    _SCALARS,
    Array,
    _alloc,
    _current,
    _new,
    _partners,
)
import numpy as _np

from ._assign import _KIND_RANK
from ._boundary import FP_SIGNALS, binary_failed, matmul_failed as _matmul_failed, quiet
from ._coerce import ROUNDED as _ROUNDS, asarray as _asarray, fit_scalar as _fit_scalar
from ._coerce import operator_operand as _coerce
from ._coerce import scalar_dtype as _scalar_dtype, weak_native as _weak_native
from ._errors import ArgumentTypeError, DomainError, PromotionError, ShapeError
from ._boundary import any_failed as _any_failed
from ._rules import ELEMENTWISE, bool_result, resolve, same_compute, same_ok

__all__ = ["binary", "inplace", "matmul", "rmatmul", "imatmul", "unary"]

# --- operator and function factories -----------------------------------------------------------
# The fast path of every binary operator, specialised per operation when the module loads (as
# ``collections.namedtuple`` and ``dataclasses`` do): same backend, same device, same dtype in the
# operation's pass-through set - or a float Array with a Python float. Everything else goes to the
# operation's general path. Specialising saves ~0.1 µs per call over branching on ``reflected``/``to_bool``.
# ``table[backend][dtype]`` holds the backend's kernel for two native arrays (``Backend.forward_kernel``),
# or None where the dtype is not in the pass-through set (the general path); ``scalar_table`` the same for a
# native array and a Python float; ``int_table`` for a Python int or bool: (kernel, lo, hi, int conversion,
# bool conversion), the ints in lo..hi being those the general path passes unchanged or as ``float(v)`` (exact,
# and what rounding them to the dtype gives: ``_int_spec``). All fill on first use, so one dict lookup per call
# replaces the kernel lookup and the dtype test.
_FAST_BINARY = """
def {fname}(self, other{slash}):{guard}
    if type(other) is Array:
        be = self._be
        d = self._dt
        if other._be is be and other._dev is self._dev and d is other._dt:
            try:
                fn = table[be][d]
            except KeyError:
                fn = learn(be, d)
            if fn is not None:
                out = _alloc()
                try:
                    out._data = fn({array_args})
                except Exception as exc:  # no cost when nothing is raised (Python 3.11 zero-cost try)
                    if not isinstance(exc, FP_SIGNALS):
                        failed(name, self, other, exc)
                        raise
                    out._data = quiet(name, fn, {array_args})  # np.seterr / -W error: the IEEE result
                out._dt = {result}
                out._dev = self._dev
                out._be = be
                return out
    elif type(other) is float:
        be = self._be
        d = self._dt
        try:
            fn, lo, hi = scalar_table[be][d]
        except KeyError:
            fn, lo, hi = learn_scalar(be, d)
        if fn is not None and not (other > hi or other < lo):  # beyond the dtype: the general path rounds it
            out = _alloc()
            try:
                out._data = fn({scalar_args})
            except Exception:  # e.g. 1e300 with a float16 Array, which torch refuses: the general path rounds it
                return general(self, other)
            out._dt = {result}
            out._dev = self._dev
            out._be = be
            return out
    elif type(other) is int or type(other) is bool:
        be = self._be
        d = self._dt
        try:
            fn, lo, hi, cint, cbool = int_table[be][d]
        except KeyError:
            fn, lo, hi, cint, cbool = learn_int(be, d)
        if fn is not None and lo <= other <= hi:
            c = cint if type(other) is int else cbool
            if c is not False:
                out = _alloc()
                try:
                    out._data = fn({int_args})
                except Exception:  # the general path raises the typed error
                    return general(self, other)
                out._dt = {result}
                out._dev = self._dev
                out._be = be
                return out
    return general(self, other)
"""


def _failed(name: str, a: Array, b: Any, exc: BaseException, inplace: bool = False) -> None:
    """An operator's kernel raised: shapes that do not broadcast raise ShapeError, anything else its translation."""
    if type(b) is Array:
        binary_failed(name, a, b, exc, inplace)
    _any_failed(name, exc)


@functools.lru_cache(maxsize=None)
def _fast_binary_code(reflected: bool, to_bool: bool, function: bool = False) -> Any:
    """The template compiled once per variant (6 in all): import stays fast. ``function``: the public function
    (``xb.add(x1, x2)``), whose first argument may be other than an Array (``slow`` takes those)."""
    src = _FAST_BINARY.format(
        fname="op",
        slash=", /" if function else "",
        guard="\n    if type(self) is not Array:\n        return slow(self, other)" if function else "",
        array_args="other._data, self._data" if reflected else "self._data, other._data",
        scalar_args="other, self._data" if reflected else "self._data, other",
        int_args=("(other if c is None else c(other)), self._data" if reflected else
                  "self._data, (other if c is None else c(other))"),
        result="_BOOL" if to_bool else "d",
    )
    return compile(src, f"<xbackend fast binary path reflected={reflected} to_bool={to_bool}"
                        f"{' function' if function else ''}>", "exec")  # fmt: skip


def _specialise(name: str, reflected: bool, to_bool: bool, fast: frozenset[D.DType], fast_fc: frozenset[D.DType],
                general: Callable[[Array, Any], Array], failed: Callable[..., None],
                slow: Callable[[Any, Any], Array] | None = None) -> Any:  # fmt: skip
    """The fast path of ``name`` from the template: ``fast`` dtypes pass through with an Array of the same
    dtype, ``fast_fc`` ones with a Python float; ``failed(name, self, other, exc)`` raises the typed error.
    With ``slow``, the public function itself: ``slow(x1, x2)`` where ``x1`` is no Array, and the general path's
    ``NotImplemented`` (an operand it does not take) raised as ``slow`` raises it."""
    if slow is not None:
        operator_general = general

        def general(self: Array, other: Any) -> Array:
            r = operator_general(self, other)
            return slow(self, other) if r is NotImplemented else r  # (slow raises the typed error)

    table: dict[Any, dict[D.DType, Any]] = {}
    scalar_table: dict[Any, dict[D.DType, Any]] = {}
    int_table: dict[Any, dict[D.DType, Any]] = {}

    def learn(be: Any, d: D.DType) -> Any:
        fn = be.forward_kernel(name, d) if d in fast else None
        table.setdefault(be, {})[d] = fn
        return fn

    def learn_scalar(be: Any, d: D.DType) -> Any:
        # the scalar comes first in a reflected call (``2.0 - x``): only the general kernel takes that
        fn = None if d not in fast_fc else be.kernel(name, d) if reflected else be.forward_kernel(name, d)
        lim = _SCALAR_LIMIT.get(d, math.inf)
        spec = (fn, -lim, lim)
        scalar_table.setdefault(be, {})[d] = spec
        return spec

    def learn_int(be: Any, d: D.DType) -> Any:
        spec = _int_spec(d, fast)
        if spec[0]:
            spec = ((be.kernel(name, d) if reflected else be.forward_kernel(name, d)), *spec[1:])
        int_table.setdefault(be, {})[d] = spec
        return spec

    namespace = {"Array": Array, "_alloc": _alloc, "_BOOL": _BOOL, "table": table, "scalar_table": scalar_table,
                 "int_table": int_table, "learn": learn, "learn_scalar": learn_scalar, "learn_int": learn_int,
                 "name": name, "general": general, "failed": failed, "FP_SIGNALS": FP_SIGNALS,
                 "quiet": quiet, "slow": slow}  # fmt: skip
    exec(_fast_binary_code(reflected, to_bool, slow is not None), namespace)  # noqa: S102 - a fixed template
    op: Callable[..., Any] = cast(Callable[..., Any], namespace["op"])
    op.__name__ = op.__qualname__ = ("__r" if reflected else "") + name
    op.__module__ = __name__
    return op


#: the largest finite value of each float dtype a Python float is rounded to on the host (``fit_scalar``): a float
#: beyond it takes the general path, which rounds it to an infinity quietly (NumPy's own cast warns "overflow
#: encountered in cast", torch's raises for float16 and complex64); float64, complex128 and bfloat16: no limit
_SCALAR_LIMIT = {D.float16: 65504.0, D.float32: float.fromhex("0x1.fffffep127"),
                 D.complex64: float.fromhex("0x1.fffffep127")}  # fmt: skip
#: ints a float dtype holds exactly (|v| up to 2**mantissa bits): for them rounding float(v) to the dtype changes
#: nothing, so the fast path passes float(v), which is what the general path passes (``fit_scalar``)
_EXACT_INTS = {D.float16: 1 << 11, D.float32: 1 << 24, D.float64: 1 << 53, D.bfloat16: 1 << 53,
               D.complex128: 1 << 53}  # fmt: skip


def _int_spec(d: D.DType, fast: frozenset[D.DType]) -> tuple[Any, int, int, Any, Any]:
    """``(usable, lo, hi, int conversion, bool conversion)`` of the operators' int/bool fast path for dtype ``d``:
    what the general path does for Python ints in lo..hi and bools (a conversion None: passed as they are;
    False: not taken). complex64 is left to the general path (it passes ints as complex numbers)."""
    if d not in fast:
        return None, 1, 0, False, False
    if d.kind in "iu":
        lo, hi = D._INT_RANGE[d]
        return True, lo, hi, None, int
    if d.kind == "b":
        return True, 0, 1, False, None
    n = _EXACT_INTS.get(d)
    if n is None:
        return None, 1, 0, False, False
    return True, -n, n, float, float  # a bool as 1.0/0.0: the general path's 1/0, NumPy's faster float kernel


def binary(name: str, reflected: bool = False, slow: Callable[[Any, Any], Array] | None = None) -> Any:
    """The implementation of a two-argument elementwise operation, as a method of its first argument; with
    ``slow``, as the public function (``_specialise``)."""
    category = ELEMENTWISE[name][1]
    shift = name in _SHIFTS
    to_bool = bool_result(category)
    # the dtypes computed in as they are: comparisons too (their result is bool); shifts check their counts first
    fast = (same_compute(category) if to_bool else same_ok(category)) if not shift else frozenset()
    fast_fc = frozenset(d for d in fast if d.kind in "fc")
    if to_bool:  # a float compared unrounded could flip the answer (torch compares half data in float32)
        fast_fc = fast_fc & {D.float64, D.complex128}

    def general(self: Array, other: Any) -> Array:
        be = self._be
        d1 = self._dt
        t = type(other)
        if t is Array or ((t is list or t is tuple) and (host := _weak_native(other, self)) is not None):
            if t is Array:
                if other._be is not be or other._dev is not self._dev:
                    return general(*_partners(self, other))  # (inside xb.grad: a closure Array as a constant)
                d2 = other._dt
                y = other._data
            else:  # Python data: at self's place, weakly typed, converted once (no Array of its own)
                y, d2 = host  # type: ignore[misc]  # (not None: the test above)
            x = self._data
            if d1 is d2 and d1 in fast:
                cd = d1
            else:
                try:
                    p = _PROMO[d1, d2]
                except KeyError:
                    p = D.promote(d1, d2)
                cd, _ = resolve(name, category, p, _current().default_float)
                if d1 is not cd:
                    x = be.astype(x, cd)
                if d2 is not cd:
                    y = be.astype(y, cd)
        elif t is float and d1 in fast_fc:  # float Array (op) Python float: the common case
            x = self._data
            y = other if d1.itemsize >= 8 and d1.kind == "f" or d1.itemsize >= 16 else _fit_scalar(other, d1)
            cd = d1
        elif t is float or t is int or t is bool or t is complex:
            p = _scalar_dtype(self, other)
            x = self._data
            y = other if t is not bool or d1 is _BOOL else int(other)  # with numbers, bools are the ints 0/1
            if p is d1 and d1 in fast:
                cd = d1
            else:
                cd, _ = resolve(name, category, p, _current().default_float)
                if d1 is not cd:
                    x = be.astype(x, cd)
            if t is int and cd.kind in "fc" or cd in _ROUNDS and t is not bool and (t is not complex or cd.kind == "c"):
                y = _fit_scalar(y, cd)  # 10**30, 1e300, complex(1e300, 0) with a float32/complex64 Array: rounded
                # on the host to inf, quietly (NumPy's cast warns, torch's raises)
        else:
            other = _coerce(self, other)
            return NotImplemented if other is NotImplemented else general(self, other)
        try:
            fn = be.kernels[name][cd]
        except KeyError:
            fn = be.kernel(name, cd)
        if shift:
            _check_shift(name, be, x if reflected else y, cd)
        out = _alloc()
        try:
            out._data = fn(y, x) if reflected else fn(x, y)
        except Exception as exc:
            if not isinstance(exc, FP_SIGNALS):
                _failed(name, self, other if type(other) is not list and type(other) is not tuple else
                        _new(y, cd, self._dev, be), exc)  # Python data: its shape, for the message
                raise
            out._data = quiet(name, fn, y, x) if reflected else quiet(name, fn, x, y)
        out._dt = _BOOL if to_bool else cd
        out._dev = self._dev
        out._be = be
        return out

    return _specialise(name, reflected, to_bool, fast, fast_fc, general, _failed, slow)


_NOT_FAST = object()
_EXACT_F64 = 1 << 53  # ints float64 holds exactly: float(v) is what the general path passes


def inplace(name: str, forward: Callable[[Array, Any], Array]) -> Any:
    """``x op= y``: computes in x's dtype and writes into x. A result of a higher kind (int += float) raises; one of
    x's kind or a lower one (int32 += int64) is stored as ``x[...] = x op y`` stores it (NumPy's and torch's rule),
    ``forward`` (``binary(name)``, the ``x op y`` the Array has) computing ``x op y``."""
    category = ELEMENTWISE[name][1]
    native = getattr(operator, {"add": "iadd", "subtract": "isub", "multiply": "imul", "divide": "itruediv",
                                "floor_divide": "ifloordiv", "remainder": "imod", "pow": "ipow",
                                "bitwise_and": "iand", "bitwise_or": "ior", "bitwise_xor": "ixor",
                                "bitwise_left_shift": "ilshift", "bitwise_right_shift": "irshift"}[name])  # fmt: skip

    fast = same_ok(category) if name not in _SHIFTS else frozenset()  # computed and stored in x's dtype as it is
    fast_int = {d: D._INT_RANGE[d] for d in fast if d.kind in "iu"}

    def iop(self: Array, other: Any) -> Array:
        be = self._be
        d1 = self._dt
        if d1 in fast:  # the general path's answer without its steps: same dtype, or a scalar it passes as it is
            t = type(other)
            y = _NOT_FAST
            if t is Array:
                if other._dt is d1 and other._be is be and other._dev is self._dev:
                    y = other._data
            elif t is float:
                if d1 is D.float64 or d1 is D.complex128:
                    y = other
            elif t is int:
                r = fast_int.get(d1)
                if r is not None:
                    if r[0] <= other <= r[1]:
                        y = other
                elif (d1 is D.float64 or d1 is D.complex128) and -_EXACT_F64 <= other <= _EXACT_F64:
                    y = float(other)
            elif t is bool:  # keeps every dtype; with numbers it is 0 or 1 (as the general path passes it)
                y = other if d1 is _BOOL else int(other)
            if y is not _NOT_FAST:
                try:
                    self._data = be.inplace(native, name, self._data, y)
                except Exception as exc:
                    if not isinstance(exc, FP_SIGNALS):
                        _failed(name, self, other, exc, inplace=True)
                        raise
                    self._data = quiet(name, be.inplace, native, name, self._data, y)  # np.seterr: the IEEE result
                return self
        if type(other) is Array:
            if other._be is not be or other._dev is not self._dev:
                other = _partners(self, other, inplace=True)[1]
            p = D.promote(d1, other._dt)
            y = other._data
        elif type(other) in _SCALARS:
            p = _scalar_dtype(self, other)
            y = other if type(other) is not bool or d1 is _BOOL else int(other)  # bools with numbers: 0/1
            t = type(other)
            if t is int and d1.kind in "fc" or d1 in _ROUNDS and t is not bool and (t is not complex or d1.kind == "c"):
                y = _fit_scalar(y, d1)
        else:
            other = _coerce(self, other)
            return NotImplemented if other is NotImplemented else iop(self, other)
        cd, rd = resolve(name, category, p, _current().default_float)
        if rd is not d1 or cd is not d1:
            if _KIND_RANK[rd.kind] > _KIND_RANK[d1.kind] or (d1.kind == "b") is not (rd.kind == "b"):
                raise PromotionError(
                    f"in-place {name} would change {d1} into {rd}; in-place results keep the left operand's dtype. "
                    f"Fix: x = x {'+' if name == 'add' else 'op'} y (out of place), or cast y to {d1} first"
                )
            # the result is of x's kind or a lower one (int32 += int64, float32 += float64): NumPy and torch
            # store it in x's dtype; here by the assignment rule, x[...] = x op y (ints checked to fit, never wrapped)
            self[...] = forward(self, other)
            return self
        if type(other) is Array and other._dt is not d1:
            y = be.astype(y, d1)
        if name in _SHIFTS:
            _check_shift(name, be, y, d1)
        try:
            self._data = be.inplace(native, name, self._data, y)
        except Exception as exc:
            if not isinstance(exc, FP_SIGNALS):
                _failed(name, self, other, exc, inplace=True)
                raise
            # nothing was written (a backend whose in-place kernel writes before it signals returns it itself)
            self._data = quiet(name, be.inplace, native, name, self._data, y)
        return self

    iop.__name__ = "i" + name
    return iop


def unary(name: str) -> Any:
    """A one-argument elementwise operation: the dunder (``-x``) and the public function (``xb.negative``)."""
    category = ELEMENTWISE[name][1]
    fast = same_ok(category)
    fast_bool = same_compute(category) if bool_result(category) else frozenset()  # isnan & co.: bool of x's dtype

    def op(x: Any, /) -> Array:
        if type(x) is not Array:  # xb.exp(native array or Python data): the public function is this one
            x = _asarray(x)
        d = x._dt
        be = x._be
        data = x._data
        if d in fast:
            cd = rd = d
        elif d in fast_bool:
            cd, rd = d, _BOOL
        else:
            cd, rd = resolve(name, category, d, _current().default_float)
            if cd is not d:
                data = be.astype(data, cd)
        try:
            fn = be.kernels[name][cd]
        except KeyError:
            fn = be.kernel(name, cd)
        out = _alloc()
        try:
            out._data = fn(data)
        except Exception as exc:  # free while nothing is raised
            if not isinstance(exc, FP_SIGNALS):
                _any_failed(name, exc)
                raise
            out._data = quiet(name, fn, data)
        out._dt = rd
        out._dev = x._dev
        out._be = be
        return out

    op.__name__ = name
    return op


_NUMERIC = frozenset(D.NUMERIC)
_SHIFTS = frozenset({"bitwise_left_shift", "bitwise_right_shift"})


def _check_shift(name: str, be: Any, count: Any, dt: D.DType) -> None:
    """Shift counts must be non-negative (the standard leaves negative ones undefined; NumPy and torch return
    garbage, array-api-strict raises): a DomainError on every backend. An Array of counts costs one reduction
    (a device synchronisation on a GPU); unsigned counts need none."""
    if type(count) is int:
        bad = count < 0
    elif dt.kind == "u" or (count.ndim and not _size(count)):
        return
    else:
        flat = be.reshape(count, (-1,)) if count.ndim != 1 else count
        bad = be.item(be.reduce("min", flat, dt, (0,), False)) < 0
    if bad:
        raise DomainError(f"{name}(): shift counts must be non-negative (a negative count is undefined). Fix: "
                          "shift the other way (x >> 1, not x << -1), or clip the counts to 0 and up first")


def _size(a: Any) -> int:
    n = 1
    for s in a.shape:
        n *= s
    return n


def _matmul_error(a: Array, b: Array, exc: BaseException) -> None:
    """Every library refuses 0-d operands; the check costs nothing until then."""
    if a._data.ndim == 0 or b._data.ndim == 0:
        raise ShapeError("matmul needs Arrays with at least one dimension. Fix: use * for 0-d Arrays") from None
    _matmul_failed(a, b, exc)


def _matmul_general(a: Array, b: Any, reflected: bool = False) -> Array:
    """``a @ b`` (``b @ a`` when ``reflected``) with coercion, device checks and type promotion."""
    if type(b) is not Array:
        if type(b) in _SCALARS or isinstance(b, _np.generic):
            raise ArgumentTypeError("matmul does not take scalars (0-d operands have no matrix product). "
                                    "Fix: use * for scaling")
        b = _coerce(a, b)
        if b is NotImplemented:
            return NotImplemented
    if b._be is not a._be or b._dev is not a._dev:
        a, b = _partners(a, b)
    be = a._be
    if reflected:
        a, b = b, a
    x = a._data
    y = b._data
    cd = a._dt
    if cd is not b._dt or cd not in _NUMERIC:
        cd, _ = resolve("matmul", "numeric", D.promote(a._dt, b._dt), _current().default_float)
        if a._dt is not cd:
            x = be.astype(x, cd)
        if b._dt is not cd:
            y = be.astype(y, cd)
    try:
        fn = be.kernels["matmul"][cd]
    except KeyError:
        fn = be.kernel("matmul", cd)
    out = _alloc()
    try:
        out._data = fn(x, y)
    except Exception as exc:
        if not isinstance(exc, FP_SIGNALS):
            _matmul_error(a, b, exc)
            raise
        out._data = quiet("matmul", fn, x, y)
    out._dt = cd
    out._dev = a._dev
    out._be = be
    return out


#: ``a @ b``: ``Array.__matmul__`` and, through :func:`xbackend.matmul`, the public function; the operators'
#: fast path (numeric dtypes, no Python scalars), :func:`_matmul_general` for the rest
matmul = _specialise("matmul", False, False, _NUMERIC, frozenset(), _matmul_general,
                     lambda name, a, b, exc: _matmul_error(a, b, exc))  # fmt: skip


def rmatmul(self: Array, other: Any) -> Array:
    """``other @ self`` (``Array.__rmatmul__``)."""
    return _matmul_general(self, other, True)


def imatmul(self: Array, other: Any) -> Array:
    """``self @= other`` (``Array.__imatmul__``): the product must keep self's dtype and shape."""
    r = matmul(self, other)
    if r is NotImplemented:  # an operand matmul does not know: Python tries the other side, then raises TypeError
        return r
    if r._dt is not self._dt or r.shape != self.shape:
        raise PromotionError("in-place @= must keep the left operand's dtype and shape; use x = x @ y")
    new = self._be.setitem(self._data, Ellipsis, r._data)
    if new is not None:
        self._data = new
    return self
