"""What the divergence finder's recorder (xbackend/testing/_trace.py) writes down: each argument as a leaf of the
right kind, long Python lists as one leaf, reprs cut at 80 characters, arrays in keyword arguments as slots of the
template a reference re-runs, NumPy ufunc calls by name, the backward pass of every output that needs one, and the
user's frame of an exception. Checked against the calls and values written in each test."""

from __future__ import annotations

import numpy as np
import pytest

import xbackend as xb
from xbackend.testing._diverge import record_run
from xbackend.testing._trace import _Slot, error_site, recording


def _ins(t):
    return [(lf.path, lf.kind, lf.dtype) for c in t.calls for lf in c.inputs]


def test_python_and_numpy_scalars_are_scalar_leaves_of_their_own_type():
    t = record_run("t", lambda x: x * 2.5 + np.float32(1.5) - 3, (xb.asarray([3.0, 4.0]),), {})
    assert _ins(t) == [("self", "array", "float64"), ("other", "scalar", "float"), ("self", "array", "float64"),
                       ("other", "scalar", "float32"), ("self", "array", "float64"), ("other", "scalar", "int")]


def test_a_long_python_list_is_one_leaf_with_its_shape_and_values():
    data = [0.5 * i for i in range(100)]
    t = record_run("t", lambda v: xb.asarray(v), (data,), {})
    (lf,) = t.calls[0].inputs
    assert (lf.path, lf.kind, lf.dtype, lf.shape) == ("obj", "scalar", "list of f", (100,))
    assert lf.host.tolist() == data
    short = record_run("t", lambda v: xb.asarray(v), ([1.0, 2.0],), {})
    assert [lf.path for lf in short.calls[0].inputs] == ["obj[0]", "obj[1]"]  # short: one leaf per element


@pytest.mark.parametrize("n", [79, 80, 81, 200])
def test_a_repr_is_kept_whole_up_to_80_characters(n):
    class Thing:
        def __repr__(self):
            return "r" * n

    res = record_run("t", lambda x: (x + 0.0, Thing()), (xb.asarray([1.0]),), {}).result
    text = res[1].text
    assert text == ("r" * n if n <= 80 else "r" * 77 + "...") and res[1].kind == "other" and res[1].where == "Thing"


def test_results_are_leaves_named_by_their_path_in_dicts_and_tuples():
    t = record_run("t", lambda x: {"a": x + 1.0, "b": (x, 2)}, (xb.asarray([3.0]),), {})
    assert [lf.path for lf in t.result] == ["result['a']", "result['b'][0]", "result['b'][1]"]


def test_arrays_in_keyword_arguments_are_slots_of_the_template():
    t = record_run("t", lambda x, lo: xb.clip(x, min=lo), (xb.asarray([3.0, 4.0]), xb.asarray([3.5, 3.5])), {})
    args, kwargs = t.calls[0].template
    assert [type(a) for a in args] == [_Slot] and type(kwargs["min"]) is _Slot  # (not the Arrays themselves)
    assert (args[0].leaf, args[0].native, list(kwargs), kwargs["min"].leaf, kwargs["min"].native) == (
        0, False, ["min"], 1, False)  # fmt: skip
    assert [lf.path for lf in t.calls[0].inputs] == ["x", "min"]


def test_numpy_ufunc_calls_on_arrays_are_recorded_by_the_ufuncs_name():
    t = record_run("t", lambda x: (np.add(x, 1.0), np.multiply.reduce(x)), (xb.asarray([3.0, 4.0]),), {})
    assert [c.name for c in t.calls] == ["np.add", "np.multiply.reduce"]


def test_the_backward_pass_reaches_every_output_that_needs_it():
    """broadcast_arrays(c, x): only its second output depends on x; its gradient is still recorded (the first
    output, a constant, is passed over, not the end of the search)."""
    pytest.importorskip("torch")
    c = xb.asarray([1.0, 2.0])

    def f(x):
        def inner(x):
            a, b = xb.broadcast_arrays(c, x)
            return xb.sum(b * b)

        return xb.grad(inner)(x)

    t = record_run("t", f, (xb.asarray([3.0, 4.0]),), {})
    names = [k.name for k in t.calls]
    assert "grad of #0 broadcast_arrays out[1]" in names and "grad of #0 broadcast_arrays out[0]" not in names
    assert [lf.host.tolist() for lf in t.result] == [[6.0, 8.0]]


def _user_code():
    return xb.zeros(-1)  # raises inside xbackend


def test_an_exceptions_site_is_the_users_innermost_frame():
    with pytest.raises(xb.XBackendError) as info:
        _user_code()
    f, line, func = error_site(info.value)
    assert f == __file__ and func == "_user_code" and line == _user_code.__code__.co_firstlineno + 1
    assert error_site(ValueError("never raised")) is None  # no traceback: no site


def test_recording_keeps_the_arrays_properties_as_they_are():
    before = {n: (p.fset, p.fdel, p.__doc__) for n, p in vars(xb.Array).items() if isinstance(p, property)}
    with recording():
        during = {n: (p.fset, p.fdel, p.__doc__) for n, p in vars(xb.Array).items() if isinstance(p, property)}
        assert xb.asarray([[1.0, 2.0]]).T.shape == (2, 1)
    assert during == before


# -- the pytest plugin's report of a failed test, and the arguments the finder moves --------------------------------
def _item(body, target):
    from types import SimpleNamespace

    return SimpleNamespace(callspec=SimpleNamespace(params={"xb_target": target}), obj=body,
                           funcargs={"xb_target": target})  # fmt: skip


