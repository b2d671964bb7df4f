"""The shared argument checks (xbackend/_args.py): what each accepts, what it returns, and the one message per
mistake - the same on every backend because it is raised before any backend runs. Messages are part of the API
(docs/errors.md): they are checked whole here, once, so every other test may match on their key phrases."""

from __future__ import annotations

import numpy as np
import pytest

import xbackend as xb
from xbackend import _args as A


def _raises(cls, msg, fn, *args, **kwargs):
    with pytest.raises(cls) as info:
        fn(*args, **kwargs)
    assert type(info.value) is cls and str(info.value) == msg, str(info.value)


def test_describe_shows_short_values_only():
    assert A.describe(2) == "int 2"
    assert A.describe(2**70) == "int 1180591620717411303424"  # 22 characters: shown
    assert A.describe("x" * 22) == "str '" + "x" * 22 + "'"  # a repr of 24 characters: shown
    assert A.describe("x" * 23) == "str"  # 25: the type only
    assert A.describe(None) == "NoneType None"


def test_integer():
    for v in (3, np.int8(3), np.uint64(3), xb.asarray(3)):
        r = A.integer(v, "f", "n")
        assert r == 3 and type(r) is int
    fix = "Fix: pass a Python int (n=int(v) rounds towards zero)"
    _raises(xb.ArgumentTypeError, f"f(): n must be an int, got bool True. {fix}", A.integer, True, "f", "n")
    npbool = f"{type(np.True_).__name__} {np.True_!r}"
    _raises(xb.ArgumentTypeError, f"f(): n must be an int, got {npbool}. {fix}", A.integer, np.True_, "f", "n")
    _raises(xb.ArgumentTypeError, f"f(): n must be an int, got float 2.5. {fix}", A.integer, 2.5, "f", "n")
    _raises(xb.ArgumentTypeError, f"f(): n must be an int, got str '3'. {fix}", A.integer, "3", "f", "n")
    with pytest.raises(xb.ArgumentTypeError, match=r"^f\(\): n must be an int, got Array \(.+\)$"):
        A.integer(xb.asarray([1, 2]), "f", "n")  # has __index__, but not a 0-d integer Array


def test_flag():
    assert A.flag(True, "f", "keepdims") is True and A.flag(False, "f", "keepdims") is False
    assert A.flag(np.True_, "f", "keepdims") is True and A.flag(np.False_, "f", "keepdims") is False
    for v, shown in ((1, "int 1"), ("yes", "str 'yes'"), (None, "NoneType None")):
        _raises(xb.ArgumentTypeError, f"f(): keepdims must be a bool (True or False), got {shown}",
                A.flag, v, "f", "keepdims")


def test_axis_range_edges():
    assert [A.axis(a, 3, "sum") for a in (-3, -2, -1, 0, 1, 2)] == [0, 1, 2, 0, 1, 2]
    assert A.axis(np.int64(-1), 2, "sum") == 1
    for a in (3, -4):
        _raises(xb.AxisError, f"sum(): axis {a} is out of range for a 3-d Array. Fix: pass an axis in -3..2",
                A.axis, a, 3, "sum")
    _raises(xb.AxisError, "sum(): dim 1 is out of range for a 1-d Array. Fix: pass an axis in -1..0",
            A.axis, 1, 1, "sum", "dim")
    for a in (0, -1):
        _raises(xb.AxisError, f"sum(): axis {a} is out of range: a 0-d Array has no axes. Fix: give it one first, "
                "e.g. xb.reshape(x, (1,))", A.axis, a, 0, "sum")
    _raises(xb.ArgumentTypeError, "sum(): axis must be an int, got float 1.0. Fix: pass a Python int "
            "(axis=int(v) rounds towards zero)", A.axis, 1.0, 3, "sum")


