"""``xb.grad`` on JAX: ``jax.value_and_grad`` of the function, for Arrays the generic Array-API backend holds as
JAX arrays.

Design constraint: nothing here runs unless JAX arrays reach ``xb.grad``; JAX is imported inside the function
only. ``jax.value_and_grad`` traces the function with JVP tracers: xbackend's Python runs for real on them (our
promotion rules and special cases decide every ``jax.numpy`` call), so the gradient is that of the same
computation the other backends make. Nesting (``xb.grad(xb.grad(f))``) and ``@xb.jit`` (``jax.jit``) compose as
JAX's own transformations do. JAX has no grad mode: ``x.detach()`` is ``jax.lax.stop_gradient``.
"""

from __future__ import annotations

from typing import Any, Callable


def value_and_grad(fn: Callable[[list[Any]], tuple[Any, list[Any]]], xs: list[Any],
                   wrt: tuple[int, ...]) -> tuple[Any, list[Any], list[Any]]:  # fmt: skip
    """``fn(xs)``'s value, its gradients with respect to ``xs[i]`` for ``i`` in ``wrt``, and its aux arrays."""
    import jax

    def of_diff(*diff: Any) -> tuple[Any, list[Any]]:
        full = list(xs)
        for i, d in zip(wrt, diff):
            full[i] = d
        return fn(full)

    (value, aux), grads = jax.value_and_grad(of_diff, argnums=tuple(range(len(wrt))), has_aux=True)(
        *(xs[i] for i in wrt)
    )
    return value, list(grads), [jax.lax.stop_gradient(a) for a in aux]
