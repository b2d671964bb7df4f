"""The portable stream's standard variates, each from fixed words of the call (see :mod:`._philox`).

Design constraint: variate ``i`` of a call depends only on the key, the call's counter and ``i``, so any
range ``start .. start + n - 1`` can be computed alone (a Dask chunk, a retry). Every construction is
exact integer arithmetic followed by one documented float step:

- uniform float64: ``(w >> 11) * 2**-53``, ``w`` the call's 64-bit word ``i``;
- uniform float32, float16, bfloat16: ``(w >> 8) * 2**-24``, ``(w >> 21) * 2**-11``, ``(w >> 24) * 2**-8``,
  ``w`` the call's 32-bit word ``i``;
- normal: Box-Muller in float64 on pair ``k = i // 2``, which uses the 64-bit words ``2k`` and ``2k + 1`` as
  uniforms ``u0``, ``u1``: ``r = sqrt(-2 log1p(-u0))``, ``t = 2 pi u1``; variate ``2k`` is ``r cos t``, ``2k + 1``
  is ``r sin t``;
- exponential: ``-log1p(-u)`` in float64, ``u`` the float64 uniform of 64-bit word ``i``;
- bounded in ``[0, r)``: for ``r <= 2**32`` Lemire's ``m = w * r`` on 32-bit word ``i``, the variate ``m >> 32``
  unless ``m mod 2**32 < 2**32 mod r``; for larger ``r``, ``w & (2**k - 1)`` on 64-bit word ``i`` (``2**k`` the
  least power of two ``>= r``) unless it is ``>= r``. A rejected variate is drawn again from word ``i`` of the
  stream at counter ``c + a * 2**192`` (attempt ``a = 1, 2, ...``);
- integers in ``[low, low + r)`` of a dtype: ``low + v`` of the bounded variate ``v`` in ``[0, r)``, exactly;
- keys (permutations): ``w & (2**63 - 1)`` as int64, ``w`` the 64-bit word ``i``;
- gamma and beta: Marsaglia-Tsang on Philox block ``i`` (beta: blocks ``2i`` and ``2i + 1``) with retries at the
  sub-streams above, through :mod:`._exact`'s float functions (:mod:`._gamma`): bit-identical on every backend.

A source may make a whole draw in one step (:meth:`~xbackend.random._source.PhiloxSource.fused`: the CUDA
kernels); what it returns must be what these functions compute.

The float results of uniforms and integers are bit-identical on every backend; normal and exponential
variates go through ``log1p``/``sqrt``/``cos``/``sin`` in float64, which libraries round differently by
an ulp or two (tests/test_random.py measures the spread), and are then cast to the requested dtype.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable

from .. import _dtypes as D
from .._array import Array
from .._creation import asarray
from .._devices import Device
from .._dtypes import DType
from .._elementwise import cos, log1p, logical_not, sin, sqrt
from .._errors import BackendFailure
from .._manipulation import reshape, stack
from .._dtype_functions import astype
from .._searching import nonzero, where
from .._utility import any as any_
from . import _philox
from ._gamma import beta, gamma

if TYPE_CHECKING:
    from ._source import PhiloxSource

__all__ = ["DRAWS", "WORDS", "uniform_from_words", "UNIFORM_BITS", "shift_into"]

#: uniform floats: dtype -> (word width, right shift, scale)
UNIFORM_BITS: dict[DType, tuple[int, int, float]] = {
    D.float64: (64, 11, 2.0**-53),
    D.float32: (32, 8, 2.0**-24),
    D.float16: (32, 21, 2.0**-11),
    D.bfloat16: (32, 24, 2.0**-8),
}
TWO_PI = 2 * math.pi
MAX_RETRIES = 256  # each retry rejects with probability < 1/2 per variate: never reached in practice


def uniform_from_words(w: Array, dt: DType) -> Array:
    """Uniform ``[0, 1)`` floats of dtype ``dt`` from words of :data:`UNIFORM_BITS`'s width (exact)."""

    _, shift, scale = UNIFORM_BITS[dt]
    return astype(w >> shift, dt) * scale


def uniform(src: PhiloxSource, dev: Device, key: tuple[int, int], ctr: int, start: int, n: int, dt: DType,
            arg: Any = None) -> Array:  # fmt: skip
    fast = src.uniform(key, ctr, start, n, dt, dev)
    if fast is not None:
        return fast
    return uniform_from_words(src.words(key, ctr, start, n, UNIFORM_BITS[dt][0], dev), dt)


def normal(src: PhiloxSource, dev: Device, key: tuple[int, int], ctr: int, start: int, n: int, dt: DType,
           arg: Any = None) -> Array:  # fmt: skip

    fast = src.fused("normal", key, ctr, start, n, dt, arg, dev)
    if fast is not None:
        return fast
    s0 = start - start % 2
    pairs = (start + n - s0 + 1) // 2
    u = reshape(uniform(src, dev, key, ctr, s0, 2 * pairs, D.float64), (pairs, 2))  # words 2k, 2k+1 of pair k
    r = sqrt(log1p(-u[:, 0]) * -2.0)
    t = u[:, 1] * TWO_PI
    z = reshape(stack([r * cos(t), r * sin(t)], axis=1), (-1,))
    if start != s0 or z.shape[0] != n:
        z = z[start - s0 : start - s0 + n]
    return z if dt is D.float64 else astype(z, dt)