def test_axes():
    assert A.axes(None, 3, "sum") == (0, 1, 2) and A.axes(None, 0, "sum") == ()
    assert A.axes(-1, 3, "sum") == (2,)
    assert A.axes((2, 0), 3, "sum") == (2, 0) and A.axes([2, 0], 3, "sum") == (2, 0)  # the order given
    assert A.axes((2, 0), 3, "sum", sort=True) == (0, 2)
    assert A.axes((0, -3), 3, "sum", unique=False) == (0, 0)
    _raises(xb.AxisError, "sum(): axis (0, -3) names an axis more than once", A.axes, (0, -3), 3, "sum")
    _raises(xb.AxisError, "f(): dims (1, 1) names an axis more than once", A.axes, [1, 1], 2, "f", "dims")
    _raises(xb.AxisError, "sum(): axis 5 is out of range for a 3-d Array. Fix: pass an axis in -3..2",
            A.axes, (0, 5), 3, "sum")


def test_shape():
    assert A.shape(0, "f") == (0,) and A.shape(3, "f") == (3,)
    t = (2, 3)
    assert A.shape(t, "f") is t and A.shape(t, "f") is t  # accepted as it is (the second time from the shortcut)
    assert A.shape([2, 3], "f") == (2, 3) and A.shape(np.int64(4), "f") == (4,)
    assert A.shape((np.int64(2), 3), "f") == (2, 3)
    assert A.shape((2, -1), "reshape", minimum=-1) == (2, -1) and A.shape(-1, "reshape", minimum=-1) == (-1,)
    fix = "Fix: pass a Python int (shape entry=int(v) rounds towards zero)"
    # the same object was accepted last: values equal to it but of other types are still refused
    _raises(xb.ArgumentTypeError, f"f(): shape entry must be an int, got float 2.0. {fix}", A.shape, (2.0, 3), "f")
    _raises(xb.ArgumentTypeError, f"f(): shape entry must be an int, got bool True. {fix}", A.shape, (True,), "f")
    _raises(xb.ArgumentTypeError, "f(): shape must be an int or a tuple of ints, got str 'ab'", A.shape, "ab", "f")
    _raises(xb.ArgumentTypeError, "f(): shape must be an int or a tuple of ints, got bool True", A.shape, True, "f")
    _raises(xb.ArgumentValueError, "f(): negative dimensions are not allowed, got shape (-1,)", A.shape, -1, "f")
    _raises(xb.ArgumentValueError, "f(): negative dimensions are not allowed, got shape (2, -1)",
            A.shape, (2, -1), "f")
    _raises(xb.ArgumentValueError, "f(): negative dimensions are not allowed, got size (-2,)",
            A.shape, [-2], "f", "size")
    _raises(xb.ArgumentValueError, "reshape(): invalid shape (2, -2): entries must be >= 0, or -1 for one inferred "
            "dimension", A.shape, (2, -2), "reshape", minimum=-1)


def test_shape_returns_an_accepted_tuple_itself():
    for t in ((0, 2), (0,), (), (1, 0, 3)):  # zero-length dimensions are shapes too
        assert A.shape(t, "f") is t


def test_shape_shortcut_tells_apart_calls_that_differ_in_one_entry():
    good, bad = (4, 5), (4, -5)
    assert A.shape(good, "f") is good
    with pytest.raises(xb.ArgumentValueError):
        A.shape(bad, "f")
    assert A.shape(good, "f") is good


