"""@xb.jit: one function written against xbackend, compiled by each backend's own compiler.

Design constraint: a compiled function never gives a result the eager one would not. The core here
names no backend: it flattens the arguments, builds a cache key, and hands the backend a function of
*native* arrays (:meth:`xbackend.Backend.compile`). Inside that function the user's code runs on Arrays
rebuilt with ``Array._new``, so our promotion rules, special cases and emulations are what the backend's
compiler sees - the same native calls the eager path makes. A backend answers with a compiled callable,
with ``None`` (this backend runs eagerly by design: NumPy, Dask), or raises
:class:`JitUnsupported` with the reason; anything the compiler cannot take falls back to eager, with one
:class:`JitFallbackWarning` per function.

The cache (per function, LRU, bounded, behind a lock) is keyed by backend, device, the dtype and ndim
of every Array argument, the values of every non-Array argument (static or not: the compiled code bakes
them in), the argument structure, and the defaults in force (``xb.using``). Shapes are not in the key:
backends that trace with symbolic shapes (torch) check the shape guards of their traces themselves.
"""

from __future__ import annotations

import functools
import threading
import time
import warnings
import weakref
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Callable, TypeVar, overload

from . import _config
from ._array import Array, _new
from ._dispatch import backend_for_type
from ._errors import ArgumentTypeError, ArgumentValueError, BackendFailure, JitUnsupported

__all__ = ["jit", "jit_cache_info", "JitFallbackWarning", "JitCacheInfo"]

F = TypeVar("F", bound=Callable[..., Any])

DEFAULT_CACHE_SIZE = 64


class JitFallbackWarning(RuntimeWarning):
    """A jitted function runs eagerly (correct, not compiled) on some inputs; the message says why.

    Issued once per function. Fix: see the message (data-dependent Python control flow such as
    ``if x.item() > 0``, ``float(x)``, unsupported ops), or silence it with
    ``warnings.simplefilter("ignore", xb.JitFallbackWarning)``.
    """


@dataclass(frozen=True)
class JitCacheInfo:
    """Counters of one jitted function (``f.cache_info()``) or of all of them (``xb.jit_cache_info()``)."""

    hits: int
    misses: int
    compiles: int
    fallbacks: int
    compile_time_s: float
    currsize: int
    maxsize: int


_EAGER = object()  # cache value: run eagerly (by design or after a fallback)
_REGISTRY: "weakref.WeakSet[Any]" = weakref.WeakSet()  # every live jitted function, for jit_cache_info()
_REG_LOCK = threading.Lock()


_NONE: dict[str, Any] = {}
_ATOMS = frozenset({int, float, bool, complex, str, type(None)})


def _leaf_key(v: Any) -> Any:
    """A non-Array argument as part of the cache key (its type and value: compiled code bakes it in).
    Floats key by their bits (``float.hex``): -0.0 is not 0.0 and NaN equals NaN here."""
    t = type(v)
    if t is float:
        return (t, v.hex())
    if t is complex:
        return (t, v.real.hex(), v.imag.hex())
    try:
        hash(v)
    except TypeError:
        raise JitUnsupported(f"argument of type {t.__name__} is not hashable, so it cannot key the cache") from None
    return (t, v)


def _flatten(obj: Any, arrays: list[Array], key: list[Any]) -> Any:
    """``obj`` with every Array replaced by its index in ``arrays``; the structure and the other values go
    to ``key``. Returns a rebuild spec: ``("a", i)``, ``("c", value)``, or a container of specs."""
    t = type(obj)
    if t is Array:
        arrays.append(obj)
        key.append(("A", obj._dt.name, obj._data.ndim))
        return ("a", len(arrays) - 1)
    if t is tuple or t is list:
        key.append((t, len(obj)))
        return (t, tuple(_flatten(v, arrays, key) for v in obj))
    if t is dict:
        key.append((dict, tuple(obj)))
        return (dict, tuple((k, _flatten(v, arrays, key)) for k, v in obj.items()))
    if backend_for_type(t) is not None:
        raise ArgumentTypeError(
            f"@xb.jit functions take xbackend Arrays, got a native {t.__module__}.{t.__name__}. "
            "Fix: pass an xbackend Array, e.g. xb.asarray(x) (or decorate with @xb.portable on top of @xb.jit)"
        )
    key.append(_leaf_key(obj))
    return ("c", obj)