def exponential(src: PhiloxSource, dev: Device, key: tuple[int, int], ctr: int, start: int, n: int, dt: DType,
                arg: Any = None) -> Array:  # fmt: skip

    fast = src.fused("exponential", key, ctr, start, n, dt, arg, dev)
    if fast is not None:
        return fast
    e = -log1p(-uniform(src, dev, key, ctr, start, n, D.float64))
    return e if dt is D.float64 else astype(e, dt)


def _accept(w: Array, r: int) -> tuple[Array, Array | None]:
    """Candidates in ``[0, r)`` from words, and which to keep (None: all)."""

    if r <= 1 << 32:
        m = astype(w, D.uint64) * r
        t = (1 << 32) % r
        return m >> 32, (None if t == 0 else (m & _philox.M32) >= t)
    mask = (1 << (r - 1).bit_length()) - 1
    v = w & mask
    return v, (None if r == 1 << 64 else v < r)


def bounded(src: PhiloxSource, dev: Device, key: tuple[int, int], ctr: int, start: int, n: int, dt: DType,
            arg: Any = None) -> Array:  # fmt: skip
    """Unbiased integers in ``[0, arg)`` (``1 <= arg <= 2**64``) as uint64, by rejection (module table)."""

    r = int(arg)
    width = 32 if r <= 1 << 32 else 64
    v, ok = _accept(src.words(key, ctr, start, n, width, dev), r)
    attempt = 1
    while ok is not None:
        bad = logical_not(ok)
        if not bool(any_(bad)):  # (synchronises a GPU once per attempt)
            break
        if attempt > MAX_RETRIES:  # pragma: no cover - probability below 2**-256 per variate
            raise BackendFailure(f"xb.random: integer rejection sampling did not converge in {MAX_RETRIES} redraws "
                                 "(a chance below 2**-256: the backend's random words are broken). Fix: please "
                                 "report it; meanwhile draw with the backend's own generator, e.g. "
                                 "xb.random.default_rng(seed, stream='native')")  # fmt: skip
        (idx,) = nonzero(bad)
        pos = idx + start if start else idx
        v2, ok2 = _accept(src.words_at(key, (ctr + attempt * _philox.RETRY_STRIDE) % _philox.C256, pos, width), r)
        v[bad] = v2
        ok[bad] = ok2 if ok2 is not None else asarray(True, device=ok.device)
        attempt += 1
    return v


def shift_into(v: Array, low: int, r: int, dt: DType) -> Array:
    """``low + v`` (``v`` uint64 in ``[0, r)``) as dtype ``dt``, exactly: the result lies in ``dt``'s range,
    intermediate values never leave int64/uint64 (no wrap-around a backend could treat differently)."""

    if dt is D.uint64:
        return v + low if low else v
    if r <= 1 << 63:
        w = astype(v, D.int64)
        w = w + low if low else w
        return w if dt is D.int64 else astype(w, dt)
    # int64 with a range beyond 2**63 (so low < 0): add the top bit of v as two in-range steps
    top = v >= (1 << 63)
    w = astype(v & ((1 << 63) - 1), D.int64) + low
    return where(top, (w + ((1 << 63) - 1)) + 1, w)


def integers(src: PhiloxSource, dev: Device, key: tuple[int, int], ctr: int, start: int, n: int, dt: DType,
             arg: Any = None) -> Array:  # fmt: skip
    """Integers in ``[low, low + r)`` of dtype ``dt`` (``arg`` = ``(low, r)``): :func:`bounded`, shifted."""

    fast = src.fused("integers", key, ctr, start, n, dt, arg, dev)
    if fast is not None:
        return fast
    low, r = arg
    return shift_into(bounded(src, dev, key, ctr, start, n, D.uint64, r), low, r, dt)


def keys(src: PhiloxSource, dev: Device, key: tuple[int, int], ctr: int, start: int, n: int, dt: DType,
         arg: Any = None) -> Array:  # fmt: skip
    """int64 sort keys in ``[0, 2**63)``."""

    fast = src.fused("keys", key, ctr, start, n, dt, arg, dev)
    if fast is not None:
        return fast
    return astype(src.words(key, ctr, start, n, 64, dev) & (_philox.M64 >> 1), D.int64)


DRAWS: dict[str, Callable[..., Array]] = {
    "uniform": uniform, "normal": normal, "exponential": exponential, "bounded": bounded, "integers": integers,
    "keys": keys, "gamma": gamma, "beta": beta,
}  # fmt: skip


def _words_uniform(n: int, dt: DType, arg: Any) -> tuple[int, int]:
    return n, UNIFORM_BITS[dt][0]


#: draw -> fn(n, dtype, arg) -> (words, width) a call of ``n`` variates uses (its counter advance); the draws an
#: engine calls by name (``bounded`` runs inside ``integers`` only)
WORDS: dict[str, Callable[[int, DType, Any], tuple[int, int]]] = {
    "uniform": _words_uniform,
    "normal": lambda n, dt, arg: (2 * (-(-n // 2)), 64),
    "exponential": lambda n, dt, arg: (n, 64),
    "integers": lambda n, dt, arg: (n, 32 if arg[1] <= 1 << 32 else 64),
    "keys": lambda n, dt, arg: (n, 64),
    "gamma": lambda n, dt, arg: (4 * n, 64),
    "beta": lambda n, dt, arg: (8 * n, 64),
}

#: dtype each draw returns (None: the requested one)
RESULT: dict[str, DType | None] = {"uniform": None, "normal": None, "exponential": None, "bounded": D.uint64,
                                   "integers": None, "keys": D.int64, "gamma": None, "beta": None}  # fmt: skip
