"""``xb.grad``'s own bookkeeping - argnums (negative ones too), pytrees, keyword arguments, the path an error
names - checked against derivatives worked out by hand and computed in NumPy float64 (no xbackend code).

The engines (torch's autograd, JAX) differentiate; what xbackend adds is which argument each gradient belongs
to and what it looks like. A slip there (an index taken modulo the wrong number, a keyword dropped on the fast
path) gives a gradient of the wrong argument that still has a plausible shape, so every case here knows the
right answer independently: for ``f(a, b, c) = sum(a * b**2) + sum(3 c)``, d/da = b**2, d/db = 2ab, d/dc = 3.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import xbackend as xb
from xbackend.testing import available_targets

TARGETS = [t for t in available_targets() if t.backend in ("numpy", "torch")]  # the ones with autograd on CPU

A = np.array([0.5, -1.25, 2.0])
B = np.array([1.5, 0.25, -3.0])
C = np.array([2.0, 4.0, -1.0])
WANT = (B**2, 2 * A * B, np.full(3, 3.0))  # d/da, d/db, d/dc, by hand


def _f(a, b, c):
    return xb.sum(a * b**2) + xb.sum(3.0 * c)


def _host(x):
    return np.asarray(x.tolist())  # (on any device)


def _argnums_cases():
    out = []
    for k in (1, 2, 3):
        for nums in itertools.permutations(range(-3, 3), k):
            if len({i % 3 for i in nums}) == k:  # each argument once (a repeat is refused: tested below)
                out.append(nums)
    return out


@pytest.mark.parametrize("t", TARGETS, ids=str)
@pytest.mark.parametrize("pytree", [False, True], ids=["arrays", "pytree"])
def test_each_gradient_belongs_to_the_argument_argnums_names(t, pytree):
    """Every argnums of one to three of the three arguments, negative ones counted from the end, as Arrays and
    as one-element lists of Arrays (the flattening path)."""
    args = [xb.asarray(v, backend=t.backend, device=t.device) for v in (A, B, C)]
    f = _f
    if pytree:
        args = [[a] for a in args]

        def f(a, b, c):
            return _f(a[0], b[0], c[0])

    for nums in _argnums_cases():
        got = xb.grad(f, argnums=nums)(*args)
        assert len(got) == len(nums), nums
        for g, i in zip(got, nums):
            g = g[0] if pytree else g
            np.testing.assert_allclose(_host(g), WANT[i % 3], rtol=1e-15, err_msg=str(nums))
    for i in (-3, -1, 0, 2):  # one int: the gradient itself, not a tuple
        g = xb.grad(f, argnums=i)(*args)
        np.testing.assert_allclose(_host(g[0] if pytree else g), WANT[i % 3], rtol=1e-15)


@pytest.mark.parametrize("nums", [3, -4, (0, 3), (-4, 1)])
def test_argnums_outside_the_call_is_refused_naming_it(nums):
    args = [xb.asarray(v) for v in (A, B, C)]
    with pytest.raises(xb.ArgumentTypeError, match=r"names argument -?\d, but _f\(\) was called with 3 positional"):
        xb.grad(_f, argnums=nums)(*args)


def test_a_repeated_argument_is_refused():
    with pytest.raises(xb.ArgumentValueError, match=r"argnums=\(0, 2\)"):
        xb.grad(_f, argnums=(0, 2, 0))


@pytest.mark.parametrize("t", TARGETS, ids=str)
def test_keyword_arguments_reach_the_function_on_every_path(t):
    """A keyword argument (never differentiated) is passed through, whether or not the positional ones are all
    Arrays: d/dx sum(x * scale) = scale."""
    x = xb.asarray(A, backend=t.backend, device=t.device)
    scale = xb.asarray(np.array([2.0, -1.0, 0.5]), backend=t.backend, device=t.device)

    def f(x, *, scale=None):
        return xb.sum(x * scale)

    np.testing.assert_allclose(_host(xb.grad(f)(x, scale=scale)), [2.0, -1.0, 0.5])
    np.testing.assert_allclose(_host(xb.grad(lambda p, *, scale: f(p[0], scale=scale))([x], scale=scale)[0]),
                               [2.0, -1.0, 0.5])  # fmt: skip


@pytest.mark.parametrize("arg, path", [
    ({"w": [xb.asarray(1.0), 3.0]}, "['w'][1]"),
    ([xb.asarray(1.0), (xb.asarray(2.0), "x")], "[1][1]"),
    ((1.5,), "[0]"),
    ({"a": {"b": None}}, "['a']['b']"),
])
def test_a_non_array_in_a_differentiated_argument_is_named_by_its_path(arg, path):
    def f(y, p):
        return xb.sum(y)

    y = xb.asarray(1.0)
    with pytest.raises(xb.ArgumentTypeError) as e:
        xb.grad(f, argnums=1)(y, arg)
    msg = str(e.value)
    assert f"argument 1{path} of " in msg and "f()" in msg, msg


def test_an_argument_of_another_backend_reaches_the_function_as_it_is():
    """NumPy Arrays are differentiated by torch on views of them; a torch Array beside them is passed untouched
    (its dtype, backend and device), so d/dx sum(x * y) = y whatever y's dtype."""
    pytest.importorskip("torch")
    x = xb.asarray(A)
    for dt in (xb.float64, xb.float32):
        y = xb.asarray(B, backend="torch", dtype=dt)
        seen = []

        def f(x, y):
            seen.append((x.backend, y.backend, y.dtype, str(y.device)))
            return xb.sum(x * y)

        g = xb.grad(f)(x, y)
        assert seen == [("torch", "torch", dt, "cpu")]
        assert g.backend == "numpy" and g.dtype is xb.float64
        np.testing.assert_allclose(g.numpy(), B.astype(np.float32 if dt is xb.float32 else np.float64), rtol=0)


def test_arrays_created_inside_the_function_sit_next_to_its_arguments():
    """On NumPy the function runs on torch views of its arguments: xb.ones, xb.asarray and friends inside it make
    torch Arrays there (not NumPy ones, which would not mix), and d/dx sum(x * ones + 2 x) = 3."""
    x = xb.asarray(A)

    def f(x):
        return xb.sum(x * xb.ones(3) + xb.asarray([2.0, 2.0, 2.0]) * x)

    np.testing.assert_allclose(xb.grad(f)(x).numpy(), [3.0, 3.0, 3.0], rtol=0)


@pytest.mark.parametrize("nums", [(0, "a"), (0, 1.0), (True,), ()])
def test_argnums_must_be_ints(nums):
    with pytest.raises(xb.ArgumentTypeError, match="argnums must be an int or a non-empty tuple of ints"):
        xb.grad(_f, argnums=nums)


def test_a_callable_without_a_name_is_named_f():
    import functools

    g = functools.partial(_f, xb.asarray(A))
    with pytest.raises(xb.ArgumentTypeError, match=r"names argument 5, but f\(\) was called with 2 positional"):
        xb.grad(g, argnums=5)(xb.asarray(B), xb.asarray(C))
