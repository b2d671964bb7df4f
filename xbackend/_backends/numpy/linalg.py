"""Linear algebra and FFT of the NumPy backend, written against ``self.xp``: the CuPy backend inherits them.

Design constraint: inputs arrive in the compute dtype that ``xbackend/linalg.py`` and ``fft.py`` chose; these methods
only call the native routines (and patch what NumPy lacks: batched ``solve`` broadcasting, ``pinv`` with an
Array of tolerances, every ``ord`` of the norms). :class:`NumpyLinalgMixin` is part of
:class:`~xbackend._backends.numpy.NumpyBackend`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._backend import Backend


class NumpyLinalgMixin(Backend):
    xp: Any

    # -- linalg / fft --------------------------------------------------------------------------
    # Inputs arrive in the compute dtype chosen by xbackend/linalg.py and fft.py; these methods only
    # call the native routines. Written against ``self.xp``, so the CuPy backend inherits them.
    @property
    def linalg_errors(self) -> tuple[type[Exception], ...]:
        return (getattr(self.xp.linalg, "LinAlgError", np.linalg.LinAlgError), np.linalg.LinAlgError)

    def la_cholesky(self, x: Any, upper: bool) -> Any:
        low = self.xp.linalg.cholesky(x)
        return self.xp.conj(self.xp.swapaxes(low, -1, -2)) if upper else low

    def la_det(self, x: Any) -> Any:
        return self.xp.linalg.det(x)

    def la_slogdet(self, x: Any) -> tuple[Any, Any]:
        sign, logabs = self.xp.linalg.slogdet(x)
        return sign, logabs

    def la_eigh(self, x: Any) -> tuple[Any, Any]:
        w, v = self.xp.linalg.eigh(x)
        return w, v

    def la_eigvalsh(self, x: Any) -> Any:
        return self.xp.linalg.eigvalsh(x)

    def la_eig(self, x: Any) -> tuple[Any, Any]:
        w, v = self.xp.linalg.eig(x)  # NumPy returns real arrays when every eigenvalue is real; the core casts
        return w, v

    def la_eigvals(self, x: Any) -> Any:
        return self.xp.linalg.eigvals(x)

    def la_inv(self, x: Any) -> Any:
        return self.xp.linalg.inv(x)

    def la_solve(self, a: Any, b: Any) -> Any:
        xp = self.xp  # b is (..., M, K); equal batches leave no room for NumPy 1-style "vector b" guessing
        if a.shape[:-2] == b.shape[:-2]:
            return xp.linalg.solve(a, b)
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        return xp.linalg.solve(xp.broadcast_to(a, batch + a.shape[-2:]), xp.broadcast_to(b, batch + b.shape[-2:]))

    def la_qr(self, x: Any, mode: str) -> tuple[Any, Any]:
        q, r = self.xp.linalg.qr(x, mode=mode)
        return q, r

    def la_svd(self, x: Any, full_matrices: bool) -> tuple[Any, Any, Any]:
        u, s, vh = self.xp.linalg.svd(x, full_matrices=full_matrices)
        return u, s, vh

    def la_svdvals(self, x: Any) -> Any:
        return self.xp.linalg.svd(x, compute_uv=False)

    def la_matrix_power(self, x: Any, n: int) -> Any:
        xp = self.xp
        if n == 0:
            return xp.broadcast_to(xp.eye(x.shape[-1], dtype=x.dtype), x.shape).copy()
        if n < 0:
            x, n = xp.linalg.inv(x), -n
        out, base = None, x
        while n:  # exponentiation by squaring
            if n & 1:
                out = base if out is None else xp.matmul(out, base)
            n >>= 1
            if n:
                base = xp.matmul(base, base)
        return out.copy() if out is x else out

    def _cutoff(self, s: Any, rtol: Any) -> Any:
        smax = s.max(axis=-1, keepdims=True)
        return (rtol if isinstance(rtol, float) else rtol[..., None]) * smax

    def la_pinv(self, x: Any, rtol: Any) -> Any:
        xp = self.xp
        u, s, vh = xp.linalg.svd(x, full_matrices=False)
        keep = s > self._cutoff(s, rtol)
        with np.errstate(divide="ignore"):
            sinv = xp.where(keep, 1 / xp.where(keep, s, 1), 0).astype(s.dtype)
        return xp.matmul(xp.conj(xp.swapaxes(vh, -1, -2)) * sinv[..., None, :], xp.conj(xp.swapaxes(u, -1, -2)))

    def la_matrix_rank(self, x: Any, rtol: Any) -> Any:
        s = self.la_svdvals(x)
        return (s > self._cutoff(s, rtol)).sum(axis=-1)

    def la_matrix_norm(self, x: Any, ord: Any, keepdims: bool) -> Any:
        xp = self.xp
        if ord == "fro":
            a = xp.abs(x)
            r = xp.sqrt(xp.sum(a * a, axis=(-2, -1)))
        elif ord == "nuc":
            r = xp.sum(self.la_svdvals(x), axis=-1)
        elif ord == 2 or ord == -2:
            s = self.la_svdvals(x)
            r = s.max(axis=-1) if ord == 2 else s.min(axis=-1)
        else:  # 1, -1: column sums; inf, -inf: row sums
            sums = xp.sum(xp.abs(x), axis=-2 if abs(ord) == 1 else -1)
            r = sums.max(axis=-1) if ord > 0 else sums.min(axis=-1)
        return r[..., None, None] if keepdims else r

    def la_vector_norm(self, x: Any, axis: Any, keepdims: bool, ord: Any) -> Any:
        xp = self.xp
        a = xp.abs(x)
        if ord == 2:
            return xp.sqrt(xp.sum(a * a, axis=axis, keepdims=keepdims))
        if ord == 1:
            return xp.sum(a, axis=axis, keepdims=keepdims)
        if ord == float("inf"):
            return xp.max(a, axis=axis, keepdims=keepdims)
        if ord == float("-inf"):
            return xp.min(a, axis=axis, keepdims=keepdims)
        if ord == 0:
            return xp.sum(a != 0, axis=axis, keepdims=keepdims).astype(a.dtype)
        with np.errstate(divide="ignore"):
            return xp.sum(a**ord, axis=axis, keepdims=keepdims) ** (1.0 / ord)

    def la_cross(self, a: Any, b: Any, axis: int) -> Any:
        return self.xp.cross(a, b, axis=axis)

    def la_tensordot(self, a: Any, b: Any, axes: Any) -> Any:
        return self.xp.tensordot(a, b, axes=axes)

    def la_vecdot(self, a: Any, b: Any, axis: int) -> Any:
        xp = self.xp
        return xp.sum(xp.conj(a) * b, axis=axis, dtype=a.dtype)

    def la_trace(self, x: Any, offset: int) -> Any:
        return self.xp.sum(self.xp.diagonal(x, offset, -2, -1), axis=-1, dtype=x.dtype)

    def la_diagonal(self, x: Any, offset: int) -> Any:
        return self.xp.diagonal(x, offset, -2, -1).copy()  # NumPy's view is read-only; torch's is writable

    def fft_1d(self, name: str, x: Any, n: int | None, axis: int, norm: str) -> Any:
        return getattr(self.xp.fft, name)(x, n=n, axis=axis, norm=norm)

    def fft_nd(self, name: str, x: Any, s: list[int] | None, axes: list[int], norm: str) -> Any:
        return getattr(self.xp.fft, name)(x, s=s, axes=axes, norm=norm)

    def fft_shift(self, name: str, x: Any, axes: tuple[int, ...] | None) -> Any:
        return getattr(self.xp.fft, name)(x, axes=axes)

