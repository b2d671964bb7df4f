"""The public testing kit: assert_close / assert_equal / assert_same_dtype, across_backends, strategies."""

from __future__ import annotations

import subprocess
import sys
from collections import namedtuple

import numpy as np
import pytest
from hypothesis import given, strategies as st

import xbackend as xb
from xbackend.testing import (
    across_backends, assert_close, assert_equal, assert_same_dtype, available_targets, default_tolerance, to_host,
)  # fmt: skip
from xbackend.testing import strategies as xst

HAS_TORCH = any(t.backend == "torch" for t in available_targets())
needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="torch is not usable here")
CPU_TARGETS = [t for t in available_targets() if not t.is_gpu]


def _on(data, t, dtype=None):
    return xb.asarray(np.asarray(data), backend=t.backend, device=t.device, dtype=dtype)


# --- assert_close ---------------------------------------------------------------------------------
def test_any_mix_of_arrays_and_natives(xb_target):
    x = _on([1.0, 2.0, 3.0], xb_target)
    assert_close(x, np.array([1.0, 2.0, 3.0]))
    assert_close(x.native, x)
    assert_close(np.array([1.0, 2.0, 3.0]), x.native)
    assert_close(x, [1.0, 2.0, 3.0])  # Python data: values only


def test_failure_message_says_everything(xb_target):
    x = _on([[1.0, 2.0], [3.0, 4.0]], xb_target)
    with pytest.raises(AssertionError) as info:
        assert_close(x, np.array([[1.0, 2.0], [3.5, 4.1]]))
    msg = str(info.value)
    assert "2 of 4 elements" in msg
    assert "worst at index (1, 0)" in msg and "abs err 0.5" in msg and "rel err 0.143" in msg
    assert f"{xb_target.backend} Array on {xb_target.device}, dtype float64, shape (2, 2)" in msg
    assert "numpy.ndarray on cpu, dtype float64, shape (2, 2)" in msg


def test_dtype_aware_default_tolerances():
    exact = np.array([1.0, 2.0, 3.0])
    off32 = exact * (1 + 1e-7)
    assert_close(xb.asarray(off32, dtype=xb.float32), exact, check_dtype=False)  # float32: ~1e-6
    with pytest.raises(AssertionError, match="rtol=1e-12"):
        assert_close(xb.asarray(off32), exact)  # float64 is held to ~1e-12
    assert default_tolerance(xb.float16) > default_tolerance(xb.float32) > default_tolerance(xb.float64)
    assert default_tolerance(xb.int8, xb.bool) == (0.0, 0.0)
    assert_close(xb.asarray(off32), exact, rtol=1e-6)  # explicit tolerances win


def test_dtype_and_shape_checks():
    with pytest.raises(AssertionError, match="dtype mismatch: float32 .* != float64"):
        assert_close(xb.asarray([1.0], dtype=xb.float32), np.array([1.0]))
    assert_close(xb.asarray([1.0], dtype=xb.float32), np.array([1.0]), check_dtype=False)
    with pytest.raises(AssertionError, match=r"shape mismatch: \(2,\)"):
        assert_close(xb.asarray([1.0, 1.0]), np.array([[1.0, 1.0]]))
    with pytest.raises(AssertionError, match="dtype mismatch"):
        assert_same_dtype(xb.asarray([1], dtype=xb.int32), np.array([1], dtype=np.int64))
    assert_same_dtype(xb.asarray([1], dtype=xb.int32), np.int32(4))


def test_zero_sign_nan_and_infinities():
    assert_close(xb.asarray([0.0, np.nan, np.inf]), np.array([-0.0, np.nan, np.inf]))
    with pytest.raises(AssertionError, match="1 differ in the sign of zero"):
        assert_close(xb.asarray([0.0, 1.0]), np.array([-0.0, 1.0]), check_sign_of_zero=True)
    with pytest.raises(AssertionError, match="1 where only one side is NaN"):
        assert_close(xb.asarray([np.nan, 1.0]), np.array([0.0, 1.0]))
    with pytest.raises(AssertionError, match="1 of 1 elements"):
        assert_close(xb.asarray([np.nan]), np.array([np.nan]), equal_nan=False)
    with pytest.raises(AssertionError, match="1 of 2 elements"):
        assert_close(xb.asarray([np.inf, 1.0]), np.array([-np.inf, 1.0]))
    with pytest.raises(AssertionError):
        assert_close(xb.asarray([np.inf]), np.array([1e308]), rtol=1.0)


