"""The two engines behind :class:`~xbackend.random.Generator`: the portable stream and the native ones.

Design constraint: a Generator's public methods are written once, over seven primitives every engine
provides (``uniform``, ``normal``, ``exponential``, ``gamma``, ``beta``, ``integers``, ``keys``: standard
variates in a shape and dtype, on a backend and device). :class:`Portable` takes whole counter blocks for each
call under a lock (threads sharing a generator never get the same numbers) and asks the backend's
:class:`~xbackend.random._source.PhiloxSource`; :class:`Native` is the base of the per-backend engines that
call the library's own generator (``xbackend/random/_<library>.py``).
"""

from __future__ import annotations

import math
import threading
from typing import Any

import numpy as np

from .. import _dtypes as D
from .._array import Array, _new
from .._backend import Backend
from .._devices import Device, bind
from .._dtypes import DType
from .._elementwise import floor
from .._errors import BackendFailure, XBackendError
from .._dtype_functions import astype
from . import _philox
from ._draws import WORDS, shift_into
from ._source import source_for

__all__ = ["Portable", "Native", "NativeStateError", "shift_into"]


class NativeStateError(XBackendError, TypeError):
    """A native generator whose library cannot export its state (CuPy's) was pickled or copied.

    >>> import xbackend as xb
    >>> issubclass(xb.random.NativeStateError, (xb.XBackendError, TypeError))
    True
    """


class Portable:
    """The portable engine: Philox4x64-10 under ``key`` from counter state ``counter`` (:mod:`._philox`)."""

    name = "portable"
    __slots__ = ("key", "counter", "chunks", "_lock")

    def __init__(self, key: tuple[int, int], counter: int = 0, chunks: Any = None) -> None:
        self.key = key
        self.counter = counter % _philox.C256
        self.chunks = chunks  # a lazy backend's chunks for the Arrays drawn (None: its default)
        self._lock = threading.Lock()

    def take(self, blocks: int) -> int:
        """Reserve ``blocks`` counter blocks; the counter state the call starts from."""
        with self._lock:
            c = self.counter
            self.counter = (c + blocks) % _philox.C256
        return c

    def draw(self, draw: str, shape: tuple[int, ...], dt: DType, be: Backend, dev: Device, arg: Any = None,
             whole_axis: int | None = None) -> Array:  # fmt: skip
        words, width = WORDS[draw](math.prod(shape), dt, arg)
        ctr = self.take(_philox.blocks_for(words, width))
        return source_for(be).sample(draw, shape, dt, bind(dev, be.name), self.key, ctr, arg, whole_axis,
                                     self.chunks)

    def uniform(self, shape: tuple[int, ...], dt: DType, be: Backend, dev: Device) -> Array:
        return self.draw("uniform", shape, dt, be, dev)

    def normal(self, shape: tuple[int, ...], dt: DType, be: Backend, dev: Device) -> Array:
        return self.draw("normal", shape, dt, be, dev)

    def exponential(self, shape: tuple[int, ...], dt: DType, be: Backend, dev: Device) -> Array:
        return self.draw("exponential", shape, dt, be, dev)

    def integers(self, low: int, r: int, shape: tuple[int, ...], dt: DType, be: Backend, dev: Device) -> Array:
        return self.draw("integers", shape, dt, be, dev, (low, r))

    def gamma(self, alpha: float, shape: tuple[int, ...], dt: DType, be: Backend, dev: Device) -> Array:
        return self.draw("gamma", shape, dt, be, dev, alpha)

    def beta(self, a: float, b: float, shape: tuple[int, ...], dt: DType, be: Backend, dev: Device) -> Array:
        return self.draw("beta", shape, dt, be, dev, (a, b))

    def keys(self, shape: tuple[int, ...], be: Backend, dev: Device, axis: int | None) -> Array:
        return self.draw("keys", shape, D.int64, be, dev, None, axis)

    def state(self) -> dict[str, Any]:
        """``{"key": uint64 NumPy array of 2, "counter": int}``: what ``numpy.random.Philox(key=, counter=)``
        takes (a list of Python ints would lose bits: NumPy reads it as float64)."""
        return {"key": np.array(self.key, dtype=np.uint64), "counter": self.counter}


