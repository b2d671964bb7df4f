"""``@xb.jit`` on JAX: ``jax.jit`` of the function, for Arrays the generic Array-API backend holds as JAX arrays.

Design constraint: nothing here runs unless JAX arrays reach ``@xb.jit``; JAX is imported inside
:func:`compile_jax` only, which ``JaxBackend.compile`` (``backend.py``) calls.

``jax.jit`` traces ``fn`` with abstract values: xbackend's Python runs for real on the tracers (our
promotion rules, special cases and emulations decide every call the backend makes), and only the
``jax.numpy`` operations it issues are compiled by XLA. A value-dependent Python branch (``float(x)``,
``if x > 0``, a host read) raises while tracing - never a trace that bakes one input's values in - and
``@xb.jit`` falls back to eager with its one warning. Shapes are static: ``jax.jit`` traces again for
every new shape by itself (each counted in ``cache_info().compiles``).
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable


class JaxJit:
    """``jax.jit`` of ``fn`` (native JAX arrays in, a list of them out), counting the traces it makes."""

    def __init__(self, fn: Callable[..., list[Any]], options: dict[str, Any]) -> None:
        import jax

        self.fn = fn
        self.traces: list[tuple[tuple[int, ...], ...]] = []  # the input shapes of each trace
        self.retrace_seconds = 0.0  # time of the traces after the first (the first is timed by @xb.jit)
        self._lock = threading.Lock()
        self._jitted = jax.jit(self._traced, **options)

    def _traced(self, *xs: Any) -> tuple[Any, ...]:
        with self._lock:
            self.traces.append(tuple(tuple(x.shape) for x in xs))
        return tuple(self.fn(*xs))

    def __call__(self, *xs: Any) -> list[Any]:
        n = len(self.traces)
        t0 = time.perf_counter()
        out = self._jitted(*xs)
        if n and len(self.traces) > n:  # this call traced (and compiled) a new shape
            self.retrace_seconds += time.perf_counter() - t0
        return list(out)


def compile_jax(fn: Callable[..., list[Any]], example: list[Any], options: dict[str, Any]) -> JaxJit:
    """The compile hook for JAX arrays (see :meth:`xbackend.Backend.compile`); ``options`` go to ``jax.jit``."""
    return JaxJit(fn, options)
