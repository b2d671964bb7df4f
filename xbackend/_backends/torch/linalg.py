"""Linear algebra and FFT on torch, and exact integer matrix products where torch has none.

Design constraint: results as on NumPy. Integer inputs compute in the widest type and come back (torch's
linalg is floating-point only); CUDA has no integer GEMM, so integer ``matmul``/``tensordot`` there are a
broadcast multiply and an exact sum (device-independent code, tested on the CPU). :class:`TorchLinalgMixin`
is part of :class:`~xbackend._backends.torch.TorchBackend`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from ... import _dtypes as D
from ..._backend import Backend
from ..._dtypes import DType
from .uint import _UINT_WIDE

torch: Any = None  # the torch module: bound by torch.py's _import_torch() before any backend runs


def _finite_only(fn: Callable[..., Any], x: Any) -> Any:
    """torch's general eigensolver refuses NaN and infinity with a RuntimeError; NumPy's with a LinAlgError, which
    is the one xbackend raises (the core translates ``linalg_errors``)."""
    if not bool(torch.isfinite(x).all()):  # some torch versions return NaN instead (eigvals of float32 [[nan]])
        raise torch.linalg.LinAlgError("the input holds infs or NaNs")
    try:
        return fn(x)
    except RuntimeError as exc:
        if "infs or NaNs" in str(exc):
            raise torch.linalg.LinAlgError(str(exc)) from exc
        raise


class TorchLinalgMixin(Backend):
    """Part of :class:`~xbackend._backends.torch.TorchBackend`: see the module docstring."""

    if TYPE_CHECKING:  # defined by TorchBackend
        to_t: dict[DType, Any]  # xbackend dtype -> torch dtype
        from_t: dict[Any, DType]

    # Inputs arrive in the compute dtype chosen by xbackend/linalg.py and fft.py. torch.linalg checks
    # for singular input (and synchronises on CUDA to do it); failures are torch.linalg.LinAlgError.
    @property
    def linalg_errors(self) -> tuple[type[Exception], ...]:
        return (torch.linalg.LinAlgError,)

    def _int_wide(self, fn: Callable[..., Any], *xs: Any) -> Any:
        """Integer contractions torch lacks for uint16/32/64 run on int64 and wrap back (exact modulo 2**bits)."""
        dt = self.from_t[xs[0].dtype]
        if dt not in _UINT_WIDE:
            return fn(*xs)
        i64 = torch.int64
        r = fn(*(x.view(i64) if x.dtype == torch.uint64 else x.to(i64) for x in xs))
        return r.view(torch.uint64) if dt is D.uint64 else r.to(self.to_t[dt])

    def la_cholesky(self, x: Any, upper: bool) -> Any:
        return torch.linalg.cholesky(x, upper=upper)

    def la_det(self, x: Any) -> Any:
        return torch.linalg.det(x)

    def la_slogdet(self, x: Any) -> tuple[Any, Any]:
        sign, logabs = torch.linalg.slogdet(x)
        return sign, logabs

    def la_eigh(self, x: Any) -> tuple[Any, Any]:
        w, v = torch.linalg.eigh(x)
        return w, v

    def la_eigvalsh(self, x: Any) -> Any:
        return torch.linalg.eigvalsh(x)

    def la_eig(self, x: Any) -> tuple[Any, Any]:
        w, v = _finite_only(torch.linalg.eig, x)
        return w, v

    def la_eigvals(self, x: Any) -> Any:
        return _finite_only(torch.linalg.eigvals, x)

    def la_inv(self, x: Any) -> Any:
        return torch.linalg.inv(x)

    def la_solve(self, a: Any, b: Any) -> Any:
        # b is (..., M, K); equal batch shapes keep torch from reading b as a batch of vectors
        if a.shape[:-2] == b.shape[:-2]:
            return torch.linalg.solve(a, b)
        batch = torch.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        return torch.linalg.solve(a.expand(*batch, *a.shape[-2:]), b.expand(*batch, *b.shape[-2:]))

    def la_qr(self, x: Any, mode: str) -> tuple[Any, Any]:
        q, r = torch.linalg.qr(x, mode=mode)
        return q, r

    def la_svd(self, x: Any, full_matrices: bool) -> tuple[Any, Any, Any]:
        u, s, vh = torch.linalg.svd(x, full_matrices=full_matrices)
        return u, s, vh

    def la_svdvals(self, x: Any) -> Any:
        return torch.linalg.svdvals(x)

    def la_matrix_power(self, x: Any, n: int) -> Any:
        r = torch.linalg.matrix_power(x, n)
        return r.clone() if r is x else r

    def la_pinv(self, x: Any, rtol: Any) -> Any:
        return torch.linalg.pinv(x, rtol=rtol)

    def la_matrix_rank(self, x: Any, rtol: Any) -> Any:
        return torch.linalg.matrix_rank(x, rtol=rtol)

    def la_matrix_norm(self, x: Any, ord: Any, keepdims: bool) -> Any:
        return torch.linalg.matrix_norm(x, ord=ord, dim=(-2, -1), keepdim=keepdims)

    def la_vector_norm(self, x: Any, axis: Any, keepdims: bool, ord: Any) -> Any:
        return torch.linalg.vector_norm(x, ord=ord, dim=axis, keepdim=keepdims)

    def la_cross(self, a: Any, b: Any, axis: int) -> Any:
        a, b = torch.broadcast_tensors(a, b)

        def cross(p: Any, q: Any) -> Any:  # NumPy's formula, each product rounded before the difference:
            p0, p1, p2 = p.unbind(axis)  # torch.linalg.cross fuses them (FMA), so a x a was -1.8e12, not 0,
            q0, q1, q2 = q.unbind(axis)  # for float32 components near 3e16
            return torch.stack([p1 * q2 - p2 * q1, p2 * q0 - p0 * q2, p0 * q1 - p1 * q0], dim=axis)

        return self._int_wide(cross, a, b)

    def la_tensordot(self, a: Any, b: Any, axes: Any) -> Any:
        if a.device.type == "cuda" and not (a.is_floating_point() or a.is_complex()):
            return self._int_wide(lambda p, q: _int_tensordot(p, q, axes), a, b)  # CUDA has no integer GEMM
        return self._int_wide(lambda p, q: torch.tensordot(p, q, dims=axes), a, b)

    def la_vecdot(self, a: Any, b: Any, axis: int) -> Any:
        if a.is_floating_point() or a.is_complex():
            return torch.linalg.vecdot(a, b, dim=axis)
        return self._int_wide(lambda p, q: (p * q).sum(dim=axis, dtype=p.dtype), a, b)

    def la_trace(self, x: Any, offset: int) -> Any:
        return self._int_wide(lambda p: torch.diagonal(p, offset, -2, -1).sum(dim=-1, dtype=p.dtype), x)

    def la_diagonal(self, x: Any, offset: int) -> Any:
        return torch.diagonal(x, offset, -2, -1).clone()  # a copy, as on NumPy (torch's view is writable)

    def fft_1d(self, name: str, x: Any, n: int | None, axis: int, norm: str) -> Any:
        return getattr(torch.fft, name)(x, n=n, dim=axis, norm=norm)

    def fft_nd(self, name: str, x: Any, s: list[int] | None, axes: list[int], norm: str) -> Any:
        return getattr(torch.fft, name)(x, s=s, dim=axes, norm=norm)

    def fft_shift(self, name: str, x: Any, axes: tuple[int, ...] | None) -> Any:
        return getattr(torch.fft, name)(x, dim=axes)


def _int_matmul(a: Any, b: Any) -> Any:
    """torch.matmul, computed exactly by broadcast multiply and sum on CUDA (no integer GEMM there)."""
    if a.device.type != "cuda" or a.ndim == 0 or b.ndim == 0:
        return torch.matmul(a, b)
    return _int_matmul_by_sum(a, b)


def _int_matmul_by_sum(a: Any, b: Any) -> Any:
    """The CUDA integer matmul: broadcast multiply, then sum in the operands' dtype (wraps like a GEMM would).
    Device-independent, so tests run it on the CPU against ``np.matmul``."""
    p = a.unsqueeze(0) if a.ndim == 1 else a  # (..., M, K)
    q = b.unsqueeze(-1) if b.ndim == 1 else b  # (..., K, N)
    if p.shape[-1] != q.shape[-2]:
        return torch.matmul(a, b)  # torch's own shape error
    out = (p.unsqueeze(-1) * q.unsqueeze(-3)).sum(dim=-2, dtype=p.dtype)
    if a.ndim == 1:
        out = out.squeeze(-2)
    return out.squeeze(-1) if b.ndim == 1 else out


def _int_tensordot(a: Any, b: Any, axes: Any) -> Any:
    """Exact integer tensordot by broadcast multiply and sum (for devices without integer matrix products)."""
    a1, a2 = axes
    free1 = [i for i in range(a.ndim) if i not in a1]
    free2 = [i for i in range(b.ndim) if i not in a2]
    k = 1
    for i in a1:
        k *= a.shape[i]
    p = a.permute(tuple(free1) + tuple(a1)).reshape(-1, k)
    q = b.permute(tuple(a2) + tuple(free2)).reshape(k, -1)
    out = (p[:, :, None] * q[None, :, :]).sum(dim=1, dtype=p.dtype)
    return out.reshape(tuple(a.shape[i] for i in free1) + tuple(b.shape[i] for i in free2))
