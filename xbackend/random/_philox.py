"""The portable stream: Philox4x64-10 exactly as NumPy's ``numpy.random.Philox`` runs it, on any backend.

Design constraint: one definition of the stream, written here once, that every backend must reproduce
bit for bit, and that anyone can check against NumPy:

- **Key**: ``numpy.random.SeedSequence(seed).generate_state(2, numpy.uint64)`` (what ``Philox(seed)`` uses).
- **Counter**: a 256-bit integer, the generator's state. From state ``c`` the stream's block ``j`` is
  Philox4x64-10 of counter ``c + 1 + j`` (mod 2**256): four 64-bit words, so the 64-bit words of a call are
  ``numpy.random.Philox(key=key, counter=c).random_raw(n)``. Its 32-bit words are the 64-bit words split
  low half first (``random_raw(n).view(numpy.uint32)`` on a little-endian machine: NumPy's ``next_uint32``).
- **Calls consume whole blocks**: a call that uses ``w`` words of ``b`` bits advances the counter by
  ``ceil(w * b / 256)``; variate ``i`` of the call always uses the same words (:data:`WIDTH`), whatever the
  backend, the device or the Dask chunking, so any slice of a call can be computed on its own.
- **Retries** (rejection sampling in ``integers``) use the sub-stream of the same words at counter
  ``c + a * 2**192`` for attempt ``a = 1, 2, ...``: never reached by the main stream.

Backends with a faster way to make the words (NumPy's C Philox, a CUDA kernel) override
:class:`~xbackend.random._source.PhiloxSource`; this module's :func:`philox_blocks` runs the rounds with
xbackend operations on uint64 Arrays (on torch: int64 tensors and masks, through xbackend's uint64
emulation), so every backend has a correct path and the fast ones are tested against it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _dtypes as D
from .._array import Array
from .._creation import arange
from .._manipulation import reshape, stack
from .._dtype_functions import astype
from .._searching import where

__all__ = ["key_from_seed_sequence", "philox_blocks", "words_at", "words_range", "blocks_for", "M64", "RETRY_STRIDE"]

M64 = (1 << 64) - 1
M32 = (1 << 32) - 1
C256 = 1 << 256
#: Philox4x64 multipliers and Weyl key increments (Random123; NumPy's philox.h)
MUL = (0xD2E7470EE14C6C93, 0xCA5A826395121157)
WEYL = (0x9E3779B97F4A7C15, 0xBB67AE8584CAA73B)
ROUNDS = 10
#: counter offset of retry attempt ``a``: ``c + a * RETRY_STRIDE``
RETRY_STRIDE = 1 << 192


def key_from_seed_sequence(ss: np.random.SeedSequence) -> tuple[int, int]:
    """The Philox key NumPy derives from a seed sequence (``Philox(seed)`` does the same).

    >>> import numpy as np
    >>> k = key_from_seed_sequence(np.random.SeedSequence(42))
    >>> k == tuple(int(v) for v in np.random.Philox(42).state["state"]["key"])
    True
    """
    k = ss.generate_state(2, np.uint64)
    return int(k[0]), int(k[1])


def blocks_for(words: int, width: int) -> int:
    """Counter blocks a call of ``words`` words of ``width`` (32 or 64) bits consumes (whole blocks)."""
    per = 4 if width == 64 else 8
    return -(-words // per)


def _lanes(ctr: int) -> tuple[int, int, int, int]:
    return ctr & M64, (ctr >> 64) & M64, (ctr >> 128) & M64, (ctr >> 192) & M64


def _mulhilo(a: Array, m: int) -> tuple[Array, Array]:
    """``(hi, lo)`` 64-bit halves of ``a * m`` (``a`` uint64, ``m`` a 64-bit constant) from 32-bit limbs: every
    partial product fits 64 bits, so uint64 arithmetic (exact on every backend) gives the 128-bit product."""
    m_lo, m_hi = m & M32, m >> 32
    a_lo, a_hi = a & M32, a >> 32
    ll, lh, hl = a_lo * m_lo, a_lo * m_hi, a_hi * m_lo
    mid = (ll >> 32) + (lh & M32) + (hl & M32)  # < 3 * 2**32: no overflow
    hi = a_hi * m_hi + (lh >> 32) + (hl >> 32) + (mid >> 32)
    return hi, a * m


def philox_blocks(block: Array, ctr: int, key: tuple[int, int]) -> list[Array]:
    """Philox4x64-10 of counters ``ctr + 1 + block`` (``block`` a uint64 Array of block indices): four uint64
    Arrays, the words of each block in order. Runs on ``block``'s backend and device.

    >>> import numpy as np, xbackend as xb
    >>> key = (11465652750463011511, 15382171918060459190)      # SeedSequence(42)'s
    >>> lanes = philox_blocks(xb.asarray(np.array([0, 1], dtype=np.uint64)), 0, key)
    >>> words = xb.reshape(xb.stack(lanes, axis=1), (-1,)).tolist()
    >>> [hex(v) for v in words[:2]]
    ['0x16092f00ecdab98a', '0x243d19cc24021070']
    >>> words == np.random.Philox(42).random_raw(8).tolist()
    True
    """
    b0, b1, b2, b3 = _lanes((ctr + 1) % C256)
    zero = block * 0
    c0 = block + b0  # wraps mod 2**64; a carry goes into the next lane
    carry = _u64(c0 < b0)
    c1 = zero + b1 + carry
    carry = carry * _u64(c1 == 0)
    c2 = zero + b2 + carry
    carry = carry * _u64(c2 == 0)
    c3 = zero + b3 + carry
    k0, k1 = key
    for r in range(ROUNDS):
        if r:
            k0, k1 = (k0 + WEYL[0]) & M64, (k1 + WEYL[1]) & M64
        hi0, lo0 = _mulhilo(c0, MUL[0])
        hi1, lo1 = _mulhilo(c2, MUL[1])
        c0, c1, c2, c3 = hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0
    return [c0, c1, c2, c3]


def _u64(x: Array) -> Array:
    """A bool Array as uint64 0/1."""

    return astype(x, D.uint64)


def words_range(device: Any, ctr: int, key: tuple[int, int], start: int, n: int, width: int) -> Array:
    """Words ``start .. start + n - 1`` of the stream at state ``ctr`` (uint64 or uint32 Array, 1-D) on
    ``device`` (a Device bound to a backend, like ``x.device``), through :func:`philox_blocks`.

    >>> import numpy as np, xbackend as xb
    >>> w = words_range(xb.Device("numpy", "cpu"), 7, (1, 2), 3, 5, 32)
    >>> w.tolist() == np.random.Philox(key=[1, 2], counter=7).random_raw(4).view(np.uint32)[3:8].tolist()
    True
    """

    per = 4 if width == 64 else 8
    first, last = start // per, (start + n - 1) // per if n else start // per - 1
    blocks = arange(first, last + 1, dtype=D.uint64, device=device)
    w = reshape(stack(philox_blocks(blocks, ctr, key), axis=1), (-1,))
    if width == 32:
        w = _halves(w)
    off = start - first * per
    return w[off : off + n]


def _halves(w: Array) -> Array:
    """64-bit words -> their 32-bit halves, low first (uint32 Array twice as long)."""

    return astype(reshape(stack([w & M32, w >> 32], axis=1), (-1,)), D.uint32)


def words_at(pos: Array, ctr: int, key: tuple[int, int], width: int) -> Array:
    """The words at positions ``pos`` (an int64 Array of word indices of a call) of the stream at state
    ``ctr``: uint64 (``width`` 64) or uint32 Array of ``pos``'s shape, on ``pos``'s backend and device."""

    p = astype(pos, D.uint64)
    per = 4 if width == 64 else 8
    lanes = philox_blocks(p // per, ctr, key)
    j = p % per if width == 64 else (p % per) // 2
    w = where(j == 0, lanes[0], where(j == 1, lanes[1], where(j == 2, lanes[2], lanes[3])))
    if width == 64:
        return w
    return astype(where(p % 2 == 0, w & M32, w >> 32), D.uint32)


def reference_words(key: tuple[int, int], ctr: int, n: int) -> list[int]:
    """The first ``n`` 64-bit words of the stream at state ``ctr``, in pure Python (the Random123
    definition; slow, for tests and docs).

    >>> import numpy as np
    >>> reference_words((1, 2), 5, 3) == np.random.Philox(key=[1, 2], counter=5).random_raw(3).tolist()
    True
    """
    out: list[int] = []
    j = 0
    while len(out) < n:
        c = list(_lanes((ctr + 1 + j) % C256))
        k0, k1 = key
        for r in range(ROUNDS):
            if r:
                k0, k1 = (k0 + WEYL[0]) & M64, (k1 + WEYL[1]) & M64
            p0, p1 = MUL[0] * c[0], MUL[1] * c[2]
            c = [(p1 >> 64) ^ c[1] ^ k0, p1 & M64, (p0 >> 64) ^ c[3] ^ k1, p0 & M64]
        out += c
        j += 1
    return out[:n]

