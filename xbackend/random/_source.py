"""Where a backend's portable-stream words come from: :class:`PhiloxSource` and the per-backend lookup.

Design constraint: the core never names a backend. The default source runs
:func:`~xbackend.random._philox.philox_blocks` with xbackend operations, so it is correct on any backend
(array-api-strict, JAX, a plugin); a backend with a faster way (NumPy's C Philox, a CUDA kernel) subclasses
it in ``xbackend/random/_<library>.py``, named in :data:`ENGINES`, and its words
are tested against the default's and NumPy's. A lazy backend (Dask) overrides :meth:`PhiloxSource.sample`
to build its result chunk by chunk from the eager source of its chunks' backend.
"""

from __future__ import annotations

import importlib
import math
from typing import Any, Callable

from .. import _dtypes as D
from .._array import Array
from .._backend import Backend
from .._devices import Device
from .._dtypes import DType
from .._manipulation import reshape
from . import _philox
from ._draws import DRAWS

__all__ = ["PhiloxSource", "source_for", "native_class_for"]

#: a draw: ``fn(source, device, key, counter, start, n, dtype, arg)`` -> 1-D Array of variates
#: ``start .. start + n - 1`` of a call (see :mod:`xbackend.random._draws`)
Draw = Callable[["PhiloxSource", Device, tuple[int, int], int, int, int, DType, Any], Array]


class PhiloxSource:
    """The portable stream's words on one backend (the default: Philox rounds as xbackend operations).

    Methods take the key, the counter state ``ctr`` of the call and word positions counted from the call's
    first word; ``dev`` is a Device bound to this backend. Overrides must return exactly what these return.
    """

    #: True for backends whose Arrays are task graphs: :meth:`sample` builds them chunk by chunk
    lazy = False

    def __init__(self, be: Backend) -> None:
        self.be: Any = be  # (Any: a subclass calls its own backend's methods beyond the Backend contract)

    def words(self, key: tuple[int, int], ctr: int, start: int, n: int, width: int, dev: Device) -> Array:
        """Words ``start .. start + n - 1`` (uint64 for ``width`` 64, else uint32), 1-D."""
        return _philox.words_range(dev, ctr, key, start, n, width)

    def words_at(self, key: tuple[int, int], ctr: int, pos: Array, width: int) -> Array:
        """The words at positions ``pos`` (int64 Array on this backend), ``pos``'s shape."""
        return _philox.words_at(pos, ctr, key, width)

    def uniform(self, key: tuple[int, int], ctr: int, start: int, n: int, dt: DType, dev: Device) -> Array | None:
        """Fast path: the uniform variates of :func:`xbackend.random._draws.uniform`, or None (then they are
        computed from :meth:`words`)."""
        return None

    def fused(self, draw: str, key: tuple[int, int], ctr: int, start: int, n: int, dt: DType, arg: Any,
              dev: Device) -> Array | None:  # fmt: skip
        """Fast path: the variates ``start .. start + n - 1`` of draw ``draw`` (``normal``, ``exponential``,
        ``integers``, ``keys``; the arguments of :mod:`xbackend.random._draws`' functions) made in one step, or
        None (then they are computed from :meth:`uniform` and :meth:`words` with xbackend operations)."""
        return None

    def one_call_for(self, engine: Any, dev: Device) -> Callable[[dict[str, Any]], dict[str, Any]] | None:
        """For a portable generator placed on ``dev`` (a bound Device): ``fn(general)`` returning closures
        ``random``, ``standard_normal``, ``normal``, ``integers`` (all four, NumPy's signatures) that draw the
        common calls in one step and hand every other call to ``general[name]``; None (the default): the
        generator's methods as they are."""
        return None

    def sample(self, draw: str, shape: tuple[int, ...], dt: DType, dev: Device, key: tuple[int, int], ctr: int,
               arg: Any, whole_axis: int | None = None, chunks: Any = None) -> Array:  # fmt: skip
        """The variates of a whole call, in ``shape`` (C order: variate ``i`` is element ``i`` of the flat
        result). Lazy backends only: ``chunks`` of the result (None: the backend's default), ``whole_axis``
        kept in one chunk (the result will be sorted along it)."""
        n = math.prod(shape)
        out = DRAWS[draw](self, dev, key, ctr, 0, n, dt, arg)
        return out if len(shape) == 1 else reshape(out, shape)


_SOURCES: dict[Backend, PhiloxSource] = {}


#: the per-library parts (a portable-stream ``Source``, a ``Native`` engine): backend name (or top-level module) ->
#: module of this package, imported on first use. A backend missing here runs the portable stream with xbackend
#: operations (:class:`PhiloxSource`) and has no native stream of its own.
ENGINES: dict[str, str] = {"numpy": "_numpy", "torch": "_torch", "cupy": "_cupy", "dask": "_dask", "cubed": "_cubed"}


def _module_for(be: Backend) -> Any:
    name = ENGINES.get(be.name) or ENGINES.get(be.module)
    return None if name is None else importlib.import_module(f"{__package__}.{name}")


def source_for(be: Backend) -> PhiloxSource:
    """The (cached) portable-stream source of backend ``be``: its own module's ``Source`` class, else the
    default :class:`PhiloxSource`."""
    src = _SOURCES.get(be)
    if src is None:
        mod = _module_for(be)
        src = _SOURCES[be] = (PhiloxSource if mod is None else mod.Source)(be)
    return src


def native_class_for(be: Backend) -> Any:
    """The class of backend ``be``'s native generator engine, or None (a library without a generator of its
    own: its native stream is the portable one)."""
    mod = _module_for(be)
    return None if mod is None else getattr(mod, "Native", None)
