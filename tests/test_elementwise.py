"""Every elementwise function of the Array API standard (2025.12) and ``clip``, on every target.

* values against a NumPy float64/complex128 oracle (exact Python-int arithmetic for integers) computed
  from the same drawn NumPy data, with dtype-aware tolerances;
* the result dtype equals the documented rule (written out below, independently of ``_rules.py``), is
  the same on every target, and the native result really has that dtype;
* the standard's special cases (NaN, +-inf, +-0) from the spec pages, on every target;
* torch's missing uint16/32/64 kernels either work exactly or raise ``UnsupportedDTypeError``;
* Python scalars are weak and range-checked.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import xbackend as xb
from xbackend import _dtypes as D
from xbackend._rules import ELEMENTWISE
from xbackend.testing import assert_close, available_targets
import xbackend.testing.strategies as xst

from fakecupy import with_cupy_on_numpy  # noqa: E402 (tests/fakecupy.py)

TARGETS = with_cupy_on_numpy(available_targets())  # CuPy on NumPy too: CupyBackend's code on the CPU (issue 28)
NAMES = sorted(n for n in ELEMENTWISE if n != "matmul")
UNARY = [n for n in NAMES if ELEMENTWISE[n][0] == 1]
BINARY = [n for n in NAMES if ELEMENTWISE[n][0] == 2]
nan, inf, pi = math.nan, math.inf, math.pi

# ---------------------------------------------------------------------------------------------
# The documented dtype rules (README / DESIGN §2 / _rules docstring), restated independently.
# ---------------------------------------------------------------------------------------------
_B = (D.bool,)
_I = D.INTEGER
_RF = (D.float16, D.bfloat16, D.float32, D.float64)
_C = D.COMPLEX
ACCEPTS = {}
for _names, _acc in (
    ("add subtract multiply pow negative positive square sign round conj abs real imag", _I + _RF + _C),
    ("divide acos acosh asin asinh atan atanh cos cosh exp expm1 log log1p log2 log10 sin sinh sqrt tan tanh "
     "reciprocal isfinite isinf isnan equal not_equal", _B + _I + _RF + _C),
    ("atan2 copysign hypot logaddexp nextafter signbit less less_equal greater greater_equal cbrt", _B + _I + _RF),
    ("floor_divide remainder maximum minimum ceil floor trunc", _I + _RF),
    ("bitwise_and bitwise_or bitwise_xor bitwise_invert", _B + _I),
    ("bitwise_left_shift bitwise_right_shift", _I),
    ("logical_and logical_or logical_xor logical_not", _B),
):  # fmt: skip
    for _n in _names.split():
        ACCEPTS[_n] = frozenset(_acc)
FLOAT_FUNCS = frozenset(
    "divide acos acosh asin asinh atan atanh cos cosh exp expm1 log log1p log2 log10 sin sinh sqrt tan tanh "
    "reciprocal atan2 copysign hypot logaddexp nextafter cbrt".split()
)
BOOL_RESULT = frozenset("equal not_equal less less_equal greater greater_equal isfinite isinf isnan signbit "
                        "logical_and logical_or logical_xor logical_not".split())  # fmt: skip
REAL_OF = frozenset(["abs", "real", "imag"])


def expected_dtype(name: str, p: D.DType, default_float: D.DType = D.float64) -> D.DType:
    """The documented result dtype of ``name`` for inputs promoting to ``p`` (raises if not accepted)."""
    if p not in ACCEPTS[name]:
        raise xb.UnsupportedDTypeError(name)
    if name in BOOL_RESULT:
        return D.bool
    if name in FLOAT_FUNCS and p.kind in "biu":
        return default_float
    if name in REAL_OF and p.kind == "c":
        return {D.complex64: D.float32, D.complex128: D.float64}[p]
    return p


def test_every_standard_function_is_covered():
    standard = set(
        "abs acos acosh add asin asinh atan atan2 atanh bitwise_and bitwise_left_shift bitwise_invert bitwise_or "
        "bitwise_right_shift bitwise_xor ceil clip conj copysign cos cosh divide equal exp expm1 floor floor_divide "
        "greater greater_equal hypot imag isfinite isinf isnan less less_equal log log1p log2 log10 logaddexp "
        "logical_and logical_not logical_or logical_xor maximum minimum multiply negative nextafter not_equal "
        "positive pow real reciprocal remainder round sign signbit sin sinh square sqrt subtract tan tanh trunc".split()
    )
    beyond = {"cbrt"}  # xbackend's own, beyond the standard (the namespace may hold more names since 2025.12)
    assert (standard - {"clip"}) | beyond == set(NAMES) == set(ACCEPTS)
    assert all(callable(getattr(xb, n)) for n in standard | beyond)


@pytest.mark.parametrize("name", NAMES)
def test_result_dtype_rule_for_every_dtype(name):
    """xb's category table gives the documented dtype for every input dtype (and raises where documented)."""
    n = ELEMENTWISE[name][0]
    for dt in D.ALL:
        if dt is D.bfloat16:
            continue
        x = xb.zeros(2, dtype=dt)
        args = (x,) * n
        try:
            want = expected_dtype(name, dt)
        except xb.UnsupportedDTypeError:
            with pytest.raises(xb.UnsupportedDTypeError, match=name):
                getattr(xb, name)(*args)
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = getattr(xb, name)(*args)
        assert got.dtype is want, (name, dt, got.dtype, want)
        assert got.native.dtype == np.dtype(want.name)
    with xb.using(default_float=xb.float32), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if D.int8 in ACCEPTS[name]:
            got = getattr(xb, name)(*(xb.ones(1, dtype=xb.int8),) * n)
            assert got.dtype is expected_dtype(name, D.int8, D.float32)


# ---------------------------------------------------------------------------------------------
# Oracles
# ---------------------------------------------------------------------------------------------
def _wrap(v: int, dt: D.DType) -> int:
    lo, hi = D._INT_RANGE[dt]
    return (v - lo) % (hi - lo + 1) + lo


def _int_floordiv(a, b):
    return 0 if b == 0 else a // b


def _int_mod(a, b):
    return 0 if b == 0 else a % b


_INT_ORACLE = {
    "add": lambda a, b: a + b, "subtract": lambda a, b: a - b, "multiply": lambda a, b: a * b,
    "floor_divide": _int_floordiv, "remainder": _int_mod, "maximum": max, "minimum": min,
    "bitwise_and": lambda a, b: a & b, "bitwise_or": lambda a, b: a | b, "bitwise_xor": lambda a, b: a ^ b,
    "bitwise_left_shift": lambda a, b: a << b, "bitwise_right_shift": lambda a, b: a >> b,
    "negative": lambda a: -a, "positive": lambda a: a, "square": lambda a: a * a, "abs": abs,
    "sign": lambda a: (a > 0) - (a < 0), "bitwise_invert": lambda a: ~a,
    "round": lambda a: a, "ceil": lambda a: a, "floor": lambda a: a, "trunc": lambda a: a,
    "conj": lambda a: a, "real": lambda a: a, "imag": lambda a: 0,
}  # fmt: skip
_CMP = {"equal": np.equal, "not_equal": np.not_equal, "less": np.less, "less_equal": np.less_equal,
        "greater": np.greater, "greater_equal": np.greater_equal}  # fmt: skip
_NP = {
    "acos": np.arccos, "acosh": np.arccosh, "asin": np.arcsin, "asinh": np.arcsinh, "atan": np.arctan,
    "atanh": np.arctanh, "atan2": np.arctan2, "pow": np.power, "conj": np.conjugate, "round": np.rint,
    "bitwise_invert": np.invert, "reciprocal": lambda x: 1 / x,
}  # fmt: skip


def _std_floor_divide(x, y):
    """NumPy's floor_divide, with the standard's values where an operand is infinite (floor(x / y))."""
    r = np.floor_divide(x, y)
    if r.dtype.kind != "f":
        return r
    inf = np.isinf(x) | np.isinf(y)
    return np.where(inf & ~np.isnan(x) & ~np.isnan(y), np.floor(np.divide(x, y)), r)


_NP["floor_divide"] = _std_floor_divide
# exact in the compute dtype: the oracle runs in that dtype (rounding twice would differ)
_EXACT_IN_DTYPE = frozenset("nextafter floor_divide remainder copysign maximum minimum ceil floor trunc round "
                            "negative positive abs real imag conj sign signbit isfinite isinf isnan"
                            .split())  # fmt: skip


def _csign(z):
    a = np.abs(z)
    with np.errstate(all="ignore"):
        return np.where(a == 0, 0, z / np.where(a == 0, 1, a))


