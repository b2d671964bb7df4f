"""The Array object: properties, operators (plain, reflected, in-place), conversions, indexing,
iteration, repr, the namespace, host conversion, moving, and autograd on torch."""

from __future__ import annotations

import operator
import warnings

import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

import xbackend as xb
from xbackend.testing import assert_close, available_targets

from fakecupy import with_cupy_on_numpy  # noqa: E402 (tests/fakecupy.py)

TARGETS = with_cupy_on_numpy(available_targets())  # CuPy on NumPy too: CupyBackend's code on the CPU (issue 28)



# -- construction and properties -----------------------------------------------------------------
def test_array_cannot_be_called_directly():
    with pytest.raises(TypeError, match="asarray"):
        xb.Array(np.zeros(2))


def test_properties(xb_target):
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    x = xb_target.asarray(a)
    assert x.dtype is xb.float32 and x.shape == (2, 3, 4) and x.ndim == 3 and x.size == 24
    assert x.backend == xb_target.backend and x.device == xb_target.device
    assert isinstance(x.device, xb.Device)
    from xbackend._dispatch import backend_for_type  # the native type belongs to the backend's library

    assert backend_for_type(type(x.native)).name == xb_target.backend  # (JAX's class lives in jaxlib)
    assert type(x.shape) is tuple and all(type(s) is int for s in x.shape)
    assert_close(x.mT, np.swapaxes(a, -1, -2))
    m = xb_target.asarray(a[0])
    assert_close(m.T, a[0].T)
    with pytest.raises(ValueError, match="mT"):
        x.T
    with pytest.raises(ValueError):
        xb_target.asarray(np.zeros(3)).mT
    assert xb_target.asarray(np.zeros((0, 3))).size == 0
    assert xb_target.asarray(np.float64(1.0)).shape == ()


# -- operators --------------------------------------------------------------------------------------
BINARY_OPS = {
    "__add__": xb.add, "__sub__": xb.subtract, "__mul__": xb.multiply, "__truediv__": xb.divide,
    "__floordiv__": xb.floor_divide, "__mod__": xb.remainder, "__pow__": xb.pow, "__and__": xb.bitwise_and,
    "__or__": xb.bitwise_or, "__xor__": xb.bitwise_xor, "__lshift__": xb.bitwise_left_shift,
    "__rshift__": xb.bitwise_right_shift, "__eq__": xb.equal, "__ne__": xb.not_equal, "__lt__": xb.less,
    "__le__": xb.less_equal, "__gt__": xb.greater, "__ge__": xb.greater_equal,
}  # fmt: skip
UNARY_OPS = {"__neg__": xb.negative, "__pos__": xb.positive, "__abs__": xb.abs, "__invert__": xb.bitwise_invert}
INT_ONLY = {"__and__", "__or__", "__xor__", "__lshift__", "__rshift__", "__invert__"}


@pytest.mark.parametrize("dunder", sorted(BINARY_OPS))
def test_binary_operator_is_the_function(xb_target, dunder):
    f = BINARY_OPS[dunder]
    dt = np.int32 if dunder[2:-2] in {d[2:-2] for d in INT_ONLY} else np.float64
    a = np.array([[1, 6, 3], [4, 2, 7]], dtype=dt)
    b = np.array([2, 1, 3], dtype=dt)
    x, y = xb_target.asarray(a), xb_target.asarray(b)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = f(x, y)
        got = getattr(x, dunder)(y)
        assert got.dtype is want.dtype
        assert_close(got, want)
        # reflected with a Python scalar: 3 op x
        s = 3 if dt is np.int32 else 2.5
        rname = "__r" + dunder[2:]
        if hasattr(xb.Array, rname) and dunder not in ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"):
            assert_close(getattr(x, rname)(s), f(s, x))
            assert_close(eval(f"s {_SYMBOL[dunder]} x"), f(s, x))
        assert_close(eval(f"x {_SYMBOL[dunder]} s"), f(x, s))


