"""Small public functions that belong to no spec section of their own: astype, devices, matmul."""

from __future__ import annotations

from typing import Any

from . import _dtypes as D
from ._array import Array, matmul as _matmul
from ._devices import Device
from ._dispatch import get_backend

__all__ = ["astype", "devices", "matmul"]


def astype(x: Array, dtype: D.DType, /, *, copy: bool = True, device: Any = None) -> Array:
    """Cast ``x`` to ``dtype`` (and move it to ``device`` if given).

    >>> import xbackend as xb
    >>> xb.astype(xb.asarray([1.7, -1.7]), xb.int32).tolist()
    [1, -1]
    """
    if type(x) is not Array:
        raise TypeError(f"astype() takes an xbackend Array, got {type(x).__name__}; use xb.asarray(x, dtype=...)")
    out = x.astype(dtype, copy=copy)
    return out if device is None else out.to_device(device)


def devices(backend: str | None = None) -> list[Device]:
    """Devices a backend can use on this machine (default: the configured backend).

    The devices name their backend, so ``device=xb.devices("torch")[0]`` creates on torch.

    >>> import xbackend as xb
    >>> xb.devices("numpy")
    [Device('numpy', 'cpu')]
    """
    from ._config import current
    from ._devices import bind

    be = get_backend(backend or current().backend)
    return [bind(d, be.name) for d in be.devices()]


def matmul(x1: Array, x2: Array, /) -> Array:
    """Matrix product with the standard's broadcasting rules.

    >>> import xbackend as xb
    >>> xb.matmul(xb.eye(2), xb.asarray([[1.0], [2.0]])).tolist()
    [[1.0], [2.0]]
    """
    if type(x1) is not Array:
        from ._creation import asarray

        x1 = asarray(x1)
    return _matmul(x1, x2)
