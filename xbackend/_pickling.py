"""Arrays as ordinary Python objects: pickle and deep copy (``Array.__reduce__``, ``Array.__deepcopy__``).

Design constraint: an Array pickles as its backend's *name*, the native array pickled by its own library,
its dtype and device - never the backend object or its kernel tables - so it crosses process boundaries
(multiprocessing, joblib, dask.distributed) and loads where the same library is installed. ``xbackend/_assemble.py``
puts :func:`reduce_array` and :func:`deepcopy_array` on the Array.
"""

from __future__ import annotations

import contextlib
import copy
from typing import Any

from ._array import Array, _new
from ._devices import CPU as _CPU, device as _parse
from ._dispatch import backend_for_type, get_backend
from ._dtypes import DType
from ._errors import GradientError, UnknownDeviceError, XBackendError

__all__ = ["reduce_array", "deepcopy_array"]


def reduce_array(self: Array) -> tuple[Any, tuple[Any, ...]]:
    """Pickle as (backend name, the native array pickled by its own library, dtype, device).

    Never the backend object or its kernel tables. GPU data travels as a host copy (the backend's
    own CPU array where it has one, else NumPy) and is put back on the *same* device index when
    unpickled - or where ``torch.load(..., map_location=...)`` maps that device (a string, a device or a
    dict; a callable map_location applies to tensors only); where that device does not exist,
    unpickling raises :class:`~xbackend.UnknownDeviceError` with the fix - it never lands elsewhere
    silently. CUDA cannot be used in a process forked after the parent used it: unpickle GPU Arrays in
    workers started with ``multiprocessing.get_context("spawn")`` (or "forkserver").
    """
    be = self._be
    data = self._data
    dev = self._dev
    grad = be.requires_grad(data)
    if grad and not getattr(data, "is_leaf", True):
        raise GradientError(
            f"cannot pickle a {be.name} Array that is part of an autograd graph (autograd does not cross "
            "process boundaries). Fix: pickle x.detach() (a leaf with requires_grad=True pickles as such)"
        )
    via_host = self._dt in be.pickle_via_host
    if not dev.is_gpu and not via_host:
        return (_unpickle, (be.name, data, self._dt, str(dev)))
    data = be.detach(data)
    host = None
    if not via_host:
        with contextlib.suppress(XBackendError):  # a backend without CPU arrays (CuPy) refuses
            host = be.to_device(data, be.check_device(_CPU))  # the backend's own CPU array (torch)
    if host is None:
        host = be.to_host(data, True)  # NumPy
    return (_unpickle, (be.name, host, self._dt, str(dev), grad))


def deepcopy_array(self: Array, memo: dict[int, Any]) -> Array:
    """An independent copy on the same backend and device, through the native library's own deepcopy
    (torch keeps ``requires_grad`` on leaves, as ``copy.deepcopy(tensor)`` does)."""
    if self._be.requires_grad(self._data) and not getattr(self._data, "is_leaf", True):
        raise GradientError(f"cannot deep-copy a {self._be.name} Array that is part of an autograd graph "
                            "(torch allows it for graph leaves only). Fix: copy.deepcopy(x.detach())")  # fmt: skip
    out = _new(self._be.deepcopy(self._data, memo), self._dt, self._dev, self._be)
    memo[id(self)] = out
    return out


def _unpickle(backend: str, payload: Any, dt: DType, place: str, grad: bool = False) -> Array:
    """Rebuild a pickled Array on ``backend`` and device ``place`` (see :meth:`Array.__reduce__`)."""
    be = get_backend(backend)  # BackendUnavailableError with the fix where the library is missing
    where = getattr(be, "restore_location", None)
    if where is not None:  # torch.load(..., map_location=...) applies to Arrays as it does to tensors
        place = where(place)
    try:
        dev = be.check_device(_parse(place))
    except UnknownDeviceError as exc:
        raise UnknownDeviceError(
            f"cannot unpickle a {backend} Array onto {place}, where it was pickled: {exc}. Fix: unpickle it on "
            f"a machine where {place} exists, or pickle x.to_device('cpu') (then move it after loading)"
        ) from exc
    if backend_for_type(type(payload)) is be:
        native = be.wrap_native(payload, None, dev, None)
    else:  # a NumPy host copy of a backend without CPU arrays
        native = be.from_host(payload, dt, dev, True)
    if grad and not be.requires_grad(native):  # only a backend with autograd reports grad: torch's leaf API
        native.requires_grad_(True)
    return _new(native, dt, dev, be)