_SYMBOL = {
    "__add__": "+", "__sub__": "-", "__mul__": "*", "__truediv__": "/", "__floordiv__": "//", "__mod__": "%",
    "__pow__": "**", "__and__": "&", "__or__": "|", "__xor__": "^", "__lshift__": "<<", "__rshift__": ">>",
    "__eq__": "==", "__ne__": "!=", "__lt__": "<", "__le__": "<=", "__gt__": ">", "__ge__": ">=",
}  # fmt: skip


def test_native_operand_of_the_same_backend_is_accepted(xb_target):
    x = xb_target.asarray(np.array([1.0, 2.0]))
    n = xb_target.asarray(np.array([10.0, 20.0])).native
    assert_close(x + n, np.array([11.0, 22.0]))
    r = n - x  # the native array defers to our reflected operator
    assert type(r) is xb.Array
    assert_close(r, np.array([9.0, 18.0]))


@pytest.mark.parametrize("dunder", sorted(UNARY_OPS))
def test_unary_operators(xb_target, dunder):
    a = np.array([-2, 0, 3], dtype=np.int16)
    x = xb_target.asarray(a)
    got = getattr(x, dunder)()
    assert got.dtype is xb.int16
    assert_close(got, UNARY_OPS[dunder](x))
    assert_close(got, {"__neg__": -a, "__pos__": +a, "__abs__": abs(a), "__invert__": ~a}[dunder])
    assert got.native is not x.native


@pytest.mark.parametrize("sym", ["+", "-", "*", "/", "//", "%", "**", "&", "|", "^", "<<", ">>"])
def test_inplace_operators(xb_target, sym):
    dt = np.int64 if sym in "&|^<<>>" else np.float64
    a = np.array([[5, 6, 7], [8, 9, 10]], dtype=dt)
    b = np.array([1, 2, 3], dtype=dt)
    x = xb_target.asarray(a.copy())  # NumPy data is shared, not copied
    view = x[1]
    ident = id(x)
    y = xb_target.asarray(b)
    ns = {"x": x, "y": y}
    exec(f"x {sym}= y", ns)
    assert id(ns["x"]) == ident and ns["x"].dtype is x.dtype
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = eval(f"a {sym} b")
    assert_close(ns["x"], want)
    assert_close(view, want[1])  # writes land in the original memory (views see them)
    ns2 = {"x": xb_target.asarray(a.copy())}
    exec(f"x {sym}= 2", ns2)
    assert_close(ns2["x"], eval(f"a {sym} 2"))


def test_inplace_that_would_change_dtype_raises(xb_target):
    # a result of a higher kind than x's (int op= float, int /= int, anything into bool) cannot be stored in place
    x = xb_target.asarray(np.array([1, 2], dtype=np.int8))
    with pytest.raises(xb.PromotionError, match="in-place"):
        x += 1.5
    with pytest.raises(xb.PromotionError, match="in-place"):
        x += xb_target.asarray(np.array([1.0, 2.0], dtype=np.float32))
    with pytest.raises(xb.PromotionError):
        x /= 2
    with pytest.raises(xb.PromotionError, match="in-place"):
        b = xb_target.asarray(np.array([True, False]))
        b += xb_target.asarray(np.array([1, 0], dtype=np.int8))
    with pytest.raises(xb.ScalarOverflowError):
        x += 1000
    assert x.tolist() == [1, 2] and x.dtype is xb.int8


