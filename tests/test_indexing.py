"""Indexing on every target, against NumPy as the oracle: ``Array.__getitem__``/``__setitem__`` with basic
and advanced keys, and ``take``/``take_along_axis``.

Keys mix ints, slices (negative steps too), ``None``, ``...``, integer index Arrays of every integer
dtype (uint8 is an index, never a mask), lists of ints, and bool masks; ints next to index arrays follow
NumPy's rule (they are advanced indices). Out-of-bounds integer indices raise ``IndexError`` everywhere.
``__setitem__`` values are Arrays, Python scalars or host data; lossy values raise.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

import xbackend as xb
from xbackend import _dtypes as D
from xbackend.testing import assert_equal, shapes_match
import xbackend.testing.strategies as xst

DTYPES = [D.bool, D.int8, D.uint8, D.uint16, D.int32, D.uint64, D.int64, D.float16, D.float32, D.float64,
          D.complex64, D.complex128]  # fmt: skip
INDEX_DTYPES = ["int8", "uint8", "int16", "int32", "uint32", "int64", "uint64"]



def _check(r, expected, dt):
    assert type(r) is xb.Array
    assert r.dtype is dt, (r.dtype, dt)
    assert r._be.dtype_of(r.native) is dt
    assert shapes_match(r.shape, np.shape(expected)), (r.shape, np.shape(expected))  # None: unknown (lazy)
    assert_equal(r, np.asarray(expected), check_dtype=False)


# --- key generation: parts are ("int", i), ("slice", s), ("none",), ("ellipsis",), ("array", np), ("list", [..]),
# ("mask", np bool); they become the NumPy key and the xbackend key on a target ---------------------------------
@st.composite
def _key(draw, shape, allow_arrays=True, unique=False):
    parts = []
    i = 0
    idx_shape = draw(xst.shapes(min_dims=1, max_dims=2, min_side=1 if unique else 0, max_side=3))
    if unique:
        idx_shape = idx_shape[:1]
    has_mask = has_array = False
    used_ellipsis = False
    while i < len(shape):
        # after "...", the remaining parts index the trailing axes, so they must cover them all
        kinds = ["int", "slice", "slice", "none"] + ([] if used_ellipsis else ["stop"])
        kinds += ["array", "list", "mask"] if allow_arrays else []
        kind = draw(st.sampled_from(kinds))
        n = shape[i]
        if kind == "stop":
            if not used_ellipsis and draw(st.booleans()):
                parts.append(("ellipsis",))
                used_ellipsis = True
                i = len(shape) - draw(st.integers(0, len(shape) - i))
                continue
            break
        if kind == "none":
            parts.append(("none",))
        elif kind == "slice":
            parts.append(("slice", draw(st.slices(n))))
            i += 1
        elif kind == "int" and n:
            parts.append(("int", draw(st.integers(-n, n - 1))))
            i += 1
        elif kind in ("array", "list") and n and not has_mask and not (unique and has_array):
            dt = draw(st.sampled_from(INDEX_DTYPES))
            lo = 0 if dt.startswith("u") or unique else -n
            if unique:
                k = draw(st.integers(0, n))
                a = np.array(draw(st.permutations(range(n)))[:k], dtype=dt)
            else:
                a = draw(hnp.arrays(np.dtype(dt), draw(xst.broadcastable_shapes(idx_shape, max_dims=2, max_side=3)),
                                    elements=st.integers(lo, n - 1)))  # fmt: skip
            parts.append(("array", a) if kind == "array" or a.ndim == 0 else ("list", a.tolist()))
            has_array = True
            i += 1
        elif kind == "mask" and not has_mask and not has_array:
            k = draw(st.integers(1, min(2, len(shape) - i)))
            parts.append(("mask", draw(hnp.arrays(np.bool_, shape[i:i + k]))))
            has_mask = True
            i += k
    if len(parts) == 1 and draw(st.booleans()):
        return parts[0]  # a bare (non-tuple) key
    return tuple(parts)


def _np_part(p):
    return {"int": lambda: p[1], "slice": lambda: p[1], "none": lambda: None, "ellipsis": lambda: Ellipsis,
            "array": lambda: p[1], "list": lambda: p[1], "mask": lambda: p[1]}[p[0]]()  # fmt: skip


def _xb_part(t, p):
    if p[0] in ("array", "mask"):
        return t.asarray(p[1])
    return _np_part(p)


def _keys(t, key):
    if type(key) is tuple and (not key or type(key[0]) is tuple):
        return tuple(_np_part(p) for p in key), tuple(_xb_part(t, p) for p in key)
    return _np_part(key), _xb_part(t, key)


@st.composite
def _case(draw, allow_arrays=True, unique=False, dtypes=DTYPES):
    dt = draw(xst.dtypes(dtypes))
    a = draw(xst.host_arrays(dt, xst.shapes(max_dims=3, max_side=4)))
    return dt, a, draw(_key(a.shape, allow_arrays, unique))


def test_getitem_basic(xb_target):
    @given(case=_case(allow_arrays=False))
    def check(case):
        dt, a, key = case
        nk, xk = _keys(xb_target, key)
        _check(xb_target.asarray(a)[xk], a[nk], dt)

    check()


def test_getitem_advanced(xb_target):
    @given(case=_case())
    def check(case):
        dt, a, key = case
        nk, xk = _keys(xb_target, key)
        try:
            e = a[nk]
        except IndexError:  # e.g. index arrays that do not broadcast together
            with pytest.raises(IndexError):
                xb_target.asarray(a)[xk]
            return
        _check(xb_target.asarray(a)[xk], e, dt)

    check()


def test_setitem_scalar(xb_target):
    @given(case=_case(), data=st.data())
    def check(case, data):
        dt, a, key = case
        nk, xk = _keys(xb_target, key)
        v = {"b": True, "i": -3, "u": 7, "f": 2.5, "c": 1 - 2j}[dt.kind]
        v = data.draw(st.sampled_from([v, True] if dt.kind != "b" else [True, False]))
        e = a.copy()
        try:
            e[nk] = v
        except IndexError:
            with pytest.raises(IndexError):
                xb_target.asarray(a)[xk] = v
            return
        x = xb_target.asarray(a.copy())
        x[xk] = v
        _check(x, e, dt)

    check()


def test_setitem_array_value(xb_target):
    @given(case=_case(unique=True), data=st.data())
    def check(case, data):
        dt, a, key = case
        nk, xk = _keys(xb_target, key)
        target_shape = a[nk].shape
        vshape = data.draw(st.sampled_from([target_shape, target_shape[1:], ()]))
        v = data.draw(xst.host_arrays(dt, vshape))
        e = a.copy()
        e[nk] = v
        for value in (xb_target.asarray(v), v):  # an Array, or host data moved to the target
            x = xb_target.asarray(a.copy())
            x[xk] = value
            _check(x, e, dt)

    check()


def test_negative_steps_with_index_arrays(xb_target):
    a = np.arange(60).reshape(3, 4, 5)
    for key in [(slice(None, None, -1), [0, 2]), (np.array([2, 0]), slice(None, None, -2)),
                (Ellipsis, slice(3, 0, -1), np.array([[1], [0]])),
                (np.array([True, False, True]), slice(None, None, -1), 0),
                (0, slice(None, None, -1), [4, 0]), (slice(None, None, -1), np.ones((4, 5), bool))]:  # fmt: skip
        xk = tuple(xb_target.asarray(k) if isinstance(k, np.ndarray) else k for k in key)
        _check(xb_target.asarray(a)[xk], a[key], xb.int64)
        e = a.copy()
        e[key] = -1
        x = xb_target.asarray(a.copy())
        x[xk] = -1
        _check(x, e, xb.int64)


def test_ints_next_to_index_arrays_follow_numpy(xb_target):
    a = np.arange(24).reshape(2, 3, 4)
    x = xb_target.asarray(a)
    i = xb_target.asarray(np.array([0, 1]))
    _check(x[0, :, i], a[0, :, [0, 1]], xb.int64)  # NumPy: (2, 3); plain torch: (3, 2)
    _check(x[0, None, i], a[0, None, [0, 1]], xb.int64)
    _check(x[:, 1, i], a[:, 1, [0, 1]], xb.int64)
    _check(x[xb_target.asarray(np.array(1)), :, i], a[1, :, [0, 1]], xb.int64)  # 0-d index Arrays act as ints


def test_uint8_index_is_an_index_not_a_mask(xb_target):
    a = np.arange(5.0)
    x = xb_target.asarray(a)
    _check(x[xb_target.asarray(np.array([1, 0, 1], dtype=np.uint8))], a[[1, 0, 1]], xb.float64)
    _check(x[[1, 0, 1]], a[[1, 0, 1]], xb.float64)
    _check(x[[]], a[np.array([], dtype=np.int64)], xb.float64)
    _check(x[[True, False, True, False, True]], a[[True, False, True, False, True]], xb.float64)


def test_zero_d_bool_masks(xb_target):
    a = np.arange(6).reshape(2, 3)
    x = xb_target.asarray(a)
    for m in (True, False):
        _check(x[m], a[m], xb.int64)
        _check(x[xb_target.asarray(np.array(m))], a[np.array(m)], xb.int64)
        _check(x[..., xb_target.asarray(np.array(m))], a[..., np.array(m)], xb.int64)
    z = xb_target.asarray(np.float64(3.0))
    _check(z[xb_target.asarray(np.array(True))], np.float64(3.0)[np.array(True)], xb.float64)
    z[xb_target.asarray(np.array(False))] = 1.0
    assert z.item() == 3.0
    z[True] = 1.0
    assert z.item() == 1.0


def test_out_of_bounds_raise_index_error(xb_target):
    x = xb_target.asarray(np.arange(6.0).reshape(2, 3))
    for key in [(2,), (0, 3), (0, -4), ([0, 2],), (slice(None), [3]), (slice(None), [-4]),
                (xb_target.asarray(np.array([1, 5], dtype=np.uint8)),), (xb_target.asarray(np.array([-3])),)]:  # fmt: skip
        with pytest.raises(IndexError):
            x[key]
        with pytest.raises(IndexError):
            x[key] = 1.0
    with pytest.raises(IndexError):
        x[xb_target.asarray(np.array([True, False, True]))]  # mask of the wrong shape
    with pytest.raises(IndexError):
        x[xb_target.asarray(np.array([0.0]))]
    with pytest.raises(IndexError):
        x[0, 0, 0]
    with pytest.raises(IndexError):
        x[[0.5]]


def test_setitem_values_and_promotion(xb_target):
    f32 = xb_target.asarray(np.zeros(3, np.float32))
    f32[0] = 1  # Python scalars are weak
    f32[1] = np.float64(2.5)  # NumPy scalars are weak too
    f32[:] = np.array([1, 2, 3], dtype=np.int16)  # host data, lossless: moved and cast
    _check(f32, np.array([1, 2, 3], np.float32), xb.float32)
    f32[1:] = [0.5, 1.5]  # a Python list is weak: float32 it is
    _check(f32, np.array([1, 0.5, 1.5], np.float32), xb.float32)
    f32[:] = np.array([1.0, 2.0, 3.0])  # float64 host data: moved and cast within the kind (issue 9)
    _check(f32, np.array([1, 2, 3], np.float32), xb.float32)
    with pytest.raises(xb.PromotionError):
        f32[0] = 1j
    with pytest.raises(xb.PromotionError):
        f32[:] = xb_target.asarray(np.zeros(3, np.complex64))  # complex -> real loses the imaginary part
    i8 = xb_target.asarray(np.zeros(3, np.int8))
    i8[:] = [1, -2, 3]
    i8[0] = True
    _check(i8, np.array([1, -2, 3], np.int8), xb.int8)
    with pytest.raises(xb.PromotionError):
        i8[0] = 1.5
    with pytest.raises(xb.PromotionError):
        i8[:] = [1.0, 2.0, 3.0]
    with pytest.raises(xb.ScalarOverflowError):
        i8[0] = 300
    with pytest.raises(xb.ScalarOverflowError):
        i8[:] = [1, 300, 2]
    i8[:] = xb_target.asarray(np.zeros(3, np.uint8))  # uint8 values that fit int8 are stored
    with pytest.raises(xb.ScalarOverflowError):
        i8[:] = xb_target.asarray(np.full(3, 200, np.uint8))  # ... values that do not are refused
    b = xb_target.asarray(np.zeros(2, bool))
    with pytest.raises(xb.PromotionError):
        b[0] = 1
    u64 = xb_target.asarray(np.zeros(2, np.uint64))
    u64[xb_target.asarray(np.array([1]))] = 2**64 - 1
    _check(u64, np.array([0, 2**64 - 1], np.uint64), xb.uint64)
    with pytest.raises(ValueError):  # shapes that do not broadcast
        f32[:2] = np.zeros(3, np.float32)


def test_setitem_mixed_backends_raise(xb_target):
    if xb_target.backend == "numpy":
        pytest.skip("needs a second backend: covered on the non-NumPy targets")
    x = xb_target.asarray(np.zeros(3))
    with pytest.raises(xb.BackendMismatchError):
        x[0] = xb.asarray(np.float64(1.0), backend="numpy")
    with pytest.raises(xb.BackendMismatchError):
        x[xb.asarray(np.array([0, 1]), backend="numpy")]
    x[np.array([0, 1])] = 2.0  # host index data is moved, like host values
    assert x.tolist() == [2.0, 2.0, 0.0]


# --- take / take_along_axis ------------------------------------------------------------------------
def test_take(xb_target):
    @given(dt=xst.dtypes(DTYPES), data=st.data())
    def check(dt, data):
        a = data.draw(xst.host_arrays(dt, xst.shapes(min_dims=1, max_dims=3, max_side=4)))
        ax = data.draw(st.integers(-a.ndim, a.ndim - 1))
        n = a.shape[ax]
        idt = data.draw(st.sampled_from(INDEX_DTYPES))
        lo = 0 if idt.startswith("u") else -n
        el = st.integers(lo, n - 1) if n else st.nothing()
        i = data.draw(hnp.arrays(np.dtype(idt), st.integers(0, 5), elements=el))
        x = xb_target.asarray(a)
        _check(xb.take(x, xb_target.asarray(i), axis=ax), np.take(a, i.astype(np.int64), axis=ax), dt)
        if a.ndim == 1:
            _check(xb.take(x, xb_target.asarray(i)), np.take(a, i.astype(np.int64)), dt)

    check()


def test_take_along_axis(xb_target):
    @given(dt=xst.dtypes(DTYPES), data=st.data())
    def check(dt, data):
        a = data.draw(xst.host_arrays(dt, xst.shapes(min_dims=1, max_dims=3, min_side=1, max_side=4)))
        ax = data.draw(st.integers(-a.ndim, a.ndim - 1))
        n = a.shape[ax]
        ishape = list(data.draw(st.sampled_from([a.shape, tuple(1 for _ in a.shape)])))
        ishape[ax] = data.draw(st.integers(0, 4))
        idt = data.draw(st.sampled_from(INDEX_DTYPES))
        lo = 0 if idt.startswith("u") else -n
        i = data.draw(hnp.arrays(np.dtype(idt), tuple(ishape), elements=st.integers(lo, n - 1)))
        r = xb.take_along_axis(xb_target.asarray(a), xb_target.asarray(i), axis=ax)
        _check(r, np.take_along_axis(a, i.astype(np.int64), axis=ax), dt)

    check()


def test_take_errors(xb_target):
    x = xb_target.asarray(np.arange(6.0).reshape(2, 3))
    i = xb_target.asarray(np.array([0, 1]))
    with pytest.raises(ValueError):
        xb.take(x, i)  # axis is required for N-D
    with pytest.raises(IndexError):
        xb.take(x, xb_target.asarray(np.array([3])), axis=1)
    with pytest.raises(IndexError):
        xb.take(x, xb_target.asarray(np.array([-3])), axis=0)
    with pytest.raises(TypeError):
        xb.take(x, xb_target.asarray(np.array([True, False])), axis=0)
    with pytest.raises(ValueError):
        xb.take(xb_target.asarray(np.float64(1.0)), i)
    with pytest.raises(xb.AxisError):
        xb.take(x, i, axis=2)
    with pytest.raises(IndexError):
        xb.take_along_axis(x, xb_target.asarray(np.array([[3]])), axis=1)
    with pytest.raises(IndexError):
        xb.take_along_axis(x, xb_target.asarray(np.array([[-4]])), axis=1)
    with pytest.raises(ValueError):
        xb.take_along_axis(x, i, axis=1)  # indices need x's number of dimensions
    with pytest.raises(ValueError):
        xb.take_along_axis(x, xb_target.asarray(np.zeros((3, 1), np.int64)), axis=1)


def test_indexing_keeps_autograd(xb_target):
    if xb_target.backend != "torch":
        pytest.skip("autograd is a torch feature")
    import torch

    t = torch.arange(6.0, dtype=torch.float64).reshape(2, 3).requires_grad_()
    x = xb.asarray(t)
    y = x[xb.asarray(torch.tensor([1, 0])), ::-1]
    z = xb.take_along_axis(x, xb.asarray(torch.tensor([[2], [0]])), axis=1)
    assert y.requires_grad and z.requires_grad
    (y.native.sum() + z.native.sum()).backward()
    assert t.grad.tolist() == [[1.0, 1.0, 2.0], [2.0, 1.0, 1.0]]


def test_bounds_checker_used_on_gpus_agrees_with_numpy():
    """CuPy (which wraps out-of-bounds indices) and torch on CUDA (which asserts) run this checker before
    indexing; here it is checked on the host against NumPy's own bounds checks."""
    from xbackend._backends.common.keys import check_bounds

    is_array = lambda k: isinstance(k, np.ndarray)  # noqa: E731
    is_mask = lambda k: k.dtype.kind == "b"  # noqa: E731

    @given(case=_case(), bump=st.sampled_from([0, 0, 7, -7]))
    def check(case, bump):
        _, a, key = case
        parts = list(key) if type(key) is tuple and (not key or type(key[0]) is tuple) else [key]
        native = []
        for p in parts:
            k = _np_part(p)
            if p[0] in ("array", "list"):
                k = np.asarray(np.asarray(k, dtype=np.int64) + bump)
                bump = 0
            native.append(k)
        native = tuple(native)
        try:
            a[native]
        except IndexError as exc:
            if "out of bounds" in str(exc):
                with pytest.raises(IndexError):
                    check_bounds(a.shape, native, is_array, is_mask)
            return
        check_bounds(a.shape, native, is_array, is_mask)  # valid keys pass

    check()