def test_check_size_at_the_addressable_limit():
    A.check_size((), 8, "f")
    A.check_size((2**63 - 1,), 1, "f")  # exactly the limit
    A.check_size((2**61, 3), 1, "f")  # 3 * 2**61 < 2**63
    A.check_size((0, 2**63 - 1), 1, "f")  # empty, and each size within the bound
    n = 2**63
    _raises(xb.ShapeError, f"f(): a result of shape ({n},) would need {n} bytes (counting sizes of 0 as 1), more than "
            "any machine can address. Fix: ask for a smaller shape", A.check_size, (n,), 1, "f")
    _raises(xb.ShapeError, f"f(): a result of shape (2, {2**62}) would need {2**66} bytes (counting sizes of 0 as 1), "
            "more than any machine can address. Fix: ask for a smaller shape", A.check_size, (2, 2**62), 8, "f")
    # empty, but a size no index reaches (NumPy's rule: eye(2**63, 0) raises there; torch's int64 sizes overflow)
    _raises(xb.ShapeError, f"f(): a result of shape (0, {2**80}) would need {2**83} bytes (counting sizes of 0 as 1), "
            "more than any machine can address. Fix: ask for a smaller shape", A.check_size, (0, 2**80), 8, "f")
    _raises(xb.ShapeError, f"f(): a result of shape ({2**62}, 0) would need {2**63} bytes (counting sizes of 0 as 1), "
            "more than any machine can address. Fix: ask for a smaller shape", A.check_size, (2**62, 0), 2, "f")


def test_choice():
    options = ("left", "right")
    assert A.choice("right", options, "f", "side") == "right"
    _raises(xb.ArgumentValueError, "f(): side must be one of 'left', 'right', got 'up'", A.choice, "up", options,
            "f", "side")
    _raises(xb.ArgumentTypeError, "f(): side must be one of 'left', 'right', got int 1", A.choice, 1, options, "f",
            "side")
    assert A.choice(1, (0, 1), "f", "n") == 1
    _raises(xb.ArgumentValueError, "f(): n must be one of 0, 1, got True", A.choice, True, (0, 1), "f", "n")


def test_real_number():
    from decimal import Decimal
    from fractions import Fraction

    for v, want in ((Fraction(1, 2), 0.5), (Decimal("1.5"), 1.5), (2, 2), (2.5, 2.5), (np.int8(3), 3), (np.float32(0.5), 0.5), (xb.asarray(1.5), 1.5),
                    (xb.asarray(4), 4.0), (xb.asarray(np.float32(0.25)), 0.25)):  # fmt: skip
        r = A.real_number(v, "f", "x")
        assert r == want and type(r) is type(want), (v, r)
    for v, shown in ((True, "bool True"), (np.True_, f"{type(np.True_).__name__} {np.True_!r}"), (1j, "complex 1j"),
                     (np.complex64(1), f"complex64 {np.complex64(1)!r}"), (None, "NoneType None"), ("1", "str '1'"),
                     (xb.asarray(True), "Array"), (xb.asarray([1.0]), "Array"), (xb.asarray(1j), "Array")):  # fmt: skip
        _raises(xb.ArgumentTypeError, f"f(): x must be a real number, got {shown}", A.real_number, v, "f", "x")


# -- the argument checks' messages: the function first, then the argument and what it got, then a fix -------------
_MESSAGES = [  # (call, error, the message's start, what its fix says)
    (lambda: xb.sum(xb.ones((2, 2)), axis=(0, 5)), xb.AxisError, "sum(): axis 5 is out of range for a 2-d Array.",
     "an axis in -2..1"),
    (lambda: xb.sum(xb.ones((2, 2)), axis=(0, 1.0)), xb.ArgumentTypeError, "sum(): axis must be an int, got float 1.0.",
     "axis=int(v)"),
    (lambda: xb.zeros((2, 1.5)), xb.ArgumentTypeError, "zeros(): shape entry must be an int, got float 1.5.",
     "a Python int"),
    (lambda: xb.ones([3, True]), xb.ArgumentTypeError, "ones(): shape entry must be an int, got bool True.",
     "a Python int"),
]


@pytest.mark.parametrize("i", range(len(_MESSAGES)))
def test_argument_messages_name_the_function_then_the_argument(i):
    call, cls, start, fix = _MESSAGES[i]
    with pytest.raises(cls) as info:
        call()
    msg = str(info.value)
    assert msg.startswith(start) and fix in msg.split(" Fix: ", 1)[1], msg
