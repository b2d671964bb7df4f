"""The one way in (xbackend/_coerce.py): Python data next to an Array takes the Array's place and is weakly typed,
with the same range checks everywhere; arguments with a dtype of their own keep it; Python scalars are rounded to
the Array's dtype on the host. Expected values come from NumPy in float64 or from the documented rule
(docs/behaviour.md, "Python scalars are weak")."""

from __future__ import annotations

import math

import numpy as np
import pytest

import xbackend as xb
from xbackend import _coerce as C


@pytest.mark.parametrize(
    "like,data,want",
    [
        ("int8", [1, -2], "int8"),  # ints that fit: the Array's dtype
        ("uint8", [0, 254], "uint8"),
        ("int8", [True, False], "int8"),  # bools below ints
        ("float32", [1, 2], "float32"),
        ("float32", [0.5, 1.5], "float32"),
        ("int8", [0.5, 1.5], "float64"),  # a higher kind: the default float
        ("int8", [[1.0], [2.0]], "float64"),
        ("float32", [1j, 2.0], "complex64"),  # complex next to float32: its complex counterpart
        ("int64", [1j], "complex128"),
        ("bool", [1, 0], "int64"),  # ints next to bool: the default int
        ("float32", [], "float32"),  # empty data takes the Array's dtype
    ],
)
def test_python_data_next_to_an_array_is_weak(xb_target, like, data, want):
    x = xb_target.asarray(np.ones(1, like))
    r = x + data
    expected = np.asarray(np.ones(1, like), dtype=np.float64) + np.asarray(data, dtype=complex if "complex" in want
                                                                             else np.float64)  # fmt: skip
    assert r.dtype is xb.dtype(want) and r.backend == x.backend and r.device == x.device
    assert np.allclose(r.numpy(), expected)


@pytest.mark.parametrize("data", [[-129, 1], [1, 128], [[0], [-200]]])
def test_python_ints_next_to_an_array_are_range_checked_at_both_ends(xb_target, data):
    x = xb_target.asarray(np.zeros(1, np.int8))
    with pytest.raises(xb.ScalarOverflowError):
        x + data
    assert (x + [-128, 127]).tolist() == [-128, 127]  # the edges fit


def test_arguments_with_their_own_dtype_keep_xbackends_defaults(xb_target):
    x = xb_target.asarray(np.arange(4, dtype=np.float32))
    r = xb.take(x, [3, 0])  # indices: int64 by the defaults, never float32 like x
    assert r.tolist() == [3.0, 0.0] and r.dtype is xb.float32 and r.backend == x.backend
    c = xb.where([True, False, True, False], x, 0.0)
    assert c.tolist() == [0.0, 0.0, 2.0, 0.0] and c.dtype is xb.float32 and c.backend == x.backend
    assert C.placed([1, 2], x).dtype is xb.int64 and C.placed([1.0], x).dtype is xb.float64
    assert C.placed(x, x) is x


def test_first_array_looks_one_level_into_lists():
    a, b = xb.asarray([1.0]), xb.asarray([2.0])
    assert C.first_array(1, [2, a], b) is a
    assert C.first_array(1, (2, 3), b) is b
    assert C.first_array(1, [[a]]) is None  # two levels down: not looked at
    assert C.first_array(1, 2.0, [3]) is None
    n = np.array([5.0])
    w = C.first_array(1, [n])  # a native array (not a NumPy scalar) when there is no Array
    assert w is not None and w.backend == "numpy" and w.tolist() == [5.0]
    assert C.first_array(np.float64(1.0), [np.int64(2)]) is None  # NumPy scalars are Python data
    assert C.first_array(n, a) is a  # an Array wins over an earlier native array
    m = np.array([6.0])
    assert C.first_array(n, [m]).tolist() == [5.0]  # the first native array
    assert C.first_array([m], n).tolist() == [6.0]


def test_is_native_and_host_data():
    assert C.is_native(np.zeros(2)) and not C.is_native(np.float64(1)) and not C.is_native([1])
    assert C.host_data([1, 2]).tolist() == [1, 2] and C.host_data((1.5,)).dtype == np.float64
    assert C.host_data(np.zeros(2)) is None  # not Python data
    assert C.host_data([xb.asarray(1.0)]) is None and C.host_data([[np.zeros(1)]]) is None  # arrays inside
    assert C.host_data(["a"]) is None and C.host_data([1, [2, 3]]) is None  # not numbers / ragged
    assert C.host_data(bytearray(b"\x01\x02")).tolist() == [1, 2]


