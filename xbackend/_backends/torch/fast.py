"""The fast-path hooks of the torch backend (see ``Backend.creator`` & co. in ``xbackend/_backend.py``).

Each hook hands the core a native callable with torch's dtype and device objects already built (a
``torch.device`` argument costs ~0.2 µs less than a device string), so the core's fast paths add one small
call, or none, over the raw torch call. A hook is used only while the backend's class still runs torch's
general method; a subclass that overrides the method gets the base class's hook, which calls it.
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from ..._backend import Backend, runs_own
from ..._devices import Device
from ..._dtypes import DType

torch: Any = None  # bound by torch.py when it imports torch

# operator function -> the torch function it ends in, by name (looked up once torch is loaded)
_FORWARD = {
    operator.add: "add", operator.sub: "sub", operator.mul: "mul", operator.truediv: "div",
    operator.floordiv: "floor_divide", operator.mod: "remainder", operator.pow: "pow",
    operator.and_: "bitwise_and", operator.or_: "bitwise_or", operator.xor: "bitwise_xor",
    operator.lshift: "bitwise_left_shift", operator.rshift: "bitwise_right_shift",
    operator.eq: "eq", operator.ne: "ne", operator.lt: "lt", operator.le: "le", operator.gt: "gt", operator.ge: "ge",
}  # fmt: skip


class TorchFastPathsMixin(Backend):
    to_t: dict[DType, Any]
    if TYPE_CHECKING:

        @property
        def _full_reducers(self) -> dict[tuple[str, Any], Any]: ...  # torch.py: (name, torch dtype) -> function

        def _shared_dtype(self, nt: Any) -> DType | None: ...  # backend.py

    def creator(self, method: str, dt: DType, dev: Device | None) -> tuple[Callable[..., Any], Any]:
        """``(proto.new_empty/new_zeros/new_ones, None)``: the bound method of an empty prototype tensor of the
        dtype on the device, called with the shape alone; it gives ``torch.zeros(shape, dtype=..., device=...)``
        with no keyword parsing (~0.15 µs less than ``torch.zeros`` with a dtype, ~0.2 µs less than with a
        device too). ``dev=None``: the prototype sits on torch's default device of now; the core re-asks
        whenever ``default_device_probe`` says that default changed."""
        nd = self.to_t.get(dt)
        if nd is None or not runs_own(self, TorchFastPathsMixin, method):
            return super().creator(method, dt, dev)
        proto = torch.empty(0, dtype=nd) if dev is None else torch.empty(0, dtype=nd, device=str(dev))
        return getattr(proto, "new_" + method), None

    def scalar_maker(self, dt: DType, dev: Device) -> Callable[[Any], Any]:
        """``proto.new_full((), v)`` of an empty prototype tensor of the dtype on the device: ``torch.full((), v,
        dtype=..., device=...)`` without the keyword parsing and the device string (~0.4 µs less)."""
        nd = self.to_t.get(dt)
        if nd is None or not runs_own(self, TorchFastPathsMixin, "full"):
            return super().scalar_maker(dt, dev)
        new_full = torch.empty(0, dtype=nd, device=str(dev)).new_full
        return lambda v: new_full((), v)

    def forward_kernel(self, name: str, dt: DType) -> Callable[..., Any]:
        """``torch.add`` & co. where the kernel is the plain operator (``operator.add``): with a tensor first,
        ``Tensor.__add__`` ends in the same function, but the operator reaches it through a slot lookup on
        the ``Tensor`` class (~0.1 µs). Emulated and corrected kernels stay as they are."""
        fn = self.kernel(name, dt)
        native = _FORWARD.get(fn) if type(fn) is type(operator.add) else None
        return fn if native is None else getattr(torch, native)

    def reshaper(self) -> Callable[[Any, Any], Any] | None:
        """``torch.reshape`` itself: what ``reshape(x, shape)`` calls with ``copy=None``, without its frame."""
        return torch.reshape if runs_own(self, TorchFastPathsMixin, "reshape") else super().reshaper()

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

    def host_importer(self) -> Callable[[Any], tuple[Any, DType] | None] | None:
        """``torch.from_numpy`` for NumPy arrays of a dtype it shares as it is, with their dtype: the array itself
        where its memory is writeable and has no negative stride (torch refuses one itself), else a copy (what
        ``from_host`` does); the NumPy dtype's own instance is the key (``longlong`` equals ``long`` but torch
        shares only the latter)."""
        if not runs_own(self, TorchFastPathsMixin, "from_host"):
            return super().host_importer()
        exact: dict[Any, tuple[Any, DType]] = {}
        shared, from_numpy, get, array = self._shared_dtype, torch.from_numpy, exact.get, np.array

        def share(a: Any) -> tuple[Any, DType] | None:
            nt = a.dtype
            e = get(nt)
            if e is None or e[0] is not nt:
                dt = None if nt.char in "qQ" else shared(nt)
                if dt is None:
                    return None
                exact[nt] = e = (nt, dt)
            f = a.flags  # (contiguous: no negative stride but on a length-1 axis, which torch refuses itself)
            if f.writeable and (f.c_contiguous or min(a.strides) >= 0):
                try:
                    return from_numpy(a), e[1]
                except ValueError:  # a negative stride: torch takes none
                    pass
            return from_numpy(array(a, copy=True)), e[1]  # read-only or reversed memory: from_host's copy

        return share
