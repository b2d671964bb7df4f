"""The fast-path hooks of the torch backend (see ``Backend.creator`` & co. in ``xbackend/_backend.py``).

Each hook hands the core a native callable with torch's dtype and device objects already built (a
``torch.device`` argument costs ~0.2 µs less than a device string), so the core's fast paths add one small
call, or none, over the raw torch call. A hook is used only while the backend's class still runs torch's
general method; a subclass that overrides the method gets the base class's hook, which calls it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from .._backend import Backend, runs_own
from .._devices import Device
from .._dtypes import DType

torch: Any = None  # bound by torch.py when it imports torch


class TorchFastPathsMixin(Backend):
    to_t: dict[DType, Any]
    if TYPE_CHECKING:

        @property
        def _full_reducers(self) -> dict[tuple[str, Any], Any]: ...  # torch.py: (name, torch dtype) -> function

    def creator(self, method: str, dt: DType, dev: Device | None) -> tuple[Callable[[Any, Any], Any], Any]:
        """``torch.empty/zeros/ones(shape, dtype=..., device=...)``, as ``empty``/``zeros``/``ones``; no
        ``device=`` for ``dev=None`` (torch's default device is what ``default_device()`` reports)."""
        nd = self.to_t.get(dt)
        if nd is None or not runs_own(self, TorchFastPathsMixin, method):
            return super().creator(method, dt, dev)
        fn = getattr(torch, method)
        if dev is None:
            return (lambda shape, _: fn(shape, dtype=nd)), None
        return (lambda shape, tdev: fn(shape, dtype=nd, device=tdev)), torch.device(str(dev))

    def default_device_probe(self) -> tuple[Callable[[], Any], Any]:
        """``(torch._C._len_torch_function_stack, 0)`` while no torch function mode is active: the default device
        is then the CPU (``set_default_device`` and ``with torch.device(...)`` each push a mode), and the probe
        is one C call (``0`` is a cached small int: ``is`` holds)."""
        probe = getattr(torch._C, "_len_torch_function_stack", None)
        if probe is None or probe() != 0 or not runs_own(self, TorchFastPathsMixin, "default_device"):
            return super().default_device_probe()
        return probe, 0

    def caster(self, dt: DType) -> Callable[[Any], Any]:
        """``x.to(native dtype)``, as ``astype(x, dt, copy=True)`` for ``x`` of another dtype:
        only where no other xbackend dtype shares ``dt``'s torch dtype (then ``astype`` would clone)."""
        nd = self.to_t.get(dt)
        shared = list(self.to_t.values()).count(nd) != 1
        if nd is None or shared or not runs_own(self, TorchFastPathsMixin, "astype"):
            return super().caster(dt)
        return lambda x: x.to(dtype=nd)  # what astype calls: the keyword form is ~0.7 µs faster than x.to(nd)

    def full_reducer(self, name: str, dt: DType) -> Callable[[Any], Any]:
        """The no-dim torch reduction ``reduce`` picks for a full reduction (``torch.sum`` & co.), itself: on a
        0-d tensor it gives what it gives on the one-element 1-d reshape ``reduce`` would see."""
        fn = self._full_reducers.get((name, self.to_t.get(dt)))
        if fn is None or not runs_own(self, TorchFastPathsMixin, "reduce"):
            return super().full_reducer(name, dt)
        return fn
