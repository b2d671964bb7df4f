"""Moving data between backends and devices: ``Array.to``, ``asarray(..., backend=)``, DLPack, ``numpy()``.

Design constraint: a move is explicit and its copy semantics are ours, decided by comparing memory
addresses after the fact (producers' copy flags are unreliable, see reference/interchange.md):
``copy=None`` shares where safe, ``copy=True`` always copies, ``copy=False`` shares or raises
:class:`CopyError`. A dtype change is applied on the side where fewer bytes move. Torch tensors
with an autograd graph never leave torch silently (:class:`GradientError`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._array import Array, _new
from ._devices import Device, device as _device
from ._dispatch import backend_for_type, get_backend
from ._dtypes import DType
from ._errors import CopyError, GradientError

__all__ = ["move", "to_numpy", "import_dlpack", "shares_memory"]


def _grad_guard(a: Array, where: str) -> None:
    if a._be.requires_grad(a._data):
        raise GradientError(
            f"the {a._be.name} Array on {a._dev} requires grad; {where} would drop its autograd graph silently. "
            "Fix: call x.detach() first (or compute the gradient before leaving torch)"
        )


def _target_device(dst: Any, a: Array, device: Any) -> Device:
    if device is not None:
        return dst.check_device(_device(device))
    if dst is a._be:
        return a._dev
    try:
        return dst.check_device(a._dev)  # stay on the same physical device where the target can
    except Exception:
        return dst.default_device()


def move(a: Array, *, backend: Any = None, device: Any = None, dtype: DType | None = None,
         copy: bool | None = None) -> Array:  # fmt: skip
    """Move/cast ``a``; see :meth:`Array.to`."""
    src = a._be
    dst = src if backend is None else get_backend(backend if isinstance(backend, str) else backend.name)
    dev = _target_device(dst, a, device)
    if dst is not src:
        _grad_guard(a, f"moving it to {dst.name}")
    dt = a._dt if dtype is None else dtype
    x, cur = a._data, a._dt
    if cur is not dt and dt.itemsize < cur.itemsize:  # cast where fewer bytes move
        x, cur = src.astype(x, dt), dt
    if dst is src:
        y = src.to_device(x, dev)
    elif a._dev.type == "cpu" and dev.type == "cpu":
        y = dst.from_host(src.to_host(x), cur, dev, None)
    elif a._dev is dev and hasattr(dst, "import_dlpack"):
        y = dst.import_dlpack(src.export_dlpack(x))
    else:
        y = dst.from_host(src.to_host(x), cur, dev, None)
    if cur is not dt:
        y = dst.astype(y, dt)
    shared = _overlap(src, a._data, a._dev, dst, y, dev)
    if copy and shared:
        y = dst.astype(y, dt, copy=True)
    elif copy is False and not shared:
        raise CopyError(
            f"moving a {src.name} Array on {a._dev} ({a._dt}) to {dst.name} on {dev} ({dt}) needs a copy, "
            "but copy=False was given. Fix: use copy=None (share where possible) or copy=True"
        )
    return _new(y, dt, dev, dst)


def _overlap(be1: Any, x1: Any, d1: Device, be2: Any, x2: Any, d2: Device) -> bool:
    if d1 is not d2:
        return False
    lo1, hi1 = be1.memory_range(x1)
    lo2, hi2 = be2.memory_range(x2)
    if hi1 == lo1 or hi2 == lo2:
        return lo1 == lo2 and lo1 != 0
    return lo1 < hi2 and lo2 < hi1


def shares_memory(a: Array, b: Array) -> bool:
    """Whether two Arrays (any backends) use overlapping memory on the same device.

    >>> import numpy as np, xbackend as xb
    >>> x = xb.asarray(np.arange(4.0))
    >>> xb.shares_memory(x, x[1:]), xb.shares_memory(x, x + 0)
    (True, False)
    """
    if a._dev is not b._dev:
        return False
    if a._be is b._be and a._dev.type == "cpu" and a._be.name == "numpy":
        return bool(np.shares_memory(a._data, b._data))
    return _overlap(a._be, a._data, a._dev, b._be, b._data, b._dev)


def to_numpy(a: Array, *, copy: bool | None = None) -> np.ndarray:
    """The values as a NumPy array: shares memory on the CPU where possible, copies device data.

    >>> import xbackend as xb
    >>> xb.to_numpy(xb.asarray([1, 2]))
    array([1, 2])
    """
    if type(a) is not Array:
        raise TypeError(f"to_numpy() takes an xbackend Array, got {type(a).__name__}")
    _grad_guard(a, "converting it to NumPy")
    h = a._be.to_host(a._data)
    if copy and a._dev.type == "cpu":
        h = np.array(h, copy=True)
    return h


def import_dlpack(obj: Any, *, device: Any = None, copy: bool | None = None, backend: Any = None) -> Array:
    """Import a DLPack producer; the result lives on the producer's backend unless ``backend=`` says otherwise."""
    if type(obj) is Array:
        return move(obj, backend=backend, device=device, copy=copy)
    src = backend_for_type(type(obj))
    if src is not None and src.name != "numpy" or (src is not None and backend is None):
        return move(_new(obj, src.dtype_of(obj), src.device_of(obj), src), backend=backend, device=device,
                    copy=copy)  # fmt: skip
    if not hasattr(obj, "__dlpack__"):
        raise TypeError(f"{type(obj).__name__} is not a DLPack producer (it has no __dlpack__ method)")
    dev_type, _ = obj.__dlpack_device__()
    if backend is None:
        backend = "numpy" if dev_type == 1 else "cupy"
    dst = get_backend(backend)
    native = dst.import_dlpack(obj)
    a = _new(native, dst.dtype_of(native), dst.device_of(native), dst)
    return move(a, device=device, copy=copy) if (device is not None or copy) else a
