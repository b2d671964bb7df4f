"""The one way in (xbackend/_coerce.py): Python data next to an Array takes the Array's place and is weakly typed,
with the same range checks everywhere; arguments with a dtype of their own keep it; Python scalars are rounded to
the Array's dtype on the host. Expected values come from NumPy in float64 or from the documented rule
(docs/behaviour.md, "Python scalars are weak")."""

from __future__ import annotations

import math

import re

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

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


def _holds_arrays_plainly(obj) -> bool:
    """The rule, one element at a time: an Array or a native array anywhere in nested lists and tuples."""
    for o in obj:
        if type(o) is xb.Array or (type(o) in (list, tuple) and _holds_arrays_plainly(o)) or C.is_native(o):
            return True
    return False


_LEAVES = [np.asarray(1.0), np.zeros(2), np.float32(1.5), np.int64(2), "a", None, b"x", bytearray(b"\x01"),
           memoryview(b"\x02"), 1, 2.5, True, 1j, -(2**70), float("nan")]  # arrays first: hypothesis favours them


@st.composite
def _nested(draw, depth=0):
    """A list or tuple of numbers or of nested ones, sometimes with one odd element (an array, a NumPy scalar, a
    string, ...) at any position: where a scan that looks at the first element only would go wrong."""
    if depth < 2 and draw(st.integers(0, 2)) == 0:
        items = [draw(_nested(depth + 1)) for _ in range(draw(st.integers(1, 3)))]
    else:
        items = draw(st.lists(st.sampled_from([0, 1.5, True, 2j, -(2**70), math.nan]), max_size=6))
    if items and draw(st.booleans()):
        odd = draw(st.integers(-1, len(_LEAVES) - 1))
        items[draw(st.integers(0, len(items) - 1))] = _LEAVES[odd] if odd >= 0 else xb.asarray([1.0])
    return tuple(items) if draw(st.booleans()) else items


@settings(max_examples=max(300, settings.default.max_examples))  # ~1 ms per example
@given(_nested())
def test_holds_arrays_is_the_plain_rule(data):
    """The C-speed scan (``set(map(type, ...))`` per level, ``sum`` over the numbers) says what the plain
    element-by-element rule says, for nested lists and tuples of numbers, NumPy scalars, arrays and other objects."""
    assert C.holds_arrays(data) is _holds_arrays_plainly(data)


def test_holds_arrays_finds_an_array_among_many_numbers():
    row = [0.5] * 1000
    for bad in (np.asarray(1.0), xb.asarray(2.0), np.zeros(3)):
        for where in (0, 500, 999):
            flat = row.copy()
            flat[where] = bad
            assert C.holds_arrays(flat) and C.holds_arrays([row, flat]) and C.holds_arrays([[row], [flat]])
    assert not C.holds_arrays([row, row]) and not C.holds_arrays([row, [np.float32(1.0)] * 1000])
    torch = pytest.importorskip("torch")
    assert C.holds_arrays([row, [1.0, torch.tensor(1.0)]]) and C.holds_arrays((1, 2, torch.zeros(())))


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


def _edges() -> list[float]:
    """Values at the edges of float32 and float16: the largest finite ones, the rounding boundaries to infinity
    and between subnormals, NaNs of both signs; then seeded random bit patterns and magnitudes."""
    edges = [0.0, -0.0, math.inf, -math.inf, math.nan, -math.nan, 1e300, -1e300, 0.1, 1 / 3, 65504.0, 65519.99,
             65520.0, -65520.0, 5.96e-8, 2.98e-8, 2.9802322387695312e-08, 2.9802322387695313e-08, 1e-45, 7e-46,
             7.006e-46, float(2**128 - 2**103), float(2**128 - 2**104), 3.4028235e38, 3.4028236e38, 2.0**24 + 1]
    rng = np.random.default_rng(20261204)
    edges += rng.integers(0, 2**64, 3000, dtype=np.uint64).view(np.float64).tolist()
    edges += (rng.uniform(-1, 1, 3000) * 10.0 ** rng.integers(-50, 40, 3000)).tolist()
    return edges


