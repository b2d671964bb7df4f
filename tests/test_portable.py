"""@xb.portable: native arrays in, Arrays inside, native arrays of the caller's type and device out."""

from __future__ import annotations

import inspect
from collections import OrderedDict, namedtuple

import numpy as np
import pytest
from hypothesis import given

import xbackend as xb
from xbackend.testing import assert_close, available_targets
from xbackend.testing import strategies as xst

Pair = namedtuple("Pair", ["sum", "diff"])
HAS_TORCH = any(t.backend == "torch" for t in available_targets())
needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="torch is not usable here")


@xb.portable
def affine(x, w, b=0.0, *, scale=1.0):
    """Docstring kept."""
    assert type(x) is xb.Array and type(w) is xb.Array  # Arrays inside
    return (x * w + b) * scale


@xb.portable()
def stats(x, y):
    return {"pair": Pair(x + y, x - y), "list": [x * 2, 3], "tuple": (x, "label", None)}


@xb.portable
def total(xs, weights=None):
    out = xs[0]
    for i, x in enumerate(xs[1:], 1):
        out = out + (x if weights is None else x * weights[str(i)])
    return out


def _native(data, t):
    return xb.asarray(data, backend=t.backend, device=t.device).native


def test_native_in_native_out(xb_target):
    x, w = np.arange(6.0).reshape(2, 3), np.full((2, 3), 0.5)
    out = affine(_native(x, xb_target), _native(w, xb_target), 1.0, scale=2.0)
    assert type(out) is type(_native(x, xb_target))
    assert xb.asarray(out).device == xb_target.device
    assert_close(out, (x * w + 1.0) * 2.0)


def test_arrays_in_arrays_out(xb_target):
    x = xb.asarray([1.0, 2.0], backend=xb_target.backend, device=xb_target.device)
    out = affine(x, x)
    assert type(out) is xb.Array and out.backend == xb_target.backend
    assert_close(out, np.array([1.0, 4.0]))


def test_array_mixed_with_native_of_same_backend_gives_native(xb_target):
    x = xb.asarray([1.0, 2.0], backend=xb_target.backend, device=xb_target.device)
    out = affine(x.native, x)
    assert type(out) is type(x.native)


def test_nested_results_are_unwrapped(xb_target):
    x, y = _native(np.array([1.0, 2.0]), xb_target), _native(np.array([3.0, 5.0]), xb_target)
    out = stats(x, y)
    nat = type(x)
    assert type(out["pair"]) is Pair and type(out["pair"].sum) is nat and type(out["pair"].diff) is nat
    assert type(out["list"][0]) is nat and out["list"][1] == 3
    assert type(out["tuple"]) is tuple and out["tuple"][0] is x and out["tuple"][1:] == ("label", None)
    assert_close(out["pair"].sum, np.array([4.0, 7.0]))
    assert_close(out["pair"].diff, np.array([-2.0, -3.0]))


def test_nested_arguments_are_wrapped(xb_target):
    xs = [_native(np.array([1.0, 2.0]) * k, xb_target) for k in (1, 2, 3)]
    weights = OrderedDict((str(i), _native(np.array([10.0, 100.0]), xb_target)) for i in (1, 2))
    out = total(tuple(xs), weights=weights)
    assert type(out) is type(xs[0])
    assert_close(out, np.array([1.0, 2.0]) + 5 * np.array([1.0, 2.0]) * np.array([10.0, 100.0]))
    assert_close(total(xs), np.array([6.0, 12.0]))


def test_named_tuple_argument_and_result():
    @xb.portable
    def swap(p):
        assert type(p.sum) is xb.Array
        return Pair(p.diff, p.sum)

    out = swap(Pair(np.ones(2), np.zeros(2)))
    assert type(out) is Pair and type(out.sum) is np.ndarray
    assert_close(out.sum, np.zeros(2))


def test_scalars_and_other_objects_pass_through():
    seen = []

    @xb.portable
    def f(x, n, name, cfg, s):
        seen.extend([n, name, cfg, s])
        return x * n

    cfg = object()
    out = f(np.arange(3), 2, "x", cfg, np.float32(1.5))
    assert seen == [2, "x", cfg, np.float32(1.5)] and type(seen[3]) is np.float32
    assert out.tolist() == [0, 2, 4]


def test_dtype_is_kept(xb_target):
    x = _native(np.array([1, 2, 3], dtype=np.int32), xb_target)
    out = stats(x, x)["pair"].sum
    assert xb.asarray(out).dtype == xb.int32
    assert xb.asarray(affine(x, x)).dtype == xb.float64  # `* scale` (a Python float) promotes to the default


