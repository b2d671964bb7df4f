"""Random programs, NumPy against every other target (issue 9): results must not depend on the backend.

A program is a short random composition of namespace calls (unary and binary elementwise functions,
operators and in-place operators with Python ``int``/``float``/``bool``/``complex`` scalars on either side,
reductions, manipulation, sorting, casts) over random dtypes, shapes and special values (NaN, +-inf,
+-0, the dtype's extremes). It runs step by step on NumPy and on each other target. A step passes when

* both sides return the same dtype and shape, and values agree: integers and bools exactly; floats
  NaN-aware within a few ulps of the dtype; the sign of a zero where the standard fixes it (results of
  exactly rounded operations on identical inputs); complex elements with a non-finite part only need
  a non-finite part on both sides (the standard leaves complex infinities of ``/``, ``**``, ... open);
* or both raise the same xbackend error class. A raw backend exception on either side fails the test.

Float accumulations (sum, prod, mean, std, var, cumulative_*) over values beyond sqrt(max)/n compare only
dtype and shape: whether they overflow depends on the backend's summation order.

Steps compose on each target's own results while those are bitwise equal to NumPy's; once a float
result differs in its last bits, the next steps get NumPy's values moved to the target instead, so
rounding differences are never amplified into false alarms (ill-conditioned chains) and every step
is still checked on identical inputs.

CI runs a bounded number of examples (``XB_DIFF_EXAMPLES``, default 25: a few seconds); run more with
``XB_DIFF_EXAMPLES=2000 pytest tests/test_differential.py -p no:cacheprovider --hypothesis-seed=N``.
"""

from __future__ import annotations

import math
import operator
import os
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import xbackend as xb
from xbackend import _dtypes as D
from xbackend._rules import ELEMENTWISE
import xbackend.testing.strategies as xst
from xbackend.testing import Target, available_targets

OTHERS = [t for t in available_targets() if t.backend != "numpy"]
REF = Target("numpy", "cpu")
EXAMPLES = int(os.environ.get("XB_DIFF_EXAMPLES", "25"))
DTYPES = (D.bool, D.int8, D.int16, D.int32, D.int64, D.uint8, D.uint16, D.uint32, D.uint64, D.float32,
          D.float64, D.complex64, D.complex128)  # fmt: skip
UNARY = sorted(n for n, (k, _) in ELEMENTWISE.items() if k == 1)
BINARY = sorted(n for n, (k, _) in ELEMENTWISE.items() if k == 2 and n != "matmul")
OPERATORS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
             "//": operator.floordiv, "%": operator.mod, "**": operator.pow, "&": operator.and_,
             "|": operator.or_, "^": operator.xor, "<<": operator.lshift, ">>": operator.rshift,
             "<": operator.lt, "<=": operator.le, "==": operator.eq, "!=": operator.ne, ">": operator.gt,
             ">=": operator.ge}  # fmt: skip
INPLACE = {"+": operator.iadd, "-": operator.isub, "*": operator.imul, "/": operator.itruediv,
           "//": operator.ifloordiv, "%": operator.imod, "**": operator.ipow, "&": operator.iand,
           "|": operator.ior, "^": operator.ixor}  # fmt: skip
REDUCTIONS = ("sum", "prod", "max", "min", "mean", "std", "var", "all", "any", "argmax", "argmin",
              "count_nonzero", "cumulative_sum", "cumulative_prod")  # fmt: skip
MANIPULATION = ("flip", "roll", "reshape", "permute_dims", "expand_dims", "squeeze", "concat", "stack", "sort",
                "argsort", "where", "clip", "astype", "tile", "repeat", "take")  # fmt: skip
# operations whose zeros have the sign the standard fixes (exactly rounded on identical inputs)
# (not sign, clip, max/min, maximum/minimum: the standard leaves the sign of their zeros open)
SIGNED_ZERO = frozenset("abs negative positive ceil floor trunc round copysign multiply divide add subtract "
                        "floor_divide remainder sqrt real imag conj square flip roll reshape permute_dims "
                        "expand_dims squeeze concat stack tile repeat take where sort".split())  # fmt: skip


# ---------------------------------------------------------------------------------------------
# data
# ---------------------------------------------------------------------------------------------
def _specials(dt: D.DType) -> list[Any]:
    if dt is D.bool:
        return [True, False]
    if dt.kind in "iu":
        lo, hi = D._INT_RANGE[dt]
        return [lo, hi, 0, 1, hi - 1] + ([-1, lo + 1] if lo else [2])
    fi = np.finfo(np.dtype(D.real_of(dt).name if dt.kind == "c" else dt.name))
    real = [math.nan, math.inf, -math.inf, 0.0, -0.0, 1.0, -1.0, 0.5, float(fi.max), -float(fi.max),
            float(fi.tiny), -2.5]  # fmt: skip
    if dt.kind != "c":
        return real
    return [complex(a, b) for a in real[:7] for b in (0.0, -0.0, 1.0, math.inf, math.nan)]