@pytest.mark.parametrize("dt", ["float32", "float16", "complex64"])
def test_fit_scalar_rounds_as_numpys_cast_bit_for_bit(dt):
    """Python's struct conversions are NumPy's casts: every value (and the sign of every zero and NaN) the same."""
    d = xb.dtype(dt)

    def bits(v):
        return [np.float64(p).view(np.uint64) if not math.isnan(p) else ("nan", math.copysign(1, p))
                for p in ((v.real, v.imag) if isinstance(v, complex) else (v,))]  # fmt: skip

    with np.errstate(all="ignore"):
        for v in _edges():
            assert bits(C.fit_scalar(v, d)) == bits(np.asarray(v, dtype=dt).item()), (v, dt)


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


def test_a_list_of_arrays_stacks_on_their_place_with_promoted_dtypes(xb_target):
    """``xb.asarray([a, b])`` of Arrays builds the stack where they live; dtypes promote as NumPy's ``np.stack`` of
    the same data does (int8 with int16: int16; int8 with float64: float64), and rows of two shapes are refused."""
    rows = {"int8": np.array([1, -2], dtype=np.int8), "int16": np.array([300, 4], dtype=np.int16),
            "float64": np.array([0.5, 1.5])}  # fmt: skip
    for a, b in (("int8", "int16"), ("int8", "float64"), ("int16", "int8")):
        if not (xb_target.holds(getattr(xb, a)) and xb_target.holds(getattr(xb, b))):
            continue
        got = xb.asarray([xb_target.asarray(rows[a]), xb_target.asarray(rows[b])])
        want = np.stack([rows[a], rows[b]])
        assert got.backend == xb_target.backend and got.dtype == xb.dtype(want.dtype.name)
        np.testing.assert_array_equal(got.numpy(), want)
    with pytest.raises(xb.ShapeError, match=r"all Arrays need the same shape, got \(2,\) and \(3,\)"):
        xb.asarray([xb_target.asarray([1.0, 2.0]), xb_target.asarray([1.0, 2.0, 3.0])])


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


_NUMS = st.one_of(st.integers(-(2**70), 2**70), st.floats(), st.booleans(), st.complex_numbers(max_magnitude=1e300),
                  st.sampled_from([0, 1, -0.0, 2**63, 2**64, -(2**63) - 1, float("nan"), float("-inf")]))


@settings(max_examples=max(300, settings.default.max_examples))  # ~0.1 ms per example
@given(st.one_of(st.lists(_NUMS, min_size=1, max_size=8),
                 st.integers(1, 4).flatmap(lambda w: st.lists(st.lists(_NUMS, min_size=w, max_size=w), min_size=1,
                                                              max_size=4)),
                 st.lists(st.lists(_NUMS, max_size=3), min_size=1, max_size=4),
                 st.tuples(st.integers(1, 3), st.integers(1, 3)).flatmap(  # 3-d: equal lengths at each level
                     lambda s: st.lists(st.lists(st.lists(_NUMS, min_size=s[1], max_size=s[1]), min_size=s[0],
                                                 max_size=s[0]), min_size=1, max_size=3)),
                 st.lists(st.one_of(_NUMS, st.lists(_NUMS, max_size=2), st.dictionaries(_NUMS, _NUMS, max_size=2),
                                    st.just("ab")), min_size=1, max_size=3)))  # fmt: skip
def test_host_numbers_is_numpys_array_bit_for_bit(data):
    """The np.fromiter fast path gives np.asarray's array exactly (dtype, shape, every byte), or stands aside."""
    found = C._sequences.survey(data)
    got = C._sequences.host_numbers(data, found)
    try:
        want = np.asarray(data)
    except (ValueError, TypeError, OverflowError):
        assert got is None
        return
    if got is not None:
        assert got.dtype == want.dtype and got.shape == want.shape and got.tobytes() == want.tobytes(), (data, got, want)


def test_host_numbers_stands_aside_for_a_mixed_level():
    """A level holding lists and something else of the same length (a dict, a string) is np.asarray's to judge:
    the fast path must not read a dict's keys as a row."""
    for data in ([[1.0, 2.0], {3.0: 1, 4.0: 2}], [[1, 2], (3, 4), "ab"], [[[1.0], [2.0]], [{3.0: 1}, [4.0]]]):
        assert C._sequences.host_numbers(data, C._sequences.survey(data)) is None, data
    cube = [[[1.0], [2.0]], [[3.0], [4.0]]]
    assert C._sequences.host_numbers(cube, C._sequences.survey(cube)).shape == (2, 2, 1)


