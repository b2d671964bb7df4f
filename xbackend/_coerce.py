"""One way in: how every public function turns its array-like arguments into Arrays.

Design constraint: a function never decides this on its own. The rule (DESIGN.md, "Parity by construction"):

* **Arrays** are taken as they are. The Array operands of one call must share a backend and a device; otherwise
  :class:`~xbackend.BackendMismatchError` / :class:`~xbackend.DeviceMismatchError` name both and the fix.
* **Native arrays** (``numpy.ndarray``, ``torch.Tensor``, ``cupy.ndarray``, ...) are Arrays of their own backend
  and device: accepted next to Arrays of the same place, refused with the fix otherwise. A move between backends
  or devices is never implicit - not even NumPy to torch on the CPU.
* **Python data** - scalars, NumPy scalars, nested lists and tuples, buffers (``memoryview``, ``array.array``) -
  has no place: it takes the backend and device of the call's Arrays (the configured ones when there are none),
  like NumPy's own lists. Next to an Array it is *weak*, as Python scalars are: it takes the Array's dtype when its
  kind (bool < int < float < complex) is not higher and its ints fit (else :class:`~xbackend.ScalarOverflowError`),
  and the default dtype of its kind otherwise. The same range checks and dtype rules hold on every backend.

>>> import xbackend as xb
>>> x = xb.asarray([1, 2], dtype=xb.int8)
>>> (x + [3, 4]).dtype, (x + [0.5, 1.5]).dtype    # a list next to an Array is weak, like a scalar
(xb.int8, xb.float64)
>>> xb.take(xb.arange(5.0), [0, 4]).tolist()       # host indices land where the Array lives
[0.0, 4.0]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as _np

from . import _config, _dtypes as D
from ._array import Array, _check_partner, _Late, _new, _partners
from ._dispatch import backend_for_type
from ._dtypes import DType
from ._errors import UnsupportedDTypeError

__all__ = ["scalar_array", "HOST_SEQUENCES", "first_array", "to_array", "operand", "placed", "weak", "weak_dtype", "host_data",
           "is_native", "wrap_native"]

#: the types of Python data (no backend): they take the place of the call's Arrays
HOST_SEQUENCES = (list, tuple, memoryview, bytearray)
_SCALARS = (bool, int, float, complex)


def py_scalar(v: Any) -> Any:
    """A NumPy scalar as the Python scalar it stands for (NumPy scalars are weak, like Python's). One of a dtype
    xbackend has not (``longdouble``, ``datetime64``, ``str_``) raises :class:`~xbackend.UnsupportedDTypeError`."""
    r = v.item()
    if type(r) not in _SCALARS:
        raise UnsupportedDTypeError(f"a NumPy {type(v).__name__} scalar has no xbackend dtype. Fix: convert it, e.g. "
                                    f"float(v) or np.float64(v)")  # fmt: skip
    return r


def first_array(*values: Any) -> Array | None:
    """The first Array among ``values`` (looking one level into lists and tuples), else the first native array
    of a known backend (wrapped), else None: the Array whose place Python data takes."""
    native = None
    for v in values:
        t = type(v)
        if t is Array:
            return v
        if t is list or t is tuple:
            for i in v:
                if type(i) is Array:
                    return i
                if native is None and backend_for_type(type(i)) is not None and not isinstance(i, _np.generic):
                    native = i
        elif native is None and backend_for_type(t) is not None and not isinstance(v, _np.generic):
            native = v
    return None if native is None else wrap_native(native)


def is_native(v: Any) -> bool:
    """Whether ``v`` is an array of a known backend's library (NumPy scalars are Python data, not arrays)."""
    return backend_for_type(type(v)) is not None and not isinstance(v, _np.generic)


def wrap_native(v: Any) -> Array:
    """A native array as an Array of its own backend and device (no copy)."""
    be = backend_for_type(type(v))
    assert be is not None, type(v)  # callers pass native arrays only (is_native)
    v = be.adopt(v)
    return _new(v, be.dtype_of(v), be.device_of(v), be)


def host_data(v: Any) -> _np.ndarray | None:
    """Python data (a list, tuple or buffer, nested) as a NumPy array, or None if ``v`` is not Python data."""
    if not isinstance(v, HOST_SEQUENCES) or _holds_arrays(v):
        return None
    try:
        h = _np.asarray(v)
    except (ValueError, TypeError):
        return None
    return h if h.dtype.kind in "biufc" else None


def _holds_arrays(v: Any) -> bool:
    if type(v) is list or type(v) is tuple:
        return any(type(i) is Array or _holds_arrays(i) or (backend_for_type(type(i)) is not None and
                                                             not isinstance(i, _np.generic)) for i in v)  # fmt: skip
    return False


def weak_dtype(like: DType, h: _np.ndarray) -> DType:
    """The dtype Python data ``h`` takes next to an Array of dtype ``like`` (the weak-scalar rule, for arrays)."""
    if h.size == 0:
        return like
    cfg = _config.current()
    k = h.dtype.kind
    if k == "b":
        return D.scalar_result(like, True, cfg.default_float, cfg.default_int)
    if k in "iu":
        lo, hi = int(h.min()), int(h.max())
        D.scalar_result(like, lo, cfg.default_float, cfg.default_int)  # range checks (ScalarOverflowError)
        return D.scalar_result(like, hi, cfg.default_float, cfg.default_int)
    if k == "f":
        return D.scalar_result(like, 0.5, cfg.default_float, cfg.default_int)
    if k == "c":
        return D.scalar_result(like, 0.5j, cfg.default_float, cfg.default_int)
    raise UnsupportedDTypeError(f"Unsupported dtype {h.dtype}: cannot make an Array from it; an Array holds numbers and bools")


def weak(v: Any, like: Array) -> Array:
    """Python data ``v`` (a scalar or nested sequence) next to ``like``: an Array at like's place, weakly typed."""
    if isinstance(v, _np.generic):
        v = py_scalar(v)  # NumPy scalars are weak, like Python scalars
    if type(v) in _SCALARS:
        cfg = _config.current()
        dt = D.scalar_result(like._dt, v, cfg.default_float, cfg.default_int)
        return _new(scalar_array(v, dt, like._be, like._dev), dt, like._dev, like._be)
    h = host_data(v)
    if h is None:
        return _Late.asarray(v, backend=like._be.name, device=like._dev)  # Arrays inside, or an error
    if h.dtype.kind == "O":
        return _Late.asarray(v, backend=like._be.name, device=like._dev)
    return _Late.asarray(h, dtype=weak_dtype(like._dt, h), backend=like._be.name, device=like._dev)


def operand(v: Any, like: Array) -> Array:
    """Any array-like argument of a call whose Array is ``like``, as an Array at like's place (or an error)."""
    t = type(v)
    if t is Array:
        if v._be is not like._be or v._dev is not like._dev:
            _check_partner(like, v)
        return v
    if t in _SCALARS or isinstance(v, (_np.generic, *HOST_SEQUENCES)):
        return weak(v, like)
    if backend_for_type(t) is not None:
        b = wrap_native(v)
        if b._be is not like._be or b._dev is not like._dev:
            b = _partners(like, b, inplace=True, native=True)[1]  # inside xb.grad: NumPy data as a constant
        return b
    return _Late.asarray(v, backend=like._be.name, device=like._dev)  # other array-likes: asarray's errors


def to_array(v: Any, like: Array | None = None) -> Array:
    """An array argument as an Array: at ``like``'s place (weakly typed) when given, else by ``asarray``'s rules."""
    if type(v) is Array:
        if like is not None and (v._be is not like._be or v._dev is not like._dev):
            _check_partner(like, v)
        return v
    if like is not None:
        return operand(v, like)
    return _Late.asarray(v)


def fit_scalar(v: Any, dt: DType) -> Any:
    """Python scalar ``v`` as the number an Array of ``dt`` stores (its caller checked that the kind fits): floats
    and huge ints rounded to ``dt`` on the host, quietly and the same on every backend (``1e300`` in float32 is
    inf; NumPy would warn, torch would raise), ints for integer dtypes unchanged (range checks are the caller's)."""
    t = type(v)
    k = dt.kind
    if k in "iub" or t is bool:
        return v
    if t is int:
        try:
            v = float(v)
        except OverflowError:  # beyond float64: an infinity, as rounding gives
            return math.inf if v > 0 else -math.inf
    if dt.itemsize < (16 if k == "c" else 8) and dt is not D.bfloat16:
        with _np.errstate(over="ignore"):
            return _np.asarray(v, dtype=dt.name).item()
    return v


def scalar_array(v: Any, dt: DType, be: Any, dev: Any) -> Any:
    """A 0-d native array of ``dt`` holding Python scalar ``v`` (already checked against ``dt``), made on the device
    without a host round trip (``full``: torch's ``tensor(v, device=cuda)`` would synchronise) and rounded to
    ``dt`` on the host first, the same on every backend (``fit_scalar``)."""
    return be.full((), fit_scalar(v, dt), dt, dev)


def placed(v: Any, like: Array) -> Array:
    """An argument with a dtype of its own (indices, a condition, a sorter) at ``like``'s place: Arrays and native
    arrays as they are (same place, else the mismatch error), Python data as an Array of its own dtype (xbackend's
    defaults, never like's) made where ``like`` lives."""
    if type(v) is Array:
        return to_array(v, like)
    if is_native(v):
        return to_array(wrap_native(v), like)
    return _Late.asarray(v, backend=like._be.name, device=like._dev)


index_array = placed


_Late.fit_scalar = fit_scalar
_Late.py_scalar = py_scalar
_Late.operand = operand  # the operators' non-Array operands (Array.__add__ & co. in xbackend/_operators.py)