def test_sign_of_zero_counts_for_the_imaginary_part_too():
    z = np.array([1 + 0j, 0j])
    assert_close(xb.asarray(z), np.conj(z))  # +0j == -0j by default
    with pytest.raises(AssertionError, match="2 differ in the sign of zero"):
        assert_close(xb.asarray(z), np.conj(z), check_sign_of_zero=True)
    with pytest.raises(AssertionError, match="1 differ in the sign of zero"):
        assert_close(xb.asarray(np.array([complex(-0.0, 1.0)])), np.array([1j]), check_sign_of_zero=True)
    assert_close(xb.asarray(z), z.copy(), check_sign_of_zero=True)


@pytest.mark.parametrize("kind", ["numpy", "array", "torch", "list"])
def test_to_host_always_copies(kind):
    if kind == "torch" and not HAS_TORCH:
        pytest.skip("torch is not usable here")
    host = np.zeros(3)
    data = {"numpy": lambda: host, "array": lambda: xb.asarray(host), "list": lambda: [0.0, 0.0, 0.0],
            "torch": lambda: __import__("torch").zeros(3, dtype=__import__("torch").float64)}[kind]()  # fmt: skip
    out = to_host(data)
    out[0] = 42.0  # writing into the helper's result must never change the data under test
    assert to_host(data).tolist() == [0.0, 0.0, 0.0]
    assert host.tolist() == [0.0, 0.0, 0.0]


def test_complex_values():
    z = np.array([1 + 2j, np.nan + 0j, -0.0 - 1j])
    assert_close(xb.asarray(z), z)
    with pytest.raises(AssertionError, match="worst at index \\(0,\\)"):
        assert_close(xb.asarray(z), z + np.array([1e-3j, 0, 0]))


def test_integers_are_exact_even_when_huge():
    big = np.array([2**63 + 1, 5], dtype=np.uint64)
    assert_equal(xb.asarray(big), big)
    with pytest.raises(AssertionError, match="abs err 1"):
        assert_equal(xb.asarray(big), np.array([2**63, 5], dtype=np.uint64))
    with pytest.raises(AssertionError, match="1 of 3"):
        assert_equal(xb.asarray([True, False, True]), np.array([True, True, True]))
    assert_close(xb.asarray([10, 20]), np.array([11, 20]), atol=1)  # a tolerance on integers, when asked


def test_structures_compare_item_by_item():
    P = namedtuple("P", "a b")
    assert_close((xb.asarray([1.0]), {"k": xb.asarray([2])}), [np.array([1.0]), {"k": np.array([2])}])
    assert_close(P(xb.asarray([1.0]), xb.asarray(2.0)), P(np.array([1.0]), np.float64(2.0)))
    with pytest.raises(AssertionError, match=r"output\[1\]\['k'\]: values differ"):
        assert_close((xb.asarray([1.0]), {"k": xb.asarray([2])}), (np.array([1.0]), {"k": np.array([3])}))
    with pytest.raises(AssertionError, match="structure mismatch at output: tuple of length 2 != tuple of length 1"):
        assert_close((xb.asarray([1.0]), xb.asarray([1.0])), (np.array([1.0]),))


@needs_torch
def test_devices_and_torch_specifics():
    import torch

    t = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    assert_close(t * 1, np.array([1.0, 2.0]))  # the graph is detached for the comparison
    with pytest.raises(AssertionError, match="device mismatch: cpu .* != meta"):
        assert_close(t, torch.empty(2, dtype=torch.float64, device="meta"), check_device=True)
    bf = torch.tensor([1.0, 3.0], dtype=torch.bfloat16)
    assert_close(bf, np.array([1.0, 3.0 + 1e-3], dtype=np.float32), check_dtype=False)  # bfloat16 tolerance
    assert to_host(bf).dtype == np.float32
    assert_close(torch.tensor([1 + 1j]).conj(), np.array([1 - 1j], dtype=np.complex64))  # lazy conj resolved


# --- across_backends -------------------------------------------------------------------------------
def softplus(x):
    return xb.log1p(xb.exp(-xb.abs(x))) + xb.maximum(x, 0.0)


def test_across_backends_agrees_and_returns_every_result():
    x = np.linspace(-5, 5, 11)
    out = across_backends(softplus, x)
    assert sorted(out) == sorted(t.id for t in available_targets())
    for r in out.values():
        assert_close(r, np.log1p(np.exp(x)))


def test_across_backends_reports_every_disagreement_at_once():
    def buggy(x, y):
        return (x + y, x * 2)

    x = np.array([1.0, 2.0])
    with pytest.raises(AssertionError) as info:
        across_backends(buggy, x, x, reference=lambda x, y: (x + y, x * 3))
    msg = str(info.value)
    n = len(available_targets())
    assert f"{n} of {n} targets disagree with the reference reference() for" in msg
    for t in available_targets():
        assert f"{t.id}: output[1]: values differ: 2 of 2 elements" in msg