# Assignment casts between Arrays (docs/behaviour.md): within a kind and upward across kinds (bool -> anything,
# int -> float/complex, float -> complex) are stored; float -> int, complex -> real and anything -> bool raise.
# The table is the documented rule written out pair by pair (kinds: b bool, i/u ints, f float, c complex).
_STORABLE_KINDS = {("b", "b"), ("b", "i"), ("b", "u"), ("b", "f"), ("b", "c"), ("i", "i"), ("i", "u"), ("u", "i"),
                   ("u", "u"), ("i", "f"), ("u", "f"), ("i", "c"), ("u", "c"), ("f", "f"), ("f", "c"), ("c", "c")}
_CAST_DTYPES = [D.bool, D.int8, D.uint8, D.int64, D.float32, D.float64, D.complex128]
_LOSSY = (r"^cannot store \w+ values into an Array of dtype \w+: '\w'-kind to '\w'-kind loses information\. "
          r"Fix: convert explicitly, e\.g\. x\[\.\.\.\] = xb\.round\(xb\.asarray\(v, device=x\.device\)\)"
          r"\.astype\(xb\.\w+\), "
          r"or cast the Array first: "
          r"x = x\.astype\(xb\.\w+\)$")


@pytest.mark.parametrize("src", _CAST_DTYPES, ids=str)
@pytest.mark.parametrize("dst", _CAST_DTYPES, ids=str)
def test_setitem_array_values_cast_by_kind(src, dst):
    values = np.array([0, 1, 1], dtype=src.name)  # values every dtype holds exactly
    x = xb.asarray(np.zeros(3, dst.name))
    v = xb.asarray(values)
    if (src.kind, dst.kind) in _STORABLE_KINDS:
        x[...] = v
        _check(x, values.astype(dst.name), dst)
    else:
        with pytest.raises(xb.PromotionError, match=_LOSSY):
            x[...] = v
        _check(x, np.zeros(3, dst.name), dst)  # nothing was stored


