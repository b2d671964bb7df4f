"""What every lazy backend's blocks share (Dask's chunks, Cubed's blocks): the backend that owns a block, and the
check the eager backends make at the call, made on each block when it is computed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._errors import linalg_failure

__all__ = ["chunk_backend", "refuse_nonfinite"]


def chunk_backend(x: Any) -> Any:
    """The backend that owns one chunk (NumPy, or CuPy for CuPy chunks)."""
    from ..._dispatch import backend_for_type, get_backend

    t = type(x)
    if t is np.ndarray or not hasattr(x, "shape"):
        return get_backend("numpy")
    return backend_for_type(t) or get_backend("numpy")


#: the routines ``xbackend.linalg`` refuses on NaN or inf at the call on eager backends (``linalg.ITERATIVE``)
_ITERATIVE = frozenset({"eig", "eigvals", "eigh", "eigvalsh", "svd", "svdvals", "pinv", "matrix_rank"})


def _iterative(method: str, args: tuple[Any, ...]) -> bool:
    """The chunk call computes singular values or eigenvalues, which xbackend refuses on NaN or inf with one
    LinAlgError (``linalg.ITERATIVE``, and ``matrix_norm`` of ord 2, -2 or 'nuc', as the eager backends check)."""
    name = method[3:]
    return name in _ITERATIVE or (name == "matrix_norm" and args[0] in (2, -2, "nuc"))


def refuse_nonfinite(be: Any, method: str, args: tuple[Any, ...], block: Any) -> None:
    """Raise xbackend's LinAlgError if ``method`` is one the eager backends refuse on NaN or inf (iterative routines,
    ``cholesky``) and ``block`` holds one: the check ``xbackend.linalg`` makes at the call, made per block."""
    if not block.size or not (_iterative(method, args) or method == "la_cholesky"):
        return
    if not bool(be.xp.isfinite(block).all()):
        raise linalg_failure(method[3:])