def test_a_foreign_array_like_beside_an_array_is_read_or_refused_with_a_fix():
    """An object with only ``__dlpack__`` is read as an array (its values); one with only ``__array_namespace__``
    reaches asarray's refusal, which names the fix - never Python's bare 'unsupported operand' TypeError."""
    import numpy as np

    class DLPackOnly:
        def __init__(self):
            self.a = np.array([1.0, 2.0])

        def __dlpack__(self, **kw):
            return self.a.__dlpack__(**kw)

        def __dlpack_device__(self):
            return self.a.__dlpack_device__()

    class NamespaceOnly:
        def __array_namespace__(self, api_version=None):
            return None

    x = xb.asarray([10.0, 20.0])
    assert (x + DLPackOnly()).tolist() == [11.0, 22.0]
    with pytest.raises(xb.XBackendError, match="an Array holds numbers and bools. Fix: pass numbers or bools"):
        x + NamespaceOnly()


# -- keys and places from another library, the environment's blame: each message checked from its start -----------
def test_a_native_key_of_another_library_is_refused_with_the_move():
    torch = pytest.importorskip("torch")
    x = xb.asarray([10, 20, 30])
    with pytest.raises(xb.BackendMismatchError, match=r"^operation mixes Arrays on backends numpy \(cpu\) and torch "
                                                      r"\(cpu\).*Fix: .*xb\.asarray\(y, backend='numpy'"):
        x[torch.tensor([2, 0])]
    assert x[np.array([2, 0])].tolist() == [30, 10]  # host index data is moved, as __setitem__ values are


def test_a_closure_key_under_grad_on_numpy_indexes_the_differentiated_array():
    """xb.grad of NumPy Arrays runs on an engine; a closure NumPy Array used as a key is the constant moved there
    (the differentiated Array keeps its gradient), read and written."""
    pytest.importorskip("torch")
    idx = xb.asarray([0, 2, 2])

    def zeroed(x):
        y = x * 1.0
        y[idx] = 0.0
        return xb.sum(y * x)

    x = xb.asarray([1.0, 2.0, 3.0])
    assert xb.grad(lambda x: xb.sum(x[idx] * x[idx]))(x).tolist() == [2.0, 0.0, 12.0]  # x0^2 + 2 x2^2
    assert xb.grad(zeroed)(x).tolist() == [0.0, 4.0, 0.0]  # x1^2


def test_index_refusals_say_what_is_valid_from_their_first_word():
    x = xb.asarray([1.0, 2.0])
    with pytest.raises(xb.InvalidIndexError, match=r"^only integers, slices, \.\.\., None, lists and integer or "
                                                   r"bool Arrays are valid indices, got dict"):  # fmt: skip
        x[{"a": 1}]
    with pytest.raises(xb.InvalidIndexError, match=r"^index Arrays must be integer or bool, got float64\. Fix: "):
        x[xb.asarray([0.0])]
    with pytest.raises(xb.PromotionError, match=r"^cannot store Python 'f'-kind values \(float64\) into an Array of "
                                                r"dtype int64 without losing information\. Fix: "):  # fmt: skip
        xb.asarray([1, 2])[:] = [0.5, 1.5]


@pytest.mark.parametrize("device", [["cpu"], {"cpu": 0}, bytearray(b"cpu")])
def test_an_unhashable_device_argument_is_refused_as_any_unknown_device(device):
    with pytest.raises(xb.UnknownDeviceError, match=r"^cannot interpret .* as a device"):
        xb.zeros(2, device=device)


def test_a_default_from_the_environment_is_named_only_when_it_is_the_one_that_failed(monkeypatch):
    """``XBACKEND_BACKEND``/``XBACKEND_DEVICE`` chose a default that cannot work: the error names the variable;
    the same failure from an explicit argument does not (in this process: the subprocess tests of test_config.py
    show what `import xbackend` reads)."""
    from xbackend import _config

    info = xb.backends().get("cupy")
    if info is not None and info.usable:  # pragma: no cover - a machine with a usable CuPy
        pytest.skip("CuPy works here")
    for setting, var, value, error, explicit in [
        ("backend", "XBACKEND_BACKEND", "cupy", xb.BackendUnavailableError, {"backend": "cupy"}),
        ("device", "XBACKEND_DEVICE", "cuda:0", xb.DeviceError, {"device": "cuda:0"}),
    ]:  # fmt: skip
        monkeypatch.setattr(_config, "_FROM_ENV", {})
        for v in ("XBACKEND_BACKEND", "XBACKEND_DEVICE"):
            monkeypatch.delenv(v, raising=False)
        monkeypatch.setenv(var, value)
        monkeypatch.setattr(_config, "_base", _config._from_environment())
        with pytest.raises(error, match=rf"^the {setting} '{value}' comes from the environment variable "
                                        rf"{var}='{value}': "):  # fmt: skip
            xb.zeros(2)
        with pytest.raises(error) as info:
            xb.zeros(2, **explicit)
        assert "XBACKEND" not in str(info.value)


