"""What every lazy backend shares (Dask's chunks, Cubed's blocks): the backend that owns a block, the check the
eager backends make at the call, made on each block when it is computed, and the answers of an Array that has no
memory until it is computed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._errors import DLPackError, HostTransferError, linalg_failure

__all__ = ["chunk_backend", "refuse_nonfinite", "NoMemoryMixin"]


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


class NoMemoryMixin:
    """Part of a lazy backend: an Array is a plan with no memory until computed, so DLPack and ``np.asarray`` are
    refused with the fix (computing silently would hide the cost), and its "memory" is the plan object itself."""

    #: how the messages name the library and its Arrays, e.g. ``("Dask", "graph")``
    lazy_names: tuple[str, str]

    def memory_range(self, x: Any) -> tuple[int, int]:
        return id(x), id(x) + 1  # the plan object (a Dask write replaces its graph, so the object is the identity)

    def data_ptr(self, x: Any) -> int:
        return id(x)

    def export_dlpack(self, x: Any) -> Any:
        library, plan = self.lazy_names
        raise DLPackError(f"a {library} Array has no memory to export through DLPack (it is a lazy {plan}). "
                          "Fix: x.compute() or x.numpy() first")  # fmt: skip

    def dlpack(self, x: Any, stream: Any = None, max_version: Any = None, dl_device: Any = None,
               copy: bool | None = None) -> Any:  # fmt: skip
        return self.export_dlpack(x)

    def dlpack_device(self, x: Any) -> tuple[int, int]:
        return self.export_dlpack(x)  # (raises)

    def export_for_numpy(self, x: Any, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        raise HostTransferError(f"implicit conversion of a lazy {self.lazy_names[0]} Array to NumPy (np.asarray) "
                                "would compute it silently. Fix: call x.numpy() (or x.compute()) where you want the "
                                "values")  # fmt: skip
