"""@xb.portable: native arrays in, Arrays inside, native arrays of the caller's type out.

Design constraint: the decorator must cost about a microsecond per call or less. The signature is
walked once, at decoration time, with :mod:`inspect` (the parameter names that error messages use); a
call only looks up ``type(arg)`` of each argument in the registry's dict keyed by exact type, builds
the Array views inline, and never imports a backend library (native types are recognised by
:func:`xbackend._dispatch.backend_for_type`, by module name). Types known not to be arrays (a
``self``, a config object) are remembered there too, so they cost one dict lookup.

The rules, applied to every positional and keyword argument, and inside tuples, lists, dicts and
named tuples (arguments and results alike):

- a native array of any registered backend (NumPy, torch, CuPy, ...) becomes an :class:`Array`
  sharing its memory (no copy, torch autograd graph kept);
- Arrays pass through unchanged; other objects (Python scalars, strings, NumPy scalars) too;
- all arrays must come from one backend (else :class:`~xbackend.BackendMismatchError`) and one
  device (else :class:`~xbackend.DeviceMismatchError`), naming the two parameters and the fix;
- if any argument was a native array, every Array in the result is handed back as its native array
  (``Array.native``: the caller's type, on the caller's device); if all were Arrays, the result stays
  as Arrays.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, TypeVar, overload

from ._array import Array, _alloc
from ._dispatch import _by_type, backend_for_type
from ._errors import ArgumentTypeError, BackendMismatchError, DeviceMismatchError, mismatch

__all__ = ["portable"]

F = TypeVar("F", bound=Callable[..., Any])

_MISS: Any = object()  # "not looked up yet" (Any: it stands in for a backend in the same slot)
_CONTAINERS = (tuple, list, dict)
# types that are certainly not arrays: skip them without a dict lookup in the backend registry
_PLAIN = frozenset({int, float, complex, bool, str, bytes, type(None), slice, type(Ellipsis)})


class _Seen:
    """The backend and device of the first array argument met during one call, and where it came from."""

    __slots__ = ("be", "dev", "where", "native")

    def __init__(self) -> None:
        self.be: Any = None
        self.dev: Any = None
        self.where = ""
        self.native = False

    @classmethod
    def at(cls, be: Any, dev: Any, where: str) -> "_Seen":
        s = cls()
        s.be, s.dev, s.where = be, dev, where
        return s


def _wrap(x: Any, be: Any) -> Array:
    a = _alloc()
    a._data = x
    a._dt = be.dtype_of(x)
    a._dev = be.device_of(x)
    a._be = be
    return a


def _mismatch(fname: str, seen: _Seen, where: str, be: Any, dev: Any) -> Exception:
    first = f"{seen.where!r} ({seen.be.name} on {seen.dev})"
    other = f"{where!r} ({be.name} on {dev})"
    if be is not seen.be:
        return BackendMismatchError(
            mismatch("backends", first, other,
                     f"pass every array of {fname}() from one backend, e.g. xb.asarray(y, backend={seen.be.name!r})"
                     f".native (an explicit copy)")
        )  # fmt: skip
    return DeviceMismatchError(
        mismatch("devices", first, other, f"move one explicitly before calling {fname}(), e.g. to {str(seen.dev)!r}")
    )


def _convert(x: Any, seen: _Seen, where: str, fname: str) -> Any:
    """The slow path: containers, Arrays, unknown types (called only for non-native, non-plain values)."""
    t = type(x)
    if t is Array:
        be, dev = x._be, x._dev
        if seen.be is None:
            seen.be, seen.dev, seen.where = be, dev, where
        elif be is not seen.be or dev is not seen.dev:
            raise _mismatch(fname, seen, where, be, dev)
        return x
    if t in _PLAIN:
        return x
    if isinstance(x, _CONTAINERS):
        if isinstance(x, dict):
            return {k: _convert(v, seen, f"{where}[{k!r}]", fname) for k, v in x.items()} if x else x
        items = [_convert(v, seen, f"{where}[{i}]", fname) for i, v in enumerate(x)]
        if t is list:
            return items
        if t is tuple:
            return tuple(items)
        if hasattr(x, "_fields"):  # named tuple
            return t(*items)
        return t(items)
    be = _by_type.get(t, _MISS)
    if be is _MISS:
        be = backend_for_type(t)
    if be is None:
        return x
    a = _wrap(x, be)
    if seen.be is None:
        seen.be, seen.dev, seen.where = be, a._dev, where
    elif be is not seen.be or a._dev is not seen.dev:
        raise _mismatch(fname, seen, where, be, a._dev)
    seen.native = True
    return a


def _unwrap(r: Any) -> Any:
    """Arrays in the result (also nested in tuples, lists, dicts, named tuples) -> their native arrays."""
    t = type(r)
    if t is Array:
        return r._data
    if t is tuple:
        return tuple([_unwrap(v) for v in r])
    if t is list:
        return [_unwrap(v) for v in r]
    if t is dict:
        return {k: _unwrap(v) for k, v in r.items()}
    if isinstance(r, tuple) and hasattr(r, "_fields"):
        return t(*[_unwrap(v) for v in r])
    if isinstance(r, dict):  # OrderedDict and friends; defaultdict and others become a plain dict
        items = {k: _unwrap(v) for k, v in r.items()}
        try:
            return t(items)
        except TypeError:
            return items
    if isinstance(r, (list, tuple)):
        return t([_unwrap(v) for v in r])
    return r


def _parameter_names(fn: Callable[..., Any]) -> tuple[tuple[str, ...], str | None]:
    """Names of the positional parameters, and of ``*args`` if any (for error messages)."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):  # builtins without a signature
        return (), None
    names = tuple(p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))
    star = next((p.name for p in params if p.kind is p.VAR_POSITIONAL), None)
    return names, star