def _rebuild(spec: Any, arrays: Any) -> Any:
    """``spec`` (from the flattening) with each ("a", i) replaced by ``arrays[i]`` (a list or a dict by index)."""
    tag = spec[0]
    if tag == "a":
        return arrays[spec[1]]
    if tag == "c":
        return spec[1]
    if tag is dict:
        return {k: _rebuild(s, arrays) for k, s in spec[1]}
    return tag(_rebuild(s, arrays) for s in spec[1])


class _OutSpec:
    """The structure of a result, recorded while tracing: where its Arrays go and their dtypes/devices."""

    __slots__ = ("spec", "dts", "devs", "native_dts")

    def __init__(self) -> None:
        self.spec: Any = None
        self.dts: list[Any] = []
        self.devs: list[Any] = []
        self.native_dts: list[Any] = []  # the traced natives' own dtypes: compiled outputs must have them

    def record(self, out: Any) -> list[Any]:
        arrays: list[Array] = []
        self.spec = _flatten_out(out, arrays)
        self.dts = [a._dt for a in arrays]
        self.devs = [a._dev for a in arrays]
        self.native_dts = [a._data.dtype for a in arrays]
        return [a._data for a in arrays]


def _flatten_out(obj: Any, arrays: list[Array]) -> Any:
    t = type(obj)
    if t is Array:
        arrays.append(obj)
        return ("a", len(arrays) - 1)
    if t is tuple or t is list:
        return (t, tuple(_flatten_out(v, arrays) for v in obj))
    if t is dict:
        return (dict, tuple((k, _flatten_out(v, arrays)) for k, v in obj.items()))
    if obj is None or t in (int, float, complex, bool, str):
        return ("c", obj)
    raise JitUnsupported(
        f"the function returns a {t.__module__}.{t.__name__}; compiled functions return Arrays, Python "
        "constants and tuples/lists/dicts of them"
    )


class _Stats:
    __slots__ = ("hits", "misses", "compiles", "fallbacks", "compile_time")

    def __init__(self) -> None:
        self.hits = self.misses = self.compiles = self.fallbacks = 0
        self.compile_time = 0.0

    def fold(self, entries: Any) -> None:
        """Count the retraces of cache entries that leave the cache (evicted, cleared, or the function gone):
        ``compiles`` and ``compile_time`` never shrink."""
        extra, extra_s = _retraces(entries)
        self.compiles += extra
        self.compile_time += extra_s


def _retraces(entries: Any) -> tuple[int, float]:
    """The traces a backend made beyond the first for new shapes (torch), and their seconds, over ``entries``."""
    runs = [e.run for e in entries if type(e) is _Entry]
    return sum(max(len(getattr(r, "traces", ())) - 1, 0) for r in runs), sum(getattr(r, "retrace_seconds", 0.0)
                                                                                for r in runs)  # fmt: skip


class _Entry:
    """One cache entry: the backend's compiled callable on natives, and the recorded output structure."""

    __slots__ = ("run", "out", "be")

    def __init__(self, run: Any, out: _OutSpec, be: Any) -> None:
        self.run, self.out, self.be = run, out, be