def test_inplace_results_of_a_lower_kind_are_stored_as_numpy_and_torch_store_them(xb_target):
    # int8 += int16 (or uint8), float32 += float64: the result computed as x op y, stored in x's dtype by the
    # assignment rule (docs/behaviour.md): floats rounded, ints checked to fit - never wrapped as NumPy does
    a = np.array([1, -2, 3], dtype=np.int8)
    for other in (np.array([100, 5, -3], dtype=np.int16), np.array([0, 7, 9], dtype=np.uint8),
                  np.array([2, 2, 2], dtype=np.int64)):  # fmt: skip
        x = xb_target.asarray(a.copy())
        x += xb_target.asarray(other)
        want = a.copy()
        want += other  # NumPy's same_kind in-place cast
        assert x.dtype is xb.int8
        np.testing.assert_array_equal(x.numpy(), want, strict=True)
    x = xb_target.asarray(a.copy())
    with pytest.raises(xb.ScalarOverflowError, match="never wraps"):
        x *= xb_target.asarray(np.array([200, 1, 1], dtype=np.int16))  # 200 does not fit int8
    assert x.tolist() == a.tolist()  # nothing written
    if xb_target.holds(xb.float64):
        f32 = np.array([1.5, 2.25, -1.0], dtype=np.float32)
        d = np.array([0.1, 1e-9, 3.0])
        f = xb_target.asarray(f32.copy())
        f += xb_target.asarray(d)
        assert f.dtype is xb.float32
        np.testing.assert_array_equal(f.numpy(), (f32 + d).astype(np.float32), strict=True)
    f = xb_target.asarray(np.array([1.0, 2.0], dtype=np.float32))
    f += xb_target.asarray(np.array([1, 2], dtype=np.int8))  # int8 -> float32 is lossless for the table
    assert f.dtype is xb.float32 and f.tolist() == [2.0, 4.0]


def test_matmul_of_a_0d_operand_raises_the_same_error_everywhere(xb_target):
    """Either side 0-d, operator or function: one ValueError naming the fix, whatever the library raises."""
    s, v = xb_target.asarray(np.float64(2.0)), xb_target.asarray(np.ones(3))
    for call in (lambda: s @ v, lambda: v @ s, lambda: xb.matmul(s, v), lambda: xb.matmul(v, s)):
        with pytest.raises(ValueError, match="at least one dimension. Fix: use \\* for 0-d"):
            call()


def test_matmul_operators(xb_target):
    a = np.arange(6.0).reshape(2, 3)
    b = np.arange(12.0).reshape(3, 4)
    x, y = xb_target.asarray(a), xb_target.asarray(b)
    assert_close(x @ y, a @ b)
    assert_close(x @ y.native, a @ b)
    assert_close(x.native @ y, a @ b)
    assert_close(xb.matmul(x, y), a @ b)
    sq = xb_target.asarray(np.eye(3) * 2)
    z = xb_target.asarray(a.copy())
    z @= sq
    assert_close(z, a * 2)
    with pytest.raises(TypeError):
        x @ 2.0
    with pytest.raises(ValueError):
        xb_target.asarray(np.float64(1.0)) @ x
    with pytest.raises(xb.PromotionError):
        w = xb_target.asarray(a.copy())
        w @= y


def test_arrays_are_unhashable(xb_target):
    with pytest.raises(TypeError):
        hash(xb_target.asarray(np.zeros(2)))


# -- Python scalars out -------------------------------------------------------------------------------
def test_python_scalar_conversions(xb_target):
    f = xb_target.asarray(np.array([2.5]))
    i = xb_target.asarray(np.array(7, dtype=np.int16))
    b = xb_target.asarray(np.array([[True]]))
    c = xb_target.asarray(np.array(1 + 2j))
    assert float(f) == 2.5 and type(float(f)) is float
    assert int(f) == 2 and int(i) == 7 and type(int(i)) is int
    assert bool(b) is True and bool(xb_target.asarray(np.array(0.0))) is False
    assert complex(c) == 1 + 2j and complex(f) == 2.5 + 0j
    assert operator.index(i) == 7 and [10, 20, 30, 40, 50, 60, 70, 80][i] == 80
    assert i.item() == 7 and type(i.item()) is int
    assert f.item() == 2.5 and type(b.item()) is bool and c.item() == 1 + 2j
    with pytest.raises(ValueError, match=r"ambiguous. Fix: use xb.any\(x\) or xb.all\(x\)"):  # NumPy's class
        bool(xb_target.asarray(np.array([1.0, 2.0])))
    with pytest.raises(TypeError, match="one element"):
        float(xb_target.asarray(np.zeros(0)))
    with pytest.raises(TypeError):
        xb_target.asarray(np.array([1, 2])).item()
    with pytest.raises(TypeError, match="complex"):
        float(c)
    with pytest.raises(TypeError):
        int(c)
    with pytest.raises(TypeError):
        operator.index(f)
    with pytest.raises(TypeError):
        operator.index(xb_target.asarray(np.array([3])))  # 1-d is not an index