@overload
def portable(fn: F, /) -> F: ...
@overload
def portable(fn: None = None, /) -> Callable[[F], F]: ...


def portable(fn: F | None = None, /) -> F | Callable[[F], F]:
    """Make a function written against xbackend accept and return native arrays of any backend.

    Native arrays (NumPy, torch, CuPy, any registered backend) given as arguments - also inside
    tuples, lists, dicts and named tuples - become :class:`Array` views (no copy; torch autograd
    flows through). When the function returns, each Array in its result becomes the native array of
    the caller's type and device again. Called with Arrays only, it returns Arrays. Arrays of two
    backends or two devices raise :class:`~xbackend.BackendMismatchError` /
    :class:`~xbackend.DeviceMismatchError` naming both parameters.

    Works with and without parentheses: ``@xb.portable`` and ``@xb.portable()``.

    Examples
    --------
    >>> import numpy as np, xbackend as xb
    >>> @xb.portable
    ... def scaled_sigmoid(x, scale=1.0):
    ...     return scale / (1.0 + xb.exp(-x))
    >>> out = scaled_sigmoid(np.zeros(3), scale=2.0)
    >>> type(out).__name__, out.tolist()
    ('ndarray', [1.0, 1.0, 1.0])
    >>> scaled_sigmoid(xb.zeros(2)).backend   # Arrays in, Arrays out
    'numpy'
    """
    if fn is None:
        return portable
    if not callable(fn):
        raise ArgumentTypeError(f"@xb.portable decorates a function, got {type(fn).__name__}. Fix: put it above a "
                                "def, e.g. f = xb.portable(lambda x: x + 1)")  # fmt: skip
    names, star = _parameter_names(fn)
    n_named = len(names)
    fname = getattr(fn, "__qualname__", getattr(fn, "__name__", "function"))
    by_type_get, plain, array_t, alloc = _by_type.get, _PLAIN, Array, _alloc

    def where(args: tuple[Any, ...], x: Any) -> str:  # the parameter name of argument x (error messages only)
        i = next((j for j, y in enumerate(args) if y is x), 0)
        return names[i] if i < n_named else f"{star or 'args'}[{i - n_named}]"

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        # hot path, inlined: native arrays and Arrays at the top level; containers and the rest go to _convert
        be0 = dev0 = x0 = slow = None
        native = False
        new: list[Any] = []
        append = new.append
        for x in args:
            t = type(x)
            if t is array_t:
                if slow is None:
                    if be0 is None:
                        be0, dev0, x0 = x._be, x._dev, x
                        append(x)
                        continue
                    if x._be is be0 and x._dev is dev0:
                        append(x)
                        continue
            else:
                be = by_type_get(t, _MISS)
                if be is None:  # a type already known not to be an array (a config object, self, ...)
                    if not isinstance(x, _CONTAINERS):
                        append(x)
                        continue
                elif be is not _MISS and slow is None:
                    a = alloc()
                    a._data = x
                    a._dt = be.dtype_of(x)
                    dev = a._dev = be.device_of(x)
                    a._be = be
                    if be0 is None:
                        be0, dev0, x0 = be, dev, x
                    elif be is not be0 or dev is not dev0:
                        raise _mismatch(fname, _Seen.at(be0, dev0, where(args, x0)), where(args, x), be, dev)
                    native = True
                    append(a)
                    continue
                if t in plain:
                    append(x)
                    continue
            if slow is None:
                slow = _Seen.at(be0, dev0, where(args, x0) if x0 is not None else "")
            append(_convert(x, slow, where(args, x), fname))
        if kwargs:
            for k, v in kwargs.items():
                if type(v) not in plain:
                    if slow is None:
                        slow = _Seen.at(be0, dev0, where(args, x0) if x0 is not None else "")
                    kwargs[k] = _convert(v, slow, k, fname)
            out = fn(*new, **kwargs)
        else:
            out = fn(*new)
        if not native and (slow is None or not slow.native):
            return out
        if type(out) is array_t:
            return out._data
        return _unwrap(out)

    call.__wrapped__ = fn
    call.__xbackend_portable__ = True  # type: ignore[attr-defined]  # a marker attribute on the wrapper
    return call