class Jitted:
    """A function compiled per backend on first use; call it like the function it wraps.

    ``f.cache_info()`` reports its counters, ``f.cache_clear()`` empties its cache and
    ``f.eager`` is the undecorated function.
    """

    def __init__(self, fn: Callable[..., Any], static_argnames: tuple[str, ...], backend_options: dict[str, Any],
                 cache_size: int) -> None:  # fmt: skip
        if cache_size < 1:
            raise ArgumentValueError(f"cache_size must be >= 1, got {cache_size}. Fix: keep at least one compiled "
                                     f"variant, e.g. f = xb.jit(f, cache_size={DEFAULT_CACHE_SIZE})")  # fmt: skip
        self.eager = fn
        self.static_argnames = frozenset(static_argnames)
        self.backend_options = dict(backend_options)
        self.maxsize = cache_size
        self._cache: OrderedDict[Any, Any] = OrderedDict()
        self._lock = threading.Lock()  # guards the cache and the counters (held briefly, never nested)
        self._compile_lock = threading.RLock()  # held while tracing and compiling
        self._stats = _Stats()
        self._warned = False
        functools.update_wrapper(self, fn)
        with _REG_LOCK:
            _REGISTRY.add(self)
        weakref.finalize(self, _retire, self._stats, self._cache)  # its counters still count in jit_cache_info()

    def __repr__(self) -> str:
        return f"<xb.jit of {getattr(self.eager, '__qualname__', self.eager)!r}>"

    def __get__(self, obj: Any, objtype: Any = None) -> Any:  # decorated methods bind like functions
        return self if obj is None else functools.partial(self, obj)

    def cache_info(self) -> JitCacheInfo:
        """Counters of this function; ``compiles`` and ``compile_time_s`` include the retraces a backend
        made for new shapes (torch: a size on the other side of a shape guard, or another grad mode or
        requires_grad; JAX: any new shape)."""
        s = self._stats
        with self._lock:
            extra, extra_s = _retraces(self._cache.values())
            return JitCacheInfo(s.hits, s.misses, s.compiles + extra, s.fallbacks, s.compile_time + extra_s,
                                len(self._cache), self.maxsize)  # fmt: skip

    def cache_clear(self) -> None:
        with self._lock:
            self._stats.fold(self._cache.values())
            self._cache.clear()

    # -- calling ----------------------------------------------------------------------------------
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        static = {k: kwargs.pop(k) for k in list(kwargs) if k in self.static_argnames} if kwargs else _NONE
        arrays: list[Array] = []
        key: list[Any] = []
        spec = None
        fast = not kwargs and not static
        if fast:  # the common call: Arrays and Python scalars, positional (no structure to record until a miss)
            for a in args:
                t = type(a)
                if t is Array:
                    arrays.append(a)
                    key.append(a._dt.name)  # names: str hashes are cached
                    key.append(a._data.ndim)
                elif t in _ATOMS:
                    key.append(_leaf_key(a) if t is float or t is complex else a)
                    key.append(t)
                else:
                    fast = False
                    break
        try:
            if not fast:
                arrays, key = [], []
                spec = (_flatten(args, arrays, key), _flatten(kwargs, arrays, key))
                key.append(tuple(sorted((k, _leaf_key(v)) for k, v in static.items())))
        except JitUnsupported as exc:
            self._fallback(str(exc))
            return self.eager(*args, **kwargs, **static)
        if not arrays:  # nothing to compile for: no backend to ask
            return self.eager(*args, **kwargs, **static)
        a0 = arrays[0]
        be, dev = a0._be, a0._dev
        for a in arrays:
            if a._be is not be or a._dev is not dev:  # the eager call raises the typed mismatch error
                return self.eager(*args, **kwargs, **static)
        cfg = _config.current()
        full_key = (be.name, dev, fast, tuple(key), cfg.backend, cfg.device, cfg.default_float.name,
                    cfg.default_int.name)  # fmt: skip
        with self._lock:
            entry = self._cache.get(full_key)
            if entry is not None:
                self._cache.move_to_end(full_key)
                self._stats.hits += 1
            else:
                self._stats.misses += 1
        if entry is None:
            with self._compile_lock:  # one compile at a time per function; the others wait, then hit
                with self._lock:
                    entry = self._cache.get(full_key)
                if entry is None:
                    return self._first_call(full_key, be, spec, arrays, static, args, kwargs)
        if entry is _EAGER:
            return self.eager(*args, **kwargs, **static)
        try:
            natives = entry.run(*[a._data for a in arrays])
        except Exception as exc:  # a retrace for new shapes failed: eager decides whether the error is the user's
            result = self.eager(*args, **kwargs, **static)
            self._fallback(f"{type(exc).__name__}: {_first_line(exc)}")
            with self._lock:
                self._cache[full_key] = _EAGER
            return result
        return _wrap_out(entry, natives)

    def _first_call(self, full_key: Any, be: Any, spec: Any, arrays: list[Array], static: dict[str, Any],
                    args: Any, kwargs: Any) -> Any:  # fmt: skip
        if spec is None:  # the fast path records no structure: do it now
            spec = (_flatten(args, [], []), _flatten(kwargs, [], []))
        dts = [a._dt for a in arrays]
        devs = [a._dev for a in arrays]
        fn = self.eager
        out = _OutSpec()

        def on_natives(*natives: Any) -> list[Any]:
            rebuilt = [_new(n, dt, dv, be) for n, dt, dv in zip(natives, dts, devs)]
            a, k = _rebuild(spec[0], rebuilt), _rebuild(spec[1], rebuilt)
            # a config object of its own (the same settings) while the backend traces: what the creation caches
            # store under it (torch's prototype tensors, fake ones here) stays inside this trace, and entries the
            # eager calls made are not met by the tracer (tests/test_cache_reference.py)
            with _config.using():
                return out.record(fn(*a, **k, **static))

        t0 = time.perf_counter()
        try:
            run = be.compile(on_natives, [a._data for a in arrays], self.backend_options)
            entry: Any = _EAGER if run is None else _Entry(run, out, be)
            done, result = (False, None) if run is None else (True, _wrap_out(entry, run(*[a._data for a in arrays])))
        except Exception as exc:  # tracing or compiling failed: eager decides whether it is the user's error
            result = self.eager(*args, **kwargs, **static)  # raises the user's error, if it is one
            done = True
            self._fallback(f"{type(exc).__name__}: {_first_line(exc)}")
            entry = _EAGER
        else:
            with self._lock:
                self._stats.compiles += run is not None
                self._stats.compile_time += time.perf_counter() - t0
        with self._lock:
            self._cache[full_key] = entry
            self._cache.move_to_end(full_key)
            while len(self._cache) > self.maxsize:
                self._stats.fold([self._cache.popitem(last=False)[1]])
        return result if done else self.eager(*args, **kwargs, **static)

    def _fallback(self, why: str) -> None:
        with self._lock:
            self._stats.fallbacks += 1
            warn = not self._warned
            self._warned = True
        if warn:
            name = getattr(self.eager, "__qualname__", "function")
            warnings.warn(
                f"xb.jit: {name}() runs eagerly (correct, not compiled) because the compiler could not take it: "
                f"{why}. Fix: avoid data-dependent Python control flow (if x > 0, float(x), x.item()) inside "
                "jitted code, or drop @xb.jit",
                JitFallbackWarning,
                stacklevel=3,
            )


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:300] if text else "(no message)"


