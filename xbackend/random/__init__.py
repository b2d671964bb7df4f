"""Random numbers: one seed, the same numbers on every backend and device.

``xb.random.default_rng(seed)`` returns a :class:`Generator` with NumPy's method names. Its default
*portable* stream is Philox4x64-10, bit for bit NumPy's ``numpy.random.Philox`` for the same key and
counter, computed on the generator's own backend and device (never through the host): integers and
uniform floats are bit-identical on NumPy, torch (CPU and CUDA), CuPy, Dask (whatever the chunking),
array-api-strict and JAX; normal and exponential variates agree to an ulp or two (their ``log``/``cos``
are each library's own). ``stream="native"`` opts into the backend's own, faster generator instead.

Importing this package imports no backend library; the per-backend parts load on first use.

>>> import xbackend as xb
>>> rng = xb.random.default_rng(2024)
>>> rng.random(3, dtype=xb.float32).dtype
xb.float32
"""

from __future__ import annotations

import functools as _functools
import inspect as _inspect
from typing import Any as _Any, Callable as _Callable

from .._boundary import FP_SIGNALS as _FP_SIGNALS, raise_translated as _raise_translated
from ._engine import NativeStateError
from ._generator import Generator, default_rng

__all__ = ["Generator", "default_rng", "NativeStateError"]


def _typed(fn: _Callable[..., _Any], name: str) -> _Callable[..., _Any]:
    """``fn`` behind the one way out (xbackend/_boundary.py): a native exception becomes its typed error. A draw
    advances the generator, so a floating-point signal (``pytest -W error``) is raised as it is, never retried
    quietly as the boundary retries pure functions."""

    @_functools.wraps(fn)
    def typed(*args: _Any, **kwargs: _Any) -> _Any:
        try:
            return fn(*args, **kwargs)
        except Exception as exc:
            if isinstance(exc, _FP_SIGNALS):
                raise
            _raise_translated(exc, name)
            raise  # (raise_translated always raises)

    typed.__xb_boundary__ = True  # type: ignore[attr-defined]
    return typed


# default_rng and the Generator's methods raise only xbackend's typed errors, as every public function does
# (rng.normal(object()) raised a bare TypeError, rng.permutation(-1) NumPy's ValueError;
# tests/test_boundary_generated.py)
default_rng = _typed(default_rng, "random.default_rng")
for _name, _fn in list(vars(Generator).items()):
    if not _name.startswith("_") and _inspect.isfunction(_fn) and not getattr(_fn, "__xb_boundary__", False):
        setattr(Generator, _name, _typed(_fn, f"random.Generator.{_name}"))