@pytest.mark.parametrize("src,dst", [("int16", "int8"), ("int64", "uint8"), ("uint64", "int64"), ("int32", "uint16")])
def test_setitem_narrowing_stores_the_range_edges_and_refuses_one_beyond(xb_target, src, dst):
    """A narrowing store checks every value against the target's range: both edges fit, one past either is
    refused with the values' span, the range and the fix, and nothing is stored."""
    lo, hi = int(np.iinfo(dst).min), int(np.iinfo(dst).max)
    s = np.iinfo(src)
    elo, ehi = max(lo, int(s.min)), min(hi, int(s.max))  # the target's edges that the source dtype holds
    edges = np.array([[elo, ehi], [ehi, elo]], dtype=src)  # 2-D: the check looks at every element
    x = xb_target.asarray(np.zeros((2, 2), dst))
    x[...] = xb_target.asarray(edges)
    _check(x, edges.astype(dst), xb.dtype(dst))
    for beyond in [v for v in (lo - 1, hi + 1) if s.min <= v <= s.max]:
        bad = edges.copy()
        bad[1, 0] = beyond
        vmin, vmax = min(elo, beyond), max(ehi, beyond)
        msg = (rf"^cannot store {src} values in {vmin}\.\.{vmax} into an Array of dtype {dst} \(range {lo}\.\.{hi}\); "
               rf"xbackend never wraps around\. Fix: clip first, e\.g\. x\[\.\.\.\] = xb\.clip\(xb\.asarray\(v, "
               rf"device=x\.device\), {lo}, {hi}\), or cast the Array: x = x\.astype\(xb\.{src}\)$")
        with pytest.raises(xb.ScalarOverflowError, match=msg):
            x[...] = xb_target.asarray(bad)
        _check(x, edges.astype(dst), xb.dtype(dst))


