"""Integer ``arange`` values beyond what a library's own ``arange`` takes, computed exactly on the host.

torch's ``arange`` takes int64 endpoints only: ``arange(2**63 - 10, 2**63 + 5, 5, dtype=uint64)`` (values that a
uint64 holds) raised "value cannot be converted to type int64_t". Every value of an integer ``arange`` fits its
dtype (the front end checks), so ``start + i * step`` computed in uint64 arithmetic, modulo 2**64, is exact.
"""

from __future__ import annotations

import numpy as np

__all__ = ["exact_int_arange"]

_MOD = 1 << 64


def exact_int_arange(start: int, step: int, n: int, name: str) -> np.ndarray:
    """``start + i * step`` for ``i < n`` in the integer dtype ``name`` (every value fits it).

    >>> exact_int_arange(2**63 - 10, 5, 3, "uint64").tolist()
    [9223372036854775798, 9223372036854775803, 9223372036854775808]
    >>> exact_int_arange(-(2**63), 2**63 - 1, 3, "int64").tolist()
    [-9223372036854775808, -1, 9223372036854775806]
    """
    with np.errstate(over="ignore"):
        v = np.arange(n, dtype=np.uint64) * np.uint64(step % _MOD) + np.uint64(start % _MOD)
    return v if name == "uint64" else v.view(np.int64).astype(name)