def test_tolist(xb_target):
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    assert xb_target.asarray(a).tolist() == a.tolist()
    assert xb_target.asarray(np.array(1.5)).tolist() == 1.5
    assert xb_target.asarray(np.array([True, False])).tolist() == [True, False]
    assert xb_target.asarray(np.zeros((2, 0))).tolist() == [[], []]


# -- indexing --------------------------------------------------------------------------------------
@st.composite
def _indexed(draw):
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5))
    idx = draw(hnp.basic_indices(shape, allow_newaxis=True, allow_ellipsis=True))
    return shape, idx


@given(case=_indexed())
def test_basic_indexing_get(case):
    shape, idx = case
    a = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    for t in TARGETS:
        x = t.asarray(a)
        got = x[idx]
        assert got.dtype is xb.float32 and got.shape == a[idx].shape, (t, idx)
        assert_close(got, a[idx], msg=f"{idx} on {t}")


@given(case=_indexed(), value=st.integers(-100, 100), as_array=st.booleans())
def test_basic_indexing_set(case, value, as_array):
    shape, idx = case
    a = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    want = a.copy()
    want[idx] = value
    for t in TARGETS:
        x = t.asarray(a.copy())
        v = t.asarray(np.full(a[idx].shape, value, dtype=np.int64)) if as_array else value
        x[idx] = v
        assert_close(x, want, msg=f"x[{idx}] = {value} on {t}")


def test_negative_step_slices(xb_target):
    a = np.arange(20).reshape(4, 5)
    x = xb_target.asarray(a)
    for idx in [(slice(None, None, -1),), (slice(None), slice(None, None, -2)), (slice(3, 0, -2), slice(4, None, -1)),
                (Ellipsis, slice(-1, -6, -3)), (None, slice(None, None, -1), 2), (slice(10, -10, -1),)]:  # fmt: skip
        assert_close(x[idx], a[idx], msg=str(idx))
        y = xb_target.asarray(a.copy())
        b = a.copy()
        b[idx] = -1
        y[idx] = -1
        assert_close(y, b, msg=str(idx))
        y = xb_target.asarray(a.copy())
        b = a.copy()
        src = np.arange(a[idx].size).reshape(a[idx].shape) * 100
        b[idx] = src
        y[idx] = xb_target.asarray(src)
        assert_close(y, b, msg=str(idx))


def test_index_with_arrays_and_ellipsis(xb_target):
    a = np.arange(24).reshape(2, 3, 4)
    x = xb_target.asarray(a)
    assert_close(x[..., 1], a[..., 1])
    assert_close(x[None, ..., None], a[None, ..., None])
    assert_close(x[xb_target.asarray(np.array(1))], a[1])  # 0-d integer Array is an integer index
    m = xb_target.asarray(a % 2 == 0)
    assert_close(x[m], a[a % 2 == 0])
    with pytest.raises(IndexError):
        x[xb_target.asarray(np.array([0.5]))]
    with pytest.raises(IndexError):
        x[5]


def test_setitem_values_are_checked(xb_target):
    x = xb_target.asarray(np.zeros(3, dtype=np.int8))
    with pytest.raises(xb.PromotionError, match="Fix"):
        x[0] = 1.5
    x[:] = xb_target.asarray(np.zeros(3, dtype=np.int64))  # int64 values that fit int8 (issue 9)
    with pytest.raises(OverflowError):
        x[:] = xb_target.asarray(np.full(3, 1000, dtype=np.int64))
    with pytest.raises(xb.PromotionError):
        x[:] = xb_target.asarray(np.ones(3, dtype=np.float32))
    with pytest.raises(OverflowError):
        x[0] = 1000
    x[1] = True
    x[2] = 5
    assert x.tolist() == [0, 1, 5]
    f = xb_target.asarray(np.zeros(2, dtype=np.float32))
    f[0] = 3  # an int into a float Array is fine
    f[1:] = [2.5]  # host data is converted
    assert f.tolist() == [3.0, 2.5]


