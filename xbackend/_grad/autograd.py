"""Autograd on Arrays, where the backend has it (torch): ``x.requires_grad``, ``x.grad``, ``x.backward()``,
``x.requires_grad_()``, ``x.is_leaf``, and the portable ``xb.no_grad()`` (``requires_grad=`` at creation is the way
in's: ``xbackend/_coerce/_asarray.py``).

Design constraint: this module names no backend. ``xbackend/_assemble.py`` puts the attributes on
:class:`~xbackend.Array` (importing this module changes nothing), and each attribute asks the Array's backend (the
autograd part of the contract, ``AutogradContract`` in ``_backend.py``). A backend without autograd answers
"nothing requires grad" (``x.grad`` is None) and refuses the rest with :class:`~xbackend.GradientError` naming
what works instead: ``xb.grad(f)``, which differentiates NumPy and CuPy Arrays through torch (``transform.py``).

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
from .._dispatch import _by_module, get_backend, get_backend_class
from .._errors import ArgumentTypeError, GradientError, XBackendError

__all__ = ["no_grad"]

#: the backends whose ``xb.grad`` is differentiating a function in this context, innermost last (``transform.py``)
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
        raise ArgumentTypeError(f"x.grad takes an Array or None, got {type(value).__name__}. Fix: assign an Array "
                                "next to x, e.g. x.grad = xb.asarray(g, device=x.device)")  # fmt: skip
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
    for what, flag in (("retain_graph", retain_graph), ("create_graph", create_graph)):
        if not (flag is None or isinstance(flag, bool)):
            raise ArgumentTypeError(f"backward(): {what}= takes True or False, got {type(flag).__name__}. Fix: "
                                    f"{what}=True")  # fmt: skip
    if gradient is not None:
        if type(gradient) is not Array:
            raise ArgumentTypeError(f"gradient= takes an Array, got {type(gradient).__name__}. Fix: pass an Array "
                                    "of the loss's shape, e.g. loss.backward(xb.ones_like(loss))")  # fmt: skip
        if gradient._be is not self._be or gradient._dev is not self._dev:
            _check_partner(self, gradient)
        g = gradient._data
    self._be.backward(self._data, g, retain_graph, create_graph)


def _get_is_leaf(self: Array) -> bool:
    return self._be.is_leaf(self._data)


#: ``x.grad``, ``x.requires_grad``, ``x.is_leaf``: the Array's autograd properties (``xbackend/_assemble.py`` puts them
#: and :func:`requires_grad_`, :func:`backward` on it)
grad_property = property(_get_grad, _set_grad, doc=(
    "The gradient accumulated by ``backward()`` (an Array on this Array's backend and device), or None; "
    "assign None to reset it. Always None on backends without autograd."))  # fmt: skip
requires_grad_property = property(_get_requires_grad, _set_requires_grad, doc=(
    "Whether operations on this Array are recorded for autograd (torch); assigning True is "
    "``requires_grad_()``. False on backends without autograd."))  # fmt: skip
is_leaf_property = property(_get_is_leaf, doc=(
    "True for Arrays created rather than computed from Arrays that require grad: the ones whose ``.grad`` "
    "``backward()`` fills (torch; always True elsewhere)."))  # fmt: skip
