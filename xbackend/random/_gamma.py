"""The portable stream's gamma and beta variates, the same bits on every backend (see :mod:`._draws`).

Gamma(``alpha``), Marsaglia and Tsang (2000): with ``d = a - 1/3``, ``c = 1 / sqrt(9 d)`` (``a = alpha``, or
``alpha + 1`` below 1; both computed on the host), an attempt for variate ``i`` takes the four 64-bit words of
Philox block ``i`` of the attempt's stream as float64 uniforms ``u0 .. u3`` (``(w >> 11) * 2**-53``) and makes

- a normal ``x = sqrt(-2 log(1 - u0)) cos(2 pi u1)`` (Box-Muller's first variate), ``v = (1 + c x)**3``;
- accepts when ``1 + c x > 0`` and ``1 - u2 < 1 - 0.0331 x**4`` or ``log(1 - u2) < x**2 / 2 + d (1 - v + log v)``;
  the variate is then ``d v``, times ``(1 - u3)**(1 / alpha)`` below 1 (the boost: ``exp(log(1 - u3) / alpha)``).

Attempt 1 is block ``i`` at the call's counter ``c``; a rejected variate tries again with block ``i`` at
``c + a * 2**192`` (attempt ``a = 1, 2, ...``, :data:`._philox.RETRY_STRIDE`), so it depends on nothing but the key,
``c`` and ``i``. Beta(``a``, ``b``) is ``X / (X + Y)`` with ``X`` the gamma(``a``) made from blocks ``2 i`` and ``Y``
the gamma(``b``) from blocks ``2 i + 1`` (each with its own retries); the boosts enter as one ``exp`` of their
difference, so tiny shapes give 0 or 1, not 0/0.

Every float operation is one of :mod:`._exact`'s or a single ``+ - * /``, in this order, so the results are
bit-identical on NumPy, torch, Dask, array-api-strict and the GPUs (tests rebuild them in plain Python from NumPy's
Philox words).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from .. import _dtypes as D
from .._array import Array
from .._creation import zeros
from .._devices import Device
from .._dtypes import DType
from .._elementwise import logical_not
from .._errors import XBackendError
from .._manipulation import reshape, stack
from .._dtype_functions import astype
from .._searching import nonzero, where
from .._utility import any as any_
from . import _philox
from ._exact import cos_2pi, exp, log, sqrt

if TYPE_CHECKING:
    from ._source import PhiloxSource

__all__ = ["gamma", "beta", "params"]

MAX_RETRIES = 256  # each attempt is accepted with probability > 0.95: never reached in practice
SQUEEZE = 0.0331


def params(alpha: float) -> tuple[float, float, float | None]:
    """``(d, c, 1 / alpha or None)`` of Marsaglia-Tsang for shape ``alpha > 0``, on the host."""
    a = alpha if alpha >= 1.0 else alpha + 1.0
    d = a - 1.0 / 3.0
    return d, 1.0 / math.sqrt(9.0 * d), (None if alpha >= 1.0 else 1.0 / alpha)


def _uniform(w: Array) -> Array:
    return astype(w >> 11, D.float64) * 2.0**-53


def _attempt(w: Array, p: tuple[float, float, float | None]) -> tuple[Array, Array | None, Array]:
    """One attempt from words ``w`` (``(m, 4)`` uint64): the gamma(``a``) values, the log of the boost (None for
    ``alpha >= 1``) and which are accepted."""
    d, c, inv = p
    r2 = log(1.0 - _uniform(w[:, 0]), below_one=True) * -2.0
    x = sqrt(r2) * cos_2pi(_uniform(w[:, 1]))
    v1 = x * c + 1.0
    pos = v1 > 0.0
    v1 = where(pos, v1, 1.0)
    v = (v1 * v1) * v1
    u = 1.0 - _uniform(w[:, 2])
    x2 = x * x
    squeeze = u < 1.0 - (x2 * x2) * SQUEEZE
    full = log(u, below_one=True) < x2 * 0.5 + ((1.0 - v) + log(v)) * d
    boost = None if inv is None else log(1.0 - _uniform(w[:, 3]), below_one=True) * inv
    return v * d, boost, pos & (squeeze | full)


def _gammas(src: PhiloxSource, dev: Device, key: tuple[int, int], ctr: int, w: Array, first: int, step: int,
            alpha: float) -> tuple[Array, Array | None]:  # fmt: skip
    """Gamma(``alpha``) variates whose first attempts use the words ``w`` (``(m, 4)``) of blocks ``first + step *
    j``: the values before the boost, and the boost's log (None for ``alpha >= 1``)."""
    p = params(alpha)
    g, lb, ok = _attempt(w, p)
    attempt = 1
    while True:
        bad = logical_not(ok)
        if not bool(any_(bad)):  # (synchronises a GPU once per attempt)
            break
        if attempt > MAX_RETRIES:  # pragma: no cover - probability below 0.05**256 per variate
            raise XBackendError("xb.random: gamma rejection sampling did not converge. Fix: report it, with the "
                                "seed (this has probability below 1e-300)")  # fmt: skip
        (idx,) = nonzero(bad)
        b4 = (idx * step + first) * 4
        pos = stack([b4, b4 + 1, b4 + 2, b4 + 3], axis=1)
        w2 = src.words_at(key, (ctr + attempt * _philox.RETRY_STRIDE) % _philox.C256, pos, 64)
        g2, lb2, ok2 = _attempt(w2, p)
        g[bad] = g2
        if lb is not None and lb2 is not None:
            lb[bad] = lb2
        ok[bad] = ok2
        attempt += 1
    return g, lb