@pytest.mark.parametrize("key", [
    (np.array([[True, False, True], [False, True, True]]), np.array([4])),  # a mask's axes, then an index array
    (slice(None), np.array([True, False, True]), np.array([4])),  # a mask after another axis, then an array
    (np.array([0, 1]), np.array([2, 3]), np.array([0, 4])),  # the third of three index arrays
    (np.array([1]), slice(None), np.array([3, 4])),  # exactly the size: out of range
    (Ellipsis, np.array([-5, 0])),  # one below -size
    (np.array([0, 1]), np.array([0, 3]), np.array([2, 9])),  # the offending value named: the only bad one
])  # fmt: skip
def test_bounds_checker_names_the_axis_and_index_numpy_names(key):
    """The checker CuPy and torch-CUDA run before indexing (they would wrap or assert): every index array's axis
    counted after masks and other arrays, the edges exact, the first bad value named - as NumPy names them."""
    from xbackend._backends.common.keys import check_bounds

    a = np.zeros((2, 3, 4))
    with pytest.raises(IndexError) as want:
        a[key]
    with pytest.raises(IndexError) as got:
        check_bounds(a.shape, key, lambda k: isinstance(k, np.ndarray), lambda k: k.dtype.kind == "b")
    assert str(got.value) == str(want.value)


