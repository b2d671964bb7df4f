"""The per-call fast paths (issue 11) give exactly what the general paths give: values, dtypes, devices.

Each fast path takes a cached native callable from a backend hook (``Backend.creator``, ``caster``,
``full_reducer``) or a backend flag (``native_reshape``); the general path is the backend's own method
(``zeros``, ``astype``, ``reduce``, ``reshape``) or the public function with an argument that skips the fast
path (``axis=`` given). The two are compared bit for bit on every target, on data with NaN, infinities,
signed zeros and values that do not fit the narrower dtypes.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import xbackend as xb
from xbackend import _dtypes as D
from xbackend._backend import call_creator
from xbackend._dispatch import get_backend
from xbackend._rules import ELEMENTWISE, same_ok
from xbackend.testing import available_targets, to_host

DTYPES = [D.bool, D.int8, D.int64, D.uint8, D.uint16, D.uint64, D.float16, D.bfloat16, D.float32, D.float64,
          D.complex64, D.complex128]  # fmt: skip
VALUES = [0.0, -0.0, 1.5, -2.5, 300.7, -70000.25, 2.0**40, math.inf, -math.inf, math.nan]


def _identical(a, b) -> None:
    """Same host dtype, shape and bits (NaN equals NaN; the sign of zero counts)."""
    ha, hb = to_host(a), to_host(b)
    assert ha.dtype == hb.dtype and ha.shape == hb.shape
    np.testing.assert_array_equal(ha, hb)
    if ha.dtype.kind in "fc":
        assert (np.signbit(ha.real) == np.signbit(hb.real)).all()


def _array(target, dt, values=VALUES):
    """``values`` cast to ``dt`` on the target (the general path's cast: the data only has to exist)."""
    try:
        x = target.asarray(np.asarray(values, dtype=np.float64))
        return xb.asarray(x, dtype=dt) if dt.kind != "b" else x != 0
    except (xb.XBackendError, TypeError) as exc:
        pytest.skip(f"{target} has no {dt}: {exc}")


# --- creation: xb.zeros/ones/empty -------------------------------------------------------------------
@pytest.mark.parametrize("method", ["zeros", "ones", "empty"])
@pytest.mark.parametrize("dt", DTYPES, ids=str)
def test_creators_match_the_backend_methods(xb_target, method, dt):
    be = get_backend(xb_target.backend)
    dev = xb.asarray([0], backend=xb_target.backend, device=xb_target.device)._dev
    try:
        general = getattr(be, method)((2, 3), dt, dev)
    except (xb.XBackendError, TypeError) as exc:
        pytest.skip(f"{xb_target} has no {dt}: {exc}")
    fast = call_creator(be.creator(method, dt, dev), (2, 3))
    on_default = call_creator(be.creator(method, dt, None), (2, 3))  # on the default device
    assert be.dtype_of(on_default) is dt and be.device_of(on_default) is be.default_device()
    assert be.dtype_of(fast) is be.dtype_of(general) is dt
    assert be.device_of(fast) is be.device_of(general) and tuple(fast.shape) == tuple(general.shape) == (2, 3)
    if method != "empty":
        _identical(fast, general)
    # the public function: the first call fills the cache, the second takes it; both as the backend method
    for _ in range(2):
        x = getattr(xb, method)((2, 3), dtype=dt, backend=xb_target.backend, device=xb_target.device)
        assert x.dtype is dt and x.device == xb_target.xb_device and x.shape == (2, 3)
        assert be.dtype_of(x.native) is dt
        if method != "empty":
            _identical(x, general)


# --- xb.astype ------------------------------------------------------------------------------------------
@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning", "ignore:overflow:RuntimeWarning")
@pytest.mark.parametrize("dst", DTYPES, ids=str)
def test_casts_match_the_backend_astype(xb_target, dst):
    be = get_backend(xb_target.backend)
    for src in DTYPES:
        if src is dst or (src.kind == "c" and dst.kind != "c"):
            continue
        x = _array(xb_target, src)
        with np.errstate(invalid="ignore", over="ignore"):  # NaN/inf to integers: whatever the backend does
            try:
                general = be.astype(x.native, dst, True)
            except (xb.XBackendError, TypeError):
                continue  # the target has no dst
            fast = xb.astype(x, dst)
            again = xb.astype(x, dst)  # from the cache
            hook = be.caster(dst)(x.native)
        assert fast.dtype is dst and be.dtype_of(fast.native) is dst, (src, dst)
        assert fast.native is not x.native  # a cast always copies
        if src.kind == "f" and dst.kind in "iu":  # saturating (xbackend/_saturate.py), not the library's cast
            assert fast.tolist() == again.tolist() == _saturated(x.tolist(), dst), (src, dst)
            continue
        for y in (fast.native, again.native, hook):
            _identical(y, general)


def _saturated(values, dst):
    """The saturating float-to-int rule, in Python integers: NaN is 0, beyond the range its bound, else truncated."""
    lo, hi = xb._dtypes._INT_RANGE[dst]
    return [0 if v != v else hi if v >= hi else lo if v <= lo else math.trunc(v) for v in values]


# --- binary operators: the forward kernels of the fast path ----------------------------------------
_BINARY = ["add", "subtract", "multiply", "divide", "floor_divide", "remainder", "pow", "bitwise_and", "bitwise_or",
           "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift", "equal", "not_equal", "less", "less_equal",
           "greater", "greater_equal"]  # fmt: skip


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name", _BINARY)
@pytest.mark.parametrize("dt", [D.bool, D.int8, D.int64, D.uint8, D.uint32, D.float32, D.float64, D.complex128],
                         ids=str)  # fmt: skip
def test_forward_kernels_match_the_kernels(xb_target, name, dt):
    """``forward_kernel`` (native array first) gives bit for bit what ``kernel`` gives, array with array and
    array with a Python float; and the operators, fast path and all, give what the kernel gives."""
    be = get_backend(xb_target.backend)
    x = _array(xb_target, dt, [0.0, -0.0, 1.0, 3.0, -2.5, 7.0, 2.0, math.nan])
    y = _array(xb_target, dt, [1.0, 2.0, -0.0, 2.0, 1.5, -3.0, 2.0, 1.0])
    if dt.kind in "iu":  # shifts and powers with non-negative, small right operands
        y = abs(y) % 3 if dt.kind == "i" else y % 3
    try:
        general = be.kernel(name, dt)
        want = to_host(general(x.native, y.native))  # computed: a lazy backend raises only then
    except Exception as exc:  # an operation the dtype has no kernel for: the same refusal either way
        with pytest.raises(type(exc)):
            to_host(be.forward_kernel(name, dt)(x.native, y.native))
        return
    forward = be.forward_kernel(name, dt)
    _identical(forward(x.native, y.native), want)
    if dt not in same_ok(ELEMENTWISE[name][1]):
        return  # the public function promotes or refuses: not the fast path
    op = getattr(xb, name)
    _identical(op(x, y).native, want)  # the public function and the operator share the fast path
    if dt.kind in "fc":
        _identical(forward(x.native, 2.0), general(x.native, 2.0))
        _identical(op(x, 2.0).native, general(x.native, 2.0))


def test_complex_to_real_casts_still_refuse(xb_target):
    x = _array(xb_target, D.complex128)
    with pytest.raises(xb.XBackendError, match="imaginary"):
        xb.astype(x, xb.float64)


# --- xb.sum over every axis ------------------------------------------------------------------------------
@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning", "ignore:overflow:RuntimeWarning")
@pytest.mark.parametrize("dt", [D.float16, D.bfloat16, D.float32, D.float64, D.complex64, D.complex128], ids=str)
def test_full_sums_match_the_general_reduction(xb_target, dt):
    be = get_backend(xb_target.backend)
    rng = np.random.default_rng(7)
    base = rng.standard_normal(60) * 10.0 ** rng.integers(-3, 4, 60)
    for values, shape in ((base, (60,)), (base, (3, 20)), (base, (2, 5, 6)), (VALUES[:4] + VALUES[-1:] * 2, (6,)),
                          (VALUES[:8], (2, 4))):  # fmt: skip
        x = xb.reshape(_array(xb_target, dt, list(values)), shape)
        for y in (x, xb.permute_dims(x, tuple(reversed(range(x.ndim))))):  # contiguous and transposed
            fast = xb.sum(y)
            general = xb.sum(y, axis=tuple(range(y.ndim)))  # axis= given: the general path
            assert fast.dtype is general.dtype is dt and fast.ndim == 0
            _identical(fast, general)
            _identical(be.full_reducer("sum", dt)(y.native),
                       be.reduce("sum", y.native, dt, tuple(range(y.ndim)), False))  # fmt: skip


@pytest.mark.parametrize("dt", [D.float16, D.float32, D.float64, D.complex128], ids=str)
@pytest.mark.parametrize("value", [-0.0, 0.0, math.nan, -math.inf, 1.5, 65504.0])
def test_full_sums_of_0d_arrays_match_the_general_reduction(xb_target, dt, value):
    """The general path reduces a 0-d Array as its one-element reshape; the fast path's hook must agree."""
    x = xb.reshape(_array(xb_target, dt, [value]), ())
    fast, general = xb.sum(x), xb.sum(x, axis=())  # axis=() on a 0-d Array: every axis, the general path
    assert fast.dtype is general.dtype is dt and fast.ndim == general.ndim == 0
    _identical(fast, general)


def test_sums_off_the_fast_path_keep_their_table(xb_target):
    """Integer, bool and 0-d inputs and ``keepdims`` take the general path: the dtype table still holds."""
    x = _array(xb_target, D.int8, [1.0, 2.0, 3.0])
    assert xb.sum(x).dtype is xb.int64 and xb.sum(x).item() == 6
    assert xb.sum(x != 0).dtype is xb.int64
    s = xb.sum(xb.asarray(2.5, backend=xb_target.backend, device=xb_target.device))
    assert s.dtype is xb.float64 and s.item() == 2.5
    assert xb.sum(_array(xb_target, D.float32, [1.0, 2.0]), keepdims=True).shape == (1,)


def test_cached_creation_follows_set_default_and_config(xb_target):
    """The creation functions remember their last call; a new default float (``set_default``, or
    ``xb.using`` for a block) must still reach the very next call with the same arguments."""
    if not xb_target.holds(D.float32):
        pytest.skip(f"{xb_target} has no float32")
    kw = {"backend": xb_target.backend}
    for _ in range(2):
        assert xb.zeros(3, **kw).dtype is xb.float64
    old = xb.set_default(default_float=xb.float32)
    try:
        assert xb.zeros(3, **kw).dtype is xb.float32 and xb.ones(3, **kw).dtype is xb.float32
    finally:
        xb.set_default(default_float=old.default_float)
    assert xb.zeros(3, **kw).dtype is xb.float64
    with xb.using(default_float=xb.float32):
        assert xb.zeros(3, **kw).dtype is xb.float32
    assert xb.zeros(3, **kw).dtype is xb.float64


# --- xb.reshape -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(6, 4), (-1, 3), (2, -1, 3), (24,), (1, 24, 1)])
def test_reshape_matches_the_backend_reshape(xb_target, shape):
    be = get_backend(xb_target.backend)
    x = xb.reshape(xb.arange(24, backend=xb_target.backend, device=xb_target.device), (4, 6))
    for _ in range(2):  # the second call meets the shape in the cache of valid shapes
        y = xb.reshape(x, shape)
        general = be.reshape(x.native, tuple(24 // -math.prod(shape) if s == -1 else s for s in shape))
        assert y.dtype is x.dtype and y.device == x.device
        _identical(y, general)


@pytest.mark.parametrize("shape", [(-2, 12), (12, -3), (-1, -1), (5, 5)])
def test_reshape_refuses_invalid_shapes_every_time(xb_target, shape):
    """NumPy takes -2 as -1; xbackend refuses it on every backend, from the cache of shapes too."""
    x = xb.arange(24, backend=xb_target.backend, device=xb_target.device)
    for _ in range(2):
        with pytest.raises(ValueError):
            xb.reshape(x, shape)


# --- torch's default device ---------------------------------------------------------------------------------
def test_torch_creation_follows_the_default_device_after_caching():
    torch = pytest.importorskip("torch")
    assert str(xb.zeros(3, dtype=xb.float32, backend="torch").device) == "cpu"  # fills the cache
    with torch.device("meta"):
        assert str(xb.zeros(3, dtype=xb.float32, backend="torch").device) == "meta"
        assert xb.zeros(3, dtype=xb.float32, backend="torch").native.device.type == "meta"
    torch.set_default_device("meta")
    try:
        assert str(xb.ones(2, backend="torch").device) == "meta"
    finally:
        torch.set_default_device(None)
    x = xb.zeros(3, dtype=xb.float32, backend="torch")
    assert str(x.device) == "cpu" and x.native.device.type == "cpu"
    for _ in range(2):  # an explicit device other than the default one: the cached creator passes it on
        m = xb.zeros(3, dtype=xb.float32, backend="torch", device="meta")
        assert str(m.device) == "meta" and m.native.device.type == "meta"


# --- hooks and subclasses -------------------------------------------------------------------------------------
def test_a_subclass_override_is_never_bypassed():
    """CuPy and Dask subclass the NumPy backend: a hook written for NumPy's method must call theirs."""
    from xbackend._backends.numpy.backend import NumpyBackend

    calls = []

    class Logged(NumpyBackend):
        def astype(self, x, dt, copy=True):
            calls.append(("astype", dt))
            return super().astype(x, dt, copy)

        def zeros(self, shape, dt, dev):
            calls.append(("zeros", dt))
            return super().zeros(shape, dt, dev)

    be, plain = Logged(), NumpyBackend()
    a = np.arange(3.0)
    assert be.caster(xb.float32)(a).dtype == np.float32 and calls == [("astype", xb.float32)]
    assert call_creator(be.creator("zeros", xb.int8, xb.asarray(a)._dev), 2).dtype == np.int8
    assert calls[-1] == ("zeros", xb.int8)
    ones = call_creator(be.creator("ones", xb.int8, xb.asarray(a)._dev), 2)
    assert ones.tolist() == [1, 1] and len(calls) == 2  # ones is not overridden: NumPy's own
    assert plain.caster(xb.float32)(a).dtype == np.float32 and len(calls) == 2


def test_every_backend_has_its_own_flags_and_caches(xb_target):
    """The hot paths read the flags as instance attributes: they must be the backend class's, and the caches
    the backend's own (Dask builds itself from a NumPy backend instance: it must not inherit NumPy's)."""
    be = get_backend(xb_target.backend)
    for flag in ("native_basic_indexing", "native_reshape"):
        assert getattr(be, flag) is getattr(type(be), flag), flag
    others = [get_backend(t.backend) for t in available_targets() if t.backend != xb_target.backend]
    assert all(be.casters is not o.casters and be.kernels is not o.kernels for o in others)


def test_unary_functions_take_native_and_python_data(xb_target):
    x = _array(xb_target, D.float64, [0.0, 1.0, -2.0])
    _identical(xb.exp(x.native), xb.exp(x))
    assert xb.exp([0.0, 1.0]).dtype is xb.float64 and xb.negative(3).item() == -3
    assert xb.exp.__name__ == "exp" and xb.exp.__module__ == "xbackend._elementwise"


def test_array_still_cannot_be_called_directly():
    with pytest.raises(TypeError, match="asarray"):
        xb.Array()
    assert type(-xb.asarray([1.0])) is xb.Array
