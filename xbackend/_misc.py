"""Small public functions that belong to no spec section of their own: astype, devices, matmul."""

from __future__ import annotations

from typing import Any

from . import _dtypes as D
from . import _args as A
from ._boundary import FP_SIGNALS, boundary, quiet, raise_translated
from ._errors import ArgumentTypeError
from ._array import Array, _alloc
from ._operators import matmul as _matmul
from ._config import current
from ._coerce import first_array, to_array
from ._devices import Device, bind
from ._dtypes import DType
from ._dispatch import get_backend

__all__ = ["astype", "devices", "matmul", "preferred_device"]


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


def devices(backend: str | None = None) -> list[Device]:
    """Devices a backend can use on this machine (default: the configured backend).

    The devices name their backend, so ``device=xb.devices("torch")[0]`` creates on torch.

    >>> import xbackend as xb
    >>> xb.devices("numpy")
    [Device('numpy', 'cpu')]
    """
    be = get_backend(backend or current().backend)
    return [bind(d, be.name) for d in be.devices()]


def preferred_device(backend: str | None = None) -> Device:
    """The backend's first CUDA device when it has a usable one, else its default device (the CPU).

    The one portable spelling of ``"cuda" if torch.cuda.is_available() else "cpu"``: code written for a GPU
    runs unchanged on a CPU-only machine when it asks for ``device=xb.preferred_device("torch")``, while an
    explicit ``device="cuda"`` there is an error (never a silent fallback). Default backend: the configured one.

    The device is bound to the backend (like ``x.device``), so ``device=`` alone picks both.

    >>> import xbackend as xb
    >>> xb.preferred_device("numpy")
    Device('numpy', 'cpu')
    >>> str(xb.preferred_device("torch")) in ("cpu", "cuda:0")
    True
    """
    be = get_backend(backend or current().backend)
    for d in be.devices():
        if d.type == "cuda":
            return bind(d, be)
    return bind(be.default_device(), be)


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
