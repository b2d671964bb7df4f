"""Manipulation functions (2025.12) on every target, against NumPy as the oracle.

Data is drawn once as NumPy arrays; each function must give NumPy's values, shape and the dtype of the
documented rule (the promotion table for mixed dtypes), including 0-d and empty inputs and negative axes.
Errors are the same typed errors on every target.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

import xbackend as xb
from xbackend import _dtypes as D
from xbackend.testing import assert_equal
import xbackend.testing.strategies as xst

ALL = [d for d in D.ALL if d is not D.bfloat16]



def _check(r, expected, dt=None):
    assert type(r) is xb.Array
    if dt is not None:
        assert r.dtype is dt, (r.dtype, dt)
    assert r._be.dtype_of(r.native) is r.dtype
    assert r.shape == tuple(np.shape(expected)), (r.shape, np.shape(expected))
    assert_equal(r, np.asarray(expected), check_dtype=dt is None)


@st.composite
def _array(draw, min_dims=0, max_dims=3, min_side=0, max_side=4, dtype=None):
    dt = draw(xst.dtypes(ALL)) if dtype is None else dtype
    shape = draw(xst.shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side, max_side=max_side))
    return draw(xst.host_arrays(dt, shape))


def _axis_of(draw, ndim):
    return draw(st.integers(-ndim, ndim - 1))


# --- broadcasting ----------------------------------------------------------------------------------
def test_broadcast_to_and_arrays(xb_target):
    @given(data=st.data())
    def check(data):
        target = data.draw(xst.shapes(max_dims=3, max_side=3))
        # a shape that broadcasts to target: a suffix of it with some sides replaced by 1
        k = data.draw(st.integers(0, len(target)))
        src = tuple(1 if data.draw(st.booleans()) else s for s in target[len(target) - k:])
        a = data.draw(xst.host_arrays(data.draw(xst.dtypes(ALL)), src))
        _check(xb.broadcast_to(xb_target.asarray(a), target), np.broadcast_to(a, target), xb.dtype(a.dtype.name))
        shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=3, max_dims=3, max_side=3))
        hs = [(np.arange(int(np.prod(s))) % 3).astype(d).reshape(s)
              for s, d in zip(shapes.input_shapes, ("int8", "float32", "bool"))]
        out = xb.broadcast_arrays(*[xb_target.asarray(h) for h in hs])
        assert type(out) is tuple and len(out) == 3
        for r, e in zip(out, np.broadcast_arrays(*hs)):
            _check(r, e, xb.dtype(e.dtype.name))

    check()


def test_broadcast_shapes_and_errors(xb_target):
    assert xb.broadcast_shapes() == ()
    assert xb.broadcast_shapes((2, 1), (1, 3), ()) == (2, 3)
    assert xb.broadcast_shapes((0, 1), (3,)) == (0, 3)
    with pytest.raises(ValueError):
        xb.broadcast_shapes((2,), (3,))
    x = xb_target.asarray(np.zeros((2, 3)))
    for bad in [(3, 3), (3,), (2, 0), (-1, 3)]:
        with pytest.raises(ValueError):
            xb.broadcast_to(x, bad)
    with pytest.raises(ValueError):
        xb.broadcast_arrays(x, xb_target.asarray(np.zeros(2)))
    assert xb.broadcast_arrays() == ()


# --- joining ---------------------------------------------------------------------------------------
@st.composite
def _join_case(draw, same_shape):
    shape = draw(xst.shapes(min_dims=0 if same_shape else 1, max_dims=3, max_side=3))
    n = draw(st.integers(1, 4))
    d0 = draw(xst.dtypes(ALL))
    dts = [d0]
    for _ in range(n - 1):  # a promotable partner most of the time
        dts.append(draw(st.just(d0) | xst.dtypes([d for d in ALL if all((e, d) in D.PROMOTION for e in dts)] or [d0])))
    axis = draw(st.integers(-len(shape) - (1 if same_shape else 0), len(shape) - (0 if same_shape else 1)))
    arrays = []
    for d in dts:
        s = list(shape)
        if not same_shape:
            s[axis] = draw(st.integers(0, 3))
        arrays.append(draw(xst.host_arrays(d, tuple(s))))
    return arrays, dts, axis


def _promoted(dts):
    out = dts[0]
    for d in dts[1:]:
        out = D.promote(out, d)
    return out


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # int32 -> float16 overflows to inf in the oracle too
def test_concat(xb_target):
    @given(case=_join_case(False), flat=st.booleans())
    def check(case, flat):
        arrays, dts, axis = case
        want = _promoted(dts)
        xs = [xb_target.asarray(a) for a in arrays]
        cast = [a.astype(want.name) for a in arrays]
        if flat:
            _check(xb.concat(xs, axis=None), np.concatenate([c.ravel() for c in cast]), want)
        else:
            _check(xb.concat(tuple(xs), axis=axis), np.concatenate(cast, axis=axis), want)

    check()


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_stack_unstack(xb_target):
    @given(case=_join_case(True))
    def check(case):
        arrays, dts, axis = case
        want = _promoted(dts)
        xs = [xb_target.asarray(a) for a in arrays]
        r = xb.stack(xs, axis=axis)
        e = np.stack([a.astype(want.name) for a in arrays], axis=axis)
        _check(r, e, want)
        parts = xb.unstack(r, axis=axis)
        assert type(parts) is tuple and len(parts) == len(arrays)
        for p, a in zip(parts, arrays):
            _check(p, a.astype(want.name), want)

    check()


def test_join_errors(xb_target):
    a = xb_target.asarray(np.zeros((2, 3)))
    b = xb_target.asarray(np.zeros((3, 3)))
    with pytest.raises(ValueError):
        xb.concat([], axis=0)
    with pytest.raises(ValueError):
        xb.concat([a, b], axis=1)
    with pytest.raises(ValueError):
        xb.concat([a, xb_target.asarray(np.zeros(3))])
    with pytest.raises(ValueError):
        xb.concat([xb_target.asarray(np.float64(1.0)), xb_target.asarray(np.float64(2.0))])
    with pytest.raises(ValueError):
        xb.stack([a, b])
    with pytest.raises(xb.AxisError):
        xb.stack([a, a], axis=3)
    with pytest.raises(IndexError):  # AxisError is an IndexError and a ValueError
        xb.concat([a, a], axis=-3)
    with pytest.raises(TypeError):
        xb.concat(a)
    with pytest.raises(xb.PromotionError):
        xb.concat([xb_target.asarray(np.zeros(2, np.uint64)), xb_target.asarray(np.zeros(2, np.int8))])
    assert xb.concat([xb_target.asarray(np.zeros(2, np.int8)), xb_target.asarray(np.zeros(1, np.uint8))]).dtype is xb.int16
    i64, f32 = xb_target.asarray(np.zeros(2, np.int64)), xb_target.asarray(np.zeros(2, np.float32))
    assert xb.stack([i64, f32]).dtype is xb.float32
    assert xb.unstack(xb_target.asarray(np.zeros((0, 2))), axis=0) == ()


def test_mixed_backends_and_devices_raise(xb_target):
    if xb_target.backend == "numpy":
        pytest.skip("needs a second backend: covered on the non-NumPy targets")
    a = xb_target.asarray(np.zeros(2))
    n = xb.asarray(np.zeros(2), backend="numpy")
    for fn in (lambda: xb.concat([a, n]), lambda: xb.stack([n, a]), lambda: xb.broadcast_arrays(a, n),
               lambda: xb.repeat(a, xb.asarray([1, 1], backend="numpy"))):
        with pytest.raises(xb.BackendMismatchError):
            fn()
    if xb_target.backend == "torch":
        m = xb.asarray(np.zeros(2), backend="torch", device="meta")
        with pytest.raises(xb.DeviceMismatchError):
            xb.concat([xb.asarray(np.zeros(2), backend="torch", device="cpu"), m])


# --- shape -----------------------------------------------------------------------------------------
def test_reshape(xb_target):
    @given(a=_array(max_dims=3), data=st.data())
    def check(a, data):
        x = xb_target.asarray(a)
        flat = a.reshape(-1)
        shape = data.draw(st.sampled_from([(a.size,), (1, a.size, 1), (-1,), (a.size, -1) if a.size else (0, 5)]))
        r = xb.reshape(x, shape)
        _check(r, a.reshape(shape), xb.dtype(a.dtype.name))
        c = xb.reshape(x, shape, copy=True)
        _check(c, flat.reshape(shape))
        if a.size:
            assert not xb.shares_memory(c, x)
        v = xb.reshape(x, tuple(a.shape), copy=False)  # contiguous: a view is always possible
        _check(v, a)

    check()


def test_reshape_errors(xb_target):
    x = xb_target.asarray(np.arange(6.0).reshape(2, 3))
    for bad in [(4,), (-1, -1), (-2, 3), (0, -1)]:
        with pytest.raises(ValueError):
            xb.reshape(x, bad)
    with pytest.raises(ValueError):  # a transposed 2x3 cannot be flattened without a copy
        xb.reshape(x.mT, (6,), copy=False)
    _check(xb.reshape(x.mT, (6,)), np.arange(6.0).reshape(2, 3).T.reshape(6))
    assert xb.reshape(xb_target.asarray(np.zeros((0, 3))), (3, 0, 2)).shape == (3, 0, 2)


def test_expand_dims_squeeze(xb_target):
    @given(a=_array(max_dims=3), data=st.data())
    def check(a, data):
        x = xb_target.asarray(a)
        n = data.draw(st.integers(1, 3))
        m = a.ndim + n
        axes = data.draw(st.lists(st.integers(-m, m - 1), min_size=n, max_size=n,
                                  unique_by=lambda i: i % m))  # fmt: skip
        r = xb.expand_dims(x, axis=tuple(axes))
        e = np.expand_dims(a, tuple(axes))
        _check(r, e, xb.dtype(a.dtype.name))
        one = data.draw(st.integers(-a.ndim - 1, a.ndim))
        _check(xb.expand_dims(x, axis=one), np.expand_dims(a, one))
        _check(xb.squeeze(r, axis=tuple(axes)), a)
        _check(xb.squeeze(r, axis=axes[0]), np.squeeze(e, axis=axes[0]))

    check()


def test_shape_errors(xb_target):
    x = xb_target.asarray(np.zeros((2, 1, 3)))
    with pytest.raises(ValueError):
        xb.squeeze(x, axis=0)
    with pytest.raises(xb.AxisError):
        xb.squeeze(x, axis=3)
    with pytest.raises(IndexError):
        xb.expand_dims(x, axis=4)
    with pytest.raises(IndexError):
        xb.expand_dims(x, axis=(0, -5))
    with pytest.raises(xb.AxisError):
        xb.expand_dims(x, axis=(0, -5 + 5 - 5 + 5))  # 0 and 0: repeated
    with pytest.raises(xb.AxisError):
        xb.permute_dims(x, (0, 1))
    with pytest.raises(xb.AxisError):
        xb.permute_dims(x, (0, 1, -3))
    with pytest.raises(ValueError):
        xb.moveaxis(x, (0, 1), 0)
    with pytest.raises(xb.AxisError):
        xb.flip(xb_target.asarray(np.float64(1.0)), axis=0)


def test_permute_moveaxis(xb_target):
    @given(a=_array(max_dims=4, max_side=3), data=st.data())
    def check(a, data):
        x = xb_target.asarray(a)
        nd = a.ndim
        perm = data.draw(st.permutations(range(nd)))
        neg = [p - nd if data.draw(st.booleans()) else p for p in perm]  # negative axes: 2025.12
        _check(xb.permute_dims(x, tuple(neg)), np.transpose(a, perm), xb.dtype(a.dtype.name))
        if nd:
            k = data.draw(st.integers(1, nd))
            src = data.draw(st.lists(st.integers(-nd, nd - 1), min_size=k, max_size=k, unique_by=lambda i: i % nd))
            dst = data.draw(st.lists(st.integers(-nd, nd - 1), min_size=k, max_size=k, unique_by=lambda i: i % nd))
            _check(xb.moveaxis(x, tuple(src), tuple(dst)), np.moveaxis(a, src, dst))
            _check(xb.moveaxis(x, src[0], dst[0]), np.moveaxis(a, src[0], dst[0]))

    check()


# --- rearranging -----------------------------------------------------------------------------------
def test_flip_roll(xb_target):
    @given(a=_array(max_dims=3), data=st.data())
    def check(a, data):
        x = xb_target.asarray(a)
        nd = a.ndim
        dt = xb.dtype(a.dtype.name)
        _check(xb.flip(x), np.flip(a), dt)
        axes = ()
        if nd:
            axes = tuple(data.draw(st.lists(st.integers(-nd, nd - 1), max_size=nd, unique_by=lambda i: i % nd)))
        _check(xb.flip(x, axis=axes), np.flip(a, axis=axes), dt)
        if nd:
            ax = _axis_of(data.draw, nd)
            _check(xb.flip(x, axis=ax), np.flip(a, axis=ax), dt)
        shift = data.draw(st.integers(-7, 7))
        _check(xb.roll(x, shift), np.roll(a, shift), dt)
        if nd:
            shifts = tuple(data.draw(st.integers(-5, 5)) for _ in axes)
            _check(xb.roll(x, shifts, axis=axes), np.roll(a, shifts, axis=axes) if axes else a, dt)
            _check(xb.roll(x, shift, axis=axes), np.roll(a, shift, axis=axes) if axes else a, dt)

    check()


def test_repeat(xb_target):
    @given(a=_array(max_dims=3, max_side=3), data=st.data())
    def check(a, data):
        x = xb_target.asarray(a)
        dt = xb.dtype(a.dtype.name)
        k = data.draw(st.integers(0, 3))
        _check(xb.repeat(x, k), np.repeat(a, k), dt)
        if a.ndim:
            ax = _axis_of(data.draw, a.ndim)
            _check(xb.repeat(x, k, axis=ax), np.repeat(a, k, axis=ax), dt)
            n = a.shape[ax]
            rdt = data.draw(st.sampled_from(["int64", "int32", "uint8", "int8"]))
            reps = np.array(data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)), dtype=rdt)
            _check(xb.repeat(x, xb_target.asarray(reps), axis=ax), np.repeat(a, reps.astype(np.int64), axis=ax), dt)
            one = np.array([k], dtype=rdt)
            _check(xb.repeat(x, xb_target.asarray(one), axis=ax), np.repeat(a, k, axis=ax), dt)
        reps = np.array(data.draw(st.lists(st.integers(0, 2), min_size=a.size, max_size=a.size)), dtype=np.int64)
        _check(xb.repeat(x, xb_target.asarray(reps)), np.repeat(a.reshape(-1), reps), dt)

    check()


def test_repeat_errors(xb_target):
    x = xb_target.asarray(np.arange(3))
    with pytest.raises(ValueError):
        xb.repeat(x, -1)
    with pytest.raises(ValueError):
        xb.repeat(x, xb_target.asarray(np.array([1, -1, 1])))
    with pytest.raises(ValueError):
        xb.repeat(x, xb_target.asarray(np.array([1, 1])))
    with pytest.raises(TypeError):
        xb.repeat(x, xb_target.asarray(np.array([1.0, 1.0, 1.0])))
    with pytest.raises(TypeError):
        xb.repeat(x, 1.5)


def test_tile(xb_target):
    @given(a=_array(max_dims=3, max_side=3), reps=st.lists(st.integers(0, 3), max_size=4))
    def check(a, reps):
        x = xb_target.asarray(a)
        _check(xb.tile(x, tuple(reps)), np.tile(a, tuple(reps)), xb.dtype(a.dtype.name))

    check()
    with pytest.raises(ValueError):
        xb.tile(xb_target.asarray(np.zeros(2)), (-1,))


def test_views_keep_autograd(xb_target):
    if xb_target.backend != "torch":
        pytest.skip("autograd is a torch feature")
    import torch

    t = torch.ones(2, 3, dtype=torch.float64, requires_grad=True)
    x = xb.asarray(t)
    y = xb.concat([xb.flip(x, axis=0), xb.roll(x, 1)], axis=1)
    y = xb.stack([xb.reshape(y, (-1,)), xb.reshape(xb.tile(x, (2,)), (-1,))])
    assert y.requires_grad
    y.native.sum().backward()
    assert t.grad is not None and t.grad.shape == (2, 3)