@st.composite
def host_array(draw: Any, dt: D.DType | None = None, shape: tuple[int, ...] | None = None) -> np.ndarray:
    dt = dt if dt is not None else draw(xst.dtypes(DTYPES))
    if shape is None:
        shape = tuple(draw(st.lists(st.integers(0, 3), max_size=3)))
    n = int(np.prod(shape))
    specials = _specials(dt)
    if dt is D.bool:
        plain = st.booleans()
    elif dt.kind in "iu":
        lo, hi = D._INT_RANGE[dt]
        plain = st.integers(max(lo, -50), min(hi, 50))
    elif dt.kind == "f":
        plain = st.floats(-100, 100, width=dt.bits)
    else:
        plain = st.complex_numbers(max_magnitude=20, allow_nan=False, allow_infinity=False, width=dt.bits)
    vals = draw(st.lists(st.sampled_from(specials) | plain, min_size=n, max_size=n))
    return np.array(vals, dtype=dt.name).reshape(shape)


def _scalars(dt: D.DType) -> st.SearchStrategy:
    return st.one_of(
        st.booleans(),
        st.sampled_from([0, 1, 2, -1, 3, 7, 127, 255, 2**31, 2**63 - 1, 2**63, -(2**63)]),
        st.sampled_from([0.0, -0.0, 1.5, -2.0, 0.5, math.inf, -math.inf, math.nan, 1e300]),
        st.sampled_from([1j, complex(1, -1), complex(0.0, math.inf)]),
    )


# ---------------------------------------------------------------------------------------------
# the program: steps as data, interpreted once per target
# ---------------------------------------------------------------------------------------------
@st.composite
def step(draw: Any, pool: list[np.ndarray]) -> tuple:
    """One operation on values of ``pool`` (NumPy results so far): ``(kind, name, args...)``."""
    i = draw(st.integers(0, len(pool) - 1))
    a = pool[i]
    kind = draw(st.sampled_from(["unary", "binary", "scalar", "operator", "inplace", "reduce", "manip"]))
    if kind == "unary":
        return ("unary", draw(st.sampled_from(UNARY)), i)
    if kind == "binary":
        same = [j for j, b in enumerate(pool) if _broadcastable(a.shape, b.shape)]
        return ("binary", draw(st.sampled_from(BINARY)), i, draw(st.sampled_from(same)))
    if kind in ("scalar", "operator", "inplace"):
        s = draw(_scalars(D.BY_NAME[a.dtype.name]))
        left = draw(st.booleans()) and kind != "inplace"
        name = draw(st.sampled_from(sorted(INPLACE if kind == "inplace" else OPERATORS) if kind != "scalar"
                                    else BINARY))  # fmt: skip
        return (kind, name, i, s, left)
    if kind == "reduce":
        name = draw(st.sampled_from(REDUCTIONS))
        axis = None if a.ndim == 0 or draw(st.booleans()) else draw(st.integers(-a.ndim, a.ndim - 1))
        if name.startswith("cumulative") and axis is None and a.ndim != 1:
            axis = 0 if a.ndim else None
        return ("reduce", name, i, axis, draw(st.booleans()))
    name = draw(st.sampled_from(MANIPULATION))
    extra: Any = None
    if name in ("concat", "stack", "where"):
        extra = draw(st.sampled_from([j for j, b in enumerate(pool) if b.shape == a.shape]))
    elif name == "astype":
        extra = draw(xst.dtypes(DTYPES))
    elif name == "clip":
        extra = (draw(st.sampled_from([None, -1, 0, 1.5])), draw(st.sampled_from([None, 2, 100, 0.5])))
    elif name in ("roll", "repeat"):
        extra = draw(st.integers(0, 3))
    elif name == "take" and a.ndim:
        extra = draw(st.lists(st.integers(-a.shape[0], max(a.shape[0] - 1, -1)), max_size=3)) if a.shape[0] else []
    return ("manip", name, i, extra)


def _broadcastable(s1: tuple[int, ...], s2: tuple[int, ...]) -> bool:
    for p, q in zip(reversed(s1), reversed(s2)):
        if p != q and p != 1 and q != 1:
            return False
    return True