def oracle(name: str, args: list[np.ndarray], cd: D.DType, rd: D.DType):
    """Expected result as a NumPy array of dtype ``rd`` (None if ``rd`` has no NumPy dtype)."""
    npd = np.dtype(rd.name)
    if cd.kind in "iu" and name in _INT_ORACLE:
        if name == "pow":
            raise AssertionError
        f = _INT_ORACLE[name]
        objs = [a.astype(cd.name).astype(object) for a in args]
        ufunc = np.frompyfunc(lambda *v: _wrap(f(*(int(t) for t in v)), cd) if rd.kind != "b" else f(*v), len(args), 1)
        out = ufunc(*objs)
        return np.asarray(out, dtype=object).astype(npd)
    if cd.kind in "iu" and name == "pow":
        objs = [a.astype(cd.name).astype(object) for a in args]
        m = 1 << cd.bits
        out = np.frompyfunc(lambda a, b: _wrap(pow(int(a), int(b), m), cd), 2, 1)(*objs)
        return np.asarray(out, dtype=object).astype(npd)
    if name in _CMP:
        with np.errstate(all="ignore"):
            return _CMP[name](*[a.astype(cd.name) for a in args])
    if cd.kind == "b":
        f = {"bitwise_and": np.logical_and, "bitwise_or": np.logical_or, "bitwise_xor": np.logical_xor,
             "bitwise_invert": np.logical_not}.get(name) or getattr(np, name)  # fmt: skip
        return f(*args).astype(npd)
    with np.errstate(all="ignore"):
        if name in _EXACT_IN_DTYPE:
            ins = [a.astype(cd.name) for a in args]
        else:
            wide = np.complex128 if cd.kind == "c" else np.float64
            ins = [a.astype(cd.name).astype(wide) for a in args]
        if name == "sign" and cd.kind == "c":
            out = _csign(ins[0])
        elif name in ("real", "imag") and cd.kind != "c":
            out = ins[0] if name == "real" else np.zeros_like(ins[0])
        else:  # at least 1-d: NumPy's scalar-exponent fast paths (x ** 0.5 -> sqrt) are not the oracle
            shape = np.broadcast_shapes(*(a.shape for a in ins))
            out = (_NP.get(name) or getattr(np, name))(*(np.atleast_1d(a) for a in ins)).reshape(shape)
        return np.asarray(out).astype(npd)


# ---------------------------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------------------------
_TRANSCENDENTAL = frozenset("acos acosh asin asinh atan atanh cos cosh exp expm1 log log1p log2 log10 sin sinh "
                            "tan tanh sqrt pow logaddexp hypot atan2 cbrt".split())  # fmt: skip


def _elements(name: str, dt: D.DType, position: int):
    """Element strategy for argument ``position`` of ``name`` with dtype ``dt`` (None: the full range)."""
    if dt.kind == "c":
        # complex special values are tested separately; magnitudes kept where overflow handling is unspecified
        lim = 30.0 if name in _TRANSCENDENTAL or name in ("divide", "reciprocal", "sign") else 1e15
        return st.complex_numbers(max_magnitude=lim, allow_nan=False, allow_infinity=False,
                                  allow_subnormal=False, width=dt.bits)  # fmt: skip
    if dt.kind == "f":
        kw = dict(allow_subnormal=False, width=dt.bits)
        if name in ("sin", "cos", "tan"):  # argument reduction of huge angles is not what is tested here
            return st.floats(-1e4, 1e4, **kw) | st.sampled_from([nan, inf, -inf, -0.0])
        if name == "pow" and position == 1:
            return st.floats(-40, 40, **kw) | st.sampled_from([nan, inf, -inf, -0.0, 0.5, 2.0, 3.0])
        return st.floats(**kw)
    if dt.kind in "iu":
        lo, hi = D._INT_RANGE[dt]
        if name in ("bitwise_left_shift", "bitwise_right_shift") and position == 1:
            return st.integers(0, min(hi, 2 * dt.bits))  # shifts past the width give 0 (or -1) everywhere
        if name == "pow" and position == 1:
            return st.integers(0, 70)
        if name in ("floor_divide", "remainder") and dt.kind == "i":
            lo += 1  # INT_MIN // -1 overflows (a hardware trap on some CPUs); checked on its own below
        return st.integers(lo, hi)
    return st.booleans()


def _drawn(draw, name: str, dt: D.DType, shape, position: int = 0) -> np.ndarray:
    return draw(hnp.arrays(np.dtype(dt.name), shape, elements=_elements(name, dt, position)))



# The only refusals of the torch uint emulation (docs: torch.py module docstring, behaviour.md): uint64
# integer division, remainder and power cannot be emulated exactly in int64. Everything else must return
# the right values in the right dtype; uint16/uint32 never refuse.
TORCH_UINT64_REFUSES = frozenset({"floor_divide", "remainder", "pow"})


def _torch_refusal_documented(t, name: str, dts) -> bool:
    return t.backend == "torch" and D.uint64 in dts and name in TORCH_UINT64_REFUSES


def _check_target(t, name, fn, host_args, dts, want_dt, expected, rtol=None, atol=None):
    xs = [t.asarray(a) for a in host_args]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = fn(*xs)
    except xb.UnsupportedDTypeError:
        if _torch_refusal_documented(t, name, [xb.result_type(*dts)] + list(dts)):
            return None  # documented: uint64 //, %, ** on torch
        raise
    assert type(r) is xb.Array
    assert r.dtype is want_dt, (t, name, r.dtype, want_dt)
    assert r.backend == t.backend, (t, name, r.backend)
    assert r.device == xs[0].device, (t, name, r.device, xs[0].device)  # CUDA results too (was `A and B or C`)
    assert r._be.dtype_of(r.native) is r.dtype, "native dtype differs from Array.dtype"
    assert_close(r, expected, rtol=rtol, atol=atol, msg=f"{name} on {t.id}")
    return r.dtype


_TOL_OVERRIDE = {  # (rtol, atol) where the oracle's single rounding and the backend's arithmetic legitimately differ
    D.float16: (4e-3, 1e-3), D.float32: (1e-5, 1e-6), D.complex64: (1e-5, 1e-5), D.complex128: (1e-11, 1e-12),
}


def _tol(name, dt):
    if name in _EXACT_IN_DTYPE or dt.kind not in "fc":
        return None, None
    if name in _TRANSCENDENTAL or dt.kind == "c" or name in ("divide", "reciprocal"):
        return _TOL_OVERRIDE.get(dt, (None, None))
    return None, None


@st.composite
def _unary_case(draw, name):
    dt = draw(xst.dtypes(sorted((d for d in ACCEPTS[name] if d is not D.bfloat16), key=lambda d: d.name)))
    return dt, _drawn(draw, name, dt, xst.shapes(max_dims=2, max_side=4))


@pytest.mark.parametrize("name", UNARY)
def test_unary_values_against_oracle(name):
    @given(case=_unary_case(name))
    def check(case):
        dt, a = case
        want = expected_dtype(name, dt)
        exp = oracle(name, [a], want if name in FLOAT_FUNCS else dt, want)
        rtol, atol = _tol(name, want)
        got = {_check_target(t, name, getattr(xb, name), [a], [dt], want, exp, rtol, atol)
               for t in TARGETS if t.holds(dt)}  # fmt: skip
        assert len(got - {None}) <= 1

    check()


@st.composite
def _binary_case(draw, name):
    dts = sorted((d for d in ACCEPTS[name] if d is not D.bfloat16), key=lambda d: d.name)
    d1 = draw(xst.dtypes(dts))
    # mostly equal dtypes (the kernels), sometimes a promotable partner (the table)
    d2 = draw(st.just(d1) | xst.dtypes([d for d in dts if (d1, d) in D.PROMOTION] or [d1]))
    s1 = draw(xst.shapes(max_dims=2, max_side=4))
    s2 = draw(xst.broadcastable_shapes(s1, max_dims=2, max_side=4))
    e1 = draw(hnp.arrays(np.dtype(d1.name), s1, elements=_elements(name, d1, 0)))
    e2 = draw(hnp.arrays(np.dtype(d2.name), s2, elements=_elements(name, d2, 1)))
    return d1, d2, e1, e2


def _safe_binary(name, p, a, b):
    """Inputs the test may feed: no INT_MIN // -1, no negative int powers, shifts below the bit width."""
    if p.kind in "iu" and name in ("floor_divide", "remainder", "pow", "bitwise_left_shift", "bitwise_right_shift"):
        bb = b.astype(p.name)
        aa = a.astype(p.name)
        if name == "pow" and (bb < 0).any():
            return False
        if name.startswith("bitwise") and (bb < 0).any():
            return False
        if name in ("floor_divide", "remainder") and p.kind == "i":
            lo = D._INT_RANGE[p][0]
            if np.any(np.broadcast_to(aa, np.broadcast_shapes(aa.shape, bb.shape))[...] == lo):
                return False
    return True