def test_len_and_iter(xb_target):
    a = np.arange(6).reshape(3, 2)
    x = xb_target.asarray(a)
    assert len(x) == 3
    rows = list(x)
    assert len(rows) == 3 and all(type(r) is xb.Array and r.shape == (2,) for r in rows)
    assert [r.tolist() for r in rows] == a.tolist()
    z = xb_target.asarray(np.array(1.0))
    with pytest.raises(TypeError):
        len(z)
    with pytest.raises(TypeError):
        iter(z).__next__()
    assert list(xb_target.asarray(np.zeros((0, 2)))) == []


# -- repr, namespace, host conversion -------------------------------------------------------------------
def test_repr_shows_backend_device_dtype(xb_target):
    x = xb_target.asarray(np.array([1.5, 2.0], dtype=np.float32))
    r = repr(x)
    assert r.startswith("Array(") and "1.5" in r
    assert f"backend={xb_target.backend!r}" in r and f"device={str(x.device)!r}" in r and "dtype=float32" in r
    assert str(x) == r


def test_repr_on_meta_device():
    pytest.importorskip("torch")
    x = xb.zeros((2, 3), backend="torch", device="meta")
    r = repr(x)
    assert "meta" in r and "float64" in r and "(2, 3)" in r


def test_array_namespace(xb_target):
    x = xb_target.asarray(np.zeros(2))
    xp = x.__array_namespace__()  # bound to x's backend and device (tests/test_devices.py has the details)
    assert xp is xb_target.asarray([1]).__array_namespace__()
    assert x.__array_namespace__(api_version="2025.12") is xp
    assert x.__array_namespace__(api_version="2023.12") is xp
    assert xp.__array_api_version__ == "2025.12" and xp.sum is xb.sum
    with pytest.raises(ValueError, match="2025.12"):
        x.__array_namespace__(api_version="1999.01")
    assert xb.__array_api_version__ == "2025.12"


def test_array_protocol_on_the_cpu(xb_target):
    """np.asarray works on CPU Arrays; on a device it raises HostTransferError (never a silent copy)."""
    a = np.arange(3.0)
    x = xb_target.asarray(a)
    if x.device.type == "cpu":
        assert np.asarray(x).tolist() == [0.0, 1.0, 2.0]
        assert np.asarray(x, dtype=np.float32).dtype == np.float32
    else:
        with pytest.raises(xb.HostTransferError, match=r"numpy\(\)"):
            np.asarray(x)
        with pytest.raises(xb.HostTransferError):
            np.asarray(x, dtype=np.float32)
    h = x.numpy()
    assert type(h) is np.ndarray and h.tolist() == a.tolist()
    assert xb.to_numpy(x).tolist() == a.tolist()


def test_array_protocol_refuses_device_data():
    pytest.importorskip("torch")
    x = xb.zeros(3, backend="torch", device="meta")
    with pytest.raises(xb.HostTransferError, match=r"numpy\(\)"):
        np.asarray(x)
    with pytest.raises(TypeError):  # HostTransferError is a TypeError
        x.__array__()


def test_numpy_is_a_copy_and_sharing_is_explicit():
    """x.numpy() is a snapshot on every backend (issue 32); copy=None and np.asarray share on the CPU."""
    a = np.arange(3.0)
    x = xb.asarray(a)
    assert not np.shares_memory(x.numpy(), a)
    assert x.numpy(copy=None) is a or np.shares_memory(x.numpy(copy=None), a)
    assert np.shares_memory(np.asarray(x), a) and np.shares_memory(xb.to_numpy(x, copy=False), a)


# -- moving ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dst", [t for t in TARGETS])
def test_to_between_targets(xb_target, dst):
    a = np.array([[1.0, -2.0], [3.5, 4.0]], dtype=np.float32)
    x = xb_target.asarray(a)
    y = x.to(backend=dst.backend, device=dst.device)
    assert y.backend == dst.backend and y.device == dst.device and y.dtype is xb.float32
    assert_close(y, a)
    z = x.to(dtype=xb.float64)
    assert z.dtype is xb.float64 and z.backend == x.backend
    assert_close(z, a.astype(np.float64))
    assert x.to() is x or xb.shares_memory(x.to(), x)
    c = x.to(copy=True)
    assert not xb.shares_memory(c, x)
    assert x.astype(xb.int32).dtype is xb.int32 and x.astype(xb.float32, copy=False) is x


