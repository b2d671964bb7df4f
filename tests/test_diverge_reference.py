"""The divergence finder's references and rounding bounds (xbackend/testing/_reference.py and _compare.py) against
values computed here without them: NumPy in float64, ``math.fsum``, ``fractions.Fraction``, the tolerance rule
written out, and the names of the operators from the Python data model.

Each recorded call comes from ``record_run`` (the finder's own recorder) on a tiny function, so the references see
exactly what a report sees.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import xbackend as xb
from xbackend.testing._compare import compare_leaf, display, how_equal
from xbackend.testing._diverge import compare_traces, record_run
from xbackend.testing._reference import core_name, reference, summation_bound

# the Python data model's operator methods and the standard's function each stands for
_OPS = {"add": "add", "sub": "subtract", "mul": "multiply", "truediv": "divide", "floordiv": "floor_divide",
        "mod": "remainder", "pow": "pow", "matmul": "matmul", "and": "bitwise_and", "or": "bitwise_or",
        "xor": "bitwise_xor", "lshift": "bitwise_left_shift", "rshift": "bitwise_right_shift"}  # fmt: skip
_SIGNS = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//", "mod": "%", "pow": "**", "matmul": "@",
          "and": "&", "or": "|", "xor": "^", "lshift": "<<", "rshift": ">>"}  # fmt: skip


@pytest.mark.parametrize("op", sorted(_OPS))
def test_operator_names_map_to_the_standards_function_and_say_which_side(op):
    assert core_name(f"Array.__{op}__") == (_OPS[op], False)
    assert core_name(f"Array.__r{op}__") == (_OPS[op], True)  # y op x: operands reflected
    assert core_name(f"Array.__i{op}__") == (_OPS[op], False)  # x op= y
    assert display(f"Array.__{op}__") == f"x {_SIGNS[op]} y"
    assert display(f"Array.__r{op}__") == f"y {_SIGNS[op]} x"
    assert display(f"Array.__i{op}__") == f"x {_SIGNS[op]}= y"


def test_names_that_look_reflected_but_are_not():
    assert core_name("Array.__round__") == ("round", False)  # "r" + "ound": no operator
    assert core_name("Array.__invert__") == ("bitwise_invert", False)  # "i" + "nvert"
    assert core_name("linalg.vecdot") == ("vecdot", False) and core_name("sum") == ("sum", False)
    assert display("Array.__round__") == "Array.__round__" and display("Array.__rshift__") == "x >> y"


def _one(fn, *args):
    """The first recorded call of ``fn(*args)``."""
    return record_run("t", fn, args, {}).calls[0]


_H32 = (np.arange(1, 13, dtype=np.float32).reshape(3, 4) / np.float32(7)) ** 3


@pytest.mark.parametrize("axis, keepdims", [(None, False), (0, True), (1, False), (-1, True), ((0, 1), False)])
def test_a_float32_call_is_re_run_in_float64_with_its_arguments(axis, keepdims):
    c = _one(lambda x: xb.sum(x, axis=axis, keepdims=keepdims), xb.asarray(_H32))
    how, ref = reference(c, "out", "float32")
    want = np.sum(_H32.astype(np.float64), axis=axis, keepdims=keepdims)
    assert how == "the same call in float64 on NumPy" and ref.dtype == np.float64
    assert ref.shape == want.shape and np.array_equal(ref, want)


def test_a_complex64_call_is_re_run_in_complex128_and_its_bound_uses_magnitudes():
    h = (_H32[0] + 1j * _H32[1]).astype(np.complex64)
    c = _one(lambda z: xb.sum(z), xb.asarray(h))
    how, ref = reference(c, "out", "complex64")
    assert ref.dtype == np.complex128 and ref == np.sum(h.astype(np.complex128))
    bound, n = summation_bound(c, "out", "complex64", ())
    eps = float(np.finfo(np.complex64).eps)
    assert n == 4 and np.isclose(bound, 2 * 3 * eps * np.sum(np.abs(h.astype(np.complex128))), rtol=1e-6, atol=0)


def test_an_in_place_write_is_re_run_on_what_it_wrote():
    def write(x):
        x[1:] = x[:-1] * 3.0
        return x

    t = record_run("t", write, (xb.asarray(_H32[0].copy()),), {})
    c = next(c for c in t.calls if c.name == "Array.__setitem__")
    how, ref = reference(c, "x (after)", "float32")
    want = _H32[0].astype(np.float64)
    want[1:] = (_H32[0][:-1] * np.float32(3.0)).astype(np.float64)  # the value, as recorded (float32), stored
    assert np.array_equal(ref, want)


@pytest.mark.parametrize("axis, keepdims, mean", [(None, False, False), (0, True, False), ((1,), True, True),
                                                  (-2, False, True), ((0, -1), True, False)])  # fmt: skip
def test_float64_sums_and_means_are_fsums(axis, keepdims, mean):
    h = np.array([[1e16, 1.0, -1e16, 3.0], [0.1, 0.2, 0.3, -0.6], [1e-300, 2.5, 1e300, -1e300]])
    c = _one(lambda x: (xb.mean if mean else xb.sum)(x, axis=axis, keepdims=keepdims), xb.asarray(h))
    how, ref = reference(c, "out", "float64")
    axes = tuple(range(2)) if axis is None else tuple(sorted(a % 2 for a in ((axis,) if isinstance(axis, int)
                                                                           else axis)))  # fmt: skip
    moved = np.moveaxis(h, axes, tuple(range(-len(axes), 0))).reshape(*[h.shape[a] for a in range(2) if a not in axes],
                                                                       -1)  # fmt: skip
    n = moved.shape[-1]
    want = np.array([math.fsum(r) / (n if mean else 1) for r in moved.reshape(-1, n)])
    want = want.reshape([1 if a in axes else h.shape[a] for a in range(2)] if keepdims else
                        [h.shape[a] for a in range(2) if a not in axes])  # fmt: skip
    assert how == "math.fsum, exactly rounded" and ref.shape == want.shape and ref.tolist() == want.tolist()


def test_a_0d_sum_is_its_own_fsum():
    c = _one(lambda x: xb.sum(x), xb.asarray(np.float64(0.1)))
    assert reference(c, "out", "float64")[1].tolist() == 0.1


def _exact(a, b):
    return [[float(sum(Fraction(float(a[i, k])) * Fraction(float(b[k, j])) for k in range(a.shape[1])))
             for j in range(b.shape[1])] for i in range(a.shape[0])]  # fmt: skip


def test_float64_matmul_both_ways_and_vecdot_are_exact_rationals():
    a = np.array([[1e16, 1.0, 0.1], [3.0, -1e16, 0.7]])
    b = np.array([[1.0, 0.5], [1e16, 0.25], [-1.0, 3.0]])
    fwd = _one(lambda x, y: x @ y, xb.asarray(a), xb.asarray(b))
    how, ref = reference(fwd, "out", "float64")
    assert how == "exact rational arithmetic (fractions)" and ref.tolist() == _exact(a, b)
    rev = _one(lambda x, y: y.__rmatmul__(x), xb.asarray(a), xb.asarray(b))  # a @ b, reflected: b.__rmatmul__(a)
    assert core_name(rev.name) == ("matmul", True)
    assert reference(rev, "out", "float64")[1].tolist() == _exact(a, b)
    v = _one(lambda x, y: xb.vecdot(x, y), xb.asarray(a), xb.asarray(a[::-1].copy()))
    want = [float(sum(Fraction(float(p)) * Fraction(float(q)) for p, q in zip(r, s))) for r, s in zip(a, a[::-1])]
    assert reference(v, "out", "float64")[1].tolist() == want


def test_float64_prod_is_an_exact_rational_over_its_axes():
    h = np.array([[1.1, 3.0, 1e-200], [7.0, 1e200, 0.3]])
    for axis in (None, 0, -1):
        c = _one(lambda x: xb.prod(x, axis=axis), xb.asarray(h))
        cols = [h.ravel()] if axis is None else ([h[:, j] for j in range(3)] if axis == 0 else list(h))
        want = [float(math.prod(Fraction(float(v)) for v in col)) for col in cols]
        assert np.ravel(reference(c, "out", "float64")[1]).tolist() == want, axis


@pytest.mark.parametrize("shapes, n", [(((3, 5), (5, 2)), 5), (((2, 7), (7,)), 7), (((4,), (4, 3)), 4)])
def test_the_summation_bound_of_a_contraction_counts_its_inner_terms(shapes, n):
    rng = np.random.default_rng(1)
    a, b = (rng.standard_normal(s) for s in shapes)
    c = _one(lambda x, y: x @ y, xb.asarray(a), xb.asarray(b))
    bound, got_n = summation_bound(c, "out", "float64", np.matmul(a, b).shape)
    assert got_n == n
    want = 2.0 * (n - 1) * np.finfo(np.float64).eps * (np.abs(a) @ np.abs(b))
    assert np.allclose(bound, want, rtol=1e-12, atol=0)


def test_the_summation_bounds_of_reductions_and_running_sums():
    h = np.random.default_rng(2).standard_normal((3, 8))
    eps = np.finfo(np.float64).eps
    c = _one(lambda x: xb.sum(x, axis=1), xb.asarray(h))
    bound, n = summation_bound(c, "out", "float64", (3,))
    assert n == 8 and type(n) is int  # a count of terms ("n = 8" in the report)
    assert np.allclose(bound, 2 * 7 * eps * np.abs(h).sum(axis=1), rtol=1e-12, atol=0)
    c = _one(lambda x: xb.cumulative_sum(x), xb.asarray(h[0]))
    bound, n = summation_bound(c, "out", "float64", (8,))
    assert n == 8 and np.allclose(bound, 2 * 7 * eps * np.cumsum(np.abs(h[0])), rtol=1e-12, atol=0)
    assert summation_bound(_one(lambda x: x * 2.0, xb.asarray(h)), "out", "float64", (3, 8)) is None  # no sum


# -- the tolerance rule of a comparison: |a - b| <= atol + rtol * |b|, b the backend compared with the first ---------
def _pair(a, b):
    """Traces of the same call site whose values are ``a`` and ``b``."""

    def f(x):
        return x + 0.0

    ta = record_run("first", f, (xb.asarray(np.asarray(a, dtype=np.float64)),), {})
    tb = record_run("second", f, (xb.asarray(np.asarray(b, dtype=np.float64)),), {})
    return ta, tb


@pytest.mark.parametrize("a, b, rtol, atol", [
    (1000.0, 1000.5, 1e-3, 1e-9), (1000.0, 1000.5, 1e-9, 1e-3), (1000.0, 1001.0, 1e-3, 0.0),
    (1e-3, 2e-3, 1e-2, 2e-3), (1e-3, 2e-3, 2e-3, 1e-2), (2.0, 1.0, 0.6, 0.0), (1.0, 2.0, 0.6, 0.0),
    (0.0, 1e-12, 0.0, 1e-12), (-5.0, -5.0000001, 1e-9, 0.0),
])  # fmt: skip
def test_a_difference_is_what_the_tolerance_rule_says(a, b, rtol, atol):
    ta, tb = _pair([a, 3.0], [b, 3.0])
    want = abs(Fraction(a) - Fraction(b)) > Fraction(atol) + Fraction(rtol) * abs(Fraction(b))
    div = compare_traces(ta, tb, rtol, atol)
    assert div.found is want, (a, b, rtol, atol)
    d = compare_leaf(ta.calls[0].outputs[0], tb.calls[0].outputs[0], rtol, atol, "float64")
    assert (d.what == "values") is want and (d.rtol, d.atol) == (rtol, atol)
    if want:
        assert d.bad.tolist() == [True, False] and how_equal(d) == "DIFFERENT at 1 element(s)"


def test_signed_zeros_are_counted_in_every_part():
    za = np.array([complex(0.0, 0.0), complex(-0.0, 1.0), complex(2.0, -0.0)])  # (complex(): a literal's - 0.0j
    zb = np.array([complex(-0.0, -0.0), complex(0.0, 1.0), complex(2.0, 0.0)])  # would give +0.0 parts)
    la = record_run("a", lambda x: x[...], (xb.asarray(za),), {}).calls[0].outputs[0]  # (x[...]: the values as
    lb = record_run("b", lambda x: x[...], (xb.asarray(zb),), {}).calls[0].outputs[0]  # they are, zeros' signs too)
    d = compare_leaf(la, lb, 1e-9, 0.0, "complex128")
    assert d.what == "sign of zero" and d.zeros == 4  # 2 in the first element, the real one of the second and third
    assert how_equal(d) == "equal as numbers, but 4 zero(s) differ in sign"


def test_integers_compare_exactly_whatever_the_tolerance():
    la = record_run("a", lambda x: x + 0, (xb.asarray([1, 2, 3]),), {}).calls[0].outputs[0]
    lb = record_run("b", lambda x: x + 0, (xb.asarray([1, 2, 4]),), {}).calls[0].outputs[0]
    d = compare_leaf(la, lb, 1.0, 10.0, "float64")
    assert d.what == "values" and d.bad.tolist() == [False, False, True] and (d.rtol, d.atol) == (0.0, 0.0)


# -- the classifier and the report, on traces of one function run with chosen inputs --------------------------------
# rtol=0, atol=1e-6 holds inputs 2e-9 apart equal (within the tolerance, not bit-identical); the swapped pair
# (rtol=1e-6, atol=0) would not, at magnitude 1e-3: each case below tells the two apart
R, A = 0.0, 1e-6
_X, _XB = 1e-3, 1e-3 + 2e-9


def _traces(fn, args_a, args_b):
    return record_run("first", fn, args_a, {}), record_run("second", fn, args_b, {})


def _near(v):
    return xb.asarray(np.array([v, 0.5]))


_CASES = {  # name: (fn, first's args, second's args, kind, the input that is near)
    "dtype rule": (lambda x, dt: xb.astype(x, dt), (_near(_X), xb.float64), (_near(_XB), xb.float32), "dtype rule",
                   "x"),
    "outside": (lambda x, y: x + y, (xb.asarray([1.0, 2.0]), _near(_X)), (xb.asarray([3.0, 2.0]), _near(_XB)),
                "outside xbackend", "other"),
    "special": (lambda x: xb.log(x - 1.0005e-3), (_near(_X + 1e-6),), (_near(_X),), "special case", "x"),
    "exact answer tipped": (lambda x: x > 1.0000000010e-3, (_near(_X),), (_near(_XB),), "rounding", "self"),
}


@pytest.mark.filterwarnings("ignore:invalid value encountered in log:RuntimeWarning")  # (the special case's NaN)
@pytest.mark.parametrize("name", sorted(_CASES))
def test_each_kind_compares_the_calls_inputs_with_the_callers_tolerance(name):
    fn, a, b, kind, near = _CASES[name]
    ta, tb = _traces(fn, a, b)
    div = compare_traces(ta, tb, R, A)
    assert div.found and div.kind == kind, (div.kind, div.detail)
    line = next(s for s in div.inputs if s.startswith(f"{near}:"))
    assert "equal within the tolerance, not bit-identical" in line, div.inputs


def test_a_result_changed_outside_xbackend_is_found_when_any_part_differs():
    ta, tb = _traces(lambda x, h: (x + 0.0, h), (xb.asarray([1.0]), np.array([1.0, 2.0])),
                     (xb.asarray([1.0]), np.array([1.0, 5.0])))  # fmt: skip
    div = compare_traces(ta, tb)
    assert div.found and div.kind == "outside xbackend" and "after the last call" in div.detail
    agree = compare_traces(*_traces(lambda x: x + 0.0, (xb.asarray([1.0]),), (xb.asarray([1.0]),)))
    assert not agree.found and str(agree) == "first and second agree on every xbackend call and on the result (1 calls)"


def test_rounding_upstream_is_traced_to_the_first_call_whose_outputs_parted_in_the_last_bits():
    def f(x, y):
        a, b = xb.broadcast_arrays(x, y)  # a: the last bits differ; b: bit-identical
        return (a - 1.0) * 1e12 + b

    one = 1.0 + 2.0**-52
    ta, tb = _traces(f, (xb.asarray([1.0, 2.0]), xb.asarray([3.0, 4.0])), (xb.asarray([one, 2.0]),
                                                                             xb.asarray([3.0, 4.0])))  # fmt: skip
    div = compare_traces(ta, tb)
    assert div.found and div.kind == "rounding" and div.origin is not None and div.origin.name == "broadcast_arrays"


def test_a_report_is_found_when_any_backend_parts_and_names_that_one():
    from xbackend.testing._diverge import Report

    def f(x):
        return x * 3.0

    ta, tb = _traces(f, (xb.asarray([1.0]),), (xb.asarray([1.0]),))
    tc = record_run("third", f, (xb.asarray([2.0]),), {})
    rep = Report("f", [ta, tb, tc], [compare_traces(ta, tb), compare_traces(ta, tc)])
    assert rep.found and bool(rep) and rep.first.b == "third" and rep.kind == "outside xbackend"
    assert rep.call is rep.first.call_a and rep.index == 0


def test_the_reference_note_names_the_backend_whose_largest_error_is_smaller():
    """float32 row sums on NumPy and torch (different summation orders): the report's reference (the call in float64)
    decides which backend is closer by the largest error over the differing elements, and says so."""
    pytest.importorskip("torch")
    from xbackend.testing import diverge

    h = np.random.default_rng(5).standard_normal((4, 4096)).astype(np.float32) * np.float32(1e3)
    rep = diverge(lambda x: xb.sum(x, axis=1), h, rtol=0.0, atol=0.0)
    div = rep.first
    ga, gb = (rep.traces[t].calls[0].outputs[0].host.astype(np.float64) for t in ("numpy-cpu", "torch-cpu"))
    good = np.sum(h.astype(np.float64), axis=1)
    mask = ga != gb
    assert div.found and div.kind == "rounding" and mask.any()
    ea, eb = np.abs(ga - good)[mask].max(), np.abs(gb - good)[mask].max()
    closer = "numpy-cpu" if ea < eb else "torch-cpu" if eb < ea else None
    assert div.closer == closer and (f"{closer} is closer" if closer else "neither is closer") in div.reference
    assert f"largest error {ea:.3g} on numpy-cpu, {eb:.3g} on torch-cpu" in div.reference


def test_write_json_keeps_values_up_to_max_values_and_summarises_beyond(tmp_path):
    import json

    from xbackend.testing._diverge import Report

    def out_of(rep, **kw):
        rep.write_json(str(tmp_path / "r.json"), **kw)
        return json.loads((tmp_path / "r.json").read_text())["traces"]["first"]["calls"][0]["outputs"][0]

    for n in (1000, 1001):
        ta, tb = _traces(lambda x: x + 0.0, (xb.asarray(np.arange(float(n))),), (xb.asarray(np.arange(float(n))),))
        rep = Report("f", [ta, tb], [compare_traces(ta, tb)])
        out = out_of(rep)  # the default: 1000 values at most
        if n == 1000:
            assert out["values"] == list(range(1000))
        else:
            assert "values" not in out and out["summary"] == {"min": 0.0, "max": 1000.0, "mean": 500.0, "nan": 0,
                                                              "inf": 0}  # fmt: skip
            assert len(out_of(rep, max_values=1001)["values"]) == 1001


def test_no_exact_reference_for_non_finite_inputs():
    """An infinity or NaN among the terms: math.fsum and Fractions have no exact answer to give, so the float64 call
    gets none (NumPy's longdouble ufunc reference is for elementwise calls only)."""
    h = np.array([[1.0, np.inf, 2.0], [0.5, 1.5, 2.5]])
    for fn in (lambda x: xb.sum(x), lambda x: xb.mean(x, axis=1), lambda x: xb.prod(x, axis=0)):
        t = record_run("t", fn, (xb.asarray(h),), {})
        c = t.calls[-1]
        assert reference(c, "out", "float64") is None, c.name
    v = record_run("t", lambda x, y: xb.vecdot(x, y), (xb.asarray(h), xb.asarray(np.ones((2, 3)))), {}).calls[-1]
    ref = reference(v, "out", "float64")  # one of the two arrays holds the infinity: no Fractions
    assert ref is None or ref[0].startswith("NumPy longdouble")
    mm = record_run("t", lambda x: x @ xb.matrix_transpose(x), (xb.asarray(h),), {}).calls[-1]
    ref = reference(mm, "out", "float64")  # matmul is a NumPy ufunc: at most its longdouble evaluation
    assert ref is None or ref[0].startswith("NumPy longdouble")


def test_exact_references_up_to_20000_terms():
    """Fractions cost ~10 µs a term: up to 20000 terms a float64 vecdot gets the exact reference, beyond it not."""
    for n, exact in ((20000, True), (20001, False)):
        h = np.linspace(0.1, 1.0, n)
        c = record_run("t", lambda x: xb.vecdot(x, x), (xb.asarray(h),), {}).calls[0]
        ref = reference(c, "out", "float64")
        assert (ref is not None and ref[0] == "exact rational arithmetic (fractions)") is exact, n