def _wrap_out(entry: _Entry, natives: Any) -> Any:
    o = entry.out
    be = entry.be
    if len(natives) != len(o.dts):
        raise BackendFailure(f"xb.jit: the compiled function returned {len(natives)} arrays, the traced eager code "
                             f"{len(o.dts)}: a bug in the compiler hook of backend {be.name!r}. Fix: please report "
                             "it; meanwhile run the function eagerly, e.g. f.eager(*args)")  # fmt: skip
    arrays = []
    for n, dt, dv, ndt in zip(natives, o.dts, o.devs, o.native_dts):
        if n.dtype != ndt:  # a compiled function never changes a dtype (the native one the trace recorded)
            raise BackendFailure(f"xb.jit: compiled output has native dtype {n.dtype}, the traced eager code "
                                 f"gives {ndt} ({dt}): a bug in the compiler hook of backend {be.name!r}. Fix: please "
                                 "report it; meanwhile run the function eagerly, e.g. f.eager(*args)")  # fmt: skip
        arrays.append(_new(n, dt, dv, be))
    return _rebuild(o.spec, arrays)


@overload
def jit(fn: F, /, *, static_argnames: tuple[str, ...] | str = (), backend_options: dict[str, Any] | None = None,
        cache_size: int = DEFAULT_CACHE_SIZE) -> F: ...  # fmt: skip