def test_to_device_on_torch():
    pytest.importorskip("torch")
    x = xb.asarray(np.arange(4.0), backend="torch")
    m = x.to_device("meta")
    assert m.device == "meta" and m.backend == "torch" and m.shape == (4,) and m.dtype is xb.float64
    assert x.to_device("cpu") is x or xb.shares_memory(x.to_device("cpu"), x)
    with pytest.raises(xb.UnknownDeviceError):
        x.to_device("tpu")


def test_to_device_numpy(xb_target):
    x = xb.asarray(np.arange(2.0))
    assert x.to_device("cpu").device == "cpu"
    with pytest.raises(xb.UnknownDeviceError, match="Fix"):
        x.to_device("cuda:0")


# -- autograd ----------------------------------------------------------------------------------------------------
def test_autograd_is_kept_through_ops():
    torch = pytest.importorskip("torch")
    t = torch.tensor([0.5, 1.0, 2.0], dtype=torch.float64, requires_grad=True)
    x = xb.asarray(t)
    assert x.native is t and x.requires_grad
    y = xb.exp(x) * x + 3.0 - xb.sin(x) / 2
    y = y ** 2
    y = y[1:]
    assert y.requires_grad
    y.native.sum().backward()
    tv = t.detach()
    f = torch.exp(tv) * tv + 3.0 - torch.sin(tv) / 2
    df = torch.exp(tv) * tv + torch.exp(tv) - torch.cos(tv) / 2
    want = (2 * f * df).numpy()
    want[0] = 0.0
    assert_close(t.grad.numpy(), want)
    with pytest.raises(xb.GradientError, match="detach"):
        y.numpy()
    with pytest.raises(xb.GradientError):
        np.asarray(y)
    assert not y.detach().requires_grad
    assert y.detach().numpy().shape == (2,)


def test_autograd_through_complex_add():
    torch = pytest.importorskip("torch")
    t = torch.tensor([1 + 1j, 2 - 1j], dtype=torch.complex128, requires_grad=True)
    x = xb.asarray(t)
    y = x + x * 2j - 1
    assert y.requires_grad
    xb.abs(y).native.sum().backward()
    assert t.grad is not None and t.grad.shape == (2,)


def test_inplace_and_setitem_keep_autograd_on_torch():
    torch = pytest.importorskip("torch")
    t = torch.tensor([1.0, 2.0], requires_grad=True)
    x = xb.asarray(t) * 1.0
    x *= 3.0
    x[0] = 0.0
    assert x.requires_grad
    x.native.sum().backward()
    assert t.grad.tolist() == [0.0, 3.0]


TORCH_UINT64_REFUSES = {("torch", xb.uint64, "//"), ("torch", xb.uint64, "%")}  # the only refusals (docs)


