"""Autograd on Arrays, where the backend has it (torch): ``x.requires_grad``, ``x.grad``, ``x.backward()``,
``x.requires_grad_()``, ``x.is_leaf``, ``requires_grad=`` at creation, and the portable ``xb.no_grad()``.

Design constraint: this module names no backend. It installs the attributes on :class:`~xbackend.Array` when
it loads (``import xbackend`` imports it), as ``_operators`` installs the dunders, and each attribute asks the
Array's backend (the autograd part of the contract, ``_backend_grad.py``). A backend without autograd answers
"nothing requires grad" (``x.grad`` is None) and refuses the rest with :class:`~xbackend.GradientError` naming
what works instead: ``xb.grad(f)``, which differentiates NumPy and CuPy Arrays through torch (``_grad.py``).

``xb.no_grad()`` switches off the grad mode of every loaded backend that has one (torch), and is a no-op
elsewhere - NumPy records nothing, and JAX has no tape. Inside a function that ``xb.grad`` differentiates
with JAX it raises instead of doing nothing: JAX would differentiate through the block, torch would not,
and results must not depend on the backend (``x.detach()``, which is ``jax.lax.stop_gradient`` there, is
the portable spelling).
"""

from __future__ import annotations

import contextlib
import contextvars
import sys
from typing import Any

from .._array import Array, _check_partner, _new
from .._dispatch import _by_module, backend_for_type, get_backend, get_backend_class
from .._errors import ArgumentTypeError, GradientError, XBackendError
from .._interchange import shares_memory

__all__ = ["no_grad"]

#: the backends whose ``xb.grad`` is differentiating a function in this context, innermost last (``_grad.py``)
ACTIVE: contextvars.ContextVar[tuple[Any, ...]] = contextvars.ContextVar("xbackend_grad_active", default=())

_HAS_MODE: dict[str, bool] = {}  # backend name -> whether its class has a grad mode (looked up once)


def _grad_mode_backends() -> list[Any]:
    """The backends with a grad mode whose library is imported (never imports one: no tensor of a library
    that is not imported can exist)."""
    out = []
    for top, name in list(_by_module.items()):
        if top not in sys.modules:
            continue
        has = _HAS_MODE.get(name)
        if has is None:
            try:
                has = bool(get_backend_class(name).has_grad_mode)
            except Exception:  # a broken plugin: it has nothing to switch
                has = False
            _HAS_MODE[name] = has
        if has:
            try:
                be = get_backend(name)
            except XBackendError:  # installed but unusable: no Array of it exists
                _HAS_MODE[name] = False
                continue
            if be not in out:
                out.append(be)
    return out


class no_grad(contextlib.ContextDecorator):
    """Stop recording operations for autograd inside the block (or the decorated function), on every backend.

    The portable ``torch.no_grad()``: parameter updates of a training loop go under it (``p -= lr * p.grad``
    on a parameter that requires grad raises :class:`~xbackend.GradientError` naming it otherwise), and so
    does evaluation code. On backends without a grad mode (NumPy, CuPy, Dask) it does nothing, since
    nothing is recorded there. Inside a function that :func:`xbackend.grad` differentiates with JAX it raises
    :class:`~xbackend.GradientError` (JAX would differentiate through the block): use ``x.detach()``.

    Examples
    --------
    >>> import xbackend as xb
    >>> w = xb.ones(3, backend="torch", requires_grad=True)
    >>> loss = xb.sum(w * w)
    >>> loss.backward()
    >>> with xb.no_grad():
    ...     w -= 0.25 * w.grad
    >>> w.tolist(), w.requires_grad
    ([0.5, 0.5, 0.5], True)
    """

    def __new__(cls, func: Any = None) -> Any:
        """``@xb.no_grad`` without parentheses decorates ``func`` directly, as ``@torch.no_grad`` does."""
        if func is None:
            return super().__new__(cls)
        if not callable(func):
            raise ArgumentTypeError(f"xb.no_grad() takes no arguments (or decorates a function), got "
                                    f"{type(func).__name__}. Fix: e.g. with xb.no_grad(): ...")  # fmt: skip
        return super().__new__(cls)(func)

    def __init__(self, func: Any = None) -> None:
        self._stack: contextlib.ExitStack | None = None

    def _recreate_cm(self) -> "no_grad":  # as a decorator: a fresh context per call (threads, recursion)
        return type(self)()

    def __enter__(self) -> None:
        for be in ACTIVE.get():
            if not be.has_grad_mode:
                raise GradientError(
                    f"xb.no_grad() inside a function that xb.grad differentiates on {be.name}: {be.name} has no grad "
                    "mode, so it would differentiate through the block (torch would not). Fix: x.detach() on the "
                    "values that must not be differentiated"
                )
        stack = contextlib.ExitStack()
        for be in _grad_mode_backends():
            ctx = be.no_grad()
            if ctx is not None:
                stack.enter_context(ctx)
        self._stack = stack

    def __exit__(self, *exc: Any) -> bool:
        stack, self._stack = self._stack, None
        return bool(stack is not None and stack.__exit__(*exc))