_OVERLAPS = [  # (shape, key, the value's key): the value a view of the Array written into
    ((20,), slice(1, 11), slice(0, 10)), ((20,), slice(0, 10), slice(1, 11)), ((20,), slice(2, None), slice(None, -2)),
    ((20,), [1, 2, 3], slice(0, 3)), ((20,), slice(1, 11), slice(9, None, -1)), ((20,), slice(None, None, 2),
                                                                             slice(1, None, 2)),
    ((5, 6), (slice(1, None), slice(1, None)), (slice(None, -1), slice(None, -1))),
    ((5, 6), (slice(None), slice(1, None)), (slice(None), slice(None, -1))),
    ((5, 6), slice(1, 4), 0), ((5, 6), (slice(None), 0), (0, slice(0, 5))),
]  # fmt: skip


@pytest.mark.parametrize("shape, key, vkey", _OVERLAPS, ids=[str(c[1:]) for c in _OVERLAPS])
def test_setitem_from_an_overlapping_view_is_numpys(xb_target, shape, key, vkey):
    """``x[1:11] = x[:10]``: NumPy copies the overlapping source first, so every element gets the old value."""
    a = np.arange(float(np.prod(shape))).reshape(shape)
    e = a.copy()
    e[key] = e[vkey]
    x = xb_target.asarray(a.copy())
    x[key] = x[vkey]
    assert_equal(x, e)


