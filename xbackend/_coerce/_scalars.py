"""Python and NumPy scalars on their way in: the weak dtype they take next to an Array, and the number that Array's
dtype stores.

Design constraint: Python arithmetic against cached bounds, never a NumPy call (a scalar operand is the commonest
argument there is: ``x * 2`` must cost what ``x * 2.0`` costs). Rounding to float32 and float16 uses the C
library's conversions through ``struct`` ("f", "e": round to nearest even, out of range is an error that becomes
an infinity), which are NumPy's casts bit for bit (``tests/test_coerce.py`` checks them against NumPy).

>>> from xbackend._coerce import fit_scalar
>>> import xbackend as xb
>>> fit_scalar(0.1, xb.float32), fit_scalar(1e300, xb.float32), fit_scalar(70000, xb.float16)
(0.10000000149011612, inf, inf)
"""

from __future__ import annotations

import math
import struct
from typing import Any, Callable

from .. import _config, _dtypes as D
from .._dtypes import DType
from .._errors import UnsupportedDTypeError

__all__ = ["SCALARS", "ROUNDED", "py_scalar", "fit_scalar", "scalar_dtype", "scalar_array"]

#: the Python scalar types (weak next to an Array)
SCALARS = (bool, int, float, complex)
_INT_RANGE = D._INT_RANGE
_current = _config.current
_F64, _C128, _BF16 = D.float64, D.complex128, D.bfloat16
_PACKERS = {D.float32: struct.Struct("<f"), D.float16: struct.Struct("<e"), D.complex64: struct.Struct("<f")}
#: the dtypes ``fit_scalar`` rounds a Python float or complex to (the others hold it as it is)
ROUNDED = frozenset(_PACKERS)


def py_scalar(v: Any) -> Any:
    """A NumPy scalar as the Python scalar it stands for (NumPy scalars are weak, like Python's). One of a dtype
    xbackend has not (``longdouble``, ``datetime64``, ``str_``) raises :class:`~xbackend.UnsupportedDTypeError`."""
    r = v.item()
    if type(r) not in SCALARS:
        raise UnsupportedDTypeError(f"a NumPy {type(v).__name__} scalar has no xbackend dtype. Fix: convert it, e.g. "
                                    f"float(v) or np.float64(v)")  # fmt: skip
    return r


def _round(v: float, p: struct.Struct) -> float:
    try:
        return p.unpack(p.pack(v))[0]
    except OverflowError:  # rounds beyond the dtype's largest finite value: an infinity, as NumPy's cast gives
        return math.copysign(math.inf, v)


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
    if dt is _F64 or dt is _C128 or dt is _BF16:  # nothing to round (bfloat16: the library rounds)
        return v
    p = _PACKERS[dt]
    if k == "c":  # complex64: each part to float32; NumPy makes a complex of a real value too
        c = complex(v)
        return complex(_round(c.real, p), _round(c.imag, p))
    return _round(v, p)


def scalar_dtype(a: Any, s: Any) -> DType:
    """The dtype of ``a op s`` for Array ``a`` and Python scalar ``s`` (the weak-scalar rule): ints that fit and
    floats of a float Array's kind keep a's dtype without a call; the rest asks ``_dtypes.scalar_result``, which
    range-checks (:class:`~xbackend.ScalarOverflowError`) and promotes."""
    d = a._dt
    t = type(s)
    if t is float:
        if d.kind == "f" or d.kind == "c":
            return d
    elif t is int:
        k = d.kind
        if k == "i" or k == "u":
            lo, hi = _INT_RANGE[d]
            if lo <= s <= hi:
                return d
        elif k == "f" or k == "c":
            return d
    elif t is bool:  # the lowest kind: every Array keeps its dtype
        return d
    cfg = _current()
    return D.scalar_result(d, s, cfg.default_float, cfg.default_int)


def scalar_array(v: Any, dt: DType, be: Any, dev: Any) -> Any:
    """A 0-d native array of ``dt`` holding Python scalar ``v`` (already checked against ``dt``), made on the device
    without a host round trip (``full``: torch's ``tensor(v, device=cuda)`` would synchronise) and rounded to
    ``dt`` on the host first, the same on every backend (``fit_scalar``); by the backend's ``scalar_maker``."""
    c = _ctx_get()
    makers = (_config._base if c is None else c).places  # per config: a jit trace's own config keeps its fakes
    try:
        make = makers[_MAKER, be, dt, dev]
    except KeyError:
        make = makers[_MAKER, be, dt, dev] = be.scalar_maker(dt, dev)
    return make(fit_scalar(v, dt))


#: ``Config.places[_MAKER, backend, dtype, device]`` is the backend's ``scalar_maker``. Kept with the config in force,
#: not in one global dict: torch's maker holds a prototype tensor, and one made while ``xb.jit`` traces (under
#: ``_config.using()``, a config of its own) is a FakeTensor that eager calls must never meet, as a real one must
#: never reach the trace
_MAKER = "scalar_maker"
_ctx_get = _config._ctx.get
