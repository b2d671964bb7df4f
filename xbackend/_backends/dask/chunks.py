"""The tasks of the Dask backend's graphs: each runs the chunk library's backend (NumPy, or CuPy for CUDA chunks) on
one block.

Design constraint: a task is sent by reference, never as a closure: each class here is picklable (workers of a
distributed cluster rebuild it by name) and tokenised by what it computes, so equal graphs get equal keys.
"""

from __future__ import annotations

from typing import Any

from ..._dtypes import DType
from ..._errors import linalg_failure
from ..common.chunks import chunk_backend, refuse_nonfinite

__all__ = ["ChunkCall", "ChunkKernel", "chunk_backend"]


class ChunkCall:
    """``backend.<method>(chunk, *args)`` on each chunk, with the chunk's own backend (NumPy or CuPy).

    Picklable (workers of a distributed cluster rebuild it by name) and tokenised by its method and
    arguments, so equal graphs get equal keys. Results are cast to ``out`` (a dtype per output) when
    given; NumPy linear-algebra errors become :class:`~xbackend.LinAlgError` at compute time.
    """

    __slots__ = ("method", "args", "out", "nargs")

    def __init__(self, method: str, args: tuple[Any, ...] = (), out: Any = None, nargs: int = 1) -> None:
        self.method = method
        self.args = args
        self.out = out
        self.nargs = nargs

    def __reduce__(self) -> Any:
        return (ChunkCall, (self.method, self.args, self.out, self.nargs))

    def __dask_tokenize__(self) -> Any:
        norm = tuple(a.name if type(a) is DType else a for a in self.args)
        return ("xbackend-chunk", self.method, norm, str(self.out), self.nargs)

    @property
    def __name__(self) -> str:  # dask names graph layers after this
        return self.method

    def __call__(self, *chunks: Any) -> Any:
        be = chunk_backend(chunks[0])
        fn = getattr(be, self.method)
        refuse_nonfinite(be, self.method, self.args, chunks[0])  # the check the eager backends make at the call
        try:
            r = fn(*chunks[: self.nargs], *self.args, *chunks[self.nargs :])
        except be.linalg_errors as exc:
            raise linalg_failure(self.method[3:]) from exc
        out = self.out
        if out is None:
            return r
        if type(out) is tuple:
            return tuple(v.astype(d, copy=False) for v, d in zip(r, out))
        return r.astype(out, copy=False)


class ChunkKernel:
    """The elementwise kernel ``name`` for compute dtype ``dt`` of the chunk's backend, on one chunk."""

    __slots__ = ("name", "dt")

    def __init__(self, name: str, dt: DType) -> None:
        self.name = name
        self.dt = dt

    def __reduce__(self) -> Any:
        return (ChunkKernel, (self.name, self.dt))

    def __dask_tokenize__(self) -> Any:
        return ("xbackend-kernel", self.name, self.dt.name)

    @property
    def __name__(self) -> str:
        return self.name

    def __call__(self, *args: Any) -> Any:
        be = chunk_backend(args[0])
        try:
            fn = be.kernels[self.name][self.dt]
        except KeyError:
            fn = be.kernel(self.name, self.dt)
        return fn(*args)


class _SearchSorted:
    """``searchsorted`` of one sorted block against a block of values (NumPy's, per chunk of values)."""

    __slots__ = ("side", "sorter")

    def __init__(self, side: str, sorter: bool) -> None:
        self.side = side
        self.sorter = sorter

    def __reduce__(self) -> Any:
        return (_SearchSorted, (self.side, self.sorter))

    def __dask_tokenize__(self) -> Any:
        return ("xbackend-searchsorted", self.side, self.sorter)

    def __call__(self, x1: Any, *rest: Any) -> Any:
        be = chunk_backend(x1)
        sorter, v = (rest[0], rest[1]) if self.sorter else (None, rest[0])
        return be.searchsorted(x1, v, self.side, sorter)