# --- requires_grad= at creation ----------------------------------------------------------------
def leaf(x: Array) -> Array:
    """``x``, a freshly created Array, made a leaf that requires grad (``requires_grad=True`` of the creation
    functions); on a backend without autograd, :class:`~xbackend.GradientError` with the fix."""
    x._data = x._be.set_requires_grad(x._data, True)
    return x


def asarray_leaf(x: Array, obj: Any, copy: bool | None) -> Array:
    """``xb.asarray(obj, ..., requires_grad=True)``, where ``x`` is what ``asarray`` made of ``obj``.

    The result is a new leaf: a tensor passed in keeps its own ``requires_grad`` (the leaf aliases its memory,
    as ``asarray`` does). With ``copy=None``, data of another library (a NumPy array becoming a torch
    parameter) is copied: a parameter is updated in place, and those updates must not rewrite the caller's
    NumPy data. An Array that already is a leaf that requires grad is returned as it is.
    """
    be = x._be
    data = x._data
    if be.requires_grad(data):
        if be.is_leaf(data):
            return x
        raise GradientError(
            "xb.asarray(y, requires_grad=True) of an Array computed from others (part of an autograd graph): it "
            "cannot become a leaf. Fix: start a new leaf from its values, xb.asarray(y.detach(), requires_grad=True)"
        )
    src = obj._data if type(obj) is Array else obj
    if data is src:
        data = be.detach(data)  # a new tensor on the same memory: the caller's tensor keeps its flag
    elif copy is None and _shares_foreign(x, obj):
        data = be.astype(data, x._dt, copy=True)
    return leaf(_new(data, x._dt, x._dev, be))


def _shares_foreign(x: Array, obj: Any) -> bool:
    """Whether ``x`` shares memory with ``obj``, an array of another library (NumPy data on torch's CPU)."""
    other: Any = obj._be if type(obj) is Array else backend_for_type(type(obj))
    if other is None or other is x._be:
        return False
    with contextlib.suppress(Exception):
        return bool(shares_memory(x, obj))
    return False


def nested_grad_error(obj: Any, exc: BaseException) -> BaseException:
    """What ``xb.asarray(data)`` raises when NumPy failed on nested ``data`` holding tensors (or Arrays) that
    require grad: a :class:`~xbackend.GradientError` with the fix, else ``exc`` itself."""
    stack = [obj]
    while stack:
        o = stack.pop()
        if type(o) is list or type(o) is tuple:
            stack.extend(o)
            continue
        data = o._data if type(o) is Array else o
        be: Any = o._be if type(o) is Array else backend_for_type(type(o))
        if be is not None and be.requires_grad(data):
            return GradientError(
                f"xb.asarray() of a {type(obj).__name__} holding {be.name} arrays that require grad would gather "
                "them on the host and drop their autograd graph. Fix: xb.stack([xb.asarray(t) for t in data]) "
                "keeps the graph (on their backend), or detach them first: [t.detach() for t in data]"
            )
    return exc