@pytest.mark.skipif(len(CPU_TARGETS) < 2, reason="needs two CPU backends")
def test_across_backends_names_the_backend_that_is_off():
    def off_on_one(x):
        return x + 1.0 if x.backend == CPU_TARGETS[-1].backend else x

    with pytest.raises(AssertionError) as info:
        across_backends(off_on_one, np.zeros(3), reference="numpy")
    lines = str(info.value).splitlines()
    assert lines[0].startswith("1 of ")
    assert lines[1].startswith(f"  {CPU_TARGETS[-1].id}: values differ: 3 of 3 elements")


def test_across_backends_errors():
    def raises(x):
        raise ValueError("nope")

    with pytest.raises(ValueError, match="nope"):  # the reference raised and so did everyone: re-raised
        across_backends(raises, np.ones(2))
    with pytest.raises(AssertionError, match="raised ValueError: nope"):
        across_backends(raises, np.ones(2), reference=lambda x: x)
    with pytest.raises(AssertionError, match="returned a result, but the reference reference.. raised KeyError"):
        across_backends(lambda x: x, np.ones(2), reference=lambda x: {}["k"])
    with pytest.raises(ValueError, match="not usable here"):
        across_backends(lambda x: x, np.ones(2), reference="no_such_backend")


def test_across_backends_copies_inputs_per_target():
    host = np.array([1.0, 2.0])

    def scale_in_place(x, out):
        out["y"][...] = x * 2  # writes into its argument
        return out["y"]

    results = across_backends(scale_in_place, host, {"y": np.zeros(2)})
    assert host.tolist() == [1.0, 2.0]
    for r in results.values():
        assert_close(r, [2.0, 4.0])


def test_across_backends_decorator_and_backend_selection():
    @across_backends(backends=["numpy"], rtol=1e-6, reference=lambda x, *, power=3: x**power)
    def cube(x, *, power=3):
        return x**power

    out = cube(np.array([2.0]), power=2)
    assert list(out) == ["numpy-cpu"] and out["numpy-cpu"].tolist() == [4.0]
    assert cube.__name__ == "cube"
    with pytest.raises(TypeError, match="comes first"):
        across_backends(None, np.ones(1))


def test_across_backends_with_only_the_reference_never_passes(monkeypatch):
    def wrong(x):
        return x * 1000

    with pytest.raises(pytest.skip.Exception, match="only the reference numpy-cpu is selected"):
        across_backends(wrong, np.ones(2), backends="numpy")  # under pytest: a skip with the reason
    monkeypatch.delitem(sys.modules, "pytest")  # outside pytest: an error, never a silent pass
    with pytest.raises(ValueError, match="nothing to compare it with. Fix: "):
        across_backends(wrong, np.ones(2), backends="numpy")


def test_across_backends_checks_dtypes():
    with pytest.raises(AssertionError, match="dtype mismatch"):
        across_backends(lambda x: x, np.ones(2, dtype=np.float32), reference=lambda x: x.astype(np.float64))
    across_backends(lambda x: x, np.ones(2, dtype=np.float32), reference=lambda x: x.astype(np.float64),
                    check_dtype=False)  # fmt: skip


# --- strategies ------------------------------------------------------------------------------------
@given(x=xst.arrays(dtype=xst.dtypes("floating"), backend=xst.backends()))
def test_arrays_never_hold_subnormals(x):
    h = to_host(x)
    finite = h[np.isfinite(h)]
    tiny = np.finfo(h.real.dtype).smallest_normal
    assert not np.any((np.abs(finite.real) < tiny) & (finite.real != 0))
    assert not np.any((np.abs(finite.imag) < tiny) & (finite.imag != 0))


@given(data=st.data())
def test_same_draw_gives_same_values_on_every_target(data):
    dt = data.draw(xst.dtypes("numeric"))
    host = data.draw(xst.host_arrays(dt, xst.shapes(max_dims=2)))
    for t in filter(lambda t: t.holds(dt), CPU_TARGETS):
        x = xb.asarray(host, backend=t.backend, device=t.device)
        assert x.dtype is dt
        assert_equal(x, host)


def _holds_bfloat16(backend: str) -> bool:  # CuPy refuses bfloat16 (docs/behaviour.md)
    from xbackend._dispatch import get_backend

    try:
        get_backend(backend).native_dtype(xb.bfloat16)
    except xb.UnsupportedDTypeError:
        return False
    return True