def test_a_closure_read_through_a_key_made_from_the_differentiated_arrays():
    """``c[k]`` inside xb.grad on NumPy, ``c`` a closure and ``k`` computed from the differentiated Array (an engine
    Array): ``c`` is read as a constant, as an operator reads it (it raised the mismatch that names a write)."""
    pytest.importorskip("torch")
    c = xb.asarray([5.0, 6.0, 7.0])
    x = xb.asarray([1.0, 3.0, 2.0])
    assert xb.grad(lambda x: c[xb.argmax(x)] * x[0])(x).tolist() == [6.0, 0.0, 0.0]  # c[1] * x0
    assert xb.grad(lambda x: xb.sum(c[x > 1.5] * x[x > 1.5]))(x).tolist() == [0.0, 6.0, 7.0]

    def writes(x):
        c[xb.argmax(x)] = 1.0
        return xb.sum(x)

    with pytest.raises(xb.BackendMismatchError, match="a write into it"):  # a write stays refused, with its fix
        xb.grad(writes)(x)
    assert c.tolist() == [5.0, 6.0, 7.0]


# -- asarray's refusals and casts of NumPy scalars, each message from its first word --------------------------------
def test_a_numpy_scalar_with_a_dtype_casts_as_numpy_array_data_does():
    """A NumPy scalar is array data: a float one out of an integer dtype's range is refused (never wrapped), an
    integer one narrowed wraps as NumPy's own astype of it (and xb.astype of an Array) does."""
    with pytest.raises(xb.ScalarOverflowError, match=r"^value 3000000000\.0 does not fit int32 \(range "
                                                     r"-2147483648\.\.2147483647\); xbackend never wraps around"):
        xb.asarray(np.float64(3e9), dtype=xb.int32)
    with pytest.raises(xb.ScalarOverflowError, match=r"^value -1\.5 does not fit uint8"):
        xb.asarray(np.float32(-1.5), dtype=xb.uint8)
    got = xb.asarray(np.int64(300), dtype=xb.int8)
    assert got.dtype is xb.int8 and got.tolist() == np.array(np.int64(300)).astype(np.int8).tolist()
    assert xb.asarray(np.float64(2.75), dtype=xb.int16).tolist() == 2  # in range: truncated, as NumPy's cast


def test_asarray_refusals_say_what_happened_first_and_end_with_their_fix():
    sub = np.arange(3.0).view(type("Units", (np.ndarray,), {"__module__": "xb_user_units"}))
    with pytest.raises(xb.ForeignArrayError, match=r"^xbackend does not know xb_user_units\.Units, a subclass of "
                       r"numpy\.ndarray: .* Fix: .*xb\.asarray\(obj\.view\(np\.ndarray\)\)$"):
        xb.asarray(sub)
    foreign = type("Grid", (), {"__module__": "xb_user_grid", "__array__": lambda self, dtype=None, copy=None:
                                np.zeros(2)})  # fmt: skip
    with pytest.raises(xb.ForeignArrayError, match=r"^xbackend does not know xb_user_grid\.Grid and it does not "
                                                   r"implement the Array API standard \(__array_namespace__\): .* Fix: "
                                                   r"convert it explicitly, e\.g\. xb\.asarray\(np\.asarray\(obj\)\)"):
        xb.asarray(foreign())
    with pytest.raises(xb.ShapeError, match=r"^cannot make an Array from list: .*\. Fix: give every row the same "
                                            r"length \(nested lists must be rectangular\)$"):
        xb.asarray([[1, 2], [3]])
    with pytest.raises(xb.UnsupportedDTypeError, match=r"^Unsupported dtype <U1: cannot make an Array from str values; "
                                                       r"an Array holds numbers and bools\. Fix: pass numbers or bools "
                                                       r"\(convert the values first, e\.g\. \[float\(v\) for v in "
                                                       r"data\]\)$"):
        xb.asarray(["a", "b"])


