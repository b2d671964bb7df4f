"""Random numbers: one seed, the same numbers on every backend and device.

``xb.random.default_rng(seed)`` returns a :class:`Generator` with NumPy's method names. Its default
*portable* stream is Philox4x64-10, bit for bit NumPy's ``numpy.random.Philox`` for the same key and
counter, computed on the generator's own backend and device (never through the host): integers and
uniform floats are bit-identical on NumPy, torch (CPU and CUDA), CuPy, Dask (whatever the chunking),
array-api-strict and JAX, and so are gamma and beta variates (their ``log``/``exp``/``cos``/``sqrt`` are
xbackend's own, made of exactly rounded operations); normal and exponential variates agree to an ulp or two
(their ``log``/``cos`` are each library's own). ``stream="native"`` opts into the backend's own, faster
generator instead.

Importing this package imports no backend library; the per-backend parts load on first use. Like every other public
name, ``default_rng`` and the Generator's methods sit behind the error boundary (``xbackend/_boundary.py``): a
native library's exception leaves them as a typed xbackend error. The package is imported on first use, after
``xbackend/_assemble.py`` ran, so it puts its own names behind the boundary, with the same ``install`` calls; the
one-call methods of native and CUDA generators (``one_call_methods``) translate inline, as the hot functions do.

>>> import xbackend as xb
>>> rng = xb.random.default_rng(2024)
>>> rng.random(3, dtype=xb.float32).dtype
xb.float32
"""

from __future__ import annotations

import sys as _sys

from .. import _boundary
from ._engine import NativeStateError
from ._generator import Generator, default_rng

__all__ = ["Generator", "default_rng", "NativeStateError"]

#: the Generator's public methods, behind the boundary as ``random.Generator.<name>``
GENERATOR_METHODS = ("spawn", "random", "uniform", "standard_normal", "normal", "exponential", "integers", "bernoulli",
                     "permutation", "permuted", "choice", "gamma", "beta")  # fmt: skip

_boundary.install(_sys.modules[__name__], __all__, "random.")
_boundary.install_methods(Generator, GENERATOR_METHODS, "random.Generator.")