# --- the Array attributes ----------------------------------------------------------------------
def _get_grad(self: Array) -> Array | None:
    be = self._be
    g = be.grad_of(self._data)
    return None if g is None else _new(g, be.dtype_of(g), self._dev, be)


def _set_grad(self: Array, value: Array | None) -> None:
    if value is None:
        self._be.set_grad(self._data, None)
        return
    if type(value) is not Array:
        raise TypeError(f"x.grad takes an Array or None, got {type(value).__name__}. Fix: x.grad = xb.asarray(g, "
                        "device=x.device)")  # fmt: skip
    if value._be is not self._be or value._dev is not self._dev:
        _check_partner(self, value)
    self._be.set_grad(self._data, value._data)


def _get_requires_grad(self: Array) -> bool:
    return self._be.requires_grad(self._data)


def _set_requires_grad(self: Array, flag: bool) -> None:
    self._data = self._be.set_requires_grad(self._data, bool(flag))


def requires_grad_(self: Array, requires_grad: bool = True) -> Array:
    """Make this Array (a leaf) require grad, in place, and return it: ``w = xb.zeros(3,
    backend="torch").requires_grad_()``. Only torch Arrays record a graph; on other backends this raises
    :class:`~xbackend.GradientError` with the fix (differentiate a function with :func:`xbackend.grad`)."""
    _set_requires_grad(self, requires_grad)
    return self


def backward(self: Array, gradient: Array | None = None, *, retain_graph: bool | None = None,
             create_graph: bool = False) -> None:  # fmt: skip
    """Accumulate the gradient of this Array (a 0-d loss, or any shape with ``gradient=``) into ``.grad`` of
    every leaf that requires grad; torch Arrays only. Torch's errors (a second backward through a freed
    graph, a parameter changed in place, nothing that requires grad) become :class:`~xbackend.GradientError`
    with the fix.

    >>> import xbackend as xb
    >>> w = xb.asarray([1.0, 2.0], backend="torch", requires_grad=True)
    >>> xb.sum(w * w).backward()
    >>> w.grad.tolist()
    [2.0, 4.0]
    """
    g = None
    if gradient is not None:
        if type(gradient) is not Array:
            raise TypeError(f"gradient= takes an Array, got {type(gradient).__name__}")
        if gradient._be is not self._be or gradient._dev is not self._dev:
            _check_partner(self, gradient)
        g = gradient._data
    self._be.backward(self._data, g, retain_graph, create_graph)


def _get_is_leaf(self: Array) -> bool:
    return self._be.is_leaf(self._data)


def _install() -> None:
    Array.grad = property(_get_grad, _set_grad, doc=(  # type: ignore[method-assign,assignment]
        "The gradient accumulated by ``backward()`` (an Array on this Array's backend and device), or None; "
        "assign None to reset it. Always None on backends without autograd."))  # fmt: skip
    Array.requires_grad = property(_get_requires_grad, _set_requires_grad, doc=(  # type: ignore[method-assign,assignment]
        "Whether operations on this Array are recorded for autograd (torch); assigning True is "
        "``requires_grad_()``. False on backends without autograd."))  # fmt: skip
    Array.is_leaf = property(_get_is_leaf, doc=(  # type: ignore[method-assign,assignment]
        "True for Arrays created rather than computed from Arrays that require grad: the ones whose ``.grad`` "
        "``backward()`` fills (torch; always True elsewhere)."))  # fmt: skip
    Array.requires_grad_ = requires_grad_  # type: ignore[method-assign]
    Array.backward = backward  # type: ignore[method-assign]


_install()