@given(x=xst.arrays(dtype=xb.bfloat16, shape=xst.shapes(max_dims=1), backend=xst.backends().filter(_holds_bfloat16),
                    finite=True))  # fmt: skip
def test_bfloat16_draws_are_exact(x):
    assert x.dtype is xb.bfloat16
    host = to_host(x)
    assert_equal(to_host(xb.asarray(host, dtype=xb.bfloat16, backend=x.backend)), host)


def test_dtypes_draws_only_what_the_running_tests_target_holds(monkeypatch):
    """A capability query (Target.holds), never a backend name: under a target without float16 it is never drawn."""
    from hypothesis import find
    from hypothesis.errors import NoSuchExample

    import xbackend.testing._targets as T
    from xbackend.testing import Target, current_target

    assert current_target() is None  # a test without xb_target
    assert find(xst.dtypes(["real floating"]), lambda d: d is xb.float16) is xb.float16
    real = T.backend_holds
    monkeypatch.setattr(T, "backend_holds", lambda b, d: d is not xb.float16 if b == "no_f16" else real(b, d))
    token = T._CURRENT.set(Target("no_f16", "cpu"))
    try:
        with pytest.raises(NoSuchExample):
            find(xst.dtypes("real floating"), lambda d: d is xb.float16)
        assert find(xst.dtypes([xb.float16, xb.float32]), lambda d: True) is xb.float32
    finally:
        T._CURRENT.reset(token)


def test_dtypes_kinds_and_backends():
    from hypothesis import find

    assert find(xst.dtypes("unsigned"), lambda d: d.name == "uint64") is xb.uint64
    assert find(xst.dtypes("real floating", bfloat16=True), lambda d: d is xb.bfloat16) is xb.bfloat16
    from hypothesis.errors import NoSuchExample

    with pytest.raises(NoSuchExample):
        find(xst.dtypes("unsigned", wide_unsigned=False), lambda d: d is not xb.uint8)
    with pytest.raises(ValueError, match="unknown dtype kind"):
        xst.dtypes("floats")
    for name in {t.backend for t in available_targets()}:
        find(xst.dtypes("all", backend=name), lambda d: True)


@given(shapes=xst.mutually_broadcastable_shapes(2), shape=xst.shapes(), other=st.data())
def test_shape_strategies(shapes, shape, other):
    assert np.broadcast_shapes(*shapes.input_shapes) == shapes.result_shape
    b = other.draw(xst.broadcastable_shapes(shape))
    np.broadcast_shapes(b, shape)


@given(x=xst.arrays(dtype=xb.float32, shape=(2, 2), backend=xst.backends(), elements={"min_value": 0, "max_value": 1}))
def test_element_bounds_and_backend_strategy(x):
    assert x.backend in {t.backend for t in available_targets()}
    assert x.shape == (2, 2) and x.dtype is xb.float32
    h = to_host(x)
    assert ((h >= 0) & (h <= 1)).all()


# --- import without hypothesis ---------------------------------------------------------------------
NO_HYPOTHESIS = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name == "hypothesis" or name.startswith("hypothesis."):
            raise ImportError("hypothesis blocked for this test")
sys.meta_path.insert(0, Block())
import numpy as np, xbackend as xb
import xbackend.testing as xt
xt.assert_close(xb.asarray([1.0]), np.array([1.0]))
xt.across_backends(lambda x: x + 1, np.ones(2), backends=["numpy"], reference=lambda x: x + 1)
assert "hypothesis" not in sys.modules
try:
    xt.strategies
except ImportError as e:
    print("strategies need hypothesis:", e)
"""


def test_testing_imports_without_hypothesis():
    out = subprocess.run([sys.executable, "-c", NO_HYPOTHESIS], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "strategies need hypothesis" in out.stdout


# --- what the mutation run found unpinned (tools/mutation.py) ----------------------------------------
def test_default_tolerances_are_the_documented_ones():
    """docs/testing.md states the default (rtol, atol) per dtype: the kit uses exactly those, and a value 1 %
    off fails at every floating dtype's default."""
    import os
    import re

    with open(os.path.join(os.path.dirname(__file__), "..", "docs", "testing.md")) as f:
        text = " ".join(f.read().split())
    doc = re.search(r"Default tolerances come from the less precise dtype: (.*?); integers", text).group(1)
    pairs = re.findall(r"([a-z0-9/]+) `\(([0-9.e-]+), ([0-9.e-]+)\)`", doc)
    assert len(pairs) == 4, doc
    for names, r, a in pairs:
        for name in names.split("/"):
            assert default_tolerance(xb.dtype(name)) == (float(r), float(a)), name
    for dt in (xb.float16, xb.float32, xb.float64, xb.complex64, xb.complex128):
        with pytest.raises(AssertionError, match="values differ"):
            assert_close(xb.asarray(np.array([1.0]), dtype=dt), xb.asarray(np.array([1.01]), dtype=dt))


