"""Autograd on Arrays (issue 22): requires_grad= at creation, .grad / .backward() / .requires_grad_() / .is_leaf,
xb.no_grad(), and GradientError with a working fix wherever torch would raise its raw error.

The printed fixes are applied where a test can: each error test runs the fix its message names and checks
the result against NumPy arithmetic.
"""

from __future__ import annotations

import subprocess
import sys
import threading

import numpy as np
import pytest

import xbackend as xb

torch = pytest.importorskip("torch")

CREATORS = {
    "zeros": lambda **kw: xb.zeros(3, **kw),
    "ones": lambda **kw: xb.ones((2, 2), **kw),
    "empty": lambda **kw: xb.empty(2, **kw),
    "full": lambda **kw: xb.full(3, 1.5, **kw),
    "arange": lambda **kw: xb.arange(0.0, 2.0, 0.5, **kw),
    "linspace": lambda **kw: xb.linspace(0, 1, 5, **kw),
    "eye": lambda **kw: xb.eye(2, **kw),
    "asarray": lambda **kw: xb.asarray([1.0, 2.0], **kw),
    "zeros_like": lambda **kw: xb.zeros_like(xb.asarray([1.0, 2.0], backend=kw.pop("backend")), **kw),
    "ones_like": lambda **kw: xb.ones_like(xb.asarray([1.0, 2.0], backend=kw.pop("backend")), **kw),
    "empty_like": lambda **kw: xb.empty_like(xb.asarray([1.0, 2.0], backend=kw.pop("backend")), **kw),
    "full_like": lambda **kw: xb.full_like(xb.asarray([1.0, 2.0], backend=kw.pop("backend")), 4.0, **kw),
}


@pytest.mark.parametrize("name", sorted(CREATORS))
def test_creation_with_requires_grad_makes_a_leaf(name):
    make = CREATORS[name]
    plain = make(backend="torch")
    x = make(backend="torch", requires_grad=True)
    assert x.requires_grad and x.is_leaf and x.grad is None and x.backend == "torch"
    assert not plain.requires_grad and x.dtype == plain.dtype and x.shape == plain.shape
    if name not in ("empty", "empty_like"):
        assert x.detach().tolist() == plain.tolist()
    xb.sum(x * 2.0).backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full(x.shape, 2.0))


@pytest.mark.parametrize("name", sorted(CREATORS))
def test_requires_grad_on_numpy_raises_with_a_fix_that_works(name):
    make = CREATORS[name]
    with pytest.raises(xb.GradientError, match="backend='torch', requires_grad=True") as info:
        make(backend="numpy", requires_grad=True)
    assert "xb.grad(loss)(w)" in str(info.value)
    assert make(backend="torch", requires_grad=True).requires_grad  # the fix it names


def test_requires_grad_needs_a_floating_dtype():
    with pytest.raises(xb.GradientError, match="astype"):
        xb.arange(3, backend="torch", requires_grad=True)
    assert xb.arange(3, backend="torch", dtype=xb.float32, requires_grad=True).requires_grad  # the fix


def test_asarray_leaves_own_their_memory_and_leave_the_callers_tensor_alone():
    host = np.array([1.0, 2.0])
    w = xb.asarray(host, backend="torch", requires_grad=True)
    assert not xb.shares_memory(w.detach(), host)  # a parameter does not rewrite the caller's NumPy data
    with xb.no_grad():
        w -= 1.0
    np.testing.assert_array_equal(host, [1.0, 2.0])
    shared = xb.asarray(host, backend="torch", requires_grad=True, copy=False)  # asked for: shares
    assert xb.shares_memory(shared.detach(), host)
    t = torch.ones(2, dtype=torch.float64)
    a = xb.asarray(t, requires_grad=True)
    assert a.requires_grad and not t.requires_grad  # a new leaf on t's memory
    assert a.native.data_ptr() == t.data_ptr()
    p = torch.ones(2, requires_grad=True)
    assert xb.asarray(p, requires_grad=True).native is p  # already a leaf that requires grad
    with pytest.raises(xb.GradientError, match=r"y.detach\(\)"):
        xb.asarray(p * 2, requires_grad=True)
    assert xb.asarray((p * 2).detach(), requires_grad=True).is_leaf  # the fix