class Native:
    """Base of a backend's native engine: the library's own generator on one device.

    Subclasses set :attr:`dtypes` (what the library samples itself) and implement the ``_uniform``,
    ``_normal``, ``_exponential``, ``_gamma``, ``_beta``, ``_integers`` hooks on native arrays; dtypes a library
    does not sample directly are drawn in float32 (float16, bfloat16) and cast. ``get_state``/``set_state`` move the
    library generator's state to and from picklable host objects.
    """

    name = "native"

    def __init__(self, be: Backend, dev: Device, seed_seq: Any, chunks: Any = None) -> None:
        self.be: Any = be  # (Any: an engine calls its own backend's methods beyond the Backend contract)
        self.dev = dev
        self.chunks = chunks

    def _wrap(self, x: Any, dt: DType) -> Array:
        return _new(x, dt, self.dev, self.be)

    def _float(self, hook: Any, shape: tuple[int, ...], dt: DType) -> Array:
        if dt is D.float32 or dt is D.float64:
            return self._wrap(hook(shape, dt), dt)

        return astype(self._wrap(hook(shape, D.float32), D.float32), dt)

    def uniform(self, shape: tuple[int, ...], dt: DType, be: Backend, dev: Device) -> Array:
        if dt is D.float32 or dt is D.float64 or dt in getattr(self, "direct", ()):
            return self._float(self._uniform, shape, dt)
        # float16/bfloat16 from float32 uniforms: keep the top 11/8 bits (rounding could reach 1.0), exactly
        bits = {D.float16: 2.0**11, D.bfloat16: 2.0**8}[dt]
        u = self._float(self._uniform, shape, D.float32)
        return astype(floor(u * bits) * (1 / bits), dt)

    def normal(self, shape: tuple[int, ...], dt: DType, be: Backend, dev: Device) -> Array:
        return self._float(self._normal, shape, dt)

    def exponential(self, shape: tuple[int, ...], dt: DType, be: Backend, dev: Device) -> Array:
        return self._float(self._exponential, shape, dt)

    def gamma(self, alpha: float, shape: tuple[int, ...], dt: DType, be: Backend, dev: Device) -> Array:
        return self._float(lambda s, d: self._gamma(alpha, s, d), shape, dt)

    def beta(self, a: float, b: float, shape: tuple[int, ...], dt: DType, be: Backend, dev: Device) -> Array:
        return self._float(lambda s, d: self._beta(a, b, s, d), shape, dt)

    def integers(self, low: int, r: int, shape: tuple[int, ...], dt: DType, be: Backend, dev: Device) -> Array:
        return self._wrap(self._integers(low, low + r, shape, dt), dt)

    def keys(self, shape: tuple[int, ...], be: Backend, dev: Device, axis: int | None) -> Array:
        return self.integers(0, 1 << 62, shape, D.int64, be, dev)

    # -- hooks ------------------------------------------------------------------------------------
    def _uniform(self, shape: tuple[int, ...], dt: DType) -> Any:  # pragma: no cover - every engine defines
        raise NotImplementedError

    def _normal(self, shape: tuple[int, ...], dt: DType) -> Any:  # pragma: no cover
        raise NotImplementedError

    def _exponential(self, shape: tuple[int, ...], dt: DType) -> Any:  # pragma: no cover
        raise NotImplementedError

    def _integers(self, low: int, high: int, shape: tuple[int, ...], dt: DType) -> Any:  # pragma: no cover
        raise NotImplementedError

    def _gamma(self, alpha: float, shape: tuple[int, ...], dt: DType) -> Any:
        raise self._missing("gamma")

    def _beta(self, a: float, b: float, shape: tuple[int, ...], dt: DType) -> Any:
        raise self._missing("beta")

    def _missing(self, what: str) -> XBackendError:
        """The typed error of a native engine (a plugin's) that does not draw ``what`` variates itself."""
        return BackendFailure(f"the {self.be.name} native generator has no {what} sampler. Fix: use the portable "
                              f"stream, which draws {what} on every backend, e.g. xb.random.default_rng(0)")

    def get_state(self) -> Any:
        raise NativeStateError(f"the {self.be.name} native generator cannot save its state, so it cannot be pickled or "
                       "copied. Fix: use the portable stream (xb.random.default_rng(seed)), whose state is "
                       "two numbers")  # fmt: skip

    def set_state(self, state: Any) -> None:  # pragma: no cover - only called with what get_state gave
        raise NotImplementedError

    def state(self) -> dict[str, Any]:
        return {"native": self.get_state()}
