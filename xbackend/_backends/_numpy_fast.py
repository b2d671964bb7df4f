"""The fast-path hooks of the NumPy backend (see ``Backend.creator`` & co. in ``xbackend/_backend.py``).

Each hook hands the core a callable with the native dtype already converted, so ``xb.zeros(100)`` and
``xb.astype(x, xb.float32)`` cost one small call over the raw NumPy call. A hook is used only while the
backend's class still runs NumPy's general method (CuPy and Dask subclass the NumPy backend and override
some): otherwise the base class's hook calls the subclass's method.
"""

from __future__ import annotations

from typing import Any, Callable

from .._backend import Backend, runs_own
from .._devices import Device
from .._dtypes import DType


class NumpyFastPathsMixin(Backend):
    xp: Any
    to_np: dict[DType, Any]

    def creator(self, method: str, dt: DType, dev: Device | None) -> tuple[Callable[[Any, Any], Any], Any]:
        """``(xp.empty/zeros/ones, native dtype)``: ``xp.zeros(shape, dtype)`` is what ``zeros`` does (NumPy
        has one device, so ``dev`` is not passed), with no Python frame in between."""
        nd = self.to_np.get(dt)
        if nd is None or not runs_own(self, NumpyFastPathsMixin, method):
            return super().creator(method, dt, dev)
        return getattr(self.xp, method), nd

    def caster(self, dt: DType) -> Callable[[Any], Any]:
        """``x.astype(native dtype)``, as ``astype(x, dt, copy=True)`` (a lambda: ``operator.methodcaller``
        costs ~0.05 µs more, ``ndarray.astype`` unbound would skip a subclass's own ``astype``)."""
        nd = self.to_np.get(dt)
        if nd is None or not runs_own(self, NumpyFastPathsMixin, "astype"):
            return super().caster(dt)
        return lambda x: x.astype(nd)