@pytest.mark.parametrize("name", BINARY)
def test_binary_values_against_oracle(name):
    @given(case=_binary_case(name))
    def check(case):
        d1, d2, a, b = case
        p = D.PROMOTION[d1, d2]
        if not _safe_binary(name, p, a, b):
            return
        want = expected_dtype(name, p)
        cd = want if name in FLOAT_FUNCS else p
        exp = oracle(name, [a, b], cd, want)
        rtol, atol = _tol(name, want)
        if name == "pow" and p.kind in "fc":  # a**b with large b amplifies the last-ulp difference of log(a)
            rtol, atol = {D.float16: (1e-2, 1e-3), D.float32: (1e-4, 1e-6)}.get(p, (rtol or 1e-10, atol))
        if name == "pow" and p.kind == "c":
            rtol, atol = {D.complex64: (1e-3, 1e-3), D.complex128: (1e-9, 1e-9)}[p]
        if name == "pow" and p.kind == "c" and ((np.abs(a) == 0).any() or not np.isfinite(exp).all()
                                               or not (np.isfinite(a).all() and np.isfinite(b).all())):
            return  # 0 ** z, inf ** z and complex overflow are left to the implementation (exp(x2*log(x1)))
        got = {_check_target(t, name, getattr(xb, name), [a, b], [d1, d2], want, exp, rtol, atol)
               for t in TARGETS if t.holds(d1) and t.holds(d2)}  # fmt: skip
        assert len(got - {None}) <= 1

    check()


# ---------------------------------------------------------------------------------------------
# Operators are the same code path; scalars are weak
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", BINARY)
def test_python_scalar_operand_either_side(xb_target, name):
    """``f(x, s)`` and ``f(s, x)`` equal ``f(x, full_like(x, s))`` with x's dtype (weak scalars)."""
    for dt, s in ((D.int16, 3), (D.float32, 2.5), (D.bool, True), (D.uint8, 7), (D.complex64, 1.5)):
        if dt not in ACCEPTS[name]:
            continue
        host = np.array([1, 2, 5, 0], dtype=dt.name) if dt.kind != "b" else np.array([True, False, True, False])
        x = xb_target.asarray(host)
        full = xb_target.asarray(np.full(host.shape, s, dtype=dt.name))
        f = getattr(xb, name)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for left, right, ref in ((x, s, (x, full)), (s, x, (full, x))):
                want = f(*ref)  # every dtype here is accepted by `name` on every backend: no refusal is allowed
                got = f(left, right)
                assert got.dtype is want.dtype is expected_dtype(name, dt)
                assert_close(got, want)


def test_python_scalars_are_weak_and_range_checked(xb_target):
    x = xb_target.asarray(np.array([1, 2, 3], dtype=np.int8))
    assert (x + 1).dtype is xb.int8 and (1 + x).dtype is xb.int8
    assert (x * 127).dtype is xb.int8
    with pytest.raises(xb.ScalarOverflowError, match="int8"):
        x + 128
    with pytest.raises(OverflowError):
        xb.add(-129, x)
    u = xb_target.asarray(np.array([1, 2], dtype=np.uint8))
    with pytest.raises(xb.ScalarOverflowError):
        u - (-1)
    assert (u + 255).dtype is xb.uint8
    assert (x + 1.5).dtype is xb.float64  # a float with an int Array: the default float
    with xb.using(default_float=xb.float32):
        assert (x / 2).dtype is xb.float32
    if xb_target.holds(xb.float16):  # (array-api-strict has no float16)
        f = xb_target.asarray(np.array([1.0], dtype=np.float16))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert (f + 1e10).dtype is xb.float16  # weak: stays float16 (and overflows to inf like the dtype does)
            assert math.isinf((f + 1e10).item())
        assert (f * 2).dtype is xb.float16
        assert (f + 1j).dtype is xb.complex64
    b = xb_target.asarray(np.array([True, False]))
    assert (b + 1).dtype is xb.int64 and (b * 1.5).dtype is xb.float64
    assert (b & True).dtype is xb.bool
    # NumPy scalars act as Python scalars
    assert (x + np.int64(3)).dtype is xb.int8
    assert_close(x + np.float64(0.5), np.array([1.5, 2.5, 3.5]))


def test_zero_d_arrays_are_not_weak(xb_target):
    x = xb_target.asarray(np.array([1, 2], dtype=np.int8))
    z = xb_target.asarray(np.array(300, dtype=np.int64))
    assert (x + z).dtype is xb.int64
    assert (x + z).tolist() == [301, 302]