def _zeros(n: int, dev: Device) -> Array:
    return zeros((n,), dtype=D.float64, device=dev)


def gamma(src: PhiloxSource, dev: Device, key: tuple[int, int], ctr: int, start: int, n: int, dt: DType,
          arg: Any = None) -> Array:  # fmt: skip
    """Gamma(``arg``) variates ``start .. start + n - 1`` of a call (shape ``arg >= 0``, scale 1); 4 words each."""
    fast = src.fused("gamma", key, ctr, start, n, dt, arg, dev)  # the CUDA kernel's mode 11: one launch, retries in it
    if fast is not None:
        return fast
    alpha = float(arg)
    if alpha == 0.0 or n == 0:
        out = _zeros(n, dev)
    else:
        w = reshape(src.words(key, ctr, 4 * start, 4 * n, 64, dev), (n, 4))
        g, lb = _gammas(src, dev, key, ctr, w, start, 1, alpha)
        out = g if lb is None else g * exp(lb)
    return out if dt is D.float64 else astype(out, dt)


def beta(src: PhiloxSource, dev: Device, key: tuple[int, int], ctr: int, start: int, n: int, dt: DType,
         arg: Any = None) -> Array:  # fmt: skip
    """Beta(``a``, ``b``) variates ``start .. start + n - 1`` (``arg = (a, b)``, both > 0); 8 words each."""
    a, b = float(arg[0]), float(arg[1])
    if n == 0:
        out = _zeros(0, dev)
    else:
        w = reshape(src.words(key, ctr, 8 * start, 8 * n, 64, dev), (n, 8))
        gx, lx = _gammas(src, dev, key, ctr, w[:, :4], 2 * start, 2, a)
        gy, ly = _gammas(src, dev, key, ctr, w[:, 4:], 2 * start + 1, 2, b)
        if lx is None and ly is None:
            out = gx / (gx + gy)
        else:
            diff: Array
            if lx is None:  # the log of Y's boost over X's (ly is not None here)
                diff = ly if ly is not None else gx * 0.0
            elif ly is None:
                diff = -lx
            else:
                diff = ly - lx
            e = exp(where(diff > 0.0, -diff, diff))  # <= 1: never overflows
            ex = gx * e
            out = where(diff > 0.0, ex / (ex + gy), gx / (gx + gy * e))
    return out if dt is D.float64 else astype(out, dt)
