"""torch's uint64 arithmetic with a Python int beside the Array, and torch's text of its Arrays, against Python's
exact integers and NumPy's printing.

torch has no uint64 arithmetic of its own: xbackend computes it on the int64 bits (xbackend/_backends/torch/uint.py),
and a Python int operand at or above 2**63 is first wrapped to those bits. The references are Python's integers
modulo 2**64 and NumPy's ``array2string``, which share no code with it.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, strategies as st

import xbackend as xb

torch = pytest.importorskip("torch")
M = 1 << 64
u64 = st.integers(0, M - 1)


@given(st.lists(u64, min_size=1, max_size=5), u64)
@example([1, 2**63 + 5, M - 1], M - 3)
@example([0, 7, 2**63], 2**63)
@example([M - 1, 5], 1)
@example([M - 1, 1000, 2**63 + 12345], 200)  # a Python int below 2**63 but above a byte's range
def test_uint64_division_and_remainder_by_a_python_int_are_pythons(xs, y):
    x = xb.asarray(xs, dtype=xb.uint64, backend="torch")
    if y == 0:
        return
    assert xb.floor_divide(x, y).tolist() == [a // y for a in xs]
    assert xb.remainder(x, y).tolist() == [a % y for a in xs]
    assert (x // y).tolist() == [a // y for a in xs] and (x % y).tolist() == [a % y for a in xs]


@given(st.lists(u64, min_size=1, max_size=4), st.integers(0, 70) | st.integers(2**63, M - 1))
@example([3, 2**32 + 1, M - 1], 2**63 + 1)
@example([2, 3], 64)
@example([5, M - 1, 2**40 + 3], 1)
@example([5, M - 1], 0)
def test_uint64_power_of_a_python_int_is_pythons_modulo_2_64(xs, e):
    x = xb.asarray(xs, dtype=xb.uint64, backend="torch")
    assert xb.pow(x, e).tolist() == [pow(a, e, M) for a in xs]


@pytest.mark.parametrize("values", [[1e-50, 1e300, -2.5e-310], [0.1234567890123, 1.0 / 3.0], [np.nan, -np.inf, 0.0]])
def test_a_float64_array_prints_as_numpys(values):
    """Digits beyond float32's, subnormals and values beyond its range print as NumPy prints them."""
    got = repr(xb.asarray(values, backend="torch"))
    want = np.array2string(np.asarray(values), separator=", ", threshold=50)
    assert got == f"Array({want}, backend='torch', device='cpu', dtype=float64)"


@pytest.mark.parametrize("start, stop, step", [(3, 3 + 2**62, 2**60), (-(2**62), 2**62, 2**61 + 7),
                                               (2**61, -(2**61), -(2**59))])  # fmt: skip
def test_an_int64_arange_spanning_more_than_2_53_is_pythons_range(start, stop, step):
    """torch sizes ranges in float64; beyond a span of 2**53 xbackend computes i * step + start in int64 itself."""
    assert xb.arange(start, stop, step, dtype=xb.int64, backend="torch").tolist() == list(range(start, stop, step))


def test_a_long_array_is_summarised_as_numpy_summarises_it():
    for n in (50, 51, 1001):
        values = np.arange(n, dtype=np.float64) / 7
        got = repr(xb.asarray(values, backend="torch"))
        want = np.array2string(values, separator=", ", threshold=50)
        assert got == f"Array({want}, backend='torch', device='cpu', dtype=float64)", n


@pytest.mark.parametrize("n", [1, 3])
def test_repeat_by_a_one_element_array_repeats_every_entry(n):
    x = np.arange(n, dtype=np.int64) + 5
    got = xb.repeat(xb.asarray(x, backend="torch"), xb.asarray([3], backend="torch"))
    assert got.tolist() == np.repeat(x, 3).tolist()


@pytest.mark.parametrize("idx", [[3], [-4], [0, 7], [-5, 1]])
def test_take_along_axis_refuses_an_index_outside_the_axis(idx):
    """As NumPy does (IndexError), never torch's wrap of a negative index past -n or its device-side error."""
    x = xb.asarray([1.0, 2.0, 3.0], backend="torch")
    with pytest.raises(IndexError):
        np.take_along_axis(np.array([1.0, 2.0, 3.0]), np.array(idx), axis=0)
    with pytest.raises(xb.IndexOutOfRangeError):
        xb.take_along_axis(x, xb.asarray(idx, backend="torch"), axis=0)


@pytest.mark.parametrize("y", [1, 7, 200, 2**63 + 5, M - 1])
def test_a_python_int_on_the_left_of_uint64_is_pythons(y):
    xs = [1, 3, 2**63 + 1, M - 1]
    x = xb.asarray(xs, dtype=xb.uint64, backend="torch")
    assert (y // x).tolist() == [y // a for a in xs] and (y % x).tolist() == [y % a for a in xs]
    small = xb.asarray([0, 1, 5, 64], dtype=xb.uint64, backend="torch")
    assert (y ** small).tolist() == [pow(y, e, M) for e in [0, 1, 5, 64]]


@pytest.mark.parametrize("s", [0, 1, 13, 63, 64, 65, 2**63 + 1])
def test_uint64_right_shifts_by_a_python_int_are_pythons(s):
    xs = [0, 1, 2**63 + 7, M - 1]
    x = xb.asarray(xs, dtype=xb.uint64, backend="torch")
    assert (x >> s).tolist() == [a >> s if s < 64 else 0 for a in xs]
    shifts = xb.asarray([0, 1, 63, 64], dtype=xb.uint64, backend="torch")
    assert (x >> shifts).tolist() == [a >> k if k < 64 else 0 for a, k in zip(xs, [0, 1, 63, 64])]


@pytest.mark.parametrize("dt", [xb.uint16, xb.uint32, xb.uint64], ids=str)
def test_unsigned_data_movement_keeps_every_bit(dt):
    """flip, roll, take, concat and sort of the unsigned dtypes torch has no kernels for, against NumPy."""
    h = np.array([0, 1, np.iinfo(dt.name).max, np.iinfo(dt.name).max // 2 + 1, 7], dtype=dt.name)
    x = xb.asarray(h, backend="torch")
    assert xb.flip(x).tolist() == np.flip(h).tolist() and xb.roll(x, 2).tolist() == np.roll(h, 2).tolist()
    assert xb.take(x, xb.asarray([4, 2, 0], backend="torch")).tolist() == h[[4, 2, 0]].tolist()
    assert xb.concat([x, x[:2]]).tolist() == np.concatenate([h, h[:2]]).tolist()
    assert xb.sort(x).tolist() == np.sort(h).tolist() and xb.max(x).tolist() == h.max().tolist()