# ---------------------------------------------------------------------------------------------
# Special cases of the standard (real floating point), on every target and every float dtype
# ---------------------------------------------------------------------------------------------
ANYZERO = "zero of either sign"
UNARY_SPECIAL = {
    "abs": [(nan, nan), (-0.0, 0.0), (-inf, inf), (inf, inf)],
    "acos": [(nan, nan), (1.5, nan), (-1.5, nan), (1.0, 0.0)],
    "acosh": [(nan, nan), (0.5, nan), (1.0, 0.0), (inf, inf)],
    "asin": [(nan, nan), (1.5, nan), (-1.5, nan), (0.0, 0.0), (-0.0, -0.0)],
    "asinh": [(nan, nan), (0.0, 0.0), (-0.0, -0.0), (inf, inf), (-inf, -inf)],
    "atan": [(nan, nan), (0.0, 0.0), (-0.0, -0.0), (inf, pi / 2), (-inf, -pi / 2)],
    "atanh": [(nan, nan), (-1.5, nan), (1.5, nan), (-1.0, -inf), (1.0, inf), (0.0, 0.0), (-0.0, -0.0)],
    "cbrt": [(nan, nan), (0.0, 0.0), (-0.0, -0.0), (inf, inf), (-inf, -inf), (-8.0, -2.0), (0.125, 0.5)],
    "ceil": [(inf, inf), (-inf, -inf), (0.0, 0.0), (-0.0, -0.0), (nan, nan), (-0.5, -0.0), (1.2, 2.0)],
    "cos": [(nan, nan), (0.0, 1.0), (-0.0, 1.0), (inf, nan), (-inf, nan)],
    "cosh": [(nan, nan), (0.0, 1.0), (-0.0, 1.0), (inf, inf), (-inf, inf)],
    "exp": [(nan, nan), (0.0, 1.0), (-0.0, 1.0), (inf, inf), (-inf, 0.0)],
    "expm1": [(nan, nan), (0.0, 0.0), (-0.0, -0.0), (inf, inf), (-inf, -1.0)],
    "floor": [(inf, inf), (-inf, -inf), (0.0, 0.0), (-0.0, -0.0), (nan, nan), (0.5, 0.0), (-1.2, -2.0)],
    "log": [(nan, nan), (-1.0, nan), (0.0, -inf), (-0.0, -inf), (1.0, 0.0), (inf, inf)],
    "log1p": [(nan, nan), (-2.0, nan), (-1.0, -inf), (-0.0, -0.0), (0.0, 0.0), (inf, inf)],
    "log2": [(nan, nan), (-1.0, nan), (0.0, -inf), (-0.0, -inf), (1.0, 0.0), (inf, inf)],
    "log10": [(nan, nan), (-1.0, nan), (0.0, -inf), (-0.0, -inf), (1.0, 0.0), (inf, inf)],
    "negative": [(0.0, -0.0), (-0.0, 0.0), (inf, -inf), (nan, nan)],
    "positive": [(-0.0, -0.0), (inf, inf), (nan, nan)],
    "reciprocal": [(0.0, inf), (-0.0, -inf), (inf, 0.0), (-inf, -0.0), (nan, nan)],
    "round": [(inf, inf), (-inf, -inf), (0.0, 0.0), (-0.0, -0.0), (nan, nan), (0.5, 0.0), (1.5, 2.0), (2.5, 2.0),
              (-0.5, -0.0), (-2.5, -2.0), (3.0, 3.0)],
    "sign": [(-2.0, -1.0), (-0.0, ANYZERO), (0.0, ANYZERO), (3.0, 1.0), (nan, nan), (inf, 1.0), (-inf, -1.0)],
    "signbit": [(0.0, False), (-0.0, True), (inf, False), (-inf, True), (nan, False), (-2.0, True)],
    "sin": [(nan, nan), (0.0, 0.0), (-0.0, -0.0), (inf, nan), (-inf, nan)],
    "sinh": [(nan, nan), (0.0, 0.0), (-0.0, -0.0), (inf, inf), (-inf, -inf)],
    "sqrt": [(nan, nan), (-1.0, nan), (0.0, 0.0), (-0.0, -0.0), (inf, inf)],
    "square": [(nan, nan), (inf, inf), (-inf, inf), (-0.0, 0.0)],
    "tan": [(nan, nan), (0.0, 0.0), (-0.0, -0.0), (inf, nan), (-inf, nan)],
    "tanh": [(nan, nan), (0.0, 0.0), (-0.0, -0.0), (inf, 1.0), (-inf, -1.0)],
    "trunc": [(inf, inf), (-inf, -inf), (0.0, 0.0), (-0.0, -0.0), (nan, nan), (-0.5, -0.0), (1.7, 1.0)],
    "isfinite": [(inf, False), (-inf, False), (nan, False), (1.0, True), (-0.0, True)],
    "isinf": [(inf, True), (-inf, True), (nan, False), (1.0, False)],
    "isnan": [(nan, True), (inf, False), (0.0, False)],
}  # fmt: skip
BINARY_SPECIAL = {
    "add": [(inf, -inf, nan), (-inf, inf, nan), (inf, inf, inf), (-inf, -inf, -inf), (inf, 1.0, inf),
            (1.0, -inf, -inf), (-0.0, -0.0, -0.0), (-0.0, 0.0, 0.0), (0.0, -0.0, 0.0), (0.0, 0.0, 0.0),
            (-0.0, 2.0, 2.0), (3.0, -0.0, 3.0), (3.0, -3.0, 0.0), (nan, 1.0, nan)],
    "subtract": [(inf, inf, nan), (-inf, -inf, nan), (-0.0, 0.0, -0.0), (0.0, 0.0, 0.0), (3.0, 3.0, 0.0),
                 (inf, -inf, inf), (1.0, nan, nan)],
    "multiply": [(inf, 0.0, nan), (-0.0, inf, nan), (-0.0, 3.0, -0.0), (-2.0, -0.0, 0.0), (inf, -2.0, -inf),
                 (-inf, -inf, inf), (nan, 0.0, nan)],
    "divide": [(inf, inf, nan), (-inf, inf, nan), (0.0, -0.0, nan), (0.0, 2.0, 0.0), (-0.0, 2.0, -0.0),
               (0.0, -2.0, -0.0), (-0.0, -2.0, 0.0), (2.0, 0.0, inf), (2.0, -0.0, -inf), (-2.0, 0.0, -inf),
               (-2.0, -0.0, inf), (inf, 2.0, inf), (inf, -2.0, -inf), (-inf, 2.0, -inf), (-inf, -2.0, inf),
               (2.0, inf, 0.0), (2.0, -inf, -0.0), (-2.0, inf, -0.0), (-2.0, -inf, 0.0), (nan, 1.0, nan)],
    # the standard prefers floor(x1 / x2) at infinities (+-inf // finite is +-inf, x // -+inf a signed zero),
    # where NumPy and torch follow Python (NaN, -1.0); xbackend gives the standard's values (issue 9)
    "floor_divide": [(nan, 1.0, nan), (inf, inf, nan), (0.0, -0.0, nan), (0.0, 2.0, 0.0), (-0.0, 2.0, -0.0),
                     (0.0, -2.0, -0.0), (-0.0, -2.0, 0.0), (2.0, 0.0, inf), (2.0, -0.0, -inf),
                     (-2.0, 0.0, -inf), (-2.0, -0.0, inf), (inf, 2.0, inf), (-inf, 2.0, -inf),
                     (2.0, inf, 0.0), (-2.0, -inf, 0.0), (2.0, -inf, -0.0), (-2.0, inf, -0.0), (7.0, -2.0, -4.0)],
    "remainder": [(nan, 1.0, nan), (1.0, nan, nan), (inf, -inf, nan), (0.0, -0.0, nan), (0.0, 2.0, 0.0),
                  (-0.0, 2.0, 0.0), (0.0, -2.0, -0.0), (-0.0, -2.0, -0.0), (2.0, 0.0, nan), (2.0, -0.0, nan),
                  (-2.0, 0.0, nan), (inf, 2.0, nan), (-inf, -2.0, nan), (2.0, inf, 2.0), (2.0, -inf, -inf),
                  (-2.0, inf, inf), (-2.0, -inf, -2.0), (6.0, -3.0, -0.0), (-6.0, 3.0, 0.0), (-7.0, 2.0, 1.0)],
    "pow": [(2.0, nan, nan), (1.0, nan, 1.0), (nan, 0.0, 1.0), (nan, -0.0, 1.0), (nan, 2.0, nan),
            (2.0, inf, inf), (-2.0, -inf, 0.0), (1.0, inf, 1.0), (-1.0, inf, 1.0), (-1.0, -inf, 1.0),
            (0.5, inf, 0.0), (-0.5, -inf, inf), (inf, 2.0, inf), (inf, -1.0, 0.0), (-inf, 3.0, -inf),
            (-inf, 2.0, inf), (-inf, -3.0, -0.0), (-inf, -2.0, 0.0), (0.0, 3.0, 0.0), (0.0, -1.0, inf),
            (-0.0, 3.0, -0.0), (-0.0, 2.0, 0.0), (-0.0, -3.0, -inf), (-0.0, -2.0, inf), (-2.0, 0.5, nan),
            # NumPy and torch take sqrt/rsqrt fast paths for a scalar exponent of +-0.5: not the standard's pow
            (-inf, 0.5, inf), (-0.0, 0.5, 0.0), (-inf, -0.5, 0.0), (-0.0, -0.5, inf), (4.0, -0.5, 0.5)],
    "atan2": [(nan, 1.0, nan), (1.0, nan, nan), (1.0, 0.0, pi / 2), (1.0, -0.0, pi / 2), (0.0, 1.0, 0.0),
              (0.0, 0.0, 0.0), (0.0, -0.0, pi), (0.0, -1.0, pi), (-0.0, 1.0, -0.0), (-0.0, 0.0, -0.0),
              (-0.0, -0.0, -pi), (-0.0, -1.0, -pi), (-1.0, 0.0, -pi / 2), (-1.0, -0.0, -pi / 2),
              (1.0, inf, 0.0), (1.0, -inf, pi), (-1.0, inf, -0.0), (-1.0, -inf, -pi), (inf, 1.0, pi / 2),
              (-inf, 1.0, -pi / 2), (inf, inf, pi / 4), (inf, -inf, 3 * pi / 4), (-inf, inf, -pi / 4),
              (-inf, -inf, -3 * pi / 4)],
    "copysign": [(1.0, -0.0, -1.0), (-1.0, 0.0, 1.0), (inf, -1.0, -inf), (0.0, -2.0, -0.0), (-0.0, 2.0, 0.0),
                 (nan, 1.0, nan)],
    "hypot": [(inf, nan, inf), (nan, -inf, inf), (-inf, 1.0, inf), (nan, 1.0, nan), (0.0, -0.0, 0.0),
              (-3.0, 0.0, 3.0)],
    "logaddexp": [(nan, 1.0, nan), (1.0, nan, nan), (inf, 1.0, inf), (1.0, inf, inf), (inf, -inf, inf),
                  (inf, inf, inf)],
    "maximum": [(nan, 1.0, nan), (1.0, nan, nan), (-inf, 1.0, 1.0)],
    "minimum": [(nan, 1.0, nan), (1.0, nan, nan), (inf, 1.0, 1.0)],
    "nextafter": [(nan, 1.0, nan), (1.0, nan, nan), (-0.0, 0.0, 0.0), (0.0, -0.0, -0.0), (1.0, 1.0, 1.0)],
    "equal": [(nan, nan, False), (inf, inf, True), (-inf, -inf, True), (-0.0, 0.0, True), (inf, -inf, False)],
    "not_equal": [(nan, nan, True), (nan, 1.0, True), (inf, -inf, True), (-0.0, 0.0, False)],
    "less": [(nan, 1.0, False), (-0.0, 0.0, False), (-inf, inf, True)],
    "less_equal": [(nan, nan, False), (-0.0, 0.0, True)],
    "greater": [(1.0, nan, False), (inf, -inf, True)],
    "greater_equal": [(nan, 1.0, False), (0.0, -0.0, True)],
}  # fmt: skip

FLOATS = (D.float16, D.float32, D.float64)


def _check_special(r, expected, ctx):
    got = np.asarray(r.numpy() if r.dtype is not D.bfloat16 else r.astype(D.float32).numpy())
    for i, e in enumerate(expected):
        g = got[i].item()
        if isinstance(e, bool):
            assert g is e, f"{ctx}[{i}]: {g!r} != {e!r}"
        elif e == ANYZERO:
            assert g == 0, f"{ctx}[{i}]: {g!r} is not a zero"
        elif math.isnan(e):
            assert math.isnan(g), f"{ctx}[{i}]: {g!r} is not NaN"
        else:
            assert g == pytest.approx(e, rel=2e-3), f"{ctx}[{i}]: {g!r} != {e!r}"
            if g == 0 or math.isinf(e):
                assert math.copysign(1, g) == math.copysign(1, e), f"{ctx}[{i}]: sign of {g!r} != {e!r}"


@pytest.mark.parametrize("name", sorted(UNARY_SPECIAL))
def test_unary_special_cases(xb_target, name):
    cases = UNARY_SPECIAL[name]
    for dt in filter(xb_target.holds, FLOATS):
        x = xb_target.asarray(np.array([c[0] for c in cases], dtype=dt.name))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = getattr(xb, name)(x)
        _check_special(r, [c[1] for c in cases], f"{name}({dt}) on {xb_target}")


