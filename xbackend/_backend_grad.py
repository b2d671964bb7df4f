"""The autograd part of the backend contract (issue 22): what :class:`~xbackend.Backend` inherits.

Design constraint: the defaults here are those of a backend with no autograd (NumPy, Dask, array-api-strict):
they answer "nothing requires grad" and refuse everything else with :class:`~xbackend.GradientError`, whose
fix is the backend's :attr:`grad_fix`. A backend with autograd (torch: ``_backends/_torch_grad.py``; JAX:
``_backends/_jax_grad.py``) overrides them; a backend whose Arrays another backend can differentiate without
a copy (NumPy and CuPy, through torch) names it in :attr:`grad_via`. The core (``_autograd.py``,
``_grad.py``) calls only these methods and never names a library.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any, Callable, ClassVar, ContextManager

from ._errors import GradientError

if TYPE_CHECKING:
    from ._devices import Device

__all__ = ["AutogradContract", "GRAD_FIX"]

#: the fix for a backend without autograd of its own that ``xb.grad`` can differentiate (through ``grad_via``)
GRAD_FIX = (
    "differentiate a function instead, g = xb.grad(loss)(w) (it works on NumPy and CuPy Arrays through torch), "
    "or keep the parameters on torch: w = xb.asarray(w, backend='torch', requires_grad=True)"
)

#: ``fn(xs) -> (value, aux)`` on native arrays: the function ``value_and_grad`` differentiates
NativeFn = Callable[[list[Any]], tuple[Any, list[Any]]]


class AutogradContract:
    """Optional backend methods for gradients; the defaults are those of a backend without autograd.

    ``requires_grad(x)``, ``detach(x)``, ``grad_of(x)``, ``set_grad(x, g)``, ``set_requires_grad(x, flag)``,
    ``is_leaf(x)``, ``backward(x, gradient, retain_graph, create_graph)`` back the Array attributes of the
    same names (``xbackend/_autograd.py``); ``no_grad()`` is this backend's part of ``xb.no_grad()``;
    ``value_and_grad(fn, xs, wrt, nested)`` is ``xb.grad``'s engine (``xbackend/_grad.py``);
    ``watch_grad(x, callback)`` reports the gradient reaching ``x`` in a backward pass (``diverge``'s trace);
    ``stream_handle``/``use_stream`` let a ``grad_via`` backend run on the stream of the Arrays it borrows.
    """

    name: ClassVar[str]
    #: the backend whose autograd differentiates this backend's Arrays in ``xb.grad`` (they are moved there
    #: without a copy, the gradients moved back); None: this backend's own :meth:`value_and_grad`
    grad_via: ClassVar[str | None] = None
    #: the one-line fix named when this backend is asked for autograd it does not have
    grad_fix: ClassVar[str] = GRAD_FIX
    #: True when the library has a global grad mode (torch) that ``xb.no_grad()`` switches off
    has_grad_mode: ClassVar[bool] = False

    def no_autograd(self, what: str) -> GradientError:
        """The refusal for ``what`` (an Array method or ``xb.grad``) on this backend, with its fix."""
        return GradientError(f"{what}: {self.name} Arrays record no autograd graph. Fix: {self.grad_fix}")

    def requires_grad(self, x: Any) -> bool:
        return False

    def detach(self, x: Any) -> Any:
        return x

    def grad_of(self, x: Any) -> Any:
        """The accumulated gradient of ``x`` (a native array) or None."""
        return None

    def set_grad(self, x: Any, g: Any) -> None:
        if g is not None:
            raise self.no_autograd("setting x.grad")

    def set_requires_grad(self, x: Any, flag: bool) -> Any:
        """``x`` with ``requires_grad`` set to ``flag``, changed in place (torch's ``requires_grad_``)."""
        if flag:
            raise self.no_autograd("requires_grad=True")
        return x

    def is_leaf(self, x: Any) -> bool:
        return True

    def backward(self, x: Any, gradient: Any, retain_graph: bool | None, create_graph: bool) -> None:
        raise self.no_autograd("x.backward()")

    def no_grad(self) -> ContextManager[Any] | None:
        """A context that stops this backend recording operations for autograd, or None (nothing to stop)."""
        return None

    def value_and_grad(self, fn: NativeFn, xs: list[Any], wrt: tuple[int, ...],
                       nested: bool) -> tuple[Any, list[Any], list[Any]]:  # fmt: skip
        """``fn(xs)``'s value, its gradients with respect to ``xs[i]`` for ``i`` in ``wrt``, and its aux
        natives. ``nested``: called inside another ``xb.grad``'s function, so inputs that require grad keep
        their graph (the gradients are differentiable again)."""
        raise self.no_autograd("xb.grad")

    def watch_grad(self, x: Any, callback: Callable[[Any], None]) -> bool:
        """Have ``callback(g)`` called with the gradient that reaches ``x`` (a native array that requires grad)
        when a backward pass computes it; False when this backend cannot (the default). Used only while
        ``xbackend.testing.diverge`` records a function (its backward pass, call by call)."""
        return False

    def stream_handle(self, dev: Device) -> int | None:
        """The raw handle of the stream current on ``dev`` (CUDA: ``cudaStream_t`` as an int), or None."""
        return None

    def use_stream(self, handle: int | None, dev: Device) -> ContextManager[Any]:
        """A context in which this backend's work on ``dev`` goes to the stream ``handle`` (another
        library's, from its :meth:`stream_handle`); a no-op by default."""
        return contextlib.nullcontext()
