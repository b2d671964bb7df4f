"""``@xb.jit`` on JAX: the compile hook a generic Array-API backend holding JAX arrays calls.

Design constraint: nothing here runs unless JAX arrays reach ``@xb.jit``; JAX is imported inside the
hook only. No generic backend ships in this version, so this is not wired to one yet: such a backend's
``compile`` method returns ``compile_jax(fn, example, options)`` when its namespace is ``jax.numpy``.
``jax.jit`` traces with abstract values, so a data-dependent Python branch raises while tracing (a
``ConcretizationTypeError``) and ``@xb.jit`` falls back to eager with its one warning; shapes are static
(``jax.jit`` retraces per shape by itself). Not testable on a machine without JAX: untested here.
"""

from __future__ import annotations

from typing import Any, Callable


def compile_jax(fn: Callable[..., list[Any]], example: list[Any], options: dict[str, Any]) -> Callable[..., Any]:
    """``jax.jit`` of ``fn`` (native JAX arrays in, a list of them out); ``options`` go to ``jax.jit``."""
    import jax

    jitted = jax.jit(lambda *xs: tuple(fn(*xs)), **options)
    return lambda *xs: list(jitted(*xs))