def test_tensors_that_require_grad_in_a_list_subclass_get_the_gradient_fix():
    """Lists and tuples of tensors are stacked on torch (the graph kept); a list subclass or a namedtuple reaches
    NumPy, which cannot read a tensor that requires grad: GradientError naming both fixes, not torch's text."""
    import collections

    torch = pytest.importorskip("torch")
    t = torch.ones(2, requires_grad=True)
    pair = collections.namedtuple("Pair", "a b")
    sub = type("L", (list,), {})
    for data in (sub([t, t]), pair(t[0], t[1]), [sub([t[0]])], sub([t[0], 1.0])):  # (numbers beside: no backend)
        with pytest.raises(xb.GradientError, match=r"^xb\.asarray\(\) of a \w+ holding torch arrays that require "
                                                   r"grad .* Fix: xb\.stack\(\[xb\.asarray\(t\) for t in data\]\)"):
            xb.asarray(data)


# -- arguments of another place: the Array's place is "here", in every message and fix -------------------------------
_FOREIGN = {  # call(x on NumPy, a torch Array, a torch tensor) -> what it mixes; whether a native tensor is named
    "searchsorted sorter": (lambda x, xt, t: xb.searchsorted(x, xb.asarray([2.5]), sorter=t.to(dtype=_torch().int64)),
                            False),
    "where condition": (lambda x, xt, t: xb.where(t > 1, x, 0.0), False),
    "where x2": (lambda x, xt, t: xb.where(x > 1, x, xt), False),
    "clip bound": (lambda x, xt, t: xb.clip(x, xt, None), False),
    "add native": (lambda x, xt, t: xb.add(x, t), True),
    "take indices": (lambda x, xt, t: xb.take(x, t.to(dtype=_torch().int64)), False),
    "operator Array": (lambda x, xt, t: x + xt, False),
}


def _torch():
    return pytest.importorskip("torch")


@pytest.mark.parametrize("name", sorted(_FOREIGN))
def test_an_argument_of_another_backend_names_the_arrays_place_first(name):
    torch = _torch()
    x = xb.asarray([1.0, 3.0, 2.0])
    call, native = _FOREIGN[name]
    what = "Arrays (one a native torch array)" if native else "Arrays"
    with pytest.raises(xb.BackendMismatchError, match=rf"^operation mixes {re.escape(what)} on "
                                                      r"backends numpy \(cpu\) and torch \(cpu\); xbackend never "
                                                      r"copies silently\. Fix: move one explicitly, e\.g\. y = "
                                                      r"xb\.asarray\(y, backend='numpy', device='cpu'\)$"):  # fmt: skip
        call(x, xb.asarray([0.0, 2.0, 1.0], backend="torch"), torch.tensor([0.0, 2.0, 1.0]))


@pytest.mark.parametrize("backend", ["numpy", "torch"])
def test_in_place_operators_with_python_data_write_into_the_array_itself(backend):
    """``x += [..]`` (a list, a tuple) updates x where it is (every other name of it sees the change), never
    rebinds x to a new Array as Python's fallback ``x = x + [..]`` would."""
    if backend == "torch":
        _torch()
    x = xb.asarray([1.0, 2.0], backend=backend)
    alias = x
    x += [1.0, 1.0]
    x *= (2.0, 3.0)
    x -= memoryview(bytearray(b"\x01\x02")).cast("B") if backend == "numpy" else [1.0, 2.0]
    assert x is alias and alias.tolist() == [3.0, 7.0]


def test_native_arguments_of_the_arrays_own_library_are_its_data():
    """NumPy arrays next to a NumPy-backend Array are taken as they are (indices, sorters, conditions): NumPy's
    own answers."""
    h = np.array([1.0, 3.0, 2.0])
    x = xb.asarray(h)
    s, c, i = np.array([0, 2, 1]), np.array([True, False, True]), np.array([2, 0, 2])
    assert xb.searchsorted(x, xb.asarray([2.5]), sorter=s).tolist() == np.searchsorted(h, [2.5], sorter=s).tolist()
    assert xb.where(c, x, 0.0).tolist() == np.where(c, h, 0.0).tolist()
    assert xb.take(x, i).tolist() == np.take(h, i).tolist()
    assert xb.where(c, 5.0, x).tolist() == np.where(c, 5.0, h).tolist()