@overload
def jit(fn: None = None, /, *, static_argnames: tuple[str, ...] | str = (),
        backend_options: dict[str, Any] | None = None,
        cache_size: int = DEFAULT_CACHE_SIZE) -> Callable[[F], F]: ...  # fmt: skip


def jit(fn: Any = None, /, *, static_argnames: tuple[str, ...] | str = (),
        backend_options: dict[str, Any] | None = None, cache_size: int = DEFAULT_CACHE_SIZE) -> Any:  # fmt: skip
    """Compile a function written against xbackend with the compiler of the backend its Arrays live on.

    torch (CPU, CUDA): traced to the torch calls xbackend makes, then compiled by Inductor; JAX arrays
    (generic backend): ``jax.jit``; NumPy, Dask and CuPy (for now) run eagerly. Results have the eager
    function's dtypes and, within the dtype's rounding, its values. What cannot be traced (``float(x)``, ``if x > 0``, ``x.item()``) runs
    eagerly, with one :class:`JitFallbackWarning` per function.

    Parameters
    ----------
    fn
        Takes Arrays (also in tuples, lists, dicts), Python scalars and other hashable values; returns
        Arrays, Python constants, or tuples/lists/dicts of them.
    static_argnames
        Keyword arguments passed through untouched (never searched for Arrays) and keyed by value.
        Every non-Array argument is keyed by value anyway: compiled code bakes it in, so pass values
        that change every call as 0-d Arrays.
    backend_options
        Passed to the backend's compiler, e.g. ``{"mode": "max-autotune"}`` or ``{"backend": "aot_eager"}``
        for ``torch.compile``; ``{"dynamic": False}`` specialises torch traces to exact shapes;
        ``{"cudagraphs": False}`` turns off the CUDA graphs torch-CUDA replays by default.
    cache_size
        Most compiled variants kept per function (least recently used dropped first).

    Examples
    --------
    >>> import xbackend as xb
    >>> @xb.jit
    ... def softplus(x):
    ...     return xb.log1p(xb.exp(-xb.abs(x))) + xb.maximum(x, 0.0)
    >>> softplus(xb.asarray([0.0, 1.0])).dtype       # NumPy: eager, same semantics
    xb.float64
    >>> softplus.cache_info().misses
    1
    """
    if isinstance(static_argnames, str):
        static_argnames = (static_argnames,)

    def deco(f: Any) -> Any:
        if not callable(f):
            raise ArgumentTypeError(f"@xb.jit decorates a function, got {type(f).__name__}. Fix: put it above a "
                                    "def, e.g. f = xb.jit(lambda x: x + 1)")  # fmt: skip
        return Jitted(f, tuple(static_argnames), backend_options or {}, cache_size)

    return deco if fn is None else deco(fn)


_RETIRED = _Stats()  # counters of jitted functions that no longer exist


def _retire(stats: _Stats, cache: Any) -> None:
    stats.fold(cache.values())
    with _REG_LOCK:
        for k in _Stats.__slots__:
            setattr(_RETIRED, k, getattr(_RETIRED, k) + getattr(stats, k))


def jit_cache_info() -> JitCacheInfo:
    """Counters summed over every jitted function of the process (also those since garbage-collected):
    hits, misses, compiles, fallbacks, compile time; ``currsize``/``maxsize`` over the live ones.

    >>> import xbackend as xb
    >>> info = xb.jit_cache_info()
    >>> info.hits >= 0 and info.compile_time_s >= 0.0
    True
    """
    with _REG_LOCK:
        infos = [f.cache_info() for f in list(_REGISTRY)]
        r = _RETIRED
        infos.append(JitCacheInfo(r.hits, r.misses, r.compiles, r.fallbacks, r.compile_time, 0, 0))
    return JitCacheInfo(
        sum(i.hits for i in infos), sum(i.misses for i in infos), sum(i.compiles for i in infos),
        sum(i.fallbacks for i in infos), sum(i.compile_time_s for i in infos), sum(i.currsize for i in infos),
        sum(i.maxsize for i in infos),
    )  # fmt: skip