def test_setitem_from_a_square_transpose_is_numpys(xb_target):
    a = np.arange(25.0).reshape(5, 5)
    e = a.copy()
    e[...] = e.T
    x = xb_target.asarray(a.copy())
    x[...] = x.T
    assert_equal(x, e)


def test_setitem_from_another_array_over_the_same_memory_is_numpys():
    """Two torch Arrays sharing one NumPy buffer (zero-copy moves of two views): still NumPy's result."""
    pytest.importorskip("torch")
    a = np.arange(20.0)
    e = a.copy()
    e[1:] = e[:-1]
    x, y = xb.asarray(a[1:], backend="torch"), xb.asarray(a[:-1], backend="torch")  # two storages, one buffer
    x[...] = y
    assert_equal(x, e[1:])
    np.testing.assert_array_equal(a, e)



def test_the_one_read_bounds_checker_follows_the_plain_rule_at_the_edges():
    """``-n <= i < n`` for ints and every entry of an index array, the first offender named with its axis: the
    checker the GPU backends use (one device read for the whole key), driven with NumPy arrays."""
    import numpy as np

    from xbackend._backends.common import keys as K

    def check(shape, key):
        K.check_bounds_at_once(shape, key, lambda k: isinstance(k, np.ndarray), lambda k: k.dtype == bool,
                               lambda k, n: (k < -n) | (k >= n), lambda flags: [bool(f) for f in flags])  # fmt: skip

    for i in (-3, -1, 0, 2):  # in range for an axis of 3, beside an index array
        check((4, 3), (np.array([0, 1]), i))
    for i in (3, -4):
        with pytest.raises(IndexError, match=f"^index {i} is out of bounds for axis 1 with size 3$"):
            check((4, 3), (np.array([0, 1]), i))
    with pytest.raises(IndexError, match="^index 9 is out of bounds for axis 0 with size 4$"):
        check((4, 3), (np.array([0, 9, 12]), 1))
    with pytest.raises(IndexError, match="^index 2 is out of bounds for axis 1 with size 2$"):
        check((4, 2, 3), (slice(None), np.array([1, 2, 5], dtype=np.uint64), 0))
    check((4, 3), (np.array([True, False, True, True]), 1))  # a mask is not an index array