# -- range checks of Python data against exact integers ----------------------------------------------------------------
_INT_DTS = [xb.int8, xb.int16, xb.int32, xb.int64, xb.uint8, xb.uint16, xb.uint32, xb.uint64]


def _bounds(dt):
    bits = int(dt.name.lstrip("uint"))
    return (0, 2**bits - 1) if dt.name.startswith("u") else (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)


@pytest.mark.parametrize("dt", _INT_DTS, ids=str)
def test_python_ints_out_of_range_suggest_the_narrowest_dtype_that_holds_them(dt):
    """Refused with the smallest of int64 / uint64 that holds the value (float64, said inexact, beyond both)."""
    lo, hi = _bounds(dt)
    for bad in (lo - 1, hi + 1, -(2**63), -(2**63) - 1, 2**63 - 1, 2**63, 2**64 - 1, 2**64):
        if lo <= bad <= hi:
            continue
        want = ("int64" if -(2**63) <= bad <= 2**63 - 1 else "uint64" if 0 <= bad <= 2**64 - 1 else "float64")
        with pytest.raises(xb.ScalarOverflowError) as info:
            xb.asarray([0, bad] if bad > 0 else [bad, 0], dtype=dt)
        msg = str(info.value)
        assert msg.startswith(f"Python int {bad} in the data does not fit {dt} (range {lo}..{hi})"), msg
        assert f"dtype=xb.{want})" in msg and ("inexact" in msg) == (want == "float64"), (bad, msg)


@pytest.mark.parametrize("dt", _INT_DTS, ids=str)
def test_float_data_into_an_integer_dtype_truncates_inside_its_range_only(dt):
    """Each float at the bounds' edges: accepted (truncated towards zero) exactly when the truncated value lies in
    the dtype's range, decided with Python's exact integers; refused with the offending value otherwise."""
    lo, hi = _bounds(dt)
    edges = {float(lo - 1), float(hi + 1), float(lo), float(hi), float(np.nextafter(float(lo - 1), 0.0)),
             float(np.nextafter(float(hi + 1), 0.0)), float(np.nextafter(float(lo - 1), -np.inf)),
             float(np.nextafter(float(hi + 1), np.inf))}
    for v in sorted(edges):
        fits = lo <= int(v) <= hi  # int(): Python's truncation of the exact float
        if fits:
            assert xb.asarray([v], dtype=dt).tolist() == [int(v)], v
        else:
            with pytest.raises(xb.ScalarOverflowError, match=rf"^value {re.escape(repr(v))} does not fit {dt}"):
                xb.asarray([v, 0.0, 1.0], dtype=dt)  # (with values that fit: the message names the one that does not)


def test_float_data_with_any_nan_or_infinity_has_no_integer():
    for data in ([1.0, float("inf")], [float("nan"), 2.0], [-float("inf")]):
        with pytest.raises(xb.DomainError, match=r"^cannot convert NaN or an infinity to int8"):
            xb.asarray(data, dtype=xb.int8)


# -- values written into an Array ----------------------------------------------------------------------------------
def test_a_value_of_another_library_written_into_an_array_is_refused_and_named():
    torch = _torch()
    x = xb.zeros(3)
    with pytest.raises(xb.BackendMismatchError, match=r"^operation mixes Arrays \(one a native torch array\) on "
                                                      r"backends numpy \(cpu\) and torch \(cpu\)"):  # fmt: skip
        x[0:2] = torch.tensor([1.0, 2.0])
    with pytest.raises(xb.BackendMismatchError, match=r"^operation mixes Arrays on backends numpy \(cpu\) and torch "):
        x[0:2] = xb.asarray([1.0, 2.0], backend="torch")
    assert x.tolist() == [0.0, 0.0, 0.0]  # nothing written, nothing copied silently


def test_a_closure_value_written_into_a_differentiated_arrays_copy_under_grad():
    _torch()
    c = xb.asarray([7.0, 8.0])

    def f(x):
        y = x * 1.0
        y[0:2] = c  # c: a closure on NumPy, y: the engine's view
        return xb.sum(y * x)

    assert xb.grad(f)(xb.asarray([1.0, 2.0, 3.0])).tolist() == [7.0, 8.0, 6.0]  # c0 x0 + c1 x1 + x2^2


@pytest.mark.parametrize("data", [[-1, 5], [5, -1], [3, 256], [300, 1]])
def test_python_ints_written_into_a_narrower_array_are_range_checked_at_both_ends(data):
    x = xb.zeros(2, dtype=xb.uint8)
    with pytest.raises(xb.ScalarOverflowError):
        x[0:2] = data
    assert x.tolist() == [0, 0]