def test_grad_backward_requires_grad_attributes():
    w = xb.asarray([1.0, 2.0, 3.0], backend="torch")
    assert not w.requires_grad and w.grad is None
    assert w.requires_grad_() is w and w.requires_grad
    loss = xb.sum(w * w * w)
    assert not loss.is_leaf and loss.requires_grad
    loss.backward()
    np.testing.assert_array_equal(w.grad.numpy(), 3 * np.array([1.0, 2.0, 3.0]) ** 2)
    xb.sum(w).backward()  # accumulates, as torch does
    np.testing.assert_array_equal(w.grad.numpy(), 3 * np.array([1.0, 2.0, 3.0]) ** 2 + 1)
    w.grad = None
    assert w.grad is None
    w.grad = xb.zeros(3, backend="torch")
    assert w.grad.tolist() == [0.0, 0.0, 0.0]
    with pytest.raises(xb.GradientError, match="shape, dtype and device"):
        w.grad = xb.zeros(2, backend="torch")
    with pytest.raises(xb.BackendMismatchError):
        w.grad = xb.zeros(3)
    w.requires_grad = False
    assert not w.requires_grad
    v = xb.asarray([2.0], backend="torch", requires_grad=True)
    y = v * 3.0
    y.backward(gradient=xb.asarray([0.5], backend="torch"))
    assert v.grad.tolist() == [1.5]


def test_backward_on_a_non_scalar_gradient_is_checked():
    v = xb.asarray([2.0], backend="torch", requires_grad=True)
    with pytest.raises(xb.BackendMismatchError):
        (v * 3.0).backward(gradient=xb.asarray([0.5]))


def test_arrays_without_autograd_answer_and_refuse_with_the_fix():
    x = xb.asarray([1.0, 2.0])
    assert x.grad is None and not x.requires_grad and x.is_leaf
    x.requires_grad = False  # nothing to switch off
    x.grad = None
    for call in (lambda: x.requires_grad_(), lambda: xb.sum(x).backward(), lambda: setattr(x, "grad", x)):
        with pytest.raises(xb.GradientError, match=r"xb.grad\(loss\)\(w\)"):
            call()
    assert xb.grad(lambda x: xb.sum(x * x))(x).tolist() == [2.0, 4.0]  # the fix


# -- in-place updates of leaves ----------------------------------------------------------------------
INPLACE = {
    "+=": (lambda w, d: w.__iadd__(d), np.add),
    "-=": (lambda w, d: w.__isub__(d), np.subtract),
    "*=": (lambda w, d: w.__imul__(d), np.multiply),
    "/=": (lambda w, d: w.__itruediv__(d), np.divide),
    "**=": (lambda w, d: w.__ipow__(d), np.power),
    "[...] =": (lambda w, d: w.__setitem__(slice(None), d), lambda a, b: np.broadcast_to(b, a.shape)),
    "[0] =": (lambda w, d: w.__setitem__(0, d), lambda a, b: np.r_[b, a[1:]]),
}


@pytest.mark.parametrize("op", sorted(INPLACE))
@pytest.mark.parametrize("operand", ["scalar", "array"])
def test_inplace_update_of_a_leaf_names_no_grad_and_works_under_it(op, operand):
    apply, numpy_op = INPLACE[op]
    start = np.array([1.0, 2.0, 4.0])
    w = xb.asarray(start, backend="torch", requires_grad=True)
    d = 0.5 if operand == "scalar" or op == "[0] =" else xb.asarray([0.5, 2.0, 1.0], backend="torch")
    with pytest.raises(xb.GradientError, match=r"with xb\.no_grad\(\):") as info:
        apply(w, d)
    assert "leaf" in str(info.value) and not isinstance(info.value.__cause__, xb.GradientError)
    np.testing.assert_array_equal(w.detach().numpy(), start)  # nothing written
    with xb.no_grad():  # the fix
        apply(w, d)
    want = numpy_op(start, d if type(d) is float else d.numpy())
    np.testing.assert_allclose(w.detach().numpy(), want, rtol=1e-15)
    assert w.requires_grad and w.is_leaf


