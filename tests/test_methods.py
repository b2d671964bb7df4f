"""NumPy's ways into an Array (xbackend/_methods.py): ``x.reshape``, ``x.sum`` & co., ``x.swapaxes`` and NumPy's
ufuncs (``np.abs(x)``), on every target, against NumPy's own answer on the same data in float64.

SciPy's and scikit-learn's test suites call these on the arrays they are given (issue 23).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, strategies as st

import xbackend as xb
from xbackend._methods import UFUNC_NAMES
from xbackend.testing import assert_close

A = np.arange(24, dtype=np.float64).reshape(2, 3, 4) - 7.5


def _on(x, t):
    assert type(x) is xb.Array and x.backend == t.backend and x.device == t.xb_device, (type(x), x)
    return x


@pytest.mark.parametrize("name", ["sum", "prod", "mean", "max", "min", "any", "all"])
def test_reductions_are_numpys(xb_target, name):
    x = xb_target.asarray(A)
    for axis, keepdims in itertools.product([None, 0, 1, -1, (0, 2)], [False, True]):
        got = getattr(x, name)(axis, keepdims=keepdims)
        assert_close(_on(got, xb_target), getattr(A, name)(axis=axis, keepdims=keepdims), check_dtype=False)
        assert got.dtype is getattr(xb, name)(x, axis=axis, keepdims=keepdims).dtype  # the function's dtype
    assert_close(getattr(x, name)(axis=1), getattr(A, name)(axis=1), check_dtype=False)  # keyword axis
    # NumPy's functions call the method (np.sum(x) -> x.sum(axis=None, dtype=None, out=None))
    assert_close(_on(getattr(np, name)(x, axis=0), xb_target), getattr(np, name)(A, axis=0), check_dtype=False)
    with pytest.raises(xb.ArgumentTypeError, match="out="):
        getattr(x, name)(0, out=x)


def test_sum_and_prod_take_dtype(xb_target):
    x = xb_target.asarray(np.array([[1, 2], [3, 4]], dtype=np.int32))
    assert x.sum(dtype=xb.int64).dtype is xb.int64 and x.sum(0, dtype=float).dtype is xb.float64
    assert x.prod(1, dtype=xb.float64).tolist() == [2.0, 12.0]
    with pytest.raises(xb.ArgumentTypeError, match="dtype"):
        x.max(dtype=xb.int64)


@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=4), data=st.data())
def test_reshape_and_swapaxes_are_numpys(xb_target, shape, data):
    a = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    x = xb_target.asarray(a)
    flat = x.reshape(-1)
    assert _on(flat, xb_target).tolist() == a.reshape(-1).tolist()
    assert x.reshape(*shape[::-1]).tolist() == a.reshape(*shape[::-1]).tolist()  # NumPy's two spellings
    assert x.reshape(tuple(shape[::-1])).tolist() == a.reshape(tuple(shape[::-1])).tolist()
    assert np.reshape(x, [a.size]).tolist() == np.reshape(a, [a.size]).tolist()
    i = data.draw(st.integers(-len(shape), len(shape) - 1))
    j = data.draw(st.integers(-len(shape), len(shape) - 1))
    assert _on(x.swapaxes(i, j), xb_target).tolist() == a.swapaxes(i, j).tolist()
    with pytest.raises(xb.ArgumentValueError, match="swapaxes"):
        x.swapaxes(0, len(shape))
    with pytest.raises(xb.ArgumentValueError, match="order"):
        x.reshape(-1, order="F")


def _ufuncs():
    """Every NumPy ufunc xbackend has a function for, with inputs in its domain."""
    out = []
    for name in sorted(n for n in dir(np) if isinstance(getattr(np, n), np.ufunc)):
        uf = getattr(np, name)
        if uf.__name__ != name or not hasattr(xb, UFUNC_NAMES.get(name, name)) or uf.nout != 1:
            continue
        out.append(name)
    return out


UFUNCS = _ufuncs()
INTEGER_ONLY = {"bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift", "right_shift", "gcd", "lcm",
                "bitwise_count"}  # fmt: skip


def test_the_ufunc_table_is_complete():
    """The ufuncs NumPy and the standard share all reach xbackend (a name missing from UFUNC_NAMES would not)."""
    for expected in ("absolute", "add", "arctan2", "power", "divide", "invert", "rint", "sqrt", "maximum",
                     "isnan", "logical_and", "greater_equal", "conjugate", "remainder", "left_shift"):  # fmt: skip
        assert expected in UFUNCS, expected


@pytest.mark.parametrize("name", UFUNCS)
def test_numpy_ufuncs_run_xbackend_functions(xb_target, name):
    uf = getattr(np, name)
    if name in INTEGER_ONLY:
        a, b = np.array([1, 6, 12], dtype=np.int64), np.array([3, 2, 1], dtype=np.int64)
    elif name.startswith("logical"):
        a, b = np.array([True, False, True]), np.array([True, True, False])
    else:
        a, b = np.array([0.25, 0.5, 0.75]), np.array([0.5, 0.125, 2.0])  # in every function's domain but one
        if name == "arccosh":
            a = a + 1.0
    args = (a, b)[: uf.nin]
    xs = [xb_target.asarray(v) for v in args]
    got = _on(uf(*xs), xb_target)
    expected = getattr(xb, UFUNC_NAMES.get(name, name))(*xs)  # the function of that name, so the same dtype
    assert got.dtype is expected.dtype
    assert_close(got, expected)
    assert_close(got, uf(*args), check_dtype=False)  # and NumPy's value


def test_ndarray_on_the_left_gives_the_reflected_operator():
    a = np.array([1.0, 2.0, 3.0])
    x = xb.asarray([0.5, 0.25, 2.0])
    for op in ("add", "sub", "mul", "truediv", "pow", "lt", "eq"):
        left = getattr(a, f"__{op}__")(x)  # NumPy's operator arrives at __array_ufunc__
        right = getattr(x, f"__r{op}__" if op not in ("lt", "eq") else {"lt": "__gt__", "eq": "__eq__"}[op])(a)
        assert type(left) is xb.Array and left.dtype is right.dtype and left.tolist() == right.tolist(), op


def test_ufuncs_on_another_backend_keep_their_rule(xb_target):
    """A NumPy array next to an Array of another backend is refused with the fix, as in ``x + a``."""
    if xb_target.backend == "numpy":
        pytest.skip("NumPy data is the partner's own backend here")
    x = xb_target.asarray([1.0, 2.0])
    with pytest.raises(xb.XBackendError) as raised:
        np.add(np.array([1.0, 2.0]), x)
    with pytest.raises(type(raised.value)):
        np.array([1.0, 2.0]) + x


def test_what_has_no_counterpart_raises_with_the_fix():
    x = xb.asarray([1.0, 2.0])
    with pytest.raises(xb.ArgumentTypeError, match=r"np\.add\.reduce .*Fix: call xb\.sum"):
        np.add.reduce(x)
    with pytest.raises(xb.ArgumentTypeError, match="out="):
        np.add(x, x, out=x)
    n = np.array([1.0, 2.0])
    with pytest.raises(xb.ArgumentTypeError, match="out="):  # in place into NumPy memory: NumPy passes out=
        n += x
    with pytest.raises(xb.ArgumentTypeError, match=r"np\.frexp"):
        np.frexp(x)
    assert n.tolist() == [1.0, 2.0]