def test_a_test_failing_on_one_target_only_gets_where_the_backends_part():
    from xbackend.testing import available_targets
    from xbackend.testing._diverge_pytest import report_for

    torch_t = next((t for t in available_targets() if t.id == "torch-cpu"), None)
    if torch_t is None:
        pytest.skip("torch is not installed")

    def fails_on_torch(xb_target):
        if xb_target.backend == "torch":
            raise AssertionError("only here")

    def fails_everywhere(xb_target):
        raise AssertionError("everywhere")

    rep = report_for(_item(fails_on_torch, torch_t))
    assert rep is not None and "numpy-cpu and torch-cpu part before the first xbackend call" in rep
    assert "raised AssertionError: only here" in rep
    assert report_for(_item(fails_everywhere, torch_t)) is None  # fails on NumPy too, before any call


def test_only_array_data_is_moved_to_each_target():
    from types import SimpleNamespace

    from xbackend.testing import available_targets
    from xbackend.testing._moving import _on

    t = available_targets()[0]
    spec = SimpleNamespace(shape=(2,), dtype="float32")  # a description of an array, not one (no __array__)
    like = type("Grid", (), {"__array__": lambda self, dtype=None, copy=None: np.zeros(2)})()  # no shape or dtype
    assert _on(spec, t) is spec and _on(like, t) is like
    moved = _on({"a": (np.float32(1.5), [np.arange(2)])}, t)
    assert type(moved["a"][0]) is xb.Array and moved["a"][0].dtype is xb.float32 and type(moved["a"][1][0]) is xb.Array


# -- the rest of the kit: assert_close's roles, random_arrays' ranges, recorded errors, the parting call ---------------
def test_assert_close_measures_against_the_expected_value_at_every_depth():
    """|actual - expected| <= atol + rtol |expected|: 2 is not within 50 % of 1, though 1 is within 50 % of 2 -
    in a dict and a list as at the top."""
    from xbackend.testing import assert_close

    for actual, expected in ((2.0, 1.0), ({"k": 2.0}, {"k": 1.0}), ([xb.asarray(0.0), xb.asarray(2.0)],
                                                                    [xb.asarray(0.0), xb.asarray(1.0)])):
        a = actual if not isinstance(actual, float) else xb.asarray(actual)
        e = expected if not isinstance(expected, float) else xb.asarray(expected)
        with pytest.raises(AssertionError):
            assert_close(a, e, rtol=0.5, atol=0.0)
        assert_close(e, a, rtol=0.5, atol=0.0)  # (1 is within 50 % of 2)


def test_random_integer_arrays_span_the_whole_dtype_by_default():
    from hypothesis import find

    from xbackend.testing.strategies import random_arrays

    st_int8 = random_arrays(xb.int8, (16,), backend="numpy")
    assert int(xb.min(find(st_int8, lambda a: int(xb.min(a)) < -100))) < -100
    assert int(xb.max(find(st_int8, lambda a: int(xb.max(a)) > 100))) > 100


def test_a_call_that_raised_is_recorded_with_its_error_and_no_outputs():
    t = record_run("t", lambda: xb.zeros(-1), (), {})
    (c,) = t.calls
    assert (c.name, c.outputs, c.error[0]) == ("zeros", [], "ArgumentValueError") and callable(c.fn)
    assert t.error is not None and t.error[0] == "ArgumentValueError"


def _parts_after_three(x, flag):
    y = x + 1.0
    y = y * 2.0
    y = y - 3.0
    y = y / 4.0
    if flag:
        return xb.sum(y)
    return xb.mean(y)


def test_control_flow_names_the_last_call_both_made():
    from xbackend.testing._diverge import compare_traces

    ta = record_run("a", _parts_after_three, (xb.asarray([1.0, 2.0]), True), {})
    tb = record_run("b", _parts_after_three, (xb.asarray([1.0, 2.0]), False), {})
    div = compare_traces(ta, tb)
    assert div.kind == "control flow" and div.last_shared.name == "Array.__truediv__" and div.index == 4
    assert "a and b part after call #3: x / y" in str(div)


def test_backends_that_raise_differently_are_an_error_divergence():
    from xbackend.testing._diverge import compare_traces

    def f(x):
        return xb.linalg.inv(x)

    ta = record_run("a", f, (xb.asarray([[1.0, 0.0], [0.0, 1.0]]),), {})
    tb = record_run("b", f, (xb.asarray([[1.0, 2.0], [2.0, 4.0]]),), {})
    div = compare_traces(ta, tb)
    assert div.kind == "error" and div.call_a is ta.calls[0] and div.call_b is tb.calls[0]
    assert div.detail.startswith("a returned; b raised LinAlgError: ")


def test_a_dtype_rule_names_each_backends_dtype():
    from xbackend.testing._diverge import compare_traces

    def cast(x, dt):
        return xb.astype(x, dt)

    ta = record_run("a", cast, (xb.asarray([1.0]), xb.float64), {})
    tb = record_run("b", cast, (xb.asarray([1.0]), xb.float32), {})
    div = compare_traces(ta, tb)
    assert div.kind == "dtype rule" and div.call_a is ta.calls[0]
    assert div.detail == "out is float64 on a but float32 on b: the backends apply different dtype rules"


def _shifted(x):
    return x + (1.0 if x.backend == "numpy" else 2.0)


def test_across_backends_names_the_function_and_explains_with_the_callers_tolerance():
    pytest.importorskip("torch")
    from xbackend.testing import across_backends

    with pytest.raises(AssertionError) as info:
        across_backends(_shifted, np.arange(3.0), backends=("numpy", "torch"), rtol=1e-3, atol=0.0)
    msg = str(info.value)
    assert msg.startswith("1 of 1 targets disagree with the reference numpy-cpu for _shifted():")
    assert "differ beyond rtol=0.001, atol=0;" in msg  # the divergence report, under the same tolerance
