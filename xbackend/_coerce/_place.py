"""Where data goes: the backend and device of a call, from its arguments and the context (``xb.using``), resolved
once per (backend, device) arguments and configuration.

Design constraint: resolutions are cached per Config object (configs are immutable; ``using``/``set_default`` make
new ones), so a call that names the same place as the last one pays one dict lookup.
"""

from __future__ import annotations

import contextlib
from typing import Any

from .. import _config
from .._devices import Device, split as _split
from .._dispatch import _instances, backend_name, get_backend
from .._errors import XBackendError

__all__ = ["resolve", "target"]

_ctx_get = _config._ctx.get


def target(backend: Any, device: Any) -> tuple[Any, Device]:
    """Resolve (backend object, concrete device) from arguments and context."""
    be, dev, _ = resolve(backend, device)
    return be, dev


def resolve(backend: Any, device: Any) -> tuple[Any, Device, _config.Config]:
    """(backend object, concrete device, config in force), from arguments and context.

    Resolutions are cached per Config object (configs are immutable; ``using``/``set_default`` make new
    ones): the backend always, the device when it cannot change behind our back (an explicit device, or a
    backend whose default device is fixed, NumPy's cpu); otherwise the cache says ``None`` and the backend's
    ``default_device()`` is asked on every call (torch's follows ``torch.set_default_device``).
    """
    c = _ctx_get()
    cfg = _config._base if c is None else c
    try:
        hit = cfg.places.get((backend, device))
    except TypeError:  # an unhashable device argument (never cached)
        hit = None
    if hit is not None:
        dev = hit[1]
        return hit[0], hit[0].default_device() if dev is None else dev, cfg
    bk, dev = _split(backend, device)  # a device bound to a backend (x.device) decides the backend
    if bk is None:
        name = cfg.backend
        if dev is None:
            dev = cfg.device
    else:
        name = bk if type(bk) is str else backend_name(bk)
    try:
        be = _instances.get(name) or get_backend(name)
    except XBackendError as exc:
        if bk is None:  # the configured backend: maybe XBACKEND_BACKEND chose it
            raise _config.blame_environment(exc, "backend") from exc
        raise
    if dev is None:
        dev = be.default_device()
        if not be.fixed_default_device:  # cache the backend; the device is asked for on every call
            with contextlib.suppress(TypeError):
                cfg.places[backend, device] = (be, None)
            return be, dev, cfg
    else:
        current = dev.index is None  # "cuda": the backend's current device, which can change (set_device)
        try:
            dev = be.check_device(dev)
        except XBackendError as exc:
            if device is None:  # the configured device: maybe XBACKEND_DEVICE chose it
                raise _config.blame_environment(exc, "device") from exc
            raise
        if current and dev.index is not None:  # resolved from state: ask again next time, never cache it
            return be, dev, cfg
    with contextlib.suppress(TypeError):  # an unhashable device argument: just don't cache
        cfg.places[backend, device] = (be, dev)
    return be, dev, cfg
