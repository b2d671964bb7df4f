"""Closures under ``xb.grad`` on NumPy and CuPy Arrays: constants on the engine, as torch sees them.

Design constraint: "written once". A loss that reads a global or closure Array trains on torch Arrays; on NumPy
and CuPy Arrays, which ``xb.grad`` differentiates through torch on zero-copy views of the arguments, the same loss
meets a NumPy Array next to torch views. While ``f`` runs, a :class:`Homes` in ``_array.MIXED_PLACES`` names each
such place (the arguments' backend and device, and the engine that differentiates them); an operation that mixes an
Array of a home place with one of its engine takes the home Array as a *constant* on the engine - the zero-copy view
the arguments get, with no graph - which is what torch does with a closure tensor that does not require grad. Nothing
moves between devices and nothing is copied (the same transport as the arguments').

Only the mismatch paths read this (an operation of two places is an error everywhere else), so it costs the
matched operations nothing. The operators convert on the spot (:func:`partners`); a public function behind the
boundary gets :class:`GradPlaceMismatch`, which carries :meth:`Homes.rebase`, and runs again on converted arguments.
An in-place write into a home Array from an engine one (``c += w`` with ``c`` a closure) stays refused, with the
fix: it would write the graph into NumPy memory.
"""

from __future__ import annotations

from typing import Any, Callable

from .._array import MIXED_PLACES, _new
from .._errors import BackendMismatchError

__all__ = ["Homes", "enter", "GradPlaceMismatch"]


class GradPlaceMismatch(BackendMismatchError):
    """An operation inside ``xb.grad`` met an Array of the differentiated Arrays' backend (a global or closure)
    next to the engine's views; the boundary runs the call again with ``xb_rebase`` applied to its arguments."""

    xb_rebase: Callable[[Any], Any]


class Homes:
    """The places ``xb.grad`` differentiates through another backend right now, innermost last: ``(home backend,
    home device, engine, engine device, move_in)`` each. While ``f`` runs, ``_array.MIXED_PLACES`` holds this object,
    and the Array's mismatch paths ask it (:meth:`partners`, :meth:`mismatch`)."""

    __slots__ = ("homes",)

    def __init__(self, homes: tuple[tuple[Any, ...], ...]) -> None:
        self.homes = homes

    def partners(self, a: Any, b: Any, *, inplace: bool = False) -> tuple[Any, Any] | None:
        return partners(self.homes, a, b, inplace=inplace)

    def mismatch(self, a: Any, b: Any, write: bool = False) -> BackendMismatchError | None:
        return mismatch_in_grad(self.homes, a, b, write)

    def rebase(self, obj: Any) -> Any:
        return rebase(self.homes, obj)


def enter(home: tuple[Any, ...]) -> Any:
    """Make ``home`` the innermost place while ``f`` runs; returns the token for ``MIXED_PLACES.reset``."""
    outer = MIXED_PLACES.get()
    return MIXED_PLACES.set(Homes((() if outer is None else outer.homes) + (home,)))


def _home(x: Any, homes: tuple[tuple[Any, ...], ...]) -> tuple[Any, ...] | None:
    be, dev = getattr(x, "_be", None), getattr(x, "_dev", None)
    for h in homes:
        if h[0] is be and h[1] is dev:
            return h
    return None


def _on_engine(x: Any, homes: tuple[tuple[Any, ...], ...]) -> bool:
    be, dev = x._be, x._dev
    return any(h[2] is be and h[3] is dev for h in homes)


def _constant(x: Any, h: tuple[Any, ...]) -> Any:
    """Home Array ``x`` as a constant on the engine: the zero-copy view the arguments get, no graph."""
    return _new(h[4](x._data, x._dt), x._dt, h[3], h[2])


def partners(homes: tuple[tuple[Any, ...], ...], a: Any, b: Any, *,
             inplace: bool = False) -> tuple[Any, Any] | None:  # fmt: skip
    """Two Arrays of two places, as one place inside ``xb.grad``: the home one as a constant on the engine; None
    when they are not a home and its engine (the caller raises the mismatch). ``inplace``: ``a`` is written, so only
    ``b`` may be converted."""
    if _on_engine(a, homes):
        h = _home(b, homes)
        return None if h is None else (a, _constant(b, h))
    if not inplace and _on_engine(b, homes):
        h = _home(a, homes)
        return None if h is None else (_constant(a, h), b)
    return None


def rebase(homes: tuple[tuple[Any, ...], ...], obj: Any) -> Any:
    """``obj`` with every Array of a home place (in tuples and lists too) as a constant on its engine."""
    t = type(obj)
    if t is tuple or t is list:
        return t(rebase(homes, o) for o in obj)
    if hasattr(obj, "_be"):
        h = _home(obj, homes)
        if h is not None:
            return _constant(obj, h)
    return obj


def mismatch_in_grad(homes: tuple[tuple[Any, ...], ...], a: Any, b: Any,
                     write: bool = False) -> BackendMismatchError | None:  # fmt: skip
    """The error for a home Array next to an engine one that no conversion resolved here: a
    :class:`GradPlaceMismatch` (the boundary converts the arguments and runs the call again), or, for a write
    into the home Array ``a`` (``write``), the refusal with the fix: the graph would go into a temporary view of
    NumPy memory, and a later read of ``a`` would not see it. None for other pairs."""
    h = _home(a, homes) or _home(b, homes)
    if h is None or not (_on_engine(a, homes) or _on_engine(b, homes)):
        return None
    be, engine = h[0].name, h[2].name
    exc = (BackendMismatchError if write and _home(a, homes) is not None else GradPlaceMismatch)(
        f"inside xb.grad, the Array arguments on {be} ({h[1]}) are {engine} views of them, and this operation "
        f"mixes one with a {be} Array f was not given (a global or a closure) in a way that cannot read it as a "
        f"constant (a write into it: c += w). Fix: pass that Array as an argument of f, or write into a copy "
        f"made inside f, e.g. c = xb.asarray(c, backend={engine!r}, device={str(h[3])!r}, copy=True)"
    )
    if type(exc) is GradPlaceMismatch:
        exc.xb_rebase = Homes(homes).rebase
    return exc