def test_no_arrays_at_all_returns_result_unchanged():
    @xb.portable
    def f(a, b):
        return xb.asarray([a, b])

    out = f(1.0, 2.0)
    assert type(out) is xb.Array


def test_metadata_is_kept():
    assert affine.__name__ == "affine" and affine.__doc__ == "Docstring kept."
    assert inspect.signature(affine) == inspect.signature(affine.__wrapped__)


def test_no_signature_inspection_per_call(monkeypatch):
    @xb.portable
    def f(x, y):
        return x - y

    def boom(*a, **k):
        raise AssertionError("inspect.signature called per call")

    monkeypatch.setattr(inspect, "signature", boom)
    assert f(np.ones(2), np.ones(2)).tolist() == [0.0, 0.0]


@needs_torch
def test_subclass_of_native_type_is_recognised():
    import torch

    p = torch.nn.Parameter(torch.arange(3.0, dtype=torch.float64))
    out = affine(p, torch.ones(3, dtype=torch.float64))
    assert isinstance(out, torch.Tensor) and out.requires_grad
    assert_close(out, np.arange(3.0))


def test_decorating_a_non_callable_raises():
    with pytest.raises(TypeError, match="decorates a function"):
        xb.portable(3)


@needs_torch
def test_mixed_backends_raise_with_both_parameter_names():
    import torch

    with pytest.raises(xb.BackendMismatchError, match=r"'x' \(numpy on cpu\).*'w' \(torch on cpu\)"):
        affine(np.ones(2), torch.ones(2, dtype=torch.float64))
    with pytest.raises(xb.BackendMismatchError, match="'b'"):
        affine(np.ones(2), np.ones(2), b=torch.ones(2))
    with pytest.raises(xb.BackendMismatchError, match=r"xs\[1\]"):
        total([np.ones(2), torch.ones(2)])
    with pytest.raises(TypeError):  # the typed error is also a TypeError
        affine(xb.asarray(np.ones(2)), torch.ones(2))


@needs_torch
def test_mixed_devices_raise():
    import torch

    with pytest.raises(xb.DeviceMismatchError, match="'w'"):
        affine(torch.ones(2), torch.ones(2, device="meta"))


@needs_torch
def test_torch_autograd_flows_through():
    import torch

    x = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64, requires_grad=True)
    w = torch.tensor([1.5, 2.0, -0.5], dtype=torch.float64, requires_grad=True)

    @xb.portable
    def f(x, w):
        return xb.exp(x * w) + x * x

    y = f(x, w)
    assert type(y) is torch.Tensor and y.requires_grad
    gx, gw = torch.autograd.grad(y.sum(), (x, w))
    xd, wd = x.detach().numpy(), w.detach().numpy()
    assert_close(gx, w.detach() * torch.exp(x.detach() * w.detach()) + 2 * x.detach())
    assert_close(gw, xd * np.exp(xd * wd))
    assert torch.autograd.gradcheck(f, (x, w))
    assert torch.autograd.gradgradcheck(f, (x, w))


@needs_torch
def test_torch_nested_outputs_keep_grad():
    import torch

    x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    out = stats(x, x)
    (gx,) = torch.autograd.grad(out["pair"].sum.sum() + out["list"][0].sum(), (x,))
    assert_close(gx, np.array([4.0, 4.0]))


@given(x=xst.host_arrays(xb.float64, xst.shapes(max_dims=2), elements={"min_value": -1e6, "max_value": 1e6}))
def test_portable_matches_undecorated_function(x):
    def f(a, b):
        return xb.tanh(a) * b - a

    g = xb.portable(f)
    for t in available_targets():
        if t.is_gpu:
            continue
        a = xb.asarray(x, backend=t.backend, device=t.device)
        assert_close(g(a.native, a.native), f(a, a))


def test_methods_and_keyword_arrays():
    class Model:
        def __init__(self, w):
            self.w = w

        @xb.portable
        def predict(self, x, *, bias=None):
            assert type(x) is xb.Array and (bias is None or type(bias) is xb.Array)
            return x * 2.0 if bias is None else x * 2.0 + bias

    m = Model(3)
    for _ in range(2):  # the second call takes the cached-type path for `self`
        out = m.predict(np.array([1.0, 2.0]), bias=np.array([0.5, 0.5]))
        assert type(out) is np.ndarray and out.tolist() == [2.5, 4.5]
    assert m.predict(np.array([1.0])).tolist() == [2.0]


def test_star_args_are_named_in_errors():
    @xb.portable
    def first(*xs):
        return xs[0]

    assert first(np.ones(1), np.zeros(1)).tolist() == [1.0]
    if HAS_TORCH:
        import torch

        with pytest.raises(xb.BackendMismatchError, match=r"'xs\[1\]'"):
            first(np.ones(1), torch.ones(1))
