"""``xb.random.default_rng`` and :class:`Generator`: NumPy's generator API on every backend.

Design constraint: one seed gives the same numbers on every backend and device (the portable stream,
:mod:`xbackend.random._philox`); results are made where the generator lives and never pass through the
host. The methods here are written once over an engine's five primitives (:mod:`._engine`); parameters
(``loc``, ``scale``, ``p``, ...) are applied with xbackend operations, so Arrays of the generator's backend
and device are accepted wherever NumPy accepts arrays.
"""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from .. import _config, _dtypes as D
from .._array import Array
from .._backend import Backend
from .. import _args as A
from .._coerce import asarray, target as _target
from .._devices import Device, bind
from .._dtypes import DType
from .._elementwise import isnan
from .._errors import ArgumentTypeError, ArgumentValueError, AxisError, ScalarOverflowError, UnsupportedDTypeError
from .._indexing import take, take_along_axis
from .._manipulation import broadcast_shapes, reshape
from .._dtype_functions import astype
from .._searching import searchsorted, where
from .._sorting import argsort
from .._statistical import cumulative_sum, sum as sum_
from .._utility import any as any_
from . import _philox
from ._draws import UNIFORM_BITS
from ._engine import Portable
from ._source import native_class_for

__all__ = ["Generator", "default_rng"]

_STREAMS = ("portable", "native")


def default_rng(seed: Any = None, *, backend: str | None = None, device: Any = None, stream: str = "portable",
                chunks: Any = None) -> "Generator":  # fmt: skip
    """A random number :class:`Generator`; the same ``seed`` gives the same numbers on every backend.

    ``seed``: None (fresh entropy from the OS), an int, a sequence of ints or a
    ``numpy.random.SeedSequence`` (a Generator is returned as it is, as NumPy does). ``backend``/``device``
    place the results as for creation functions (``device=x.device`` lands next to ``x``); without them
    results follow ``xb.using(...)`` at each call. ``stream="native"`` uses the backend's own generator
    (fastest; different numbers on each backend; placed at creation). ``chunks`` sets the chunks of Arrays
    drawn on Dask (default: the backend's).

    >>> import xbackend as xb
    >>> rng = xb.random.default_rng(42)
    >>> rng.integers(0, 10, 5).tolist()
    [9, 0, 1, 1, 4]
    >>> xb.random.default_rng(42, backend="dask").integers(0, 10, 5).tolist()   # any backend: the same
    [9, 0, 1, 1, 4]
    """
    if isinstance(seed, Generator):
        if backend is not None or device is not None or stream != "portable" or chunks is not None:
            raise ArgumentTypeError("default_rng(generator) returns that generator unchanged, so it takes no "
                                    "other arguments. Fix: use generator.spawn(1)[0] with a new place, or pass a "
                                    "seed")  # fmt: skip
        return seed
    if stream not in _STREAMS:
        raise ArgumentValueError(f"stream must be 'portable' or 'native', got {stream!r}. Fix: pass one of them, "
                                 "e.g. xb.random.default_rng(seed, stream='native')")  # fmt: skip
    if isinstance(seed, (np.random.Generator, np.random.BitGenerator)):
        raise ArgumentTypeError(f"default_rng() takes a seed, not a NumPy {type(seed).__name__}. Fix: pass an int "
                                "seed or a numpy.random.SeedSequence, e.g. xb.random.default_rng(42)")  # fmt: skip
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(_checked_seed(seed))
    return Generator._make(ss, backend, device, stream, chunks, None)


def _checked_seed(seed: Any) -> Any:
    """A seed NumPy's ``SeedSequence`` takes (None, a non-negative int, a sequence of them), or xbackend's typed
    error with the fix - never NumPy's ``SeedSequence`` text."""
    if seed is None:
        return None
    if isinstance(seed, (list, tuple)) or (isinstance(seed, np.ndarray) and seed.ndim == 1):
        return [_checked_seed_int(s, seed) for s in seed]
    return _checked_seed_int(seed, seed)


