"""Hypothesis strategies that draw data once (as NumPy) and convert it, so every backend sees the
same values.

Design constraint: built on ``hypothesis.extra.numpy``; a drawn example is a :class:`Drawn` holding the
NumPy original and a converter, so a test can build the same input on every target.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from .. import _dtypes as D
from .._dtypes import DType

__all__ = ["dtypes", "shapes", "arrays", "host_arrays", "broadcastable_shapes", "backends", "devices"]

_KINDS = {
    "bool": (D.bool,), "signed": D.SIGNED, "unsigned": D.UNSIGNED, "integer": D.INTEGER,
    "real floating": (D.float16, D.float32, D.float64), "complex floating": D.COMPLEX,
    "floating": (D.float16, D.float32, D.float64) + D.COMPLEX,
    "numeric": D.INTEGER + (D.float16, D.float32, D.float64) + D.COMPLEX,
    "real": D.INTEGER + (D.float16, D.float32, D.float64),
    "all": (D.bool,) + D.INTEGER + (D.float16, D.float32, D.float64) + D.COMPLEX,
}  # fmt: skip


def dtypes(kind: str | Sequence[str] = "all") -> st.SearchStrategy[DType]:
    """xbackend dtypes of a kind: ``"bool"``, ``"integer"``, ``"real floating"``, ``"numeric"``, ``"all"``...
    (bfloat16 is left out: NumPy, the oracle, cannot hold it without ml_dtypes).

    >>> from xbackend.testing.strategies import dtypes
    >>> dtypes("bool").example()
    xb.bool
    """
    kinds = [kind] if isinstance(kind, str) else list(kind)
    pool: list[DType] = []
    for k in kinds:
        pool += [d for d in _KINDS[k] if d not in pool]
    return st.sampled_from(pool)


def shapes(*, min_dims: int = 0, max_dims: int = 3, min_side: int = 0, max_side: int = 5) -> st.SearchStrategy:
    """Array shapes (``hypothesis.extra.numpy.array_shapes`` with 0-d and size-0 allowed)."""
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side, max_side=max_side)


def broadcastable_shapes(shape: tuple[int, ...], **kw: Any) -> st.SearchStrategy:
    """Shapes that broadcast against ``shape``."""
    return hnp.broadcastable_shapes(shape, **kw)


def host_arrays(dtype: DType | st.SearchStrategy[DType], shape: Any = None, *, elements: Any = None,
                finite: bool = False) -> st.SearchStrategy[np.ndarray]:  # fmt: skip
    """NumPy arrays of an xbackend dtype: the oracle data every backend will receive.

    Subnormal floats are left out (CuPy and some torch kernels flush them to zero).
    """
    shape = shapes() if shape is None else shape

    def build(dt: DType) -> st.SearchStrategy[np.ndarray]:
        el = elements
        if el is None and dt.kind in "fc":
            el = {"allow_subnormal": False}
            if finite:
                el.update(allow_nan=False, allow_infinity=False)
        if isinstance(el, dict) and dt.kind in "fc":
            return hnp.arrays(np.dtype(dt.name), shape, elements=st.from_dtype(np.dtype(dt.name), **el))
        return hnp.arrays(np.dtype(dt.name), shape, elements=el)

    if isinstance(dtype, DType):
        return build(dtype)
    return dtype.flatmap(build)


def arrays(*, dtype: DType | st.SearchStrategy[DType] | None = None, shape: Any = None,
           backend: str | None = None, device: str | None = None, elements: Any = None,
           finite: bool = False) -> st.SearchStrategy[Any]:  # fmt: skip
    """xbackend Arrays on ``backend``/``device`` (default: the configured ones).

    >>> import xbackend as xb
    >>> from xbackend.testing.strategies import arrays
    >>> arrays(dtype=xb.int8, shape=(3,)).example().shape
    (3,)
    """
    from .._creation import asarray

    dt = dtypes() if dtype is None else dtype
    return host_arrays(dt, shape, elements=elements, finite=finite).map(
        lambda a: asarray(a, backend=backend, device=device)
    )


def backends() -> st.SearchStrategy[str]:
    """Names of the backends usable here."""
    from ._targets import available_targets

    return st.sampled_from(sorted({t.backend for t in available_targets()}))


def devices(backend: str | None = None) -> st.SearchStrategy[str]:
    """Device strings usable here (for one backend, or any)."""
    from ._targets import available_targets

    return st.sampled_from(sorted({t.device for t in available_targets() if backend in (None, t.backend)}))