def run_step(st_: tuple, pool: list[Any]) -> Any:
    """Execute one step on Arrays of one target."""
    kind, name, i = st_[0], st_[1], st_[2]
    a = pool[i]
    if kind == "unary":
        return getattr(xb, name)(a)
    if kind == "binary":
        return getattr(xb, name)(a, pool[st_[3]])
    if kind == "scalar":
        s, left = st_[3], st_[4]
        return getattr(xb, name)(s, a) if left else getattr(xb, name)(a, s)
    if kind == "operator":
        s, left = st_[3], st_[4]
        return OPERATORS[name](s, a) if left else OPERATORS[name](a, s)
    if kind == "inplace":
        z = a * 1 if a.dtype is not xb.bool else xb.asarray(a, copy=True)
        return INPLACE[name](z, st_[3])
    if kind == "reduce":
        axis, keepdims = st_[3], st_[4]
        if name in ("argmax", "argmin"):
            return getattr(xb, name)(a, axis=axis, keepdims=keepdims)
        if name.startswith("cumulative"):
            return getattr(xb, name)(a, axis=axis, include_initial=keepdims)
        return getattr(xb, name)(a, axis=axis, keepdims=keepdims)
    extra = st_[3]
    if name == "flip":
        return xb.flip(a)
    if name == "roll":
        return xb.roll(a, extra)
    if name == "reshape":
        return xb.reshape(a, (-1,))
    if name == "permute_dims":
        return xb.permute_dims(a, tuple(reversed(range(a.ndim))))
    if name == "expand_dims":
        return xb.expand_dims(a, axis=0)
    if name == "squeeze":
        return xb.squeeze(a, axis=tuple(k for k, n in enumerate(a.shape) if n == 1))
    if name == "concat":
        return xb.concat([a, pool[extra]], axis=0 if a.ndim else None)
    if name == "stack":
        return xb.stack([a, pool[extra]])
    if name == "where":
        b = pool[extra]
        return xb.where(a != 0 if a.dtype is not xb.bool else a, a, b)
    if name == "sort":
        return xb.sort(a)
    if name == "argsort":
        return xb.argsort(a, descending=True)
    if name == "clip":
        return xb.clip(a, *extra)
    if name == "astype":
        if not xb.can_cast(a.dtype, extra):
            return xb.astype(a, a.dtype)  # only safe casts: float -> int of NaN/inf is undefined behaviour
        return xb.astype(a, extra)
    if name == "tile":
        return xb.tile(a, (2,) * max(a.ndim, 1))
    if name == "repeat":
        return xb.repeat(a, extra, axis=0 if a.ndim else None)
    if name == "take":
        if a.ndim == 0:
            return xb.take(xb.reshape(a, (1,)), xb.asarray([0], backend=a.backend, device=a.device))
        return xb.take(a, xb.asarray(extra, dtype=xb.int64, backend=a.backend, device=a.device), axis=0)
    raise AssertionError(name)


_XB_DIR = os.path.dirname(xb.__file__)


def _raised_by_xbackend(e: BaseException) -> bool:
    """True when the innermost frame of the traceback is xbackend's own code (a deliberate error)."""
    tb = e.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and os.path.abspath(tb.tb_frame.f_code.co_filename).startswith(_XB_DIR + os.sep)


def _outcome(st_: tuple, pool: list[Any]) -> tuple[str, Any]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = run_step(st_, pool)
    except Exception as e:  # noqa: BLE001 - the class is compared; a raw backend exception is a finding
        if not isinstance(e, xb.XBackendError) and not _raised_by_xbackend(e):
            raise AssertionError(f"raw {type(e).__module__}.{type(e).__name__} escaped from {st_}: {e}") from e
        return "error", e
    return "ok", r


# ---------------------------------------------------------------------------------------------
# comparison
# ---------------------------------------------------------------------------------------------
_TOL = {D.float32: 2e-5, D.complex64: 2e-5, D.float64: 1e-12, D.complex128: 1e-12}


def _host(x: Any) -> np.ndarray:
    return np.asarray(x.numpy())


def _bitwise_equal(p: np.ndarray, q: np.ndarray) -> bool:
    return p.dtype == q.dtype and p.shape == q.shape and p.tobytes() == q.tobytes()


def _compare(name: str, dt: D.DType, want: np.ndarray, got: np.ndarray, inputs_equal: bool) -> str | None:
    if want.shape != got.shape:
        return f"shape {got.shape} != {want.shape}"
    if dt.kind in "biu":
        return None if np.array_equal(want, got) else "values differ"
    tol = _TOL[dt]
    w, g = want.astype(np.complex128), got.astype(np.complex128)
    if dt.kind == "c":  # complex infinities: any non-finite part on both sides
        wf = np.isfinite(w.real) & np.isfinite(w.imag)
        gf = np.isfinite(g.real) & np.isfinite(g.imag)
        if not np.array_equal(wf, gf):
            return "finiteness differs"
        w, g = np.where(wf, w, 0), np.where(gf, g, 0)
    for p, q in ((w.real, g.real), (w.imag, g.imag)):
        if not np.array_equal(np.isnan(p), np.isnan(q)):
            return "NaN positions differ"
        fin = np.isfinite(p) & np.isfinite(q)
        if not np.array_equal(np.where(np.isnan(p), 0, p)[~fin], np.where(np.isnan(q), 0, q)[~fin]):
            return "infinities differ"
        scale = np.maximum(np.abs(p[fin]), np.abs(q[fin]))
        if np.any(np.abs(p[fin] - q[fin]) > tol * np.maximum(scale, 1.0 if dt.bits > 32 else 1e-30) + tol * 1e-6):
            return "values differ beyond the tolerance"
        if inputs_equal and name in SIGNED_ZERO:
            z = (p == 0) & (q == 0)
            if np.any(np.signbit(p[z]) != np.signbit(q[z])):
                return "sign of zero differs"
    return None