def _checked_seed_int(s: Any, whole: Any) -> int:
    if isinstance(s, Array):
        raise ArgumentTypeError(f"default_rng() takes a Python int as its seed, got a {s.ndim}-d {s.dtype} Array. "
                                "Fix: convert it, e.g. xb.random.default_rng(int(seed))")  # fmt: skip
    if isinstance(s, (bool, np.bool_)) or not hasattr(s, "__index__"):
        fix = "xb.random.default_rng(int(seed))" if isinstance(s, (float, np.floating)) else "xb.random.default_rng(42)"
        raise ArgumentTypeError(f"a seed is a non-negative int (or a sequence of them), got {type(s).__name__} "
                                f"{whole!r:.60}. Fix: pass an int, e.g. {fix}")  # fmt: skip
    v = operator.index(s)
    if v < 0:
        raise ArgumentValueError(f"a seed is a non-negative int, got {v}. Fix: pass one, e.g. xb.random."
                                 "default_rng(abs(seed)) (or default_rng(None) for fresh entropy)")  # fmt: skip
    return v


def _restore(ss: Any, backend: Any, device: Any, stream: str, chunks: Any, state: Any) -> "Generator":
    return Generator._make(ss, backend, device, stream, chunks, state)


def _copy_ss(ss: np.random.SeedSequence) -> np.random.SeedSequence:
    """An equal, separate seed sequence (its count of spawned children is state)."""
    return np.random.SeedSequence(ss.entropy, spawn_key=ss.spawn_key, pool_size=ss.pool_size,
                                  n_children_spawned=ss.n_children_spawned)  # fmt: skip


def _is_int(v: Any) -> bool:
    return not isinstance(v, (bool, np.bool_, float, Array)) and hasattr(v, "__index__")


