"""Waiting for a device, and timing work on it.

Design constraint: GPU work is asynchronous: a clock read when Python returns measures the launch, not
the work. :func:`synchronize` waits until a device has finished everything queued on it, and
:class:`timer` always waits before it reports. On CUDA the timer reads CUDA events recorded on the
current stream (the GPU's own clock, no host jitter); on the CPU, ``time.perf_counter``. Backends
provide ``synchronize(dev)`` and, optionally, ``timing_event(dev)`` / ``elapsed_ms(start, end)`` and
``gpu_devices_in_use()`` (what the no-argument forms wait for); nothing here imports a backend library:
a bare Device is waited for by the backends already loaded.

What the two numbers measure: ``ms`` is the span between two events on the *current stream*
of the timed device(s) - everything that stream ran in between, idle gaps included (waiting for the
host to launch, or for another stream it waits on); work on other streams that the current stream does
not wait for is not in it. ``wall_ms`` is the host's time from a device-wide wait before the block to a
device-wide wait after it: every stream's work, plus the launch overhead. Time side-stream work with
``wall_ms``, or record the events on that stream yourself.
"""

from __future__ import annotations

import time
from typing import Any

from . import _dispatch
from ._array import Array
from ._coerce import target as _target
from ._devices import Device, device as _device
from ._coerce import wrap_native

__all__ = ["synchronize", "timer"]


def _places(where: Any, backend: Any = None) -> list[tuple[Any, Device]]:
    """The (backend, device) pairs ``where`` names: an Array or native array -> its own; a Device or
    a string -> every loaded backend that has that device (or ``backend=``); None -> the default device
    and every GPU a loaded backend has worked on (of ``backend=`` only, when given)."""
    if where is None:
        out = [_target(backend, None)]
        for be in list(_dispatch._instances.values()):
            busy = getattr(be, "gpu_devices_in_use", None)
            if busy is None or backend is not None and be is not out[0][0]:
                continue
            for dev in busy():
                if (be, dev) not in out:
                    out.append((be, dev))
        return out
    if type(where) is Array:
        return [(where._be, where._dev)]
    if isinstance(where, (Device, str)):
        dev = _device(where)
        if backend is not None:
            return [_target(backend, dev)]
        out = []
        for be in list(_dispatch._instances.values()):
            try:
                out.append((be, be.check_device(dev)))
            except Exception:  # this backend has no such device  # noqa: BLE001
                continue
        return out
    a = wrap_native(where)
    return [(a._be, a._dev)]


def synchronize(where: Any = None, *, backend: Any = None) -> None:
    """Wait until the device of ``where`` has finished all work queued on it (on every stream).

    ``where`` is an Array (or a native array), a device (``"cuda:0"``, ``x.device``) or None: the
    default device *and* every GPU a loaded backend (torch, CuPy) has worked on, so a bare
    ``xb.synchronize()`` waits for GPU work even where the default device is the CPU. A no-op on the
    CPU. Use it before reading a clock around GPU work, or use :class:`timer`, which does it for you.

    >>> import xbackend as xb
    >>> x = xb.ones(3)
    >>> xb.synchronize(x)
    >>> xb.synchronize("cpu")
    """
    for be, dev in _places(where, backend):
        be.synchronize(dev)


class timer:
    """Time the block on the device of ``where`` (an Array, a device, or None: see :func:`synchronize`).

    Entering waits for the device (earlier work is not counted) and starts the clock; leaving waits for
    the device again and stops it. ``t.ms`` is the span between two CUDA events on the current stream
    (torch-CUDA and CuPy; the wall clock on the CPU): that stream's work, idle gaps included, not the work
    of other streams it does not wait for. ``t.wall_ms`` is the host's time between the two device-wide
    waits: every stream's work plus the launches. With no argument, every GPU in use is waited for.

    >>> import xbackend as xb
    >>> x = xb.ones(1000)
    >>> with xb.timer(x) as t:
    ...     y = xb.sum(x * 2)
    >>> t.ms >= 0 and t.wall_ms >= 0
    True
    """

    __slots__ = ("_places", "_events", "_t0", "ms", "wall_ms")

    def __init__(self, where: Any = None, *, backend: Any = None) -> None:
        self._places = _places(where, backend)
        self._events: list[tuple[Any, Device, Any]] = []
        self._t0 = 0.0
        self.ms: float = float("nan")
        self.wall_ms: float = float("nan")

    def __enter__(self) -> "timer":
        self._events = []
        for be, dev in self._places:
            be.synchronize(dev)
        for be, dev in self._places:
            ev = be.timing_event(dev) if dev.type == "cuda" and hasattr(be, "timing_event") else None
            if ev is not None:
                self._events.append((be, dev, ev))
        self._t0 = time.perf_counter()
        return self

    def __exit__(self, *exc: Any) -> None:
        ends = [(be, start, be.timing_event(dev)) for be, dev, start in self._events]
        for be, dev in self._places:
            be.synchronize(dev)
        t1 = time.perf_counter()
        self.wall_ms = (t1 - self._t0) * 1e3
        self.ms = max((be.elapsed_ms(s, e) for be, s, e in ends), default=self.wall_ms)

    @property
    def s(self) -> float:
        """Seconds (``ms / 1000``)."""
        return self.ms / 1e3

    def __repr__(self) -> str:
        return f"<xb.timer {self.ms:.3f} ms>"