def _run_program(data: Any, target: Target) -> None:
    inputs = [data.draw(host_array(), label="x0")]
    if data.draw(st.booleans(), label="second input"):
        inputs.append(data.draw(host_array(shape=inputs[0].shape), label="x1"))
    ref_pool = [REF.asarray(h) for h in inputs]
    tgt_pool = [target.asarray(h) for h in inputs]
    host_pool = list(inputs)
    for k in range(data.draw(st.integers(1, 5), label="steps")):
        s = data.draw(step(host_pool), label=f"step {k}")
        want = _outcome(s, ref_pool)
        got = _outcome(s, tgt_pool)
        if want[0] == "error" or got[0] == "error":
            assert want[0] == got[0] and type(want[1]) is type(got[1]), (
                f"{s} on {target}: numpy {want[0]} {want[1]!r}, {target} {got[0]} {got[1]!r}"
            )
            continue
        w, g = want[1], got[1]
        assert g.dtype is w.dtype, f"{s} on {target}: dtype {g.dtype} != numpy's {w.dtype}"
        assert g.backend == target.backend, s
        hw, hg = _host(w), _host(g)
        inputs_equal = all(_bitwise_equal(_host(ref_pool[j]), _host(tgt_pool[j])) for j in _operands(s))
        why = _compare(s[1], w.dtype, hw, hg, inputs_equal) if not _order_decides(s, host_pool) else None
        assert why is None, f"{s} on {target}: {why}\n numpy: {hw!r}\n {target}: {hg!r}\n inputs: " + repr(
            [_host(ref_pool[j]) for j in _operands(s)]
        )
        ref_pool.append(w)
        # compose on the target's own result while it is bitwise NumPy's; else continue from NumPy's values
        tgt_pool.append(g if _bitwise_equal(hw, hg) else target.asarray(hw))
        host_pool.append(hw)


ACCUMULATING = frozenset("sum prod mean std var cumulative_sum cumulative_prod".split())


def _order_decides(s: tuple, pool: list[np.ndarray]) -> bool:
    """A float accumulation over values near the overflow threshold: whether it overflows depends on the
    summation order (NumPy's pairwise sums vs torch's), so only dtype and shape are compared."""
    if s[0] != "reduce" or s[1] not in ACCUMULATING or pool[s[2]].dtype.kind not in "fc":
        return False
    h = pool[s[2]]
    big = np.sqrt(np.finfo(h.real.dtype).max) / max(h.size, 1)
    mag = np.abs(h[np.isfinite(h)])
    return bool(mag.size and mag.max() > big)


def _operands(s: tuple) -> list[int]:
    if s[0] == "binary":
        return [s[2], s[3]]
    if s[0] == "manip" and s[1] in ("concat", "stack", "where"):
        return [s[2], s[3]]
    return [s[2]]


@pytest.mark.skipif(not OTHERS, reason="needs a second target besides numpy-cpu")
@pytest.mark.parametrize("target", [pytest.param(t, id=t.id, marks=[pytest.mark.gpu] if t.is_gpu else [])
                                    for t in OTHERS])  # fmt: skip
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_random_programs_agree_with_numpy(target, data):
    _run_program(data, target)


def test_differential_harness_catches_a_disagreement(monkeypatch):
    """The harness can fail: a kernel that is off by one ulp on one target is reported."""
    from xbackend._dispatch import get_backend

    if not OTHERS:
        pytest.skip("needs a second target besides numpy-cpu")
    target = OTHERS[0]
    be = get_backend(target.backend)
    ref = REF.asarray(np.array([1.0, 2.0]))
    x = target.asarray(np.array([1.0, 2.0]))
    monkeypatch.setitem(be.kernels.setdefault("exp", {}), D.float64, lambda v: be.kernel("expm1", D.float64)(v))
    pool_ref, pool_tgt = [ref], [x]
    s = ("unary", "exp", 0)
    w, g = _outcome(s, pool_ref)[1], _outcome(s, pool_tgt)[1]
    assert _compare("exp", D.float64, _host(w), _host(g), True) is not None
