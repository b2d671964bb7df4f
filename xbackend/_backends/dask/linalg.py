"""Linear algebra and FFT of the Dask backend: NumPy's (or CuPy's) code on each block, matrix dimensions in one chunk.

Design constraint: one implementation, the chunk library's: each routine runs the chunk backend's method on every
block through ``da.apply_gufunc`` (``DaskBackend._gufunc``), so the core dimensions must lie in one chunk (else
:class:`~xbackend.ChunkingError` with the fix), and the values are what NumPy gives on the same data.
:class:`DaskLinalgMixin` is part of :class:`~xbackend._backends.dask.backend.DaskBackend`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..numpy.linalg import NumpyLinalgMixin

da: Any = None  # dask.array: bound by backend.py's _import() before any backend runs


class DaskLinalgMixin(NumpyLinalgMixin):
    """Part of :class:`~xbackend._backends.dask.backend.DaskBackend`: see the module docstring."""

    if TYPE_CHECKING:  # defined by DaskBackend
        _np: Any  # the chunk library's backend

        def _gufunc(self, method: str, sig: str, xs: list[Any], args: tuple[Any, ...], out: Any,
                    sizes: dict[str, int] | None = None) -> Any: ...  # fmt: skip
        def _whole(self, x: Any, axes: tuple[int, ...], what: str) -> None: ...
        def _via_numpy_empty(self, fn: Any, x: Any) -> Any: ...

    def la_cholesky(self, x: Any, upper: bool) -> Any:
        return self._gufunc("la_cholesky", "(n,n)->(n,n)", [x], (upper,), x.dtype)

    def la_det(self, x: Any) -> Any:
        return self._gufunc("la_det", "(n,n)->()", [x], (), x.dtype)

    def la_slogdet(self, x: Any) -> tuple[Any, Any]:
        rd = np.empty(0, x.dtype).real.dtype
        return tuple(self._gufunc("la_slogdet", "(n,n)->(),()", [x], (), (x.dtype, rd)))

    def la_eigh(self, x: Any) -> tuple[Any, Any]:
        rd = np.empty(0, x.dtype).real.dtype
        return tuple(self._gufunc("la_eigh", "(n,n)->(n),(n,n)", [x], (), (rd, x.dtype)))

    def la_eigvalsh(self, x: Any) -> Any:
        return self._gufunc("la_eigvalsh", "(n,n)->(n)", [x], (), np.empty(0, x.dtype).real.dtype)

    def la_eig(self, x: Any) -> tuple[Any, Any]:
        cd = np.result_type(x.dtype, np.complex64)
        return tuple(self._gufunc("la_eig", "(n,n)->(n),(n,n)", [x], (), (cd, cd)))

    def la_eigvals(self, x: Any) -> Any:
        return self._gufunc("la_eigvals", "(n,n)->(n)", [x], (), np.result_type(x.dtype, np.complex64))

    def la_inv(self, x: Any) -> Any:
        return self._gufunc("la_inv", "(n,n)->(n,n)", [x], (), x.dtype)

    def la_solve(self, a: Any, b: Any) -> Any:
        return self._gufunc("la_solve", "(m,m),(m,k)->(m,k)", [a, b], (), a.dtype)

    def la_qr(self, x: Any, mode: str) -> tuple[Any, Any]:
        m, n = x.shape[-2:]
        sig = "(m,n)->(m,m),(m,n)" if mode == "complete" else "(m,n)->(m,k),(k,n)"
        return tuple(self._gufunc("la_qr", sig, [x], (mode,), (x.dtype, x.dtype),
                                  sizes={"k": min(m, n)}))  # fmt: skip

    def la_svd(self, x: Any, full_matrices: bool) -> tuple[Any, Any, Any]:
        m, n = x.shape[-2:]
        rd = np.empty(0, x.dtype).real.dtype
        sig = "(m,n)->(m,m),(k),(n,n)" if full_matrices else "(m,n)->(m,k),(k),(k,n)"
        return tuple(self._gufunc("la_svd", sig, [x], (full_matrices,), (x.dtype, rd, x.dtype),
                                  sizes={"k": min(m, n)}))  # fmt: skip

    def la_svdvals(self, x: Any) -> Any:
        m, n = x.shape[-2:]
        rd = np.empty(0, x.dtype).real.dtype
        return self._gufunc("la_svdvals", "(m,n)->(k)", [x], (), rd, sizes={"k": min(m, n)})

    def la_matrix_power(self, x: Any, n: int) -> Any:
        return self._gufunc("la_matrix_power", "(n,n)->(n,n)", [x], (n,), x.dtype)

    def la_pinv(self, x: Any, rtol: Any) -> Any:
        if isinstance(rtol, float):
            return self._gufunc("la_pinv", "(m,n)->(n,m)", [x], (rtol,), x.dtype)
        return self._gufunc("la_pinv", "(m,n),()->(n,m)", [x, rtol], (), x.dtype)

    def la_matrix_rank(self, x: Any, rtol: Any) -> Any:
        if isinstance(rtol, float):
            return self._gufunc("la_matrix_rank", "(m,n)->()", [x], (rtol,), np.int64)
        return self._gufunc("la_matrix_rank", "(m,n),()->()", [x, rtol], (), np.int64)

    def la_matrix_norm(self, x: Any, ord: Any, keepdims: bool) -> Any:
        rd = np.empty(0, x.dtype).real.dtype
        r = self._gufunc("la_matrix_norm", "(m,n)->()", [x], (ord, False), rd)
        return r[..., None, None] if keepdims else r

    def la_vector_norm(self, x: Any, axis: Any, keepdims: bool, ord: Any) -> Any:
        if 0 in x.shape:  # nothing to compute (an empty result, or 0 for a sum): NumPy's code on empty data (Dask's
            return self._via_numpy_empty(lambda e: self._np.la_vector_norm(e, axis, keepdims, ord), x)  # max fails)
        return super().la_vector_norm(x, axis, keepdims, ord)

    def la_cross(self, a: Any, b: Any, axis: int) -> Any:
        a, b = da.moveaxis(a, axis, -1), da.moveaxis(b, axis, -1)
        r = self._gufunc("la_cross", "(i),(i)->(i)", [a, b], (-1,), np.result_type(a.dtype, b.dtype))
        return da.moveaxis(r, -1, axis)

    def la_diagonal(self, x: Any, offset: int) -> Any:
        return da.diagonal(x, offset, -2, -1)

    def fft_1d(self, name: str, x: Any, n: int | None, axis: int, norm: str) -> Any:
        self._whole(x, (axis,), f"fft.{name}()")
        return super().fft_1d(name, x, n, axis, norm)

    def fft_nd(self, name: str, x: Any, s: list[int] | None, axes: list[int], norm: str) -> Any:
        self._whole(x, tuple(axes), f"fft.{name}()")
        return super().fft_nd(name, x, s, axes, norm)
