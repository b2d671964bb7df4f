"""The standard's data type functions that take Arrays or read the configuration: ``astype``, ``result_type``.

Design constraint: the others (``can_cast``, ``finfo``, ``iinfo``, ``isdtype``) work on dtypes alone and live with the
dtypes (``_dtypes.py``); these two need an Array's backend (a cast runs there) or the configured default dtypes, so
they sit above the Array. ``astype``'s fast path translates a native failure inline; the rest runs behind the
boundary.
"""

from __future__ import annotations

from typing import Any

from . import _args as A, _dtypes as D
from ._array import Array, _alloc
from ._boundary import FP_SIGNALS, boundary, quiet, raise_translated
from ._config import current as _current
from ._dtypes import DType
from ._errors import ArgumentTypeError, ArgumentValueError

__all__ = ["astype", "result_type"]


def astype(x: Array, dtype: D.DType, /, *, copy: bool = True, device: Any = None) -> Array:
    """Cast ``x`` to ``dtype`` (and move it to ``device`` if given).

    >>> import xbackend as xb
    >>> xb.astype(xb.asarray([1.7, -1.7]), xb.int32).tolist()
    [1, -1]
    """
    if type(x) is not Array:
        raise ArgumentTypeError(f"astype() takes an xbackend Array, got {type(x).__name__}; use xb.asarray(x, dtype=...)")
    d = x._dt
    if dtype is not d and device is None and type(dtype) is DType and (d.kind != "c" or dtype.kind == "c") and not (
            d.kind == "f" and dtype.kind in "iu"):  # float to int saturates (Array.astype)  # fmt: skip
        be = x._be  # fast path: a cast to another dtype always copies; the backend's cached caster does it
        try:
            fn = be.casters[dtype]
        except KeyError:
            fn = be.casters[dtype] = be.caster(dtype)
        out = _alloc()
        try:
            out._data = fn(x._data)
        except Exception as exc:  # free while nothing is raised
            if not isinstance(exc, FP_SIGNALS):
                raise_translated(exc, "astype")
            out._data = quiet("astype", fn, x._data)  # float64 -> float32 overflow under -W error: inf
        out._dt = dtype
        out._dev = x._dev
        out._be = be
        return out
    return _astype(x, dtype, copy, device)


@boundary
def _astype(x: Array, dtype: Any, copy: Any, device: Any) -> Array:
    """``astype`` off its fast path (behind the boundary)."""
    out = x.astype(dtype, copy=A.flag(copy, "astype", "copy"))
    return out if device is None else out.to_device(device)



def result_type(*arrays_and_dtypes: Any) -> DType:
    """Dtype that results from combining Arrays, dtypes and Python scalars.

    >>> import xbackend as xb
    >>> xb.result_type(xb.int8, xb.uint8), xb.result_type(xb.int64, xb.float32)
    (xb.int16, xb.float32)
    >>> xb.result_type(xb.float32, 1.5)
    xb.float32
    """
    dtypes: list[DType] = []
    scalars: list[Any] = []
    for x in arrays_and_dtypes:
        if type(x) is D.DType:
            dtypes.append(x)
        elif type(x) in (int, float, complex, bool):
            scalars.append(x)
        elif isinstance(x, str):
            dtypes.append(D.dtype(x))
        elif hasattr(x, "dtype") and type(getattr(x, "dtype")) is D.DType:
            dtypes.append(x.dtype)
        else:
            raise ArgumentTypeError(f"result_type() takes Arrays, xbackend dtypes and Python scalars, got {type(x).__name__}")
    cfg = _current()  # the default dtypes flow in from the config; _dtypes itself reads no config
    if not dtypes:
        if not scalars:
            raise ArgumentValueError("result_type() needs at least one argument")
        out = D.python_scalar_dtype(scalars[0], cfg.default_float, cfg.default_int)
        scalars = scalars[1:]
    else:
        out = dtypes[0]
        for d in dtypes[1:]:
            out = D.promote(out, d)
    for s in scalars:
        out = D.scalar_result(out, s, cfg.default_float, cfg.default_int)
    return out
