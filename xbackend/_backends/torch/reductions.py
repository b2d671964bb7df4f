"""Reductions of the torch backend: sums, products, extrema, means, moments, cumulative sums and products, differences.

Design constraint: the dtype is decided by the core before the call (``xbackend/_statistical.py``, ``_utility.py``);
these methods only pick the torch call that gives it: the no-dim overloads for a full reduction (half the cost),
uint16/32/64 computed in int64 and narrowed back (torch has no such kernels), half floats accumulated in float32.
:class:`TorchReductionsMixin` is part of :class:`~xbackend._backends.torch.backend.TorchBackend`.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from ... import _dtypes as D
from ..._backend import Backend
from ..._dtypes import DType
from .uint import _UINT_WIDE

torch: Any = None  # the torch module: bound by backend.py's _import_torch() before any backend runs


class TorchReductionsMixin(Backend):
    """Part of :class:`~xbackend._backends.torch.backend.TorchBackend`: see the module docstring."""

    if TYPE_CHECKING:  # the uint mixin's: uint16/32/64 data as int64, and back
        def _wide(self, x: Any, dt: DType) -> Any: ...
        def _narrow(self, r: Any, dt: DType) -> Any: ...

    @functools.cached_property
    def _full_reducers(self) -> dict[tuple[str, Any], Any]:
        """(name, torch dtype) -> the no-dim torch reduction whose result already has the right dtype."""
        keep = (torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.int64)
        table: dict[tuple[str, Any], Any] = {}
        for nd in keep + (torch.complex64, torch.complex128):
            table["sum", nd] = torch.sum
            table["prod", nd] = torch.prod
        for nd in keep + (torch.int8, torch.int16, torch.int32, torch.uint8, torch.bool):
            table["max", nd] = torch.amax
            table["min", nd] = torch.amin
        for nd in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
            table["mean", nd] = torch.mean
        return table

    def reduce(self, name: str, x: Any, dt: DType, axes: tuple[int, ...], keepdims: bool) -> Any:
        """``name`` in sum, prod, max, min, mean, all, any over non-empty ``axes``."""
        full = not keepdims and len(axes) == x.ndim  # torch's no-dim overloads cost half as much
        if full:  # the common case first: one dict lookup, no dtype= keyword (it costs ~0.15 µs)
            fn = self._full_reducers.get((name, x.dtype))
            if fn is not None:
                return fn(x)
        if name == "sum" or name == "prod":
            if dt in _UINT_WIDE:
                return self._narrow(self._sum_prod(name, self._wide(x, dt), axes, keepdims, torch.int64, full), dt)
            return self._sum_prod(name, x, axes, keepdims, x.dtype, full)
        if name == "max" or name == "min":
            fn = torch.amax if name == "max" else torch.amin
            if dt is D.uint64:  # order-preserving int64 image, and back
                sign = -(1 << 63)
                return (fn(x.view(torch.int64) ^ sign, dim=axes, keepdim=keepdims) ^ sign).view(torch.uint64)
            if dt in _UINT_WIDE:
                return fn(x.to(torch.int64), dim=axes, keepdim=keepdims).to(x.dtype)
            return fn(x) if full else fn(x, dim=axes, keepdim=keepdims)
        if name == "mean" and dt.kind == "c":  # real and imaginary parts separately (NaN stays in its part)
            return torch.complex(torch.mean(x.real, dim=axes, keepdim=keepdims),
                                 torch.mean(x.imag, dim=axes, keepdim=keepdims))  # fmt: skip
        fn = getattr(torch, name)  # mean, all, any
        return fn(x) if full else fn(x, dim=axes, keepdim=keepdims)

    @staticmethod
    def _sum_prod(name: str, x: Any, axes: tuple[int, ...], keepdims: bool, nd: Any, full: bool) -> Any:
        if name == "sum":
            return torch.sum(x, dtype=nd) if full else torch.sum(x, dim=axes, keepdim=keepdims, dtype=nd)
        if full:
            return torch.prod(x, dtype=nd)
        for a in reversed(axes):  # torch.prod takes one dim at a time
            x = torch.prod(x, dim=a, keepdim=keepdims, dtype=nd)
        return x

    def moment(self, name: str, x: Any, axes: tuple[int, ...], correction: float, keepdims: bool) -> Any:
        fn = torch.var if name == "var" else torch.std
        return fn(x, dim=axes, correction=correction, keepdim=keepdims)

    def cumulative(self, name: str, x: Any, dt: DType, axis: int, include_initial: bool) -> Any:
        fn = torch.cumsum if name == "cumulative_sum" else torch.cumprod
        if dt in _UINT_WIDE:
            out = self._narrow(fn(self._wide(x, dt), axis, dtype=torch.int64), dt)
        elif x.dtype in (torch.float16, torch.bfloat16):  # accumulate in float32 (CUDA's half cumsum does not)
            out = fn(x, axis, dtype=torch.float32).to(x.dtype)
        else:
            out = fn(x, axis, dtype=x.dtype)
            if dt.kind == "c" and name != "cumulative_sum" and x.shape[axis]:
                # torch multiplies the first element by 1 (1 * (1 - inf j) is NaN - inf j); it is x[0] itself
                first = [slice(None)] * x.ndim
                first[axis] = slice(0, 1)
                out[tuple(first)] = x[tuple(first)]
        if include_initial:
            shape = list(x.shape)
            shape[axis] = 1
            init = (torch.zeros if name == "cumulative_sum" else torch.ones)(shape, dtype=x.dtype, device=x.device)
            out = torch.cat([init, out], dim=axis)
        return out

    def diff(self, x: Any, dt: DType, axis: int, n: int) -> Any:
        """The ``n``-th difference along ``axis`` (n >= 1; edges are already attached by the core)."""
        if dt in _UINT_WIDE:
            return self._narrow(torch.diff(self._wide(x, dt), n=n, dim=axis), dt)
        if dt.kind == "c":  # torch's complex subtraction leaks a NaN imaginary part into the real part
            return torch.view_as_complex(torch.diff(torch.view_as_real(x.resolve_conj()), n=n, dim=axis))
        return torch.diff(x, n=n, dim=axis)