@pytest.mark.parametrize("name", sorted(BINARY_SPECIAL))
def test_binary_special_cases(xb_target, name):
    cases = BINARY_SPECIAL[name]
    for dt in filter(xb_target.holds, FLOATS):
        x = xb_target.asarray(np.array([c[0] for c in cases], dtype=dt.name))
        y = xb_target.asarray(np.array([c[1] for c in cases], dtype=dt.name))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = getattr(xb, name)(x, y)
            _check_special(r, [c[2] for c in cases], f"{name}({dt}) on {xb_target}")
            # a Python scalar on either side, and 0-d Arrays, give the same special cases
            r2 = [getattr(xb, name)(x[i : i + 1], c[1]).tolist()[0] for i, c in enumerate(cases)]
            r3 = [getattr(xb, name)(c[0], y[i : i + 1]).tolist()[0] for i, c in enumerate(cases)]
            r4 = [getattr(xb, name)(x[i], y[i]).tolist() for i in range(len(cases))]
        for r, how in ((r2, "x, scalar"), (r3, "scalar, y"), (r4, "0-d, 0-d")):
            _check_special(xb_target.asarray(np.array(r)), [c[2] for c in cases], f"{name}({how}) on {xb_target}")
        if name in ("add", "subtract", "multiply", "divide", "floor_divide", "remainder", "pow"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for i, c in enumerate(cases):  # in place, with a scalar and with an Array
                    z = x[i : i + 1] * 1
                    exec(f"z {_OPSYM[name]}= c[1]")
                    _check_special(z, [c[2]], f"{name} in place #{i} ({dt}) on {xb_target}")
                z = x * 1
                exec(f"z {_OPSYM[name]}= y")
                _check_special(z, [c[2] for c in cases], f"{name} in place ({dt}) on {xb_target}")


_OPSYM = {"add": "+", "subtract": "-", "multiply": "*", "divide": "/", "floor_divide": "//", "remainder": "%",
          "pow": "**"}  # fmt: skip


def test_special_cases_cover_every_real_float_function():
    real_float = {n for n in NAMES if D.float64 in ACCEPTS[n]} - {"conj", "real", "imag"}
    assert real_float <= set(UNARY_SPECIAL) | set(BINARY_SPECIAL)


def _cx(re, im):
    return complex(re, im)


COMPLEX_SPECIAL = {  # (a, b) -> (re, im); None: that component is unspecified
    "abs": [((inf, nan), (inf, None)), ((nan, -inf), (inf, None)), ((0.0, -3.0), (3.0, None)),
            ((nan, 1.0), (nan, None)), ((nan, nan), (nan, None))],
    "exp": [((0.0, 0.0), (1.0, 0.0)), ((-0.0, 0.0), (1.0, 0.0)), ((inf, 0.0), (inf, 0.0)),
            ((nan, 0.0), (nan, 0.0)), ((1.0, nan), (nan, nan)), ((nan, nan), (nan, nan))],
    "log": [((-0.0, 0.0), (-inf, pi)), ((0.0, 0.0), (-inf, 0.0)), ((1.0, inf), (inf, pi / 2)),
            ((-inf, 1.0), (inf, pi)), ((inf, 1.0), (inf, 0.0)), ((nan, nan), (nan, nan)),
            ((inf, nan), (inf, nan))],
    "sqrt": [((0.0, 0.0), (0.0, 0.0)), ((-0.0, 0.0), (0.0, 0.0)), ((1.0, inf), (inf, inf)),
             ((nan, inf), (inf, inf)), ((-inf, 1.0), (0.0, inf)), ((inf, 1.0), (inf, 0.0)),
             ((-4.0, 0.0), (0.0, 2.0)), ((nan, nan), (nan, nan))],
    "sign": [((0.0, 0.0), (0.0, 0.0)), ((-0.0, -0.0), (0.0, 0.0)), ((nan, 1.0), (nan, nan)),
             ((1.0, nan), (nan, nan)), ((3.0, -4.0), (0.6, -0.8))],
    "isnan": [((nan, 0.0), True), ((0.0, nan), True), ((inf, 0.0), False)],
    "isinf": [((inf, nan), True), ((nan, -inf), True), ((nan, 0.0), False), ((1.0, 2.0), False)],
    "isfinite": [((inf, 0.0), False), ((0.0, nan), False), ((1.0, -2.0), True)],
    "conj": [((1.0, 0.0), (1.0, -0.0)), ((nan, inf), (nan, -inf))],
    "real": [((-0.0, nan), -0.0)],
    "imag": [((nan, -0.0), -0.0)],
    "round": [((0.5, -1.5), (0.0, -2.0)), ((2.5, nan), (2.0, nan))],
    "acos": [((0.0, 0.0), (pi / 2, -0.0)), ((-0.0, 0.0), (pi / 2, -0.0)), ((0.0, nan), (pi / 2, nan)),
             ((1.0, inf), (pi / 2, -inf)), ((-inf, 1.0), (pi, -inf)), ((inf, 1.0), (0.0, -inf)),
             ((nan, nan), (nan, nan)), ((inf, nan), (nan, None)), ((0.5, -0.0), (math.acos(0.5), 0.0))],
    "log1p": [((-1.0, 0.0), (-inf, 0.0)), ((1.0, inf), (inf, pi / 2)), ((inf, nan), (inf, nan)),
              ((nan, inf), (inf, nan)), ((-inf, 1.0), (inf, pi)), ((nan, 1.0), (nan, nan))],
    "acosh": [((0.0, 0.0), (0.0, pi / 2)), ((1.0, inf), (inf, pi / 2)), ((-inf, 1.0), (inf, pi)),
              ((inf, nan), (inf, nan)), ((nan, inf), (inf, nan)),
              ((0.0, nan), (nan, pi / 2)), ((-0.0, nan), (nan, pi / 2))],  # (torch-CUDA: nan+nanj; issue 28)
    # the standard's cases; where it leaves a sign unspecified, xbackend's choice (NumPy's, and conj-symmetric)
    "expm1": [((0.0, 0.0), (0.0, 0.0)), ((-0.0, 0.0), (0.0, 0.0)), ((1.0, inf), (nan, nan)), ((1.0, nan), (nan, nan)),
              ((inf, 0.0), (inf, 0.0)), ((-inf, 1.0), (-1.0, 0.0)), ((-inf, -2.0), (-1.0, -0.0)),
              ((-inf, inf), (-1.0, 0.0)), ((-inf, -inf), (-1.0, -0.0)), ((inf, inf), (inf, nan)),
              ((-inf, nan), (-1.0, 0.0)), ((inf, nan), (inf, nan)), ((nan, 0.0), (nan, 0.0)),
              ((nan, 1.0), (nan, nan)), ((nan, nan), (nan, nan))],  # (array-api-tests, NumPy, torch: issue 28)
    "sinh": [((0.0, 0.0), (0.0, 0.0)), ((inf, 0.0), (inf, 0.0)), ((nan, 0.0), (nan, 0.0))],
    "cosh": [((0.0, 0.0), (1.0, 0.0)), ((inf, 0.0), (inf, 0.0)), ((nan, 0.0), (nan, 0.0))],
    "tanh": [((0.0, 0.0), (0.0, 0.0)), ((inf, 1.0), (1.0, 0.0)), ((nan, 0.0), (nan, 0.0))],
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(COMPLEX_SPECIAL))
def test_complex_special_cases(xb_target, name):
    cases = COMPLEX_SPECIAL[name]
    for dt in (D.complex64, D.complex128):
        x = xb_target.asarray(np.array([_cx(*c[0]) for c in cases], dtype=dt.name))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = getattr(xb, name)(x).numpy()
        for i, (_, e) in enumerate(cases):
            g = got[i].item()
            ctx = f"{name}({cases[i][0]}) [{dt}] on {xb_target}"
            if isinstance(e, bool):
                assert g is e, ctx
                continue
            parts = [(complex(g).real, e[0]), (complex(g).imag, e[1])] if isinstance(e, tuple) else [(g, e)]
            for gv, ev in parts:
                if ev is None:
                    continue
                if math.isnan(ev):
                    assert math.isnan(gv), f"{ctx}: {g!r}"
                else:
                    assert gv == pytest.approx(ev, rel=1e-5, abs=1e-7), f"{ctx}: {g!r}"
                    if ev == 0 or math.isinf(ev):
                        assert math.copysign(1, gv) == math.copysign(1, ev), f"{ctx}: sign of {g!r}"


# ---------------------------------------------------------------------------------------------
# Integer edge cases, torch's missing unsigned kernels
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dt", [D.uint16, D.uint32, D.uint64])
def test_wide_unsigned_work_exactly_or_raise_typed(xb_target, dt):
    hi = D._INT_RANGE[dt][1]
    a = np.array([0, 1, 2, 7, hi // 2, hi // 2 + 1, hi - 1, hi], dtype=dt.name)
    b = np.array([1, 3, 2, 0, 5, hi, 2, hi - 3], dtype=dt.name)
    sh = np.array([0, 1, 3, dt.bits - 1, 2, 5, 1, 4], dtype=dt.name)
    for name in NAMES:
        if dt not in ACCEPTS[name]:
            continue
        n = ELEMENTWISE[name][0]
        args = [a] if n == 1 else [a, sh if "shift" in name or name == "pow" else b]
        want = expected_dtype(name, dt)
        exp = oracle(name, args, want if name in FLOAT_FUNCS else dt, want)
        xs = [xb_target.asarray(v) for v in args]
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r = getattr(xb, name)(*xs)
        except xb.UnsupportedDTypeError as e:  # torch's missing kernels are emulated exactly (issue 9)
            pytest.fail(f"{name} on {dt} raised on {xb_target}: {e}")
        assert r.dtype is want, name
        assert_close(r, exp, msg=f"{name} {dt} on {xb_target}")
    # scalars above int64's range with uint64
    if dt is D.uint64:
        x = xb_target.asarray(np.array([0, 1, hi], dtype=np.uint64))
        assert (x == hi).tolist() == [False, False, True]
        assert (x < (1 << 63)).tolist() == [True, True, False]
        assert (x + (1 << 63)).tolist() == [1 << 63, (1 << 63) + 1, (1 << 63) - 1]


@pytest.mark.parametrize("dt", [d for d in D.INTEGER if d is not D.uint64], ids=lambda d: d.name)
def test_integer_division_by_zero_is_zero_quietly(xb_target, dt):
    """Integer // and % by zero give 0 on every backend, *quietly*: no RuntimeWarning (NumPy warns natively)
    and no error (torch raises natively), for Array and Python-scalar divisors on either side."""
    x = xb_target.asarray(np.array([5, 0, 7, 1], dtype=dt.name))
    z = xb_target.asarray(np.array([0, 0, 2, 0], dtype=dt.name))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the promise is "quietly": a warning fails the test
        for got, want in (
            (x // z, [0, 0, 3, 0]), (x % z, [0, 0, 1, 0]), (x // 0, [0, 0, 0, 0]), (x % 0, [0, 0, 0, 0]),
            (xb.floor_divide(x, z), [0, 0, 3, 0]), (xb.remainder(x, z), [0, 0, 1, 0]), (7 // z, [0, 0, 3, 0]),
            (xb.floor_divide(z, z), [0, 0, 1, 0]),
        ):  # fmt: skip
            assert got.dtype is dt
            assert got.tolist() == want
        y = xb_target.asarray(np.array([5, 7], dtype=dt.name))
        y //= 0
        assert y.tolist() == [0, 0]


def test_uint64_division_is_exact_and_quiet_everywhere(xb_target):
    """torch has no uint64 division kernel: it is emulated on int64 bits (issue 9), never refused."""
    x = xb_target.asarray(np.array([2**64 - 1, 5], dtype=np.uint64))
    z = xb_target.asarray(np.array([0, 2], dtype=np.uint64))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert (x // z).tolist() == [0, 2] and (x % z).tolist() == [0, 1]


@pytest.mark.parametrize("dt", [D.uint16, D.uint32, D.uint64], ids=lambda d: d.name)
def test_wide_unsigned_maximum_minimum_across_the_sign_bit(xb_target, dt):
    """Values on both sides of the signed range's top: a missing sign flip in torch's emulation orders them wrong."""
    hi = D._INT_RANGE[dt][1]
    mid = hi // 2 + 1  # 2**(bits-1): negative as the signed bit pattern
    a = np.array([0, 1, mid, hi, mid - 1, hi - 1], dtype=dt.name)
    b = np.array([hi, mid, 1, 0, mid, mid - 1], dtype=dt.name)
    x, y = xb_target.asarray(a), xb_target.asarray(b)
    for fn, ref in ((xb.maximum, np.maximum), (xb.minimum, np.minimum)):
        r = fn(x, y)
        assert r.dtype is dt
        assert r.tolist() == ref(a, b).tolist()
    assert (x < y).tolist() == (a < b).tolist() and (x >= y).tolist() == (a >= b).tolist()
    assert xb.max(x).dtype is dt and int(xb.max(x)) == hi and int(xb.min(y)) == 0
    assert int(xb.max(xb_target.asarray(np.array([1, mid], dtype=dt.name)))) == mid
    assert int(xb.min(xb_target.asarray(np.array([mid, hi], dtype=dt.name)))) == mid
    assert xb.clip(x, int(mid - 1), int(mid)).tolist() == np.clip(a, mid - 1, mid).tolist()


def _tie_rule(fn, a, b):
    """docs/behaviour.md's maximum/minimum on Python floats: NaN wins, a tie (equal values: -0.0 vs +0.0) gives the
    second argument, else the larger / smaller."""
    if math.isnan(a) or math.isnan(b):
        return nan
    return b if a == b else fn(a, b)


def test_zero_sign_in_maximum_minimum_clip(xb_target):
    """docs/behaviour.md: on a tie (-0.0 vs +0.0) maximum/minimum give the second argument and clip the bound, on
    every backend and dtype: one formula everywhere (issue 28: CUDA's max orders -0.0 below +0.0 on torch-CUDA and
    CuPy; NumPy's own float16 loop gives the first argument, its float32/64 SIMD loops the second; torch the first).
    The reference is the rule itself, in Python floats. CuPy's behaviour shows on cupy_on_numpy (tests/fakecupy.py);
    torch-CUDA's kernel cannot show on a CPU: the rule is the same code there (torch's _plain_kernel)."""
    left = [-0.0, 0.0, -0.0, 1.0, -1.0, 0.0, nan, -0.0]
    right = [0.0, -0.0, -0.0, nan, -0.0, 0.0, 1.0, 2.0]
    for dt in filter(xb_target.holds, (D.float16, D.float32, D.float64)):
        nd = np.dtype(dt.name)
        a, b = (xb_target.asarray(np.array(v, dtype=nd)) for v in (left, right))
        for fn, py in ((xb.maximum, max), (xb.minimum, min)):
            for (x, y), (xs, ys) in (((a, b), (left, right)), ((b, a), (right, left))):
                want = np.array([_tie_rule(py, p, q) for p, q in zip(xs, ys)], dtype=nd)
                assert_close(fn(x, y), want, check_sign_of_zero=True, msg=f"{fn.__name__} {dt}")
            for s in (0.0, -0.0):  # a Python scalar partner follows the same rule, on either side
                assert_close(fn(a, s), np.array([_tie_rule(py, p, s) for p in left], dtype=nd), check_sign_of_zero=True,
                             msg=f"{fn.__name__}(x, {s}) {dt}")  # fmt: skip
                assert_close(fn(s, a), np.array([_tie_rule(py, s, p) for p in left], dtype=nd), check_sign_of_zero=True,
                             msg=f"{fn.__name__}({s}, x) {dt}")  # fmt: skip
        # long and strided operands too: a library's SIMD loop, its scalar tail and its strided loop must agree
        # (NumPy's float32/64 loops give the second argument themselves, so xbackend uses them as they are)
        lng, rng = np.tile(np.array(left, nd), 129), np.tile(np.array(right, nd), 129)
        for fn, py in ((xb.maximum, max), (xb.minimum, min)):
            want = np.array([_tie_rule(py, p, q) for p, q in zip(left * 129, right * 129)], dtype=nd)
            assert_close(fn(xb_target.asarray(lng), xb_target.asarray(rng)), want, check_sign_of_zero=True)
            assert_close(fn(xb_target.asarray(lng)[::3], xb_target.asarray(rng)[::3]), want[::3],
                         check_sign_of_zero=True)  # fmt: skip
        x = xb_target.asarray(np.array([-0.0, 0.0, 0.5, nan], dtype=nd))
        assert_close(xb.clip(x, 0.0, 1.0), np.array([0.0, 0.0, 0.5, nan], nd), check_sign_of_zero=True)
        assert_close(xb.clip(x, -0.0, 1.0), np.array([-0.0, -0.0, 0.5, nan], nd), check_sign_of_zero=True)
        assert_close(xb.clip(x, -1.0, -0.0), np.array([-0.0, -0.0, -0.0, nan], nd), check_sign_of_zero=True)
        assert_close(xb.clip(x, None, 0.0), np.array([0.0, 0.0, 0.0, nan], nd), check_sign_of_zero=True)
        assert_close(xb.clip(x, xb_target.asarray(np.array([0.0, -0.0, 0.0, 0.0], nd))),
                     np.array([0.0, -0.0, 0.5, nan], nd), check_sign_of_zero=True)  # fmt: skip


def test_clip_broadcasts_x_with_its_bounds(xb_target):
    """The standard: x, min and max broadcast together (array-api-tests draws bounds of more dimensions than x, issue
    28: xbackend refused them); NumPy's np.clip is the reference, bad shapes a ShapeError."""
    x = np.array([0.0, 1.0, 2.0])
    lo = np.array([[0.5, 0.5, 0.5], [-1.0, 1.5, 2.5]])
    for a, l, h in ((x, lo, 1.5), (x[:1], lo, None), (np.zeros((0,), np.float32), np.zeros((0, 0), np.float32), None),
                    (x, np.float64(0.5), lo)):  # fmt: skip
        got = xb.clip(xb_target.asarray(a), xb_target.asarray(l) if isinstance(l, np.ndarray) else l,
                      xb_target.asarray(h) if isinstance(h, np.ndarray) else h)  # fmt: skip
        assert_close(got, np.clip(a, l, h))
    with pytest.raises(xb.ShapeError, match="does not broadcast"):
        xb.clip(xb_target.asarray(x), xb_target.asarray(np.zeros(2)))


@pytest.mark.parametrize("dt", [D.bool, *D.INTEGER], ids=lambda d: d.name)
def test_int_or_bool_array_with_python_complex(xb_target, dt):
    """A complex Python scalar with an int/bool Array: the default complex dtype (complex128, or complex64
    under default_float=float32), never the precision of the integer."""
    x = xb_target.asarray(np.array([1, 0], dtype=dt.name))
    for r in (x + 1j, 1j + x, x * (2 - 1j), xb.multiply(x, 1j)):
        assert r.dtype is xb.complex128
    assert_close(x + 1j, np.array([1, 0], dtype=np.float64) + 1j)
    with xb.using(default_float=xb.float32):
        assert (x + 1j).dtype is xb.complex64 and (x - 2j).dtype is xb.complex64


def test_negative_integer_power_raises(xb_target):
    x = xb_target.asarray(np.array([2, 3], dtype=np.int32))
    with pytest.raises(xb.DomainError, match="negative.*Fix"):
        x ** xb_target.asarray(np.array([1, -1], dtype=np.int32))
    with pytest.raises(xb.DomainError):
        x**-1
    with pytest.raises(xb.DomainError):
        x **= -1
    assert isinstance(xb.DomainError("m"), ValueError)


def test_signed_min_overflow_wraps(xb_target):
    x = xb_target.asarray(np.array([-128, 127], dtype=np.int8))
    assert (-x).tolist() == [-128, -127]
    assert xb.abs(x).tolist() == [-128, 127]
    assert (x + 1).tolist() == [-127, -128]


def test_int_min_floor_divide_minus_one_in_subprocess(xb_target):
    """INT_MIN // -1 traps on x86 in C; it must not kill the process (checked in one child for every dtype:
    a child with CUDA takes seconds to start)."""
    import subprocess
    import sys

    dts = [D.int8, D.int32, D.int64]
    from fakecupy import CHILD_SETUP

    code = (
        CHILD_SETUP + "import numpy as np, warnings, xbackend as xb; warnings.simplefilter('ignore')\n"
        f"for name in {[d.name for d in dts]!r}:\n"
        "    x = xb.asarray(np.array([np.iinfo(name).min, 7], dtype=name), "
        f"backend='{xb_target.backend}', device='{xb_target.device}')\n"
        "    print((x // -1).tolist(), (x % -1).tolist())"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    want = [f"[{D._INT_RANGE[dt][0]}, -7] [0, 0]" for dt in dts]
    assert out.stdout.strip().splitlines() == want


# ---------------------------------------------------------------------------------------------
# clip
# ---------------------------------------------------------------------------------------------
@st.composite
def _clip_case(draw):
    dt = draw(xst.dtypes([D.int8, D.uint8, D.int64, D.uint16, D.uint32, D.uint64, D.float16, D.float32,
                               D.float64]))  # fmt: skip
    a = _drawn(draw, "clip", dt, xst.shapes(max_dims=2, max_side=4))
    if dt.kind == "f":
        bound = st.none() | st.floats(-5, 5, width=dt.bits) | st.just(nan)
    else:
        lo, hi = D._INT_RANGE[dt]
        bound = st.none() | st.integers(max(lo, -5), 10) | st.integers(lo, hi)
    return dt, a, draw(bound), draw(bound)


@given(case=_clip_case(), as_array=st.booleans())
def test_clip_values(case, as_array):
    """NaN in x or in a bound gives NaN (the standard); otherwise min(max(x, lo), hi) in x's dtype."""
    dt, a, lo, hi = case
    if lo is not None and hi is not None and lo > hi:
        return  # unspecified by the standard
    with np.errstate(all="ignore"):
        exp = a.copy()
        if lo is not None:
            exp = np.maximum(exp, np.array(lo, dt.name))
        if hi is not None:
            exp = np.minimum(exp, np.array(hi, dt.name))
        exp = exp.astype(dt.name)
    for t in filter(lambda t: t.holds(dt), TARGETS):
        x = t.asarray(a)
        bl = t.asarray(np.array(lo, dtype=dt.name)) if as_array and lo is not None else lo
        bh = t.asarray(np.array(hi, dtype=dt.name)) if as_array and hi is not None else hi
        r = xb.clip(x, bl, bh)
        assert r.dtype is dt
        assert_close(r, exp, msg=f"clip on {t}")
        if r.size:
            assert not xb.shares_memory(r, x)


def test_clip_errors(xb_target):
    x = xb_target.asarray(np.array([1, 2], dtype=np.int8))
    with pytest.raises(xb.PromotionError):
        xb.clip(x, 0.5, None)
    with pytest.raises(xb.PromotionError):
        xb.clip(x, xb_target.asarray(np.array(1.0)), None)
    with pytest.raises(xb.UnsupportedDTypeError):
        xb.clip(xb_target.asarray(np.array([1j])), 0, 1)
    with pytest.raises(xb.ScalarOverflowError, match=r"xb.clip\(x.astype\(xb.int16\), 1000, None\)"):
        xb.clip(x, 1000, None)  # every result would be 1000, which int8 cannot hold
    assert xb.clip(x, 0, 1000).tolist() == [1, 2]  # a bound beyond the dtype's range changes nothing
    assert xb.clip(x, -1000, 1).tolist() == [1, 1] and xb.clip(x, -1000, 1).dtype is xb.int8


# ---------------------------------------------------------------------------------------------
# errors
# ---------------------------------------------------------------------------------------------
def test_wrong_dtype_category_raises_with_fix(xb_target):
    b = xb_target.asarray(np.array([True, False]))
    f = xb_target.asarray(np.array([1.0, 2.0]))
    c = xb_target.asarray(np.array([1j]))
    for call in (lambda: b + b, lambda: -b, lambda: f & f, lambda: f << f, lambda: xb.logical_and(f, f),
                 lambda: c < c, lambda: xb.floor_divide(c, c), lambda: xb.atan2(c, c), lambda: xb.ceil(c),
                 lambda: ~f):  # fmt: skip
        with pytest.raises(xb.UnsupportedDTypeError, match="Fix"):
            call()
    # the message says what the operation needs (one phrase per category) and the fix for that category
    i64, f64 = "x.astype(xb.int64)", "x.astype(xb.float64)"
    re_ = "xb.real(x)"  # complex data cannot be cast to float64 (that cast is refused): take the real part
    for call, needs, fix in (
        (lambda: b + b, "needs a numeric dtype", "logical_and/logical_or"),
        (lambda: f & f, "needs an integer or bool dtype", i64), (lambda: f << f, "needs an integer dtype", i64),
        (lambda: xb.logical_and(f, f), "needs a bool dtype", "x != 0"),
        (lambda: c < c, "needs a real numeric or bool dtype", re_),
        (lambda: xb.floor_divide(c, c), "needs a real numeric dtype", re_),
        (lambda: xb.atan2(c, c), "needs a real dtype", re_), (lambda: xb.signbit(c), "needs a real dtype", re_),
        (lambda: xb.abs(b), "needs a numeric dtype", f64),
    ):  # fmt: skip
        with pytest.raises(xb.UnsupportedDTypeError) as info:
            call()
        assert needs in str(info.value) and fix in str(info.value), str(info.value)


def test_uint64_with_signed_has_no_promotion(xb_target):
    u = xb_target.asarray(np.array([1], dtype=np.uint64))
    i = xb_target.asarray(np.array([1], dtype=np.int64))
    with pytest.raises(xb.PromotionError, match="Fix"):
        u + i
    with pytest.raises(TypeError):
        xb.equal(i, u)


def test_non_array_operands_are_refused(xb_target):
    x = xb_target.asarray(np.array([1.0]))
    with pytest.raises(TypeError, match="unsupported operand"):  # NotImplemented: Python's own error
        x + "a"
    with pytest.raises(TypeError, match="add"):  # the function says what it takes
        xb.add(x, object())

    class Quantity:  # a type that knows how to combine with Arrays gets its turn (NotImplemented)
        def __radd__(self, other):
            return "radd"

    assert x + Quantity() == "radd"
    assert (x + [1.0]).tolist() == [2.0] and (x + [1.0]).backend == x.backend  # a list takes x's place


def test_complex_add_subtract_are_componentwise(xb_target):
    """The standard: real special cases apply to each component (torch's x + 1*y gives inf+nanj)."""
    x = xb_target.asarray(np.array([0j, complex(-0.0, -0.0), 1 + 1j], dtype=np.complex128))
    y = xb_target.asarray(np.array([complex(inf, 0), complex(-0.0, 0.0), complex(nan, 2)], dtype=np.complex128))
    s = (x + y).numpy()
    assert s[0] == complex(inf, 0) and s[0].imag == 0
    assert math.copysign(1, s[1].real) == -1 and math.copysign(1, s[1].imag) == 1
    assert math.isnan(s[2].real) and s[2].imag == 3
    d = (x - y).numpy()
    assert d[0].real == -inf and d[0].imag == 0
    assert (xb.subtract(complex(inf, 0), x[:1])).tolist() == [complex(inf, 0)]
    assert (x[:1] + inf).tolist() == [complex(inf, 0)]


# ---------------------------------------------------------------------------------------------
# bfloat16 (NumPy holds it through ml_dtypes; the oracle works in float32/float64)
# ---------------------------------------------------------------------------------------------
BF16_NAMES = [n for n in NAMES if D.bfloat16 in ACCEPTS[n] and n != "nextafter"]


@pytest.mark.parametrize("name", BF16_NAMES)
@settings(max_examples=15)
@given(data=st.data())
def test_bfloat16_values(name, data):
    pytest.importorskip("ml_dtypes")
    n = ELEMENTWISE[name][0]
    el = st.floats(-100, 100, width=32) | st.sampled_from([0.0, -0.0, inf, -inf, nan, 1.0, 0.5])
    host = [data.draw(hnp.arrays(np.float32, (3,), elements=el)) for _ in range(n)]
    if name == "pow":
        host[1] = np.clip(host[1], -8, 8)
    bf = [xb.asarray(h).astype(D.bfloat16) for h in host]  # representable values only
    exact = [b.astype(D.float32).numpy() for b in bf]
    want = expected_dtype(name, D.bfloat16)
    exp = oracle(name, exact, D.float32, D.float32 if want is D.bfloat16 else want)
    for t in TARGETS:
        try:
            xs = [b.to(backend=t.backend, device=t.device) for b in bf]
        except xb.UnsupportedDTypeError:  # CuPy refuses bfloat16 rather than compute parts of it in float32
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = getattr(xb, name)(*xs)
        assert r.dtype is want, (name, r.dtype)
        assert r._be.dtype_of(r.native) is want
        if want is D.bfloat16:
            assert_close(r, exp.astype(np.float32), check_dtype=False, rtol=1.6e-2, atol=1e-2, msg=f"{name} on {t}")
        else:
            assert_close(r, exp, msg=f"{name} on {t}")


def test_round_with_decimals(xb_target):
    a = np.array([1.2345, -2.5, 0.125, 1250.0, nan, -inf])
    x = xb_target.asarray(a)
    for d in (0, 1, 2, -2):
        r = xb.round(x, decimals=d)
        assert r.dtype is xb.float64
        assert_close(r, np.round(a, d), rtol=1e-12, msg=f"decimals={d}")
    i = xb_target.asarray(np.array([15, -25], dtype=np.int16))
    assert xb.round(i).dtype is xb.int16 and xb.round(i).tolist() == [15, -25]
    c = xb_target.asarray(np.array([1.25 + 2.35j], dtype=np.complex64))
    assert xb.round(c, decimals=1).dtype is xb.complex64


GRID = [0.0, -0.0, 1.0, -1.0, inf, -inf, nan]
COMPLEX_GRID_FUNCS = ("abs acos acosh asin asinh atan atanh cos cosh exp expm1 log log1p log2 log10 sin sinh sqrt tan "
                      "tanh sign square round conj real imag isnan isinf isfinite").split()  # fmt: skip


def _classes(v: np.ndarray):
    """Each component as NaN / +-inf / zero / its finite value (the sign of zero is left out here)."""
    parts = [v.real, v.imag] if np.iscomplexobj(v) else [v]
    out = []
    for p in parts:
        p = np.asarray(p, dtype=np.float64)
        out.append(np.where(np.isnan(p), 2.0, np.where(np.isinf(p), 3.0 * np.sign(p), 0.0)))
    return np.stack(out), np.stack([np.where(np.isfinite(p), p, 0.0) for p in parts])


@pytest.mark.parametrize("name", COMPLEX_GRID_FUNCS)
def test_complex_special_grid_is_the_same_on_every_target(name):
    """Every pair of {0, -0, 1, -1, inf, -inf, NaN} as (real, imag): the same kind of result everywhere
    (the standard leaves many of these to the implementation; xbackend promises one answer)."""
    from known_failures import known_failure

    z = np.array([complex(a, b) for a in GRID for b in GRID])
    results = []
    for t in TARGETS:
        if known_failure(t.backend, "tests/test_elementwise.py::test_complex_special_grid_is_the_same_on_every_target"):
            continue  # a listed difference of that library (tests/known_failures.py)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = getattr(xb, name)(t.asarray(z))
        results.append((t, np.asarray(r.numpy())))
    (t0, ref), others = results[0], results[1:]
    k0, v0 = _classes(ref)
    for t, got in others:
        k, v = _classes(got)
        bad = np.nonzero((k != k0).any(axis=0) | ~np.isclose(v, v0, rtol=1e-6, atol=1e-12).all(axis=0))[0]
        assert bad.size == 0, [(z[i], ref[i], got[i]) for i in bad[:5]]


@pytest.mark.parametrize("s", [0, 1, 5, 63, 64, 65, 1 << 63, (1 << 64) - 1])
def test_uint64_right_shift_by_a_python_int_matches_unbounded_integers(xb_target, s):
    """torch has no uint64 >>: it is emulated on int64 bits (torch/uint.py). A shift by 0 keeps x, by 64 or more
    (including counts with the top bit set, negative as int64) gives 0; checked against Python's own ints."""
    vals = [0, 1, 7, (1 << 63) - 1, 1 << 63, (1 << 63) + 5, (1 << 64) - 1]
    x = xb_target.asarray(np.array(vals, dtype=np.uint64))
    r = xb.bitwise_right_shift(x, s)
    assert r.dtype is xb.uint64
    assert r.tolist() == [v >> s for v in vals]


@pytest.mark.parametrize("v", [0, 5, (1 << 63) - 1, 1 << 63, (1 << 63) + 5, (1 << 64) - 1])
def test_uint64_right_shift_of_a_python_int_by_an_array(xb_target, v):
    """A Python int above int64's range shifted by a uint64 Array: exact, like Python's own >>."""
    shifts = [0, 1, 3, 62, 63, 64, 100, 1 << 63, (1 << 64) - 1]
    s = xb_target.asarray(np.array(shifts, dtype=np.uint64))
    r = xb.bitwise_right_shift(v, s)
    assert r.dtype is xb.uint64
    assert r.tolist() == [v >> k for k in shifts]


@pytest.mark.parametrize("dt", [D.uint16, D.uint32, D.uint64], ids=lambda d: d.name)
@pytest.mark.parametrize("k", [-1, 0, 1])
def test_wide_unsigned_tril_triu_keep_every_bit(xb_target, dt, k):
    """torch has no tril/triu kernels for uint16/32/64 (they run on the signed bits): values above the signed
    range must come back unchanged, the rest zero, as NumPy gives."""
    hi = D._INT_RANGE[dt][1]
    a = np.array([[hi, hi // 2 + 1, 1], [hi - 1, 0, hi // 2], [7, hi, hi // 2 + 3]], dtype=dt.name)
    x = xb_target.asarray(a)
    for fn, ref in ((xb.tril, np.tril), (xb.triu, np.triu)):
        r = fn(x, k=k)
        assert r.dtype is dt
        assert r.tolist() == ref(a, k).tolist()


@pytest.mark.parametrize("lo,hi", [(0, 2), (None, 2), (-1, None), (1, 1), (-(2**2000), 2**2000), (2**1100, None)],
                         ids=["0-2", "none-2", "-1-none", "1-1", "huge", "huge-none"])
def test_clip_a_float_array_by_python_ints(xb_target, lo, hi):
    """Integer bounds of a float Array are compared as numbers (huge ones as +-inf), as NumPy's clip does in
    float64; the result keeps x's dtype. (The bound check once called this module's own abs, xb.abs.)"""
    a = np.array([-3.5, 0.5, 1.5, 2.5, np.nan])
    x = xb_target.asarray(a)
    r = xb.clip(x, lo, hi)
    def as_float(b, none):  # Python's own rounding of an int to float64; beyond its range, +-inf
        if b is None:
            return none
        try:
            return float(b)
        except OverflowError:
            return math.inf if b > 0 else -math.inf

    want = np.clip(a, as_float(lo, -np.inf), as_float(hi, np.inf))
    assert r.dtype is xb.float64
    assert_close(r, want)