def test_inplace_on_a_computed_array_is_fine_and_backward_errors_are_typed():
    w = xb.asarray([1.0, 2.0], backend="torch", requires_grad=True)
    h = w * 2.0
    h += 1.0  # not a leaf: torch records it
    xb.sum(h).backward()
    assert w.grad.tolist() == [2.0, 2.0]
    # a value the graph needs, changed in place before backward
    z = xb.exp(w)
    loss = xb.sum(z)
    z *= 2.0
    with pytest.raises(xb.GradientError, match="out of place"):
        loss.backward()
    w.grad = None
    z = xb.exp(w)
    loss = xb.sum(z)
    z = z * 2.0  # the fix: out of place
    loss.backward()
    np.testing.assert_allclose(w.grad.numpy(), np.exp([1.0, 2.0]))


def test_backward_errors_name_fixes_that_work():
    w = xb.asarray([1.0, 2.0], backend="torch", requires_grad=True)
    loss = xb.sum(w * w)
    loss.backward()
    with pytest.raises(xb.GradientError, match="retain_graph=True"):
        loss.backward()
    w.grad = None
    loss = xb.sum(w * w)
    loss.backward(retain_graph=True)  # the fix
    loss.backward()
    assert w.grad.tolist() == [4.0, 8.0]
    with pytest.raises(xb.GradientError, match=r"xb.sum\(x\).backward\(\)"):
        (w * w).backward()
    w.grad = None
    xb.sum(w * w).backward()  # the fix
    assert w.grad.tolist() == [2.0, 4.0]
    c = xb.asarray([1.0, 2.0], backend="torch")
    with pytest.raises(xb.GradientError, match="requires_grad=True"):
        xb.sum(c * c).backward()
    with xb.no_grad():
        out = xb.sum(w * w)
    with pytest.raises(xb.GradientError, match="outside `with xb.no_grad"):
        out.backward()


def test_nested_data_holding_grad_tensors_keep_their_graph():
    """A list of arrays is stacked where they live (issue 19's one way in): tensors that require grad stay on torch
    with their graph, instead of being gathered on the host."""
    t = torch.ones(2, dtype=torch.float64, requires_grad=True)
    for data in ([t, t], [xb.asarray(t), xb.asarray(t)], [[t]]):
        got = xb.asarray(data)
        assert got.backend == "torch" and got.requires_grad
    xb.sum(xb.asarray([t, t])).backward()
    assert t.grad.tolist() == [2.0, 2.0]
    t.grad = None
    stacked = xb.stack([xb.asarray(x) for x in [t, t * 2]])  # the explicit spelling: the same graph
    assert stacked.requires_grad
    xb.sum(stacked).backward()
    assert t.grad.tolist() == [3.0, 3.0]
    assert xb.asarray([x.detach() for x in [t, t]]).tolist() == [[1.0, 1.0], [1.0, 1.0]]  # the other fix


# -- no_grad ---------------------------------------------------------------------------------------------
def test_no_grad_stops_recording_as_context_and_decorator_and_restores():
    w = xb.ones(2, backend="torch", requires_grad=True)
    with xb.no_grad():
        assert not (w * 2.0).requires_grad
        with xb.no_grad():
            pass
        assert not (w * 2.0).requires_grad
    assert (w * 2.0).requires_grad

    @xb.no_grad()
    def evaluate(w):
        return w * 3.0

    assert not evaluate(w).requires_grad and (w * 2.0).requires_grad
    with pytest.raises(ValueError):
        with xb.no_grad():
            raise ValueError("propagates")
    assert (w * 2.0).requires_grad
    results = []

    def other_thread():
        results.append((w * 2.0).requires_grad)  # torch's grad mode is per thread

    with xb.no_grad():
        th = threading.Thread(target=other_thread)
        th.start()
        th.join()
    assert results == [True]


def test_no_grad_does_not_import_torch():
    code = "import sys, xbackend as xb\nwith xb.no_grad():\n    x = xb.ones(3) * 2\nprint('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def test_no_grad_inside_xb_grad_on_numpy_is_the_torch_semantics():
    def f(x):
        with xb.no_grad():
            c = x * 3.0  # a constant for the gradient
        return xb.sum(c * x)

    assert xb.grad(f)(xb.asarray([1.0, 2.0])).tolist() == [3.0, 6.0]
    assert xb.grad(f)(xb.asarray([1.0, 2.0], backend="torch")).tolist() == [3.0, 6.0]
    g = xb.grad(lambda x: xb.sum(x.detach() * 3.0 * x))(xb.asarray([1.0, 2.0]))  # the portable spelling
    assert g.tolist() == [3.0, 6.0]