@pytest.mark.parametrize("dt", [xb.uint16, xb.uint32, xb.uint64], ids=str)
def test_wide_unsigned_operators_indexing_in_place(xb_target, dt):
    """torch lacks most uint16/32/64 kernels: these work exactly or raise UnsupportedDTypeError, nothing else."""
    hi = xb.iinfo(dt).max
    a = np.array([0, 3, hi - 1, hi], dtype=dt.name)
    checks = [
        ("x[::-1]", lambda x: x[::-1], a[::-1]),
        ("x[x > 2]", lambda x: x[x > 2], a[a > 2]),
        ("x + 1", lambda x: x + 1, a + np.array(1, dt.name)),
        ("x * x", lambda x: x * x, a * a),
        ("x // 2", lambda x: x // 2, a // np.array(2, dt.name)),
        ("x % 3", lambda x: x % 3, a % np.array(3, dt.name)),
        ("x >> 1", lambda x: x >> 1, a >> np.array(1, dt.name)),
        ("-x", lambda x: -x, (0 - a.astype(object)) % (hi + 1)),
        ("abs(x)", lambda x: abs(x), a),
        ("x == hi", lambda x: x == hi, a == hi),
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for what, f, want in checks:
            x = xb_target.asarray(a.copy())
            try:
                r = f(x)
            except xb.UnsupportedDTypeError:  # documented: torch cannot emulate uint64 // and % exactly
                assert (xb_target.backend, dt, what[2:4].strip()) in TORCH_UINT64_REFUSES, what
                continue
            want = np.asarray(want)
            assert r.dtype is (xb.bool if want.dtype == bool else dt), what  # the dtype is part of the result
            assert_close(r, want.astype(r.dtype.name) if want.dtype == object else want, msg=what)
        for stmt, want in (("x += 1", a + np.array(1, dt.name)), ("x *= 2", a * np.array(2, dt.name)),
                           ("x //= 2", a // np.array(2, dt.name)), ("x[::-2] = 7", None),
                           ("x[1] = x[0]", None)):  # fmt: skip
            ns = {"x": xb_target.asarray(a.copy())}
            try:
                exec(stmt, ns)
            except xb.UnsupportedDTypeError:
                assert (xb_target.backend, dt, stmt[2:4].strip("= ")) in TORCH_UINT64_REFUSES, stmt
                continue
            assert ns["x"].dtype is dt, stmt
            if want is None:
                want = a.copy()
                exec(stmt, {"x": want})
            assert_close(ns["x"], want, msg=stmt)


# -- 0-d Arrays are 0-d arrays (issue 19): NumPy, matplotlib and DLPack accept them ---------------
_ZERO_D = {
    "x[1]": lambda x: x[1],
    "x[-1, ...]": lambda x: x[-1, ...],
    "sum(x) + 1": lambda x: xb.sum(x) + 1,
    "x[0] * x[1]": lambda x: x[0] * x[1],
    "-x[0]": lambda x: -x[0],
    "exp(x[0])": lambda x: xb.exp(x[0]),
    "x[0] > 1.0": lambda x: x[0] > 1.0,
    "x @ x": lambda x: x @ x,
    "vector_norm(x)": lambda x: xb.linalg.vector_norm(x),
    "det(eye)": lambda x: xb.linalg.det(xb.eye(2, dtype=x.dtype, device=x.device)),
    "clip(x[0])": lambda x: xb.clip(x[0], 0.0, 1.0),
    "unstack(x)[0]": lambda x: xb.unstack(x)[0],
}


@pytest.mark.parametrize("what", list(_ZERO_D))
def test_zero_d_results_are_arrays(xb_target, what):
    """Every 0-d result holds the backend's array type (never a NumPy scalar), and the host protocols take it."""
    x = xb_target.asarray([1.5, 2.5, 3.5])
    r = _ZERO_D[what](x)
    assert r.ndim == 0
    from xbackend._dispatch import backend_for_type

    assert not isinstance(r.native, np.generic), type(r.native)
    assert backend_for_type(type(r.native)).name == xb_target.backend
    if x.device.type == "cpu" and not r._be.lazy:  # (a lazy Array refuses np.asarray: it would compute silently)
        h = np.asarray(r)
        assert type(h) is np.ndarray and h.shape == () and h.item() == r.item()
        assert bool(np.isclose(r, r.item()))


def test_zero_d_numpy_views_and_interchange():
    """x[i] is a 0-d *view* on NumPy as on torch (a write lands in x), and DLPack/matplotlib-style list
    conversion accept 0-d results."""
    x = xb.asarray([1.0, 2.0, 3.0])
    y = x[1]
    y[...] = 7.0
    assert x.tolist() == [1.0, 7.0, 3.0]
    loss = [xb.sum(x), xb.mean(x)]
    assert np.asarray(loss).tolist() == [11.0, 11.0 / 3]  # what plt.plot([loss0, loss1]) does
    torch = pytest.importorskip("torch")
    assert torch.from_dlpack(x[0]).item() == 1.0
    z = xb.asarray(2.0)
    z += 1
    assert type(z.native) is np.ndarray and z.item() == 3.0