class Generator:
    """Random numbers on one backend and device (or wherever ``xb.using`` says), from a portable or a
    native stream. Build it with :func:`default_rng`.

    Every method takes ``shape`` (an int or a tuple; None: one 0-d Array; NumPy's keyword ``size=`` is the same
    argument) and, where it makes floats or ints, ``dtype`` (default: xbackend's default float or int). Results
    are Arrays on the generator's backend and device; Array parameters must live there too.

    >>> import xbackend as xb
    >>> rng = xb.random.default_rng(0)
    >>> x = rng.normal(2.0, 0.5, shape=(2, 3), dtype=xb.float32)
    >>> x.shape, x.dtype
    ((2, 3), xb.float32)
    >>> sorted(rng.permutation(5).tolist())
    [0, 1, 2, 3, 4]
    """

    __slots__ = ("_engine", "_ss", "_backend", "_device", "_place", "_f_random", "_f_standard_normal", "_f_normal",
                 "_f_integers", "__weakref__")  # fmt: skip
    _engine: Any
    # _f_*: the methods of a :class:`_OneCall` generator (a native engine's closures, or the general paths)
    _ss: np.random.SeedSequence
    _backend: Any  # the backend= and device= given (None: follow the context at each call)
    _device: Any
    _place: tuple[Backend, Device] | None  # resolved once when given (and for native streams)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise ArgumentTypeError("Generator() cannot be called directly. Fix: make one with default_rng, e.g. "
                                "rng = xb.random.default_rng(42)")  # fmt: skip

    @classmethod
    def _make(cls, ss: np.random.SeedSequence, backend: Any, device: Any, stream: str, chunks: Any,
              state: Any) -> "Generator":  # fmt: skip
        place = None
        if backend is not None or device is not None or stream == "native":
            place = _target(backend, device)
            if chunks is not None and not _lazy(place[0]):
                raise ArgumentValueError(f"chunks= applies to chunked (Dask) backends, not to {place[0].name}. "
                                         "Fix: drop chunks=, or draw on Dask, e.g. rng = "
                                         "xb.random.default_rng(seed, backend='dask', chunks=chunks)")  # fmt: skip
        native_cls = native_class_for(place[0]) if stream == "native" and place is not None else None
        if native_cls is not None and place is not None:
            engine = native_cls(place[0], place[1], ss, chunks)
            if state is not None:
                engine.set_state(state["native"])
        else:
            key = _philox.key_from_seed_sequence(ss) if state is None else (int(state["key"][0]), int(state["key"][1]))
            engine = Portable(key, 0 if state is None else int(state["counter"]), chunks)
        one_call = getattr(engine, "one_call_methods", None)
        if one_call is None and place is not None and type(engine) is Portable:  # a source drawing in one step
            one_call = _portable_one_call(engine, place)
        g = object.__new__(cls if one_call is None else _OneCall)
        g._ss, g._backend, g._device, g._place, g._engine = ss, backend, device, place, engine
        if one_call is not None:
            general = {n: getattr(g, f"_{n}") for n in _ONE_CALL}
            fast = one_call(general)
            for n in _ONE_CALL:
                setattr(g, f"_f_{n}", fast.get(n, general[n]))
        return g

    # -- where results go ---------------------------------------------------------------------------
    def _where(self, *like: Any) -> tuple[Backend, Device]:
        p = self._place
        if p is not None:
            return p
        for x in like:
            if type(x) is Array:
                return x._be, x._dev
        return _target(None, None)

    @property
    def stream(self) -> str:
        """``"portable"`` (the same numbers on every backend) or ``"native"`` (the backend's own generator;
        backends without one, such as array-api-strict, use the portable stream)."""
        return str(self._engine.name)

    @property
    def device(self) -> Device | None:
        """Where results go: a Device bound to the backend, or None when they follow ``xb.using``."""
        p = self._place
        return None if p is None else bind(p[1], p[0].name)

    @property
    def seed_seq(self) -> np.random.SeedSequence:
        """The ``numpy.random.SeedSequence`` the generator's key (and its children's) come from."""
        return self._ss

    @property
    def state(self) -> dict[str, Any]:
        """A snapshot of the state: ``{"key": k, "counter": c}`` for the portable stream (``k`` a uint64 NumPy
        array: the next call's numbers are ``numpy.random.Philox(key=k, counter=c)``'s), ``{"native": ...}``
        (the library's own state) otherwise.

        >>> import numpy as np, xbackend as xb
        >>> rng = xb.random.default_rng(7)
        >>> st = rng.state
        >>> bits = rng.integers(0, 2**64, 3, dtype=xb.uint64).tolist()
        >>> bits == np.random.Philox(key=st["key"], counter=st["counter"]).random_raw(3).tolist()
        True
        """
        return dict(self._engine.state())

    def __repr__(self) -> str:
        where = "xb.using(...)" if self._place is None else f"{self._place[0].name}:{self._place[1]}"
        return f"Generator({self.stream}, on {where})"

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Pickles (and ``copy.copy``/``deepcopy``) make an independent generator with the same state."""
        chunks = getattr(self._engine, "chunks", None)
        return (_restore, (_copy_ss(self._ss), self._backend, self._device, self.stream, chunks, self._engine.state()))

    def _placed(self, backend: Any, device: Any) -> "Generator":
        """An independent portable generator in this one's state whose results go to ``backend``/``device``: it
        draws the same numbers there (what ``xbackend.testing.across_backends`` hands each target)."""
        if not isinstance(self._engine, Portable):
            raise ArgumentTypeError("a native-stream generator draws different numbers on each backend, so it cannot "
                                    "be placed on another one. Fix: use a portable generator, "
                                    "xb.random.default_rng(seed)")  # fmt: skip
        return _restore(_copy_ss(self._ss), backend, device, "portable", None, self._engine.state())

    def spawn(self, n: int) -> list["Generator"]:
        """``n`` new generators with independent streams (keys from ``seed_seq.spawn(n)``, as NumPy's
        ``Generator.spawn``), on the same place: one per worker, thread or task.

        >>> import xbackend as xb
        >>> a, b = xb.random.default_rng(1).spawn(2)
        >>> a.random(3).tolist() != b.random(3).tolist()
        True
        """
        chunks = getattr(self._engine, "chunks", None)
        return [Generator._make(s, self._backend, self._device, self.stream, chunks, None)
                for s in self._ss.spawn(n)]  # fmt: skip

    # -- floats -------------------------------------------------------------------------------------
    def random(self, shape: Any = None, dtype: DType | None = None, *, size: Any = None) -> Array:
        """Uniform floats in ``[0, 1)``: on the portable stream ``(w >> 11) * 2**-53`` for float64 (``w`` a
        64-bit word) and ``(w >> 8) * 2**-24`` for float32 (a 32-bit word), bit-identical everywhere.

        >>> import xbackend as xb
        >>> import numpy as np
        >>> rng = xb.random.default_rng(3)
        >>> u = rng.random(2, dtype=xb.float32)
        >>> u.tolist() == np.random.Generator(np.random.Philox(3)).random(2, dtype=np.float32).tolist()
        True
        """
        return self._random(shape, dtype, size)

    def _random(self, shape: Any, dtype: Any, size: Any = None) -> Array:
        be, dev = self._where()
        return self._engine.uniform(_shape_of(_sized(shape, size)), _float_dtype(dtype, be), be, dev)

    def uniform(self, low: Any = 0.0, high: Any = 1.0, shape: Any = None, dtype: DType | None = None, *,
                size: Any = None) -> Array:  # fmt: skip
        """Uniform floats in ``[low, high)``: ``low + (high - low) * random()`` (rounding can make ``high``
        itself appear, as in NumPy). ``low``/``high`` may be Arrays (broadcast with ``shape``).

        >>> import xbackend as xb
        >>> x = xb.random.default_rng(0).uniform(-1, 1, 1000)
        >>> bool(xb.all((x >= -1) & (x < 1)))
        True
        """
        be, dev = self._where(low, high)
        dt = _float_dtype(dtype, be)
        u = self._engine.uniform(_param_shape(_sized(shape, size), low, high), dt, be, dev)
        return _as(u * (high - low) + low if not _arrays(low, high) else low + (high - low) * u, dt)

    def standard_normal(self, shape: Any = None, dtype: DType | None = None, *, size: Any = None) -> Array:
        """Standard normal floats (portable stream: Box-Muller in float64, then cast).

        >>> import xbackend as xb
        >>> z = xb.random.default_rng(0).standard_normal(10_000)
        >>> abs(float(xb.mean(z))) < 0.05, abs(float(xb.std(z)) - 1) < 0.05
        (True, True)
        """
        return self._standard_normal(shape, dtype, size)

    def _standard_normal(self, shape: Any, dtype: Any, size: Any = None) -> Array:
        be, dev = self._where()
        return self._engine.normal(_shape_of(_sized(shape, size)), _float_dtype(dtype, be), be, dev)

    def normal(self, loc: Any = 0.0, scale: Any = 1.0, shape: Any = None, dtype: DType | None = None, *,
               size: Any = None) -> Array:  # fmt: skip
        """Normal floats with mean ``loc`` and standard deviation ``scale`` (Arrays broadcast with ``shape``);
        on the portable stream ``loc + scale * z`` is computed in float64 and rounded once.

        >>> import xbackend as xb
        >>> xb.random.default_rng(5).normal(10.0, 0.1, 3, dtype=xb.float32).dtype
        xb.float32
        """
        return self._normal(loc, scale, shape, dtype, size)

    def _normal(self, loc: Any, scale: Any, shape: Any, dtype: Any, size: Any = None) -> Array:
        _check_scale(scale)
        shape = _sized(shape, size)
        be, dev = self._where(loc, scale)
        dt = _float_dtype(dtype, be)
        work = _work_dtype(self, dt)
        z = self._engine.normal(_param_shape(shape, loc, scale), work, be, dev)
        if not (_scalar_is(loc, 0) and _scalar_is(scale, 1)):
            z = z * scale + loc if not _arrays(loc, scale) else loc + scale * z
        return _as(z, dt)

    def exponential(self, scale: Any = 1.0, shape: Any = None, dtype: DType | None = None, *,
                    size: Any = None) -> Array:  # fmt: skip
        """Exponential floats with mean ``scale`` (portable stream: ``-log1p(-u)`` in float64).

        >>> import xbackend as xb
        >>> bool(xb.all(xb.random.default_rng(0).exponential(2.0, 100) >= 0))
        True
        """
        _check_scale(scale)
        be, dev = self._where(scale)
        dt = _float_dtype(dtype, be)
        e = self._engine.exponential(_param_shape(_sized(shape, size), scale), _work_dtype(self, dt), be, dev)
        if not _scalar_is(scale, 1):
            e = e * scale if not _arrays(scale) else scale * e
        return _as(e, dt)

    def gamma(self, shape: Any, scale: Any = 1.0, size: Any = None, dtype: DType | None = None) -> Array:
        """Gamma floats with shape ``shape`` (a Python float >= 0: the distribution's, so the result's shape is
        ``size`` here, as in NumPy) and ``scale`` (a float or an Array broadcast with ``size``). The portable stream
        is bit-identical on every backend: Marsaglia-Tsang (shape < 1 boosted by ``U**(1/shape)``) through
        float functions made of exactly rounded operations (``xbackend/random/_gamma.py``).

        >>> import xbackend as xb
        >>> g = xb.random.default_rng(0).gamma(2.0, 3.0, size=4)
        >>> g.tolist() == xb.random.default_rng(0, backend="dask").gamma(2.0, 3.0, size=4).tolist()
        True
        """
        alpha = _shape_parameter(shape, "gamma", "shape", zero=True)
        _check_scale(scale)
        be, dev = self._where(scale)
        dt = _float_dtype(dtype, be)
        g = self._engine.gamma(alpha, _param_shape(size, scale), _work_dtype(self, dt), be, dev)
        if not _scalar_is(scale, 1):
            g = g * scale if not _arrays(scale) else scale * g
        return _as(g, dt)

    def beta(self, a: Any, b: Any, shape: Any = None, dtype: DType | None = None, *, size: Any = None) -> Array:
        """Beta floats in ``[0, 1]`` with parameters ``a``, ``b`` (Python floats > 0): ``X / (X + Y)`` of two
        portable gamma variates, bit-identical on every backend.

        >>> import xbackend as xb
        >>> x = xb.random.default_rng(0).beta(2.0, 5.0, 1000)
        >>> bool(xb.all((x >= 0) & (x <= 1))), round(float(xb.mean(x)), 1)
        (True, 0.3)
        """
        pa = _shape_parameter(a, "beta", "a", zero=False)
        pb = _shape_parameter(b, "beta", "b", zero=False)
        be, dev = self._where()
        dt = _float_dtype(dtype, be)
        return _as(self._engine.beta(pa, pb, _shape_of(_sized(shape, size)), _work_dtype(self, dt), be, dev), dt)

    # -- integers and booleans ----------------------------------------------------------------------
    def integers(self, low: int, high: int | None = None, shape: Any = None, dtype: DType | None = None,
                 endpoint: bool = False, *, size: Any = None) -> Array:  # fmt: skip
        """Integers in ``[low, high)`` (``[low, high]`` with ``endpoint=True``; ``integers(n)`` means
        ``[0, n)``), of any integer dtype, without modulo bias: Lemire's multiply-shift on a 32-bit word for
        ranges up to 2**32, a bit mask on a 64-bit word above, each with rejection; the same numbers on
        every backend and Dask chunking. ``integers(0, 2**64, dtype=xb.uint64)`` gives the raw 64-bit words.

        >>> import xbackend as xb
        >>> xb.random.default_rng(0).integers(1, 7, 8, dtype=xb.int8).tolist()   # dice
        [1, 1, 6, 2, 3, 3, 4, 1]
        """
        return self._integers(low, high, shape, dtype, endpoint, size)

    def _integers(self, low: Any, high: Any, shape: Any, dtype: Any, endpoint: bool, size: Any = None) -> Array:
        shape = _sized(shape, size)
        be, dev = self._where()
        dt = D.dtype(dtype) if dtype is not None else _config.current().default_int
        if dt.kind not in "iu":
            raise UnsupportedDTypeError(f"integers() makes integer dtypes, not {dt}. Fix: pass dtype=xb.int64 (or "
                                        "another integer dtype); random() and uniform() make floats")  # fmt: skip
        if high is None:
            low, high = 0, low
        if not (_is_int(low) and _is_int(high)):
            raise ArgumentTypeError(f"integers() takes Python ints for low and high, got {type(low).__name__} and "
                                    f"{type(high).__name__}. Fix: convert them, e.g. low, high = int(low), "
                                    "int(high)")  # fmt: skip
        lo, hi = operator.index(low), operator.index(high) - (0 if endpoint else 1)
        if lo > hi:
            raise ArgumentValueError(f"integers(): low >= high ({low} >= {high}{' + 1' if endpoint else ''}); the "
                                     "range is empty. Fix: pass low < high (or endpoint=True for [low, high])")
        dlo, dhi = D._INT_RANGE[dt]
        if lo < dlo or hi > dhi:
            raise ScalarOverflowError(f"integers(): [{lo}, {hi}] is outside {dt}'s range {dlo}..{dhi}. Fix: pass "
                                      "bounds inside it, or a wider dtype (xb.int64)")  # fmt: skip
        return self._engine.integers(lo, hi - lo + 1, _shape_of(shape), dt, be, dev)

    def bernoulli(self, p: Any = 0.5, shape: Any = None, *, size: Any = None) -> Array:
        """Booleans that are True with probability ``p`` (a float or an Array broadcast with ``shape``):
        ``random() < p`` on float64 uniforms (bit-identical on the portable stream). Dropout masks:
        ``x * rng.bernoulli(1 - rate, x.shape) / (1 - rate)``.

        >>> import xbackend as xb
        >>> xb.random.default_rng(0).bernoulli(0.3, 6).tolist()
        [True, True, False, True, False, True]
        """
        if not _arrays(p) and not 0.0 <= float(p) <= 1.0:
            raise ArgumentValueError(f"bernoulli(): p must be in [0, 1], got {p}. Fix: pass a probability, e.g. "
                                     "p = min(max(p, 0.0), 1.0)")  # fmt: skip
        be, dev = self._where(p)
        return self._engine.uniform(_param_shape(_sized(shape, size), p), D.float64, be, dev) < p

    # -- permutations and sampling ------------------------------------------------------------------
    def _perm(self, n: int, be: Backend, dev: Device) -> Array:

        return argsort(self._engine.keys((n,), be, dev, 0), stable=True)

    def permutation(self, x: Any, axis: int = 0) -> Array:
        """A random permutation: of ``arange(x)`` for an int ``x``, else of ``x``'s entries along ``axis`` (a
        copy). Portable stream: the stable argsort of 63-bit keys from the stream, the same on every backend.

        >>> import xbackend as xb
        >>> rng = xb.random.default_rng(0)
        >>> sorted(rng.permutation(4).tolist())
        [0, 1, 2, 3]
        >>> rng.permutation(xb.asarray([[1, 2], [3, 4], [5, 6]])).shape
        (3, 2)
        """

        if _is_int(x):
            be, dev = self._where()
            return _as(self._perm(operator.index(x), be, dev), _config.current().default_int)
        x = _on(x, self)
        if x.ndim == 0:
            raise ArgumentValueError("permutation() of a 0-d Array: it has no axis to permute. Fix: pass an int n "
                                     "for a permutation of range(n), e.g. rng.permutation(int(x))")  # fmt: skip
        ax = _axis(axis, x.ndim)
        return take(x, self._perm(_size(x, ax), x._be, x._dev), axis=ax)

    def permuted(self, x: Any, axis: int | None = None) -> Array:
        """``x`` with the entries of each 1-D slice along ``axis`` shuffled independently (``axis=None``: the
        whole Array shuffled as one); NumPy's ``Generator.permuted`` (a copy).

        >>> import xbackend as xb
        >>> y = xb.random.default_rng(0).permuted(xb.reshape(xb.arange(6), (2, 3)), axis=1)
        >>> [sorted(r) for r in y.tolist()]
        [[0, 1, 2], [3, 4, 5]]
        """

        x = _on(x, self)
        if axis is None:
            flat = reshape(x, (-1,))
            return reshape(take_along_axis(flat, argsort(self._engine.keys(tuple(flat.shape), x._be, x._dev, 0)),
                                           axis=0), x.shape)  # fmt: skip
        ax = _axis(axis, x.ndim)
        k = self._engine.keys(tuple(x.shape), x._be, x._dev, ax)
        return take_along_axis(x, argsort(k, axis=ax, stable=True), axis=ax)

    def choice(self, a: Any, shape: Any = None, replace: bool = True, p: Any = None, axis: int = 0, *,
               size: Any = None) -> Array:  # fmt: skip
        """Samples from ``arange(a)`` (an int) or from ``a``'s entries along ``axis``: with replacement
        (uniform ``integers``, or the inverse CDF of ``p``), or without (the first entries of a permutation,
        or with ``p``: the smallest exponential keys ``E / p``, Efraimidis-Spirakis).

        >>> import xbackend as xb
        >>> rng = xb.random.default_rng(0)
        >>> rng.choice(5, 3, replace=False).shape
        (3,)
        >>> rng.choice(xb.asarray([10, 20, 30]), 4, p=[0.0, 0.5, 0.5]).tolist()
        [20, 20, 30, 20]
        """

        out_shape = _shape_of(_sized(shape, size))
        k = math.prod(out_shape)
        if _is_int(a):
            n = operator.index(a)
            be, dev = self._where(p)
            pool = None
        else:
            pool = _on(a, self)
            if pool.ndim == 0:
                raise ArgumentValueError("choice() of a 0-d Array: it has no axis to sample from. Fix: pass an "
                                         "int n to sample range(n), e.g. rng.choice(int(a), shape)")  # fmt: skip
            ax = _axis(axis, pool.ndim)
            n = _size(pool, ax)
            be, dev = pool._be, pool._dev
        if n <= 0 and k:
            raise ArgumentValueError("choice(): cannot take a sample from an empty population. Fix: sample a "
                                     "population of at least one entry, or ask for shape=0")  # fmt: skip
        if not replace and k > n:
            raise ArgumentValueError(f"choice(): cannot take {k} samples from {n} without replacement. "
                                     "Fix: sample with replacement, e.g. rng.choice(a, shape, replace=True)")
        idx = self._indices(n, k, replace, p, be, dev)
        if pool is None:
            return reshape(_as(idx, _config.current().default_int), out_shape)
        got = take(pool, idx, axis=ax)
        return reshape(got, tuple(_size(pool, i) for i in range(ax)) + out_shape
                       + tuple(_size(pool, i) for i in range(ax + 1, pool.ndim)))  # fmt: skip

    def _indices(self, n: int, k: int, replace: bool, p: Any, be: Backend, dev: Device) -> Array:

        if p is None:
            if replace:  # (n == 0 only with k == 0, checked above: an empty draw from a range of one)
                return self._engine.integers(0, max(n, 1), (k,), D.int64, be, dev)
            return self._perm(n, be, dev)[:k]
        w = asarray(p, dtype=D.float64, device=bind(dev, be.name))
        if tuple(w.shape) != (n,):
            raise ArgumentValueError(f"choice(): p must have shape ({n},), got {tuple(w.shape)}. Fix: pass one "
                                     "probability per entry of the population")  # fmt: skip
        if bool(any_((w < 0) | isnan(w))) or abs(float(sum_(w)) - 1.0) > 1e-8:
            raise ArgumentValueError("choice(): p must hold non-negative probabilities that sum to 1. Fix: normalise "
                                     "the weights, e.g. p = w / xb.sum(w)")  # fmt: skip
        if replace:
            cdf = cumulative_sum(w)
            cdf = cdf / cdf[-1]
            return searchsorted(cdf, self._engine.uniform((k,), D.float64, be, dev), side="right")
        if int(sum_(w > 0)) < k:
            raise ArgumentValueError(f"choice(): fewer than {k} entries of p are non-zero; cannot take {k} distinct "
                                     "samples. Fix: take fewer samples, or sample with replace=True")
        e = self._engine.exponential((n,), D.float64, be, dev)
        positive = w > 0
        return argsort(where(positive, e / where(positive, w, 1.0), math.inf), stable=True)[:k]


#: the methods a native engine may replace with one-call closures (``Native.one_call_methods``)
_ONE_CALL = ("random", "standard_normal", "normal", "integers")


class _OneCall(Generator):
    """A generator whose engine has one-call closures for the common methods (NumPy's and torch's native
    streams): each method *is* the closure, reached through a C-level property, so ``rng.random(100)`` runs one
    Python frame around the library call (the +0.35 µs goal, benchmarks/random_streams.py). A closure hands any call it
    does not handle itself (other dtypes, Array parameters) to the general path, ``_random`` & co."""

    __slots__ = ()
    random = property(operator.attrgetter("_f_random"))
    standard_normal = property(operator.attrgetter("_f_standard_normal"))
    normal = property(operator.attrgetter("_f_normal"))
    integers = property(operator.attrgetter("_f_integers"))


# -- helpers ----------------------------------------------------------------------------------------
def _portable_one_call(engine: Portable, place: tuple[Backend, Device]) -> Any:
    """``fn(general) -> closures`` when the backend's source has one-call closures for a portable generator
    placed there (torch's CUDA kernel path), else None."""
    from ._source import source_for

    return source_for(place[0]).one_call_for(engine, bind(place[1], place[0].name))


def _lazy(be: Backend) -> bool:
    from ._source import source_for

    return source_for(be).lazy


def _sized(shape: Any, size: Any) -> Any:
    """``shape``, or NumPy's spelling of it, ``size=`` (not both)."""
    if size is None:
        return shape
    if shape is not None:
        raise ArgumentTypeError(f"got shape={shape!r} and size={size!r}: they are one argument (size= is NumPy's "
                                "name for shape=). Fix: pass only one of them")  # fmt: skip
    return size


def _shape_of(shape: Any) -> tuple[int, ...]:
    return () if shape is None else A.shape(shape, "random")


def _arrays(*vals: Any) -> bool:
    return any(not isinstance(v, (int, float)) for v in vals)


def _scalar_is(v: Any, x: float) -> bool:
    return isinstance(v, (int, float)) and v == x


def _check_scale(scale: Any) -> None:
    if isinstance(scale, (int, float)) and not scale >= 0:
        raise ArgumentValueError(f"scale must be non-negative, got {scale}. Fix: pass a standard deviation (or mean) "
                                 "of at least 0, e.g. scale = abs(scale)")  # fmt: skip


def _shape_parameter(v: Any, fname: str, what: str, zero: bool) -> float:
    """A distribution's shape parameter as a Python float (> 0, or >= 0 with ``zero``), or the typed error."""
    if isinstance(v, Array) or not isinstance(v, (int, float, np.integer, np.floating)) or isinstance(v, bool):
        raise ArgumentTypeError(f"{fname}() takes a Python float for {what}, got {type(v).__name__}. Fix: pass "
                                f"float({what}), and draw once per value for several values")  # fmt: skip
    f = float(v)
    if not (f >= 0.0 if zero else f > 0.0) or math.isinf(f):
        raise ArgumentValueError(f"{fname}(): {what} must be finite and {'>=' if zero else '>'} 0, got {f}. "
                                 f"Fix: pass a {'non-negative' if zero else 'positive'} {what}")  # fmt: skip
    return f


def _param_shape(shape: Any, *params: Any) -> tuple[int, ...]:
    """``shape``, or the broadcast shape of the Array parameters when it is None (NumPy's rule)."""
    if shape is not None:
        return A.shape(shape, "random")

    shapes = [tuple(v.shape) for v in params if hasattr(v, "shape")]
    return broadcast_shapes(*shapes) if shapes else ()


def _float_dtype(dtype: Any, be: Backend) -> DType:
    dt = _config.current().default_float if dtype is None else D.dtype(dtype)
    if dt is not D.float64 and dt is not D.float32 and dt not in UNIFORM_BITS:
        raise UnsupportedDTypeError(f"random floats come in float16, bfloat16, float32 and float64, not {dt}. "
                                    "Fix: pass dtype=xb.float32 (or another of those)")  # fmt: skip
    be.native_dtype(dt)  # a dtype the backend cannot hold raises here, with its fix
    return dt


def _work_dtype(g: Generator, dt: DType) -> DType:
    """Portable streams compute transformed variates in float64 and round once; native ones in ``dt``."""
    return D.float64 if isinstance(g._engine, Portable) else dt


def _as(x: Array, dt: DType) -> Array:

    return x if x.dtype is dt else astype(x, dt)


def _size(x: Array, axis: int) -> int:
    n = x.shape[axis]
    if n is None:
        raise ArgumentValueError("the size of that axis is not known yet (a Dask Array after a boolean mask). Fix: "
                                 "xb.persist(x) (or x.compute()) first")  # fmt: skip
    return n


def _axis(axis: int, ndim: int) -> int:

    if not -ndim <= axis < ndim:
        raise AxisError(f"axis {axis} is out of bounds for an Array of {ndim} dimension(s). Fix: pass an axis in "
                        f"{-ndim}..{ndim - 1}")  # fmt: skip
    return axis % ndim


def _on(x: Any, g: Generator) -> Array:
    """``x`` as an Array; on a generator with a fixed place, data given as Python or NumPy data goes there."""
    if type(x) is Array:
        return x
    p = g._place
    if p is None:
        return asarray(x)
    return asarray(x, device=bind(p[1], p[0].name))

