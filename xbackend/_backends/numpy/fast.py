"""The fast-path hooks of the NumPy backend (see ``Backend.creator`` & co. in ``xbackend/_backend.py``).

Each hook hands the core a callable with the native dtype already converted, so ``xb.zeros(100)`` and
``xb.astype(x, xb.float32)`` cost one small call over the raw NumPy call. A hook is used only while the
backend's class still runs NumPy's general method (CuPy and Dask subclass the NumPy backend and override
some): otherwise the base class's hook calls the subclass's method.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from ..._backend import Backend, runs_own
from ..._devices import Device
from ..._dtypes import DType


class NumpyFastPathsMixin(Backend):
    xp: Any
    to_np: dict[DType, Any]
    if TYPE_CHECKING:

        @property
        def _reducers(self) -> dict[str, Callable[..., Any]]: ...  # numpy.py: the reductions ``reduce`` calls

    def creator(self, method: str, dt: DType, dev: Device | None) -> tuple[Callable[..., Any], Any]:
        """``(xp.empty/zeros/ones, native dtype)``: ``xp.zeros(shape, dtype)`` is what ``zeros`` does (NumPy
        has one device, so ``dev`` is not passed), with no Python frame in between. For float64, the
        library's own default, the dtype is left out (``(fn, None)``: ``xp.zeros(shape)``, ~15 ns less)."""
        nd = self.to_np.get(dt)
        if nd is None or not runs_own(self, NumpyFastPathsMixin, method):
            return super().creator(method, dt, dev)
        return getattr(self.xp, method), (None if nd == np.float64 else nd)  # float64: NumPy's and CuPy's default

    def scalar_maker(self, dt: DType, dev: Device) -> Callable[[Any], Any]:
        """``np.array(v, native dtype)`` (NumPy only: CuPy's would copy from the host): what ``full((), v)`` gives for a
        value that fits, without ``np.full``'s Python frame and ``copyto`` (~0.4 µs)."""
        nd = self.to_np.get(dt)
        if nd is None or self.xp is not np or not runs_own(self, NumpyFastPathsMixin, "full"):
            return super().scalar_maker(dt, dev)
        array = np.array
        return lambda v: array(v, nd)

    def caster(self, dt: DType) -> Callable[[Any], Any]:
        """``x.astype(native dtype)``, as ``astype(x, dt, copy=True)`` (a lambda: ``operator.methodcaller``
        costs ~0.05 µs more, ``ndarray.astype`` unbound would skip a subclass's own ``astype``)."""
        nd = self.to_np.get(dt)
        if nd is None or not runs_own(self, NumpyFastPathsMixin, "astype"):
            return super().caster(dt)
        return lambda x: x.astype(nd)

    def full_reducer(self, name: str, dt: DType) -> Callable[[Any], Any]:
        """``xp.asarray(np.add.reduce(x, None))`` (CuPy: ``cupy.sum``) for the full sum of a float32/64 or complex
        Array: the reduction ``reduce`` calls, over every axis (axis None: the same iteration) in the input's
        dtype, without ``reduce``'s Python frames. float16 keeps the general path (it accumulates in float32)."""
        nd = self.to_np.get(dt)
        if nd is None or nd.itemsize == 2 or not runs_own(self, NumpyFastPathsMixin, "reduce"):
            return super().full_reducer(name, dt)
        if name == "sum" and dt.kind in "fc" or (name == "max" or name == "min") and dt.kind in "biuf":
            fn, asarray = self._reducers[name], self.xp.asarray  # max/min: np.maximum.reduce, as reduce() calls
            return lambda x: asarray(fn(x, None))
        return super().full_reducer(name, dt)
