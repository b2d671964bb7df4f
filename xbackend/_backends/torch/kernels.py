"""The elementwise kernels of the torch backend, and the standard's special cases where torch's differ from it.

Design constraint: one answer on every backend. ``make_kernel`` takes torch's function of the standard's name (or
its operator) unless a ``_k_<name>(dt)`` here builds the kernel of ``name`` for dtype ``dt`` where torch needs a
correction (integer division by zero gives 0; a zero remainder takes the divisor's sign; complex ``+``/``-``
componentwise; ``pow`` at 0.5/-0.5 and complex ``pow`` as NumPy; ``sign`` of NaN; NaN ``clip`` bounds; ...);
uint16/32/64 kernels are emulated (``uint.py``). :class:`TorchKernelsMixin` is part of
:class:`~xbackend._backends.torch.backend.TorchBackend`.
"""

from __future__ import annotations

import math
import operator
from typing import TYPE_CHECKING, Any, Callable

from ..._backend import Backend
from ..._dtypes import DType
from . import complex as C
from .linalg import _int_matmul
from ..common.kernels import cbrt, negative_integer_power
from .uint import _UINT_WIDE

torch: Any = None  # the torch module: bound by backend.py's _import_torch() before any backend runs

_OPS: dict[str, Callable[..., Any]] = {
    "add": operator.add, "subtract": operator.sub, "multiply": operator.mul, "divide": operator.truediv,
    "floor_divide": operator.floordiv, "remainder": operator.mod, "pow": operator.pow,
    "bitwise_and": operator.and_, "bitwise_or": operator.or_, "bitwise_xor": operator.xor,
    "bitwise_left_shift": operator.lshift, "bitwise_right_shift": operator.rshift,
    "equal": operator.eq, "not_equal": operator.ne, "less": operator.lt, "less_equal": operator.le,
    "greater": operator.gt, "greater_equal": operator.ge,
}  # fmt: skip
# standard name -> torch function name where they differ (binary ones need two tensors)
_TORCH_NAMES = {"bitwise_invert": "bitwise_not", "negative": "neg", "conj": "conj_physical"}
_NEEDS_TENSORS = frozenset(
    "atan2 copysign hypot logaddexp nextafter maximum minimum logical_and logical_or logical_xor".split()
)


def _mod_where_quotient_overflows(x: Any, y: Any, r: Any) -> Any:
    """``r = x % y`` from torch's vectorised CPU loop, NaN where ``x / y`` overflows (finite ``x``, tiny ``y``:
    ``2.0 % 5e-324`` is 0 in C, NumPy and on CUDA), made Python's there: ``x`` reduced by ``y`` scaled by powers of two
    (exact) whose quotients stay finite, a few exponents' worth at a time (``fmod(fmod(x, 2**k * y), y)`` is
    ``fmod(x, y)`` for every integer ``k >= 0``), then moved into ``y``'s sign."""
    if not isinstance(x, torch.Tensor):  # a Python scalar first (2.0 % x)
        x = torch.full((), float(x), dtype=r.dtype, device=r.device)
    bad = torch.isnan(r) & torch.isfinite(x) & torch.isfinite(y) & (y != 0)
    if not bool(bad.any()):
        return r
    x, y = torch.broadcast_tensors(x, y)
    step = math.frexp(torch.finfo(r.dtype).max)[1] - 8  # an exponent gap whose quotient 2**step is finite
    xr, yb = torch.where(bad, x, 0), torch.where(bad, y, 1)
    ey = torch.frexp(yb).exponent
    while True:
        k = torch.where(xr == 0, 0, torch.clamp(torch.frexp(xr).exponent - ey - step, min=0))
        half = k // 2
        xr = torch.fmod(xr, torch.ldexp(torch.ldexp(yb, half), k - half))  # 2**k alone may overflow
        if not bool((k > 0).any()):
            break
    xr = torch.where((xr != 0) & ((xr < 0) != (yb < 0)), xr + yb, xr)
    return torch.where(bad, xr, r)