# -- asarray's scalar, move, range and leaf paths ----------------------------------------------------------------------
@pytest.mark.parametrize("backend", ["numpy", "torch"])
def test_a_python_float_with_an_integer_dtype_truncates_inside_the_range(backend):
    if backend == "torch":
        _torch()
    got = xb.asarray(2.75, dtype=xb.int16, backend=backend)
    assert (got.dtype, got.backend, got.tolist()) == (xb.int16, backend, 2)
    assert xb.asarray(-2.75, dtype=xb.int8, backend=backend).tolist() == -2
    with pytest.raises(xb.ScalarOverflowError):
        xb.asarray(-1.5, dtype=xb.uint8, backend=backend)


def test_moves_between_numpy_and_torch_with_a_dtype_cast_as_numpy_casts():
    _torch()
    h = np.array([1, -2, 2**31 - 1], dtype=np.int32)
    t = xb.asarray(h, backend="torch", dtype=xb.int64)
    assert (t.backend, t.dtype, t.tolist()) == ("torch", xb.int64, h.astype(np.int64).tolist())
    f = xb.asarray(xb.asarray([0.1, 1e300], dtype=xb.float64, backend="torch"), backend="numpy", dtype=xb.float32)
    assert (f.backend, f.dtype) == ("numpy", xb.float32)
    assert f.numpy().tolist() == np.array([0.1, 1e300]).astype(np.float32).tolist()


def test_ints_from_0_past_int64_are_uint64_and_negatives_past_it_are_refused():
    got = xb.asarray([0, 2**63, 2**64 - 1])
    assert got.dtype is xb.uint64 and got.tolist() == [0, 2**63, 2**64 - 1]
    with pytest.raises(xb.ScalarOverflowError):
        xb.asarray([-1, 2**63])


def test_python_ints_beside_a_bool_array_take_the_default_int_in_force():
    c = xb.asarray([True, False])
    with xb.using(default_int=xb.int32):
        assert xb.where(c, xb.asarray([True, False]), 1).dtype is xb.int32
    assert xb.where(c, xb.asarray([True, False]), 1).dtype is xb.int64
    with xb.using(default_float=xb.float32):
        assert xb.where(c, xb.asarray([True, False]), 1.5).dtype is xb.float32
    with xb.using(default_int=xb.int32, default_float=xb.float32):  # a list of a 0-d bool Array and Python numbers
        assert xb.asarray([xb.asarray(True), 1]).dtype is xb.int32
        assert xb.asarray([xb.asarray(True), 2.5]).dtype is xb.float32


def test_a_list_of_arrays_on_two_backends_names_the_first_ones_place_first():
    _torch()
    with pytest.raises(xb.BackendMismatchError, match=r"^operation mixes Arrays on backends numpy \(cpu\) and torch "
                                                      r"\(cpu\).*backend='numpy'"):  # fmt: skip
        xb.asarray([xb.asarray([1.0]), xb.asarray([2.0], backend="torch")])
    with pytest.raises(xb.BackendMismatchError, match=r"^operation mixes Arrays on backends torch \(cpu\) and numpy "):
        xb.asarray([xb.asarray([2.0], backend="torch"), xb.asarray([1.0])])


def test_requires_grad_makes_a_new_leaf_that_never_writes_the_callers_numpy_data():
    torch = _torch()
    h = np.arange(3.0, dtype=np.float32)
    w = xb.asarray(h, backend="torch", requires_grad=True)
    assert (w.dtype, w.backend, w.native.requires_grad, w.native.is_leaf) == (xb.float32, "torch", True, True)
    with torch.no_grad():
        w.native.add_(1.0)
    assert h.tolist() == [0.0, 1.0, 2.0]  # a parameter's updates stay off the caller's data
    t = torch.ones(2)
    leaf = xb.asarray(t, requires_grad=True)
    assert leaf.native.requires_grad and not t.requires_grad  # the caller's tensor keeps its own flag
    assert xb.asarray(leaf, requires_grad=True) is leaf


