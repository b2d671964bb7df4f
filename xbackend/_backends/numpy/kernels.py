"""The elementwise kernels of the NumPy backend, written against ``self.xp``: the CuPy backend inherits them.

Design constraint: a kernel is NumPy's ufunc of the standard's name wherever it does what the standard asks; where
it does not (``x ** 0.5`` at ``-0``/``-inf``, float16 ``nextafter`` with ``x == y``, complex ``sign``, integer
division by zero, the sign of zero in ``maximum``), ``make_kernel`` finds a ``_k_<name>`` method here that builds the
fixed kernel, mostly from the formulas written once for every NumPy-like namespace (``..common.kernels``).
:class:`NumpyKernelsMixin` is part of :class:`~xbackend._backends.numpy.backend.NumpyBackend`.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ... import _dtypes as D
from ..._backend import Backend
from ..._dtypes import DType
from ..._rules import ELEMENTWISE
from ..common import kernels as R
from ..common.kernels import cbrt, complex_log1p, negative_integer_power, standard_floor_divide

__all__ = ["NumpyKernelsMixin", "NP_NAMES", "PLAIN", "arrays_out"]

# standard name -> NumPy ufunc name, where they differ
NP_NAMES = {
    "acos": "arccos", "acosh": "arccosh", "asin": "arcsin", "asinh": "arcsinh", "atan": "arctan",
    "atan2": "arctan2", "atanh": "arctanh", "bitwise_invert": "invert", "bitwise_left_shift": "left_shift",
    "bitwise_right_shift": "right_shift", "pow": "power", "conj": "conjugate", "round": "rint",
}  # fmt: skip

# Elementwise functions NumPy's ufuncs implement exactly as the standard asks
PLAIN = (
    "abs acos acosh add asin asinh atan atan2 atanh bitwise_and bitwise_invert bitwise_left_shift bitwise_or "
    "bitwise_right_shift bitwise_xor cbrt ceil conj copysign cos cosh divide equal exp expm1 floor floor_divide "
    "greater greater_equal hypot isfinite isinf isnan less less_equal log log1p log2 log10 logaddexp logical_and "
    "logical_not logical_or logical_xor maximum minimum multiply negative nextafter not_equal positive pow "
    "reciprocal remainder round sign signbit sin sinh sqrt square subtract tan tanh trunc real imag"
).split()



def arrays_out(fn: Callable[..., Any], name: str) -> Callable[..., Any]:
    """``fn`` returning an ndarray where NumPy returns a scalar (a ufunc whose operands are all 0-d).

    0-d Arrays are 0-d arrays (never NumPy scalars), so ``np.asarray(x)``, DLPack and in-place writes treat
    them as they treat every other Array. One ``type`` test per call; the conversion only runs for 0-d results.
    """
    nd, asarray = np.ndarray, np.asarray
    arity = ELEMENTWISE.get(name, (0,))[0]
    if arity == 1:

        def unary(x: Any) -> Any:
            r = fn(x)
            return r if type(r) is nd else asarray(r)

        return unary
    if arity == 2:

        def binary(x: Any, y: Any) -> Any:
            r = fn(x, y)
            return r if type(r) is nd else asarray(r)

        return binary

    def other(*args: Any) -> Any:  # clip (3 arguments)
        r = fn(*args)
        return r if type(r) is nd else asarray(r)

    return other


class NumpyKernelsMixin(Backend):
    xp: Any

    def make_kernel(self, name: str, dt: DType) -> Callable[..., Any]:
        special = getattr(self, "_k_" + name, None)
        fn = special(dt) if special is not None else getattr(self.xp, NP_NAMES.get(name, name))
        return arrays_out(fn, name) if self.xp is np else fn


    def _k_round(self, dt: DType) -> Callable[..., Any]:
        if dt.kind in "biu":
            return self.xp.positive if dt.kind != "b" else self.xp.copy
        return self.xp.rint

    def _k_ceil(self, dt: DType) -> Callable[..., Any]:
        return self.xp.ceil if dt.kind == "f" else self.xp.positive

    def _k_floor(self, dt: DType) -> Callable[..., Any]:
        return self.xp.floor if dt.kind == "f" else self.xp.positive

    def _k_trunc(self, dt: DType) -> Callable[..., Any]:
        return self.xp.trunc if dt.kind == "f" else self.xp.positive

    def _k_sign(self, dt: DType) -> Callable[..., Any]:
        xp = self.xp
        if dt.kind != "c":
            return xp.sign

        def csign(x: Any) -> Any:  # the standard: x / |x|, 0 for 0 (NumPy 1.x used a different rule)
            a = xp.abs(x)
            out = xp.empty_like(x)
            with np.errstate(invalid="ignore", divide="ignore"):  # divide by the real |x| per component
                out.real = x.real / a  # (a complex division would turn -0 into +0 and inf into NaN)
                out.imag = x.imag / a
            return xp.where(a == 0, xp.zeros_like(x), out)

        return csign

    def _k_expm1(self, dt: DType) -> Callable[..., Any]:
        xp = self.xp
        if dt.kind != "c":
            return xp.expm1

        def cexpm1(x: Any) -> Any:
            # The standard's special cases NumPy misses: on the real axis (b = +-0) expm1 is the real expm1
            # with imaginary part b (NumPy: -0+0j at -0+0j, inf+nanj at inf+0j); at a = -inf it is exactly
            # -1 + 0*cis(b) (NumPy's complex64 gives -0.99999988), -1 +-0j for b = +-inf (+0j for NaN); at a = +inf
            # with b infinite or NaN it is inf + NaN j (NumPy: NaN + NaN j; array-api-tests checks it)
            with np.errstate(all="ignore"):
                r = xp.expm1(x)
                a, b = x.real, x.imag
                axis, minf, pinf = b == 0, a == -np.inf, (a == np.inf) & ~xp.isfinite(b)
                zero_b = xp.where(xp.isnan(b), xp.zeros_like(b), xp.copysign(xp.zeros_like(b), b))
                out = xp.empty_like(r)
                out.real = xp.where(axis, xp.expm1(a) + 0.0, xp.where(minf, -1.0, xp.where(pinf, np.inf, r.real)))
                out.imag = xp.where(axis, b, xp.where(minf, xp.where(xp.isfinite(b), xp.copysign(
                    xp.zeros_like(b), xp.sin(b)), zero_b), xp.where(pinf, np.nan, r.imag)))  # fmt: skip
            return out

        return cexpm1

    def _k_tanh(self, dt: DType) -> Callable[..., Any]:
        xp = self.xp
        if dt.kind != "c":
            return xp.tanh

        def ctanh(x: Any) -> Any:
            # The standard's cases at infinities, which some libraries miss (CUDA builds give NaN+NaNj for
            # +-0 + inf j): a = +-0 with b infinite or NaN is +-0 + NaN j; a = +-inf is +-1 +- 0j (b's sign)
            with np.errstate(all="ignore"):
                r = xp.tanh(x)
                a, b = x.real, x.imag
                zero = (a == 0) & ~xp.isfinite(b)
                inf = xp.isinf(a)
                out = xp.empty_like(r)
                out.real = xp.where(zero, a, xp.where(inf, xp.sign(a), r.real))
                out.imag = xp.where(zero, np.nan, xp.where(inf, xp.copysign(xp.zeros_like(b), b), r.imag))
            return out

        return ctanh

    def _k_cbrt(self, dt: DType) -> Callable[..., Any]:
        """NumPy's cube root, correctly rounded by common/kernels.cbrt: NumPy's own is off by up to 2 ulps on some
        machines (its AVX2 loop gives cbrt(27.0) == 3.0000000000000004). float16 is NumPy's own (computed in
        float32, rounded once: what common/kernels.cbrt would return for it, without its masks)."""
        xp = self.xp
        if dt is D.float16:
            return xp.cbrt
        return lambda x: cbrt(xp, x, xp.cbrt)

    def _k_reciprocal(self, dt: DType) -> Callable[..., Any]:
        if dt is D.float32 or dt is D.float64:  # the library's reciprocal loop is 1 / x for these
            return self.xp.reciprocal
        one, divide = self.native_dtype(dt).type(1), self.xp.divide
        return lambda x: divide(one, x)

    def _int_div(self, dt: DType, fn: Callable[..., Any]) -> Callable[..., Any]:
        if dt.kind not in "iu":
            return fn

        def quiet(x: Any, y: Any) -> Any:  # integer division by zero gives 0, without a warning
            with np.errstate(divide="ignore", invalid="ignore"):
                return fn(x, y)

        return quiet

    def _k_floor_divide(self, dt: DType) -> Callable[..., Any]:
        xp = self.xp
        if dt.kind != "f":
            return self._int_div(dt, xp.floor_divide)

        native = xp.floor_divide
        return lambda x, y: standard_floor_divide(xp, x, y, native)

    def _k_remainder(self, dt: DType) -> Callable[..., Any]:
        return self._int_div(dt, self.xp.remainder)

    def _k_pow(self, dt: DType) -> Callable[..., Any]:
        xp = self.xp
        if dt.kind in "iu":

            def ipow(x: Any, y: Any) -> Any:
                try:
                    return xp.power(x, y)
                except ValueError as exc:  # NumPy: "Integers to negative integer powers are not allowed."
                    raise negative_integer_power() from exc

            return ipow
        if dt.kind != "f":
            return xp.power

        def fpow(x: Any, y: Any) -> Any:
            r = xp.power(x, y)
            if (type(y) is float or getattr(y, "ndim", 1) == 0) and (y == 0.5 or y == -0.5):
                # NumPy's sqrt fast path for a scalar exponent differs from C pow at -0 and -inf (standard: pow)
                neg_inf, zero = x == -np.inf, x == 0
                if y == 0.5:
                    return xp.where(neg_inf, np.inf, xp.where(zero, 0.0, r))
                return xp.where(neg_inf, 0.0, xp.where(zero, np.inf, r))
            return r

        return fpow

    def _k_nextafter(self, dt: DType) -> Callable[..., Any]:  # float16: on the bits (common/kernels; NumPy's returns x
        return R.nextafter16(self.xp) if dt is D.float16 else self.xp.nextafter  # for x == y, CuPy's NaN at inf)

    #: float dtypes whose library maximum/minimum already give the second argument on a -0.0/+0.0 tie: NumPy's
    #: float32/64 loops (contiguous, strided and scalar; tests/test_elementwise.py's zero-sign test checks it on
    #: every run), not its float16 loop. The formula costs 4-5x the kernel at 1e6 elements, so it runs only where
    #: the library differs. CuPy (CUDA orders -0.0 below +0.0): none.
    tie_second_natively: frozenset[DType] = frozenset({D.float32, D.float64})

    # one formula on every backend where libraries' kernels disagree (common/kernels.py; torch's: the same rules)
    def _k_maximum(self, dt: DType) -> Callable[..., Any]:
        if dt.kind == "f" and dt not in self.tie_second_natively:
            return R.tie_second(self.xp, self.xp.maximum)
        return self.xp.maximum

    def _k_minimum(self, dt: DType) -> Callable[..., Any]:
        if dt.kind == "f" and dt not in self.tie_second_natively:
            return R.tie_second(self.xp, self.xp.minimum)
        return self.xp.minimum

    def _k_bitwise_right_shift(self, dt: DType) -> Callable[..., Any]:
        return R.shift_right(self.xp, self.xp.right_shift)

    def _k_bitwise_left_shift(self, dt: DType) -> Callable[..., Any]:
        return R.shift_left(self.xp, self.xp.left_shift)

    def _k_real(self, dt: DType) -> Callable[..., Any]:
        return self.xp.real if dt.kind == "c" else self.xp.positive

    def _k_imag(self, dt: DType) -> Callable[..., Any]:
        xp = self.xp
        return xp.imag if dt.kind == "c" else xp.zeros_like

    def _k_conj(self, dt: DType) -> Callable[..., Any]:
        return self.xp.conjugate if dt.kind == "c" else self.xp.positive

    def _k_log1p(self, dt: DType) -> Callable[..., Any]:
        xp = self.xp
        if dt.kind != "c":
            return xp.log1p

        return lambda z: complex_log1p(xp, z)

    def _k_clip(self, dt: DType) -> Callable[..., Any]:
        xp = self.xp
        if dt.kind == "f" and dt not in self.tie_second_natively:
            return R.clip_floats(xp)  # a tie gives the bound, a NaN bound NaN: torch's formula (common/kernels)
        # (floats whose maximum/minimum give the second argument on a tie: the bound, and NaN bounds propagate)

        def clip(x: Any, lo: Any, hi: Any) -> Any:
            out = x
            if lo is not None:
                out = xp.maximum(out, lo)
            if hi is not None:
                out = xp.minimum(out, hi)
            return out if out is not x else x.copy()

        return clip