@pytest.mark.parametrize(
    "v,dt,want",
    [
        (1e300, "float32", math.inf),
        (-1e300, "float32", -math.inf),
        (0.1, "float32", float(np.float32(0.1))),
        (0.1, "float16", float(np.float16(0.1))),
        (0.1, "float64", 0.1),
        (10**400, "float64", math.inf),  # beyond float64: an infinity, as rounding gives
        (-(10**400), "float32", -math.inf),
        (2**64 + 1, "float64", float(2**64)),
        (2**24 + 1, "float32", float(2**24)),
        (1e300 + 1e300j, "complex64", complex(math.inf, math.inf)),
        (0.1 + 0.1j, "complex64", complex(np.complex64(0.1 + 0.1j))),
        (0.1 + 0.1j, "complex128", 0.1 + 0.1j),
        (300, "int8", 300),  # integer dtypes: unchanged (range checks are the caller's)
        (True, "float32", True),
        (0.5, "bool", 0.5),
    ],
)
def test_fit_scalar_rounds_on_the_host(v, dt, want):
    r = C.fit_scalar(v, xb.dtype(dt))
    assert r == want and type(r) is type(want), (r, want)


def test_fit_scalar_leaves_bfloat16_to_the_backend():
    pytest.importorskip("ml_dtypes")
    assert C.fit_scalar(0.1, xb.bfloat16) == 0.1


def test_numpy_scalars_are_weak_and_unknown_ones_refused():
    x = xb.asarray(np.ones(2, np.float32))
    assert (x + np.float64(0.5)).dtype is xb.float32 and (x + np.int64(2)).tolist() == [3.0, 3.0]
    assert C.py_scalar(np.int16(3)) == 3 and type(C.py_scalar(np.int16(3))) is int
    with pytest.raises(xb.UnsupportedDTypeError, match=r"^a NumPy longdouble scalar has no xbackend dtype\. "
                       r"Fix: convert it, e\.g\. float\(v\) or np\.float64\(v\)$"):
        C.py_scalar(np.longdouble(1))


def _two_places():
    """Pairs of Arrays at different places: another backend on the same CPU, and (torch) another device."""
    torch = pytest.importorskip("torch")
    a = xb.asarray([1.0, 2.0], backend="torch")
    return [(a, xb.asarray(np.array([1.0, 2.0]))), (a, xb.asarray(torch.zeros(2, device="meta")))]


def test_arrays_and_native_arrays_of_another_place_are_refused():
    for like, other in _two_places():
        err = xb.BackendMismatchError if like.backend != other.backend else xb.DeviceMismatchError
        for convert in (C.operand, C.to_array, C.placed):
            with pytest.raises(err):
                convert(other, like)
            with pytest.raises(err):
                convert(other.native, like)  # a native array is an Array of its own place, never moved
        assert C.operand(like, like) is like and C.to_array(like, like) is like
    same = xb.asarray([1.0], backend="torch")
    assert C.operand(same.native, like).native is same.native  # a native array of the same place: wrapped as is
    assert C.to_array([1, 2]).backend == "numpy"  # no partner: asarray's rules


def test_numpy_scalars_among_arrays_in_a_list_act_as_python_scalars(xb_target):
    """A NumPy scalar inside a list next to an Array (asarray, stack) is weak like the Python number it holds:
    the same dtype, values and place as with the Python number."""
    x = xb_target.asarray(np.array([1.0, 2.0], dtype=np.float32))
    for np_scalar, py in ((np.float64(2.5), 2.5), (np.int64(3), 3)):
        for make in (lambda v: xb.asarray([x[0], v]), lambda v: xb.stack([x[0], v])):
            got, want = make(np_scalar), make(py)
            assert got.dtype is want.dtype is xb.float32
            assert got.backend == x.backend and got.tolist() == want.tolist() == [1.0, float(py)]


def test_an_array_type_defined_in_main_is_refused_like_one_from_any_module():
    """An ndarray subclass from a module without an import spec (a script's or a notebook's __main__) gets the
    same answer as the same class from an ordinary user module, not importlib's 'no __spec__' error."""
    import sys
    import types

    def make(module_name):
        cls = type("Sub", (np.ndarray,), {})
        cls.__module__ = module_name
        return np.arange(3.0).view(cls)

    def outcome(obj):
        try:
            return xb.asarray(obj).tolist()
        except Exception as exc:  # noqa: BLE001 - the outcome is the point
            return type(exc), str(exc).replace("__main__", "M").replace("xb_user_module_for_a_test", "M")

    main = types.ModuleType("__main__")
    main.__spec__ = None  # as when a script runs
    real = sys.modules["__main__"]
    sys.modules["__main__"] = main
    try:
        got = outcome(make("__main__"))
    finally:
        sys.modules["__main__"] = real
    assert got == outcome(make("xb_user_module_for_a_test"))