class TorchKernelsMixin(Backend):
    """Part of :class:`~xbackend._backends.torch.backend.TorchBackend`: see the module docstring."""

    if TYPE_CHECKING:  # defined by TorchBackend and its uint mixin
        to_t: dict[DType, Any]  # xbackend dtype -> torch dtype
        def _uint_kernel(self, name: str, dt: DType, fn: Callable[..., Any]) -> Callable[..., Any]: ...

    def make_kernel(self, name: str, dt: DType) -> Callable[..., Any]:
        fn = self._plain_kernel(name, dt)
        if dt in _UINT_WIDE and name not in ("equal", "not_equal") and dt in self.to_t:
            return self._uint_kernel(name, dt, fn)
        return fn

    def _plain_kernel(self, name: str, dt: DType) -> Callable[..., Any]:
        special = getattr(self, "_k_" + name, None)
        if special is not None:
            return special(dt)
        if name in _OPS:
            return _OPS[name]
        f = getattr(torch, _TORCH_NAMES.get(name, name))
        if name in _NEEDS_TENSORS:
            nd = self.native_dtype(dt)

            def two_tensors(x: Any, y: Any) -> Any:  # torch.full: torch.tensor(v, device="cuda") syncs the host
                if not isinstance(x, torch.Tensor):
                    x = torch.full((), x, dtype=nd, device=y.device)
                elif not isinstance(y, torch.Tensor):
                    y = torch.full((), y, dtype=nd, device=x.device)
                return f(x, y)

            if (name == "maximum" or name == "minimum") and dt.kind == "f":
                # a tie (-0.0 vs +0.0) gives the second argument (docs/behaviour.md), by formula: torch's own tie
                # depends on the dtype and device (CPU float64 and CUDA give +0.0 either way), NumPy's likewise
                # (xbackend/_backends/common/kernels.py: the same rule on NumPy and CuPy)
                def tie_second(x: Any, y: Any) -> Any:
                    if not isinstance(x, torch.Tensor):
                        x = torch.full((), x, dtype=nd, device=y.device)
                    elif not isinstance(y, torch.Tensor):
                        y = torch.full((), y, dtype=nd, device=x.device)
                    return torch.where(x == y, y, f(x, y))

                return tie_second
            return two_tensors
        return f

    def _int_div(self, dt: DType, op: Callable[..., Any]) -> Callable[..., Any]:
        if dt.kind not in "iu":
            return op

        def div0(x: Any, y: Any) -> Any:  # NumPy's rule: integer division by zero gives 0
            if isinstance(y, torch.Tensor):
                zero = y == 0
                if y.is_cuda or bool(zero.any()):  # on CUDA no check: bool() would make the host wait
                    safe = torch.where(zero, torch.ones_like(y), y)
                    return torch.where(zero, torch.zeros((), dtype=y.dtype, device=y.device), op(x, safe))
                return op(x, y)
            if y == 0:
                return torch.zeros_like(x)
            return op(x, y)

        return div0

    def _complex_componentwise(self, dt: DType, op: Callable[..., Any]) -> Callable[..., Any]:
        """Complex +/- on the (real, imag) pairs: torch computes ``x + 1*y`` with a complex multiply, so
        ``0j + (inf+0j)`` gives ``inf+nanj``; the standard adds the components independently."""
        nd = self.native_dtype(dt)

        def pairs(v: Any, like: Any) -> Any:
            if isinstance(v, torch.Tensor):
                return torch.view_as_real(v.resolve_conj().resolve_neg())
            return torch.view_as_real(torch.full((), complex(v), dtype=nd, device=like.device))  # no host sync

        def componentwise(x: Any, y: Any) -> Any:
            like = x if isinstance(x, torch.Tensor) else y
            return torch.view_as_complex(op(pairs(x, like), pairs(y, like)).contiguous())

        return componentwise

    def _rounding(self, name: str, dt: DType) -> Callable[..., Any]:
        if dt.kind == "f":
            return getattr(torch, name)
        return lambda x: x.clone()

    def _k_floor_divide(self, dt: DType) -> Callable[..., Any]:
        if dt.kind != "f":
            return self._int_div(dt, operator.floordiv)

        def ffloordiv(x: Any, y: Any) -> Any:  # the standard's special cases: floor(x / y) (see the NumPy backend)
            q = torch.floor(operator.truediv(x, y))
            underflow = (q == 0) & (x != 0) & (y * 0 == 0)  # x / y underflowed: no special case (common/kernels.py)
            return torch.where((torch.isinf(q) | (q == 0)) & ~underflow, q, operator.floordiv(x, y))

        return ffloordiv

    def _k_remainder(self, dt: DType) -> Callable[..., Any]:
        if dt.kind != "f":
            return self._int_div(dt, operator.mod)

        def fmod_signed(x: Any, y: Any) -> Any:  # a zero result takes y's sign (standard, Python, NumPy)
            r = operator.mod(x, y)
            sign = y if isinstance(y, torch.Tensor) else torch.full((), float(y), dtype=r.dtype, device=r.device)
            if not r.is_cuda and bool(r.isnan().any()):  # on CUDA no check (the host would wait): its fmod is exact
                r = _mod_where_quotient_overflows(x, sign, r)
            return torch.where(r == 0, torch.copysign(torch.zeros_like(r), sign), r)

        return fmod_signed

    def _k_acos(self, dt: DType) -> Callable[..., Any]:
        if dt.kind != "c":
            return torch.acos

        def cacos(x: Any) -> Any:  # C99/standard: acos(a + 0j) = acos(a) - 0j (torch returns +0j)
            r = torch.acos(x)
            flip = (x.imag == 0) & (r.imag == 0)
            return torch.where(flip, torch.complex(r.real, -torch.copysign(torch.zeros_like(r.imag), x.imag)), r)

        return cacos

    def _k_log1p(self, dt: DType) -> Callable[..., Any]:  # complex: log|z| at infinities, |1 + z| overflowing
        return C.clog1p if dt.kind == "c" else torch.log1p  # (complex.py)

    def _k_sqrt(self, dt: DType) -> Callable[..., Any]:  # complex: Kahan's scheme on torch's root (complex.py)
        return C.csqrt if dt.kind == "c" else torch.sqrt

    # complex: NumPy's values at non-finite input, by table on every device (complex.py; torch-CUDA's differ)
    def _k_sin(self, dt: DType) -> Callable[..., Any]:
        return C.nonfinite_table("sin", dt, torch.sin) if dt.kind == "c" else torch.sin

    def _k_sinh(self, dt: DType) -> Callable[..., Any]:
        return C.nonfinite_table("sinh", dt, torch.sinh) if dt.kind == "c" else torch.sinh

    def _k_tan(self, dt: DType) -> Callable[..., Any]:
        return C.nonfinite_table("tan", dt, torch.tan) if dt.kind == "c" else torch.tan

    def _k_asin(self, dt: DType) -> Callable[..., Any]:
        return C.nonfinite_table("asin", dt, torch.asin) if dt.kind == "c" else torch.asin

    def _k_asinh(self, dt: DType) -> Callable[..., Any]:
        return C.nonfinite_table("asinh", dt, torch.asinh) if dt.kind == "c" else torch.asinh

    def _k_acosh(self, dt: DType) -> Callable[..., Any]:
        return C.nonfinite_table("acosh", dt, torch.acosh) if dt.kind == "c" else torch.acosh

    def _k_expm1(self, dt: DType) -> Callable[..., Any]:
        if dt.kind != "c":
            return torch.expm1

        def cexpm1(x: Any) -> Any:  # the standard's special cases torch misses (see the NumPy backend)
            r = torch.expm1(x)
            a, b = x.real, x.imag
            inf = float("inf")
            axis, minf, pinf = b == 0, a == -inf, (a == inf) & ~torch.isfinite(b)
            zero = torch.zeros_like(b)
            zero_b = torch.where(torch.isnan(b), zero, torch.copysign(zero, b))
            re = torch.where(axis, torch.expm1(a) + 0.0, torch.where(minf, -1.0, torch.where(pinf, inf, r.real)))
            im = torch.where(axis, b, torch.where(minf, torch.where(torch.isfinite(b), torch.copysign(zero, torch.sin(b)),
                                                                    zero_b), torch.where(pinf, float("nan"), r.imag)))
            return torch.complex(re, im)

        return C.nonfinite_table("expm1", dt, cexpm1)

    def _k_tanh(self, dt: DType) -> Callable[..., Any]:
        if dt.kind != "c":
            return torch.tanh

        def ctanh(x: Any) -> Any:  # the standard's cases at infinities (see the NumPy backend)
            r = torch.tanh(x)
            a, b = x.real, x.imag
            zero = (a == 0) & ~torch.isfinite(b)
            inf = torch.isinf(a)
            re = torch.where(zero, a, torch.where(inf, torch.sign(a), r.real))
            im = torch.where(zero, float("nan"), torch.where(inf, torch.copysign(torch.zeros_like(b), b), r.imag))
            return torch.complex(re, im)

        return C.nonfinite_table("tanh", dt, ctanh)

    def _k_add(self, dt: DType) -> Callable[..., Any]:
        return self._complex_componentwise(dt, operator.add) if dt.kind == "c" else operator.add

    def _k_subtract(self, dt: DType) -> Callable[..., Any]:
        return self._complex_componentwise(dt, operator.sub) if dt.kind == "c" else operator.sub

    def _k_divide(self, dt: DType) -> Callable[..., Any]:
        def div(x: Any, y: Any) -> Any:
            if isinstance(x, torch.Tensor):
                return x / y
            # scalar / tensor: torch's __rtruediv__ is reciprocal(y) * x, so 0 / 5e-324 gives 0 * inf = NaN
            # and 2.5 / 3 is off by an ulp; a 0-d CPU tensor keeps the true division (valid with CUDA too)
            return torch.div(torch.tensor(x, dtype=y.dtype), y)

        return div

    def _k_negative(self, dt: DType) -> Callable[..., Any]:
        if dt.kind != "c":
            return torch.neg
        # torch's vectorised complex neg (8+ elements on the CPU) computes 0 - x: -(0+0j) comes out +0+0j
        return lambda x: torch.view_as_complex(torch.neg(torch.view_as_real(x.resolve_conj())).contiguous())

    def _k_positive(self, dt: DType) -> Callable[..., Any]:
        return lambda x: x.clone()

    def _k_sign(self, dt: DType) -> Callable[..., Any]:
        if dt.kind == "c":

            def csign(x: Any) -> Any:  # x / |x| per component (torch.sgn loses -0: sign(-0+1j) is 0+1j)
                a = torch.abs(x)
                out = torch.view_as_complex((torch.view_as_real(x.resolve_conj()) / a.unsqueeze(-1)).contiguous())
                return torch.where(a == 0, torch.zeros_like(out), out)

            return csign
        if dt.kind == "f":
            return lambda x: torch.where(torch.isnan(x), x, torch.sign(x))
        return torch.sign

    def _k_round(self, dt: DType) -> Callable[..., Any]:
        if dt.kind in "biu":
            return lambda x: x.clone()
        if dt.kind == "c":
            return lambda x: torch.complex(torch.round(x.real), torch.round(x.imag))
        return torch.round

    def _k_ceil(self, dt: DType) -> Callable[..., Any]:
        return self._rounding("ceil", dt)

    def _k_floor(self, dt: DType) -> Callable[..., Any]:
        return self._rounding("floor", dt)

    def _k_trunc(self, dt: DType) -> Callable[..., Any]:
        return self._rounding("trunc", dt)

    def _k_real(self, dt: DType) -> Callable[..., Any]:
        return (lambda x: torch.real(x).clone()) if dt.kind == "c" else (lambda x: x.clone())

    def _k_imag(self, dt: DType) -> Callable[..., Any]:
        return (lambda x: torch.imag(x).clone()) if dt.kind == "c" else torch.zeros_like

    def _k_conj(self, dt: DType) -> Callable[..., Any]:
        return torch.conj_physical if dt.kind == "c" else (lambda x: x.clone())

    def _k_signbit(self, dt: DType) -> Callable[..., Any]:
        return torch.signbit

    def _k_cbrt(self, dt: DType) -> Callable[..., Any]:  # torch has no cbrt: a Newton step on |x| ** (1/3)
        return lambda x: cbrt(torch, x)

    def _k_reciprocal(self, dt: DType) -> Callable[..., Any]:
        # what 1 / x runs (Tensor.__rtruediv__ is reciprocal(x) * 1), without its Python-level wrapper (~3 µs)
        return torch.reciprocal if dt.kind in "fc" else (lambda x: 1 / x)

    def _k_matmul(self, dt: DType) -> Callable[..., Any]:
        return _int_matmul if dt.kind in "iu" else torch.matmul  # CUDA has no integer GEMM (pytorch#44428)

    def _k_clip(self, dt: DType) -> Callable[..., Any]:
        nd = self.native_dtype(dt)
        floating = dt.kind == "f"

        def clip(x: Any, lo: Any, hi: Any) -> Any:
            out = x
            if lo is not None:
                lo = lo if isinstance(lo, torch.Tensor) else torch.full((), lo, dtype=nd, device=x.device)
                out = torch.where(out <= lo, lo, out)  # a tie (-0.0 vs +0.0) gives the bound, as NumPy
                if floating:  # a NaN bound gives NaN (standard; NumPy), not x
                    out = torch.where(torch.isnan(lo), lo, out)
            if hi is not None:
                hi = hi if isinstance(hi, torch.Tensor) else torch.full((), hi, dtype=nd, device=x.device)
                out = torch.where(out >= hi, hi, out)
                if floating:
                    out = torch.where(torch.isnan(hi), hi, out)
            return out if out is not x else x.clone()

        return clip

    def _k_pow(self, dt: DType) -> Callable[..., Any]:
        if dt.kind == "f":

            def fpow(x: Any, y: Any) -> Any:
                r = operator.pow(x, y)
                if not isinstance(y, torch.Tensor) and (y == 0.5 or y == -0.5):
                    # torch's sqrt/rsqrt fast paths differ from C pow at -0 and -inf (standard: pow)
                    neg_inf, zero = x == -float("inf"), x == 0
                    if y == 0.5:
                        return torch.where(neg_inf, float("inf"), torch.where(zero, 0.0, r))
                    return torch.where(neg_inf, 0.0, torch.where(zero, float("inf"), r))
                return r

            return fpow
        if dt.kind == "c":

            def cpow(x: Any, y: Any) -> Any:
                # One answer on every backend, NumPy's (C99/Python): x ** 0 is 1; 0 ** y is 0 where real(y) > 0,
                # else NaN; small integer exponents multiply exactly (torch goes through exp/log: -32768 ** 1
                # gets an imaginary part); 1 ** NaN is NaN (the standard's exp(y * log(x)); torch gives 1)
                r = operator.pow(x, y)
                xt = x if isinstance(x, torch.Tensor) else torch.full((), x, dtype=r.dtype, device=r.device)
                yt = y if isinstance(y, torch.Tensor) else torch.full((), y, dtype=r.dtype, device=r.device)
                xt, yt = torch.broadcast_tensors(xt, yt)
                nan = torch.full_like(r, complex(float("nan"), float("nan")))
                r = torch.where((xt == 1) & torch.isnan(yt), nan, r)
                n = yt.real
                small = (yt.imag == 0) & (n == torch.round(n)) & (n.abs() < 100)
                if r.is_cuda or bool(small.any()):  # on CUDA no check: bool() would make the host wait
                    r = torch.where(small, _cpow_int(xt, torch.where(small, n, 0).to(torch.int64)), r)
                zero = torch.where(yt.real > 0, torch.zeros_like(r), nan)
                r = torch.where(xt == 0, zero, r)
                return torch.where(yt == 0, torch.ones_like(r), r)

            return cpow
        if dt.kind not in "iu":
            return operator.pow

        def ipow(x: Any, y: Any) -> Any:
            neg = (y < 0).any() if isinstance(y, torch.Tensor) else y < 0
            if neg:
                t = x if isinstance(x, torch.Tensor) else y
                shape = torch.broadcast_shapes(*(v.shape for v in (x, y) if isinstance(v, torch.Tensor)))
                if all(shape):
                    raise negative_integer_power()
                return torch.empty(shape, dtype=t.dtype, device=t.device)  # as on NumPy: nothing to raise for
            return operator.pow(x, y)

        return ipow


def _cmul(p: Any, q: Any) -> Any:
    """The textbook complex product (NumPy's): no NaN recovery, so infinities behave as on NumPy."""
    return torch.complex(p.real * q.real - p.imag * q.imag, p.real * q.imag + p.imag * q.real)


def _cpow_int(a: Any, n: Any) -> Any:
    """``a ** n`` for integer ``|n| < 100`` exactly as NumPy computes it: a, a*a, a*(a*a) for n = 1, 2, 3,
    else binary powering from 1 (then 1 / result for negative n)."""
    m = n.abs()
    p, acc = a, torch.ones_like(a)
    for bit in range(7):
        acc = torch.where(((m >> bit) & 1) == 1, _cmul(acc, p), acc)
        p = _cmul(p, p)
    a2 = _cmul(a, a)
    acc = torch.where(n < 0, 1 / acc, acc)
    return torch.where(n == 1, a, torch.where(n == 2, a2, torch.where(n == 3, _cmul(a, a2), acc)))