@pytest.mark.parametrize("idx", [[3], [-4], [0, 3], [2, -4, 1], [6]])
def test_take_along_axis_refuses_any_index_outside_the_axis_on_every_target(xb_target, idx):
    """Every index must lie in [-n, n) - one outside among valid ones too - as NumPy's IndexError says."""
    with pytest.raises(IndexError):
        np.take_along_axis(np.array([1.0, 2.0, 3.0]), np.array(idx), axis=0)
    x = xb.asarray([1.0, 2.0, 3.0], backend=xb_target.backend, device=xb_target.device)
    i = xb.asarray(idx, backend=xb_target.backend, device=xb_target.device)
    if xb_target.backend == "dask":
        pytest.skip("Dask: an index's value is checked when the result is computed")
    bad = next(k for k in idx if not -3 <= k < 3)
    with pytest.raises(xb.IndexOutOfRangeError, match=rf"^index {bad} is out of range for axis 0 of size 3 .*Fix: "
                                                      r"use an index in -3\.\.2$"):  # fmt: skip
        xb.take_along_axis(x, i, axis=0)


# -- the shared bounds checks (_backends/common/keys.py), on NumPy keys, against the axis each index meets --------
_ARR = (lambda k: isinstance(k, np.ndarray), lambda k: k.dtype == bool)
_OUT, _READ = (lambda k, n: (k < -n) | (k >= n)), (lambda flags: [bool(f) for f in flags])