def test_a_plain_object_is_data_of_the_wrong_kind_not_a_foreign_array():
    """Only a type that offers its values as an array (``__array__``, ``__array_interface__``) from a library
    xbackend does not know is a foreign array; any other object is Python data that holds no numbers."""
    plain = type("Plain", (), {"__module__": "xb_user_things"})
    for data in (plain(), [plain(), plain()]):
        with pytest.raises(xb.UnsupportedDTypeError, match=r"^Unsupported data: cannot make an Array from a \w+ of "
                                                           r"Plain values"):  # fmt: skip
            xb.asarray(data)


# -- the paths of asarray that the mutation run found untested --------------------------------------------------------
@pytest.mark.parametrize("data, want", [
    ([2**70, 0.5], [float(2**70), 0.5]), ([0.5, -(2**70)], [0.5, float(-(2**70))]),
    ([[2**70], [0.5]], [[float(2**70)], [0.5]]), ([2**64, True, 1.5], [float(2**64), 1.0, 1.5]),
])  # fmt: skip
def test_ints_beyond_uint64_beside_floats_are_floats_as_in_python(data, want):
    """NumPy keeps such a list as objects; Python's int + float is a float, so the data is float64 (each int as
    float(i) rounds it) - it was refused as 'not numbers'."""
    for backend in ("numpy", "torch"):
        if backend == "torch":
            _torch()
        got = xb.asarray(data, backend=backend)
        assert got.dtype is xb.float64 and got.tolist() == want
    assert xb.asarray([2**70, 1j]).dtype is xb.complex128
    assert xb.asarray([2**70, True, 1.5, 1j]).tolist() == [float(2**70), 1.0, 1.5, 1j]  # every number type at once
    with pytest.raises(xb.ScalarOverflowError, match=r"beyond float64's range"):
        xb.asarray([2**1100, 0.5])
    for ints in ([2**71, 3], [2**71, True]):  # ints (and bools) alone: no dtype holds it, never a silent float64
        with pytest.raises(xb.ScalarOverflowError, match=r"^Python int 2361183241434822606848 in the data does not"):
            xb.asarray(ints)


def test_asarray_paths_of_arrays_casts_and_lists_of_arrays():
    torch = _torch()
    assert xb.asarray(xb.asarray([1.5, -2.7]), dtype=xb.int8).tolist() == [1, -2]  # an Array's floats, truncated
    with pytest.raises(xb.GradientError):
        xb.asarray(torch.ones(2, requires_grad=True), backend="numpy")  # never a silent detach
    mixed = xb.asarray([xb.asarray([1], dtype=xb.int8), xb.asarray([2.5]), [300]])  # 300 is weak to the promoted
    assert mixed.dtype is xb.float64 and mixed.tolist() == [[1.0], [2.5], [300.0]]  # float64, not to int8
    assert xb.asarray([xb.asarray(1.5), 2]).tolist() == [1.5, 2.0] and xb.asarray((xb.asarray([1, 2]),)).shape == (1, 2)
    with pytest.raises(xb.ScalarOverflowError, match=r"does not fit uint64"):  # from 0 up: uint64 is the candidate
        xb.asarray([0, 2**64])


def test_asarray_with_chunks_is_the_rechunked_array():
    pytest.importorskip("dask")
    h = np.arange(10.0)
    x = xb.asarray(h, backend="dask", chunks=3)
    assert x.native.chunks == ((3, 3, 3, 1),) and x.numpy().tolist() == h.tolist() and x.backend == "dask"
    y = xb.asarray(x, chunks=5, dtype=xb.float32)
    assert y.native.chunks == ((5, 5),) and y.dtype is xb.float32


def test_scalars_made_inside_a_jit_trace_never_reach_eager_code(monkeypatch):
    """A 0-d Array made from a Python number inside ``xb.jit``'s trace comes from the trace's own maker (a fake
    tensor); eager code afterwards gets a real one - the makers are kept per config, never shared."""
    torch = _torch()
    from dataclasses import replace

    from xbackend import _config

    monkeypatch.setattr(_config, "_base", replace(_config._base))  # no maker cached yet

    @xb.jit(backend_options={"backend": "aot_eager"})
    def shifted(x):
        return x + xb.asarray(2.5, dtype=x.dtype, device=x.device)

    x = xb.asarray(torch.ones(3, dtype=torch.float64))
    assert shifted(x).tolist() == [3.5] * 3
    eager = xb.asarray(2.5, dtype=xb.float64, backend="torch")
    assert type(eager.native) is torch.Tensor and eager.tolist() == 2.5  # a real tensor, not the trace's fake
    assert (x + eager).tolist() == [3.5] * 3
