"""portable_stats: standardize, softmax, logsumexp and pairwise distances for any array library.

Every function is written once against xbackend and decorated with ``@xb.portable``: it takes the
caller's native arrays (NumPy, torch, CuPy) and returns arrays of the same type, on the same device.

>>> import numpy as np
>>> from portable_stats import softmax
>>> softmax(np.array([0.0, 0.0])).tolist()
[0.5, 0.5]
"""

from __future__ import annotations

from typing import Any

import xbackend as xb

__all__ = ["standardize", "softmax", "logsumexp", "pairwise_distances"]


@xb.portable
def standardize(x: Any, axis: int = 0, *, eps: float = 0.0) -> Any:
    """Zero mean and unit (population) standard deviation along ``axis``.

    >>> import numpy as np
    >>> standardize(np.array([1.0, 2.0, 3.0])).tolist()
    [-1.224744871391589, 0.0, 1.224744871391589]
    """
    mu = xb.mean(x, axis=axis, keepdims=True)
    sd = xb.std(x, axis=axis, keepdims=True)
    return (x - mu) / (sd + eps)


@xb.portable
def logsumexp(x: Any, axis: int = -1) -> Any:
    """``log(sum(exp(x)))`` along ``axis`` without overflow (``-inf`` for an all ``-inf`` slice).

    >>> import numpy as np
    >>> float(logsumexp(np.array([1000.0, 1000.0])))
    1000.6931471805599
    """
    m = xb.max(x, axis=axis, keepdims=True)
    m = xb.where(xb.isfinite(m), m, 0.0)
    s = xb.sum(xb.exp(x - m), axis=axis, keepdims=True)
    return xb.squeeze(xb.log(s) + m, axis=axis)


@xb.portable
def softmax(x: Any, axis: int = -1) -> Any:
    """``exp(x) / sum(exp(x))`` along ``axis``, computed stably.

    >>> import numpy as np
    >>> softmax(np.array([[1.0, 1.0], [0.0, 1e9]])).tolist()
    [[0.5, 0.5], [0.0, 1.0]]
    """
    e = xb.exp(x - xb.max(x, axis=axis, keepdims=True))
    return e / xb.sum(e, axis=axis, keepdims=True)


@xb.portable
def pairwise_distances(x: Any, y: Any) -> Any:
    """Euclidean distances between the rows of ``x`` (n, d) and ``y`` (m, d): an (n, m) array.

    Uses ``|x|^2 + |y|^2 - 2 x y^T`` (one matmul), clipped at 0 against rounding.

    >>> import numpy as np
    >>> pairwise_distances(np.array([[0.0, 0.0]]), np.array([[3.0, 4.0], [0.0, 1.0]])).tolist()
    [[5.0, 1.0]]
    """
    xx = xb.sum(x * x, axis=-1, keepdims=True)
    yy = xb.sum(y * y, axis=-1, keepdims=True)
    d2 = xx + yy.mT - 2.0 * (x @ y.mT)
    return xb.sqrt(xb.maximum(d2, 0.0))