@pytest.mark.parametrize("shape, key, bad", [
    ((3, 4), (np.array([0, 2]), slice(None)), None),
    ((3, 4), (slice(None), np.array([3, -4])), None),
    ((3, 4), (slice(None), np.array([4])), "index 4 is out of bounds for axis 1 with size 4"),
    ((3, 4), (Ellipsis, np.array([-5])), "index -5 is out of bounds for axis 1 with size 4"),
    ((3, 4), (None, np.array([2]), 5), "index 5 is out of bounds for axis 1 with size 4"),
    ((3, 4), (np.array([0]), -4), None),
    ((3, 4), (np.array([0]), -5), "index -5 is out of bounds for axis 1 with size 4"),
    ((3,), np.array([3]), "index 3 is out of bounds for axis 0 with size 3"),
    ((3, 4), (np.ones((3, 4), dtype=bool),), None),
    ((2, 3, 4), (np.ones((2, 3), dtype=bool), np.array([4])), "index 4 is out of bounds for axis 2 with size 4"),
    ((3, 4), (np.array([0]), 1, 2), "too many indices for array: array is 2-dimensional, but 3 were indexed"),
])  # fmt: skip
def test_the_one_read_bounds_check_finds_the_axis_each_index_meets(shape, key, bad):
    from xbackend._backends.common.keys import check_bounds_at_once

    if bad is None:
        check_bounds_at_once(shape, key, *_ARR, _OUT, _READ)
        np.empty(shape)[key]  # NumPy agrees: in bounds
        return
    with pytest.raises(IndexError) as info:
        check_bounds_at_once(shape, key, *_ARR, _OUT, _READ)
    assert str(info.value) == bad
    with pytest.raises(IndexError):
        np.empty(shape)[key]


def test_map_index_arrays_keeps_the_keys_form():
    from xbackend._backends.common.keys import map_index_arrays

    def tag(k, axis, size):
        return ("array", axis, size)

    assert map_index_arrays((3, 4), (slice(None), np.array([1])), *_ARR, tag) == (slice(None), ("array", 1, 4))
    assert map_index_arrays((3, 4), np.array([1]), *_ARR, tag) == ("array", 0, 3)  # not a tuple: not one back
    assert map_index_arrays((3, 4), (1, slice(None)), *_ARR, tag) == (1, slice(None))  # no array: as it is


def test_python_ints_before_an_index_array_move_it_to_its_own_axis():
    from xbackend._backends.common.keys import check_bounds_at_once

    check_bounds_at_once((2, 3, 4), (0, 0, np.array([3])), *_ARR, _OUT, _READ)  # axis 2 has size 4
    with pytest.raises(IndexError, match="^index 4 is out of bounds for axis 2 with size 4$"):
        check_bounds_at_once((2, 3, 4), (1, 2, np.array([4])), *_ARR, _OUT, _READ)


@pytest.mark.parametrize("dst, src, big", [("float16", "float32", 1e5), ("float32", "float64", 1e39),
                                           ("bfloat16", "float32", 3.4e38),
                                           ("complex64", "complex128", 1e39)])  # fmt: skip
def test_a_float_store_beyond_the_arrays_range_names_its_largest_value(dst, src, big):
    """The refusal's clip bounds are the destination dtype's largest finite value (torch's finfo: an independent
    table), so the fix it prints clips to exactly what the Array holds."""
    torch = pytest.importorskip("torch")
    hi = float(torch.finfo(getattr(torch, dst)).max)
    x = xb.zeros(2, dtype=getattr(xb, dst), backend="torch")
    with pytest.raises(xb.ScalarOverflowError) as info:
        x[0] = xb.asarray(big, dtype=getattr(xb, src), backend="torch")
    assert f"xb.clip(xb.asarray(v, device=x.device), -{hi!r}, {hi!r})" in str(info.value)
    x[1] = xb.asarray(hi, dtype=getattr(xb, src), backend="torch")  # the largest finite value itself fits
    assert float(xb.real(x[1])) == hi