def test_a_python_side_takes_the_tolerance_of_the_array_side():
    """Python data has no dtype: the other side's decides (float16 here), not float64's."""
    h = xb.asarray(np.array([1.001]), dtype=xb.float16)
    assert_close([1.0], h)
    assert_close(h, [1.0])
    with pytest.raises(AssertionError):
        assert_close([1.0], xb.asarray(np.array([1.001])))  # float64: 1e-3 is far off


def test_python_data_on_the_actual_side():
    assert_close([1.0, 2.0], xb.asarray(np.array([1.0, 2.0])))
    assert_close([[1, 2], [3, 4]], xb.asarray(np.array([[1, 2], [3, 4]])), check_dtype=False)
    with pytest.raises(AssertionError, match="values differ"):
        assert_close([1.0, 2.5], xb.asarray(np.array([1.0, 2.0])))


def test_assert_equal_checks_dtypes_by_default():
    with pytest.raises(AssertionError, match="dtype mismatch: int32 .* != int64"):
        assert_equal(xb.asarray(np.array([1, 2], dtype=np.int32)), np.array([1, 2], dtype=np.int64))
    assert_equal(xb.asarray(np.array([1, 2], dtype=np.int32)), np.array([1, 2], dtype=np.int64), check_dtype=False)


@needs_torch
def test_check_device_compares_places_and_ignores_python_data():
    meta = xb.ones(2, backend="torch", device="meta")
    with pytest.raises(AssertionError, match="device mismatch: meta .* != cpu"):
        assert_close(meta, xb.ones(2), check_device=True)
    assert_close(xb.ones(2), [1.0, 1.0], check_device=True)  # a list has no device: nothing to compare
    assert_close([1.0, 1.0], np.ones(2), check_device=True)


def test_across_backends_gives_each_target_its_own_copy():
    """A function that writes into its argument must neither change the caller's Array nor what the next
    target sees (each target gets a copy, the caller's own backend included)."""
    x = xb.asarray(np.array([1.0, 2.0]))
    seen = []

    def scribble(a):
        seen.append(float(a[0]))
        a[0] = 99.0
        return a * 1

    across_backends(scribble, x, reference=lambda a: np.array([99.0, 2.0]))
    assert x.tolist() == [1.0, 2.0]
    assert seen and seen == [1.0] * len(seen)  # every target (however many are selected) saw the original


def test_targets_ids_order_and_asarray():
    from xbackend.testing import Target

    t = Target("numpy", "cpu")
    assert t.id == "numpy-cpu" and str(t.id) == "numpy-cpu"
    assert [x.id for x in available_targets()] == [f"{x.backend}-{x.device}" for x in available_targets()]
    assert available_targets()[0].backend == "numpy"  # the reference target comes first (documented)
    y = t.asarray([1, 2], dtype=xb.int8)
    assert y.backend == "numpy" and y.dtype is xb.int8 and y.tolist() == [1, 2]


def test_arrays_are_not_finite_unless_asked():
    from hypothesis import find

    nonfinite = find(xst.arrays(dtype=xb.float64, shape=(3,), backend="numpy"),
                     lambda a: not bool(xb.all(xb.isfinite(a))))
    assert not bool(xb.all(xb.isfinite(nonfinite)))


def test_random_integer_arrays_include_both_bounds():
    from hypothesis import find

    same = find(xst.random_arrays(xb.uint8, (3,), backend="numpy", low=3, high=3), lambda a: True)
    assert same.tolist() == [3] * 3
    top = find(xst.random_arrays(xb.int8, (16,), backend="numpy", low=0, high=1), lambda a: bool(xb.any(a == 1)))
    assert set(top.tolist()) <= {0, 1}


@pytest.mark.parametrize("low,high,lo,hi", [(5.0, 6.0, 5.0, 6.0), (None, None, 0.0, 1.0), (-2.0, None, -2.0, 1.0)])
def test_random_float_arrays_stay_in_low_high(low, high, lo, hi):
    from hypothesis import find

    u = find(xst.random_arrays(xb.float64, (32,), backend="numpy", low=low, high=high), lambda a: True)
    assert lo <= float(xb.min(u)) and float(xb.max(u)) < hi
