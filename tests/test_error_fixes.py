"""The fixes printed in error messages run (issue 19): for every situation with a code fix, on every CPU target,
the test provokes the error, takes the code after the message's ``e.g.``, runs it in the same namespace, and
then checks that the original call succeeds (or that the fix's own expression does).

A fix that is prose (``Fix: pass an axis in -2..1``) is not run; every message must still have a ``Fix:``.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import xbackend as xb


def _fix_code(msg: str) -> str:
    """The code of a message's fix: after the fix's last ``e.g. ``, up to a parenthesis, ``, or`` or the end."""
    assert "Fix:" in msg, msg
    fix = msg.split("Fix:", 1)[1]
    assert "e.g. " in fix, f"no code in the fix: {msg}"
    code = fix.rsplit("e.g. ", 1)[-1]
    code = re.split(r" \(|;? or,? | or (?=xb\.)", code)[0]
    return code.rstrip(". ")


def _run_fix(msg: str, ns: dict) -> None:
    code = _fix_code(msg)
    exec(code, ns)  # noqa: S102 - the message's own fix, in the scenario's namespace


# (name, setup, failing statement, error class, what to do with the fix: "rerun" runs the fix and then the failing
# statement again, "run" runs the fix's expression, "prose" only checks that there is a fix; optionally a check of
# the values after the fix)
SCENARIOS = [
    ("int + out-of-range int", "x = xb.asarray([1, 2], dtype=xb.int8, backend=B)", "r = x + 300",
     xb.ScalarOverflowError, "rerun"),
    ("int * out-of-range int", "x = xb.asarray([1, 2], dtype=xb.uint8, backend=B)", "r = x * -1",
     xb.ScalarOverflowError, "rerun"),
    ("setitem out of range", "x = xb.asarray([1, 2], dtype=xb.int8, backend=B)", "x[0] = 300",
     xb.ScalarOverflowError, "rerun"),
    ("setitem of NumPy data out of range", "x = xb.asarray([1, 2], dtype=xb.int8, backend=B); "
     "v = np.array([300, 1])", "x[...] = v", xb.ScalarOverflowError, "run", "x.tolist() == [127, 1]"),
    ("where out of range", "x = xb.asarray([1, 2], dtype=xb.int8, backend=B); c = x > 1", "r = xb.where(c, x, 300)",
     xb.ScalarOverflowError, "rerun"),
    ("clip lower bound above the range", "x = xb.asarray([1, 2], dtype=xb.int8, backend=B)",
     "r = xb.clip(x, 300, None)", xb.ScalarOverflowError, "run"),
    ("clip with a float bound", "x = xb.asarray([1, 2], dtype=xb.int8, backend=B)", "r = xb.clip(x, 0.5, 1.5)",
     xb.PromotionError, "run"),
    ("full out of range", "", "r = xb.full(2, 300, dtype=xb.int8, backend=B)", xb.ScalarOverflowError, "run"),
    ("arange out of range", "", "r = xb.arange(300, dtype=xb.uint8, backend=B)", xb.ScalarOverflowError, "run"),
    ("arange below zero", "", "r = xb.arange(-1, 2, dtype=xb.uint8, backend=B)", xb.ScalarOverflowError, "run"),
    ("uint64 with int64", "x = xb.asarray([2**64 - 1], dtype=xb.uint64, backend=B); "
     "y = xb.asarray([1], dtype=xb.int64, backend=B)", "r = x + y", xb.PromotionError, "rerun",
     "float(r[0]) == 2.0**64"),  # the fix must not wrap 2**64 - 1 to -1 (issue 19)
    ("two backends", "x = xb.asarray([1.0], backend=B); y = xb.asarray([1.0], backend=OTHER)", "r = x + y",
     xb.BackendMismatchError, "rerun"),
    ("a native array of another backend", "x = xb.asarray([1.0], backend=B); y = xb.asarray([1.0], "
     "backend=OTHER).native", "r = x + y", xb.BackendMismatchError, "rerun"),
    ("truth value of many", "x = xb.asarray([1.0, 2.0], backend=B)", "r = bool(x)", xb.ShapeError, "run"),
    ("asarray copy=False with a cast", "x = xb.asarray([1.0], backend=B)",
     "r = xb.asarray(x, dtype=xb.float32, copy=False)", xb.CopyError, "run"),
    ("complex to real", "x = xb.asarray([1 + 2j], backend=B)", "r = x.astype(xb.float64)",
     xb.UnsupportedDTypeError, "run"),
    ("negative shift", "x = xb.asarray([4, 8], backend=B)", "r = x << -1", xb.DomainError, "prose"),
    ("integer to a negative power", "x = xb.asarray([2, 3], backend=B); y = -1", "r = x ** y", xb.DomainError, "run"),
    ("bitwise of floats", "x = xb.asarray([1.5], backend=B)", "r = x & x", xb.UnsupportedDTypeError, "run"),
    ("ordering complex numbers", "x = xb.asarray([1 + 2j], backend=B)", "r = x < x", xb.UnsupportedDTypeError, "run"),
    ("rounding complex numbers", "x = xb.asarray([1 + 2j], backend=B)", "r = xb.floor(x)", xb.UnsupportedDTypeError,
     "run"),
    ("float value into an int Array", "x = xb.asarray([1, 2], backend=B)", "x[0] = 1.5", xb.PromotionError, "rerun"),
    ("linspace num not an int", "", "r = xb.linspace(0, 1, 2.5, backend=B)", xb.ArgumentTypeError, "prose"),
    ("axis out of range", "x = xb.asarray([1.0], backend=B)", "r = xb.sum(x, axis=3)", xb.AxisError, "prose"),
    ("shapes that do not broadcast", "x = xb.ones(2, backend=B); y = xb.ones(3, backend=B)", "r = x + y",
     xb.ShapeError, "prose"),
    # issue 32: the first hour of a NumPy or torch user
    ("float NumPy data into an int8 Array", "x = xb.asarray([1, 2], dtype=xb.int8, backend=B); "
     "v = np.array([1.5, 2.5])", "x[...] = v", xb.PromotionError, "run", "x.tolist() == [2, 2]"),
    ("NumPy data beyond float32's range", "x = xb.asarray([1.0, 2.0], dtype=xb.float32, backend=B); "
     "v = np.array([1e40, 1.0])", "x[...] = v", xb.ScalarOverflowError, "run",
     "x.tolist() == [float(np.finfo(np.float32).max), 1.0]"),
    ("torch's x.float()", "x = xb.asarray([1.0], backend=B)", "r = x.float()", xb.UnknownAttributeError, "run"),
    ("NumPy's x.std()", "x = xb.asarray([1.0, 3.0], backend=B)", "r = x.std()", xb.UnknownAttributeError, "run"),
    ("a 2-d x.transpose(0, 1)", "x = xb.ones((2, 3), backend=B)", "r = x.transpose(0, 1)", xb.ArgumentValueError,
     "run"),
    ("a dtype name with a typo", "x = xb.asarray([1.0], backend=B)", "r = x.dtype == 'flaot64'",
     xb.UnsupportedDTypeError, "run"),
    ("an unknown backend", "", "r = xb.asarray([1.0], backend='tourch')", xb.UnknownBackendError, "prose"),
    ("a float seed", "seed = 1.5", "r = xb.random.default_rng(seed, backend=B)", xb.ArgumentTypeError, "run"),
    ("a negative seed", "seed = -1", "r = xb.random.default_rng(seed, backend=B)", xb.ArgumentValueError, "run"),
    ("an Array as a seed", "seed = xb.asarray(3, backend=B)", "r = xb.random.default_rng(seed, backend=B)",
     xb.ArgumentTypeError, "run"),
    # issue 30: xb.random, xb.grad and xb.jit raise typed errors whose fixes work
    ("a stream name with a typo", "seed = 1", "r = xb.random.default_rng(seed, backend=B, stream='nativ')",
     xb.ArgumentValueError, "run"),
    ("a NumPy generator as a seed", "seed = np.random.default_rng(1)", "r = xb.random.default_rng(seed, backend=B)",
     xb.ArgumentTypeError, "run"),
    ("a generator with a new place", "g = xb.random.default_rng(1)", "r = xb.random.default_rng(g, backend=B)",
     xb.ArgumentTypeError, "prose"),
    ("Generator() called directly", "", "r = xb.random.Generator()", xb.ArgumentTypeError, "run"),
    ("chunks= off Dask", "seed = 1; chunks = 2", "r = xb.random.default_rng(seed, backend='numpy', chunks=chunks)",
     xb.ArgumentValueError, "run", "rng.random(4).backend == 'dask' and "
     "rng.random(4).tolist() == xb.random.default_rng(seed).random(8).tolist()[4:]"),
    ("bernoulli with p above 1", "rng = xb.random.default_rng(0, backend=B); p = 1.5", "r = rng.bernoulli(p, 3)",
     xb.ArgumentValueError, "rerun", "r.tolist() == [True, True, True]"),
    ("normal with a negative scale", "rng = xb.random.default_rng(0, backend=B); scale = -2.0",
     "r = rng.normal(0.0, scale, 3)", xb.ArgumentValueError, "rerun"),
    ("integers with float bounds", "rng = xb.random.default_rng(0, backend=B); low, high = 0.0, 6.0",
     "r = rng.integers(low, high, 3)", xb.ArgumentTypeError, "rerun", "all(0 <= v < 6 for v in r.tolist())"),
    ("integers of an empty range", "rng = xb.random.default_rng(0, backend=B)", "r = rng.integers(5, 5, 3)",
     xb.ArgumentValueError, "prose"),
    ("integers outside the dtype", "rng = xb.random.default_rng(0, backend=B)",
     "r = rng.integers(0, 300, 3, dtype=xb.uint8)", xb.ScalarOverflowError, "prose"),
    ("integers of a float dtype", "rng = xb.random.default_rng(0, backend=B)",
     "r = rng.integers(0, 3, 3, dtype=xb.float32)", xb.UnsupportedDTypeError, "prose"),
    ("random floats of an int dtype", "rng = xb.random.default_rng(0, backend=B)", "r = rng.random(3, xb.int32)",
     xb.UnsupportedDTypeError, "prose"),
    ("shape= and size= together", "rng = xb.random.default_rng(0, backend=B)", "r = rng.random(3, size=3)",
     xb.ArgumentTypeError, "prose"),
    ("permutation of a 0-d Array", "rng = xb.random.default_rng(0, backend=B); x = xb.asarray(4, backend=B)",
     "r = rng.permutation(x)", xb.ArgumentValueError, "run"),
    ("permuted along an axis out of range", "rng = xb.random.default_rng(0, backend=B); x = xb.ones(3, backend=B)",
     "r = rng.permuted(x, axis=2)", xb.AxisError, "prose"),
    ("choice from a 0-d Array", "rng = xb.random.default_rng(0, backend=B); a = xb.asarray(5, backend=B); shape = 3",
     "r = rng.choice(a, shape)", xb.ArgumentValueError, "run"),
    ("choice of more than there are", "rng = xb.random.default_rng(0, backend=B); a, shape = 3, 5",
     "r = rng.choice(a, shape, replace=False)", xb.ArgumentValueError, "run"),
    ("choice from an empty population", "rng = xb.random.default_rng(0, backend=B)", "r = rng.choice(0, 2)",
     xb.ArgumentValueError, "prose"),
    ("choice with weights that do not sum to 1", "rng = xb.random.default_rng(0, backend=B); "
     "w = xb.asarray([1.0, 3.0], backend=B); p = w", "r = rng.choice(2, 4, p=p)", xb.ArgumentValueError, "rerun"),
    ("choice with p of the wrong shape", "rng = xb.random.default_rng(0, backend=B)",
     "r = rng.choice(3, 2, p=[0.5, 0.5])", xb.ArgumentValueError, "prose"),
    ("choice of more distinct samples than non-zero p", "rng = xb.random.default_rng(0, backend=B)",
     "r = rng.choice(3, 2, replace=False, p=[1.0, 0.0, 0.0])", xb.ArgumentValueError, "prose"),
    ("argnums naming an argument twice", "f = lambda w: xb.sum(w * w); argnums = (0, 0)",
     "g = xb.grad(f, argnums=argnums)", xb.ArgumentValueError, "rerun"),
    ("argnums not an int", "f = lambda w: xb.sum(w * w); argnums = '0'", "g = xb.grad(f, argnums=argnums)",
     xb.ArgumentTypeError, "rerun"),
    ("argnums past the arguments", "f = lambda w: xb.sum(w * w); w = xb.asarray([1.0], backend=B)",
     "r = xb.grad(f, argnums=1)(w)", xb.ArgumentTypeError, "prose"),
    ("grad of a Python number", "f = lambda w: xb.sum(w * w); value = 1.5", "r = xb.grad(f)(value)",
     xb.ArgumentTypeError, "run"),
    ("grad of arguments with no Array", "f = lambda w: xb.sum(xb.asarray(1.0)); w = {}", "r = xb.grad(f)(w)",
     xb.ArgumentTypeError, "prose"),
    ("grad of an integer Array", "f = lambda w: xb.sum(w * w); w = xb.asarray([1, 2], backend=B)",
     "r = xb.grad(f)(w)", xb.GradientError, "rerun", "r.tolist() == [2.0, 4.0]"),
    ("has_aux=True without a pair", "f = lambda w: xb.sum(w * w); w = xb.asarray([1.0], backend=B)",
     "r = xb.grad(f, has_aux=True)(w)", xb.ArgumentTypeError, "prose"),
    ("x.grad = a list", "x = xb.asarray([1.0, 2.0], backend=B, requires_grad=True); g = [0.5, 0.5]",
     "x.grad = g", xb.ArgumentTypeError, "run", "x.grad.tolist() == [0.5, 0.5]"),
    ("backward(gradient=a list)", "x = xb.asarray([1.0, 2.0], backend=B, requires_grad=True); loss = x * x",
     "loss.backward([1.0, 1.0])", xb.ArgumentTypeError, "run", "x.grad.tolist() == [2.0, 4.0]"),
    ("jit of a native array", "f = xb.jit(lambda x: x + 1); x = np.ones(2)", "r = f(x)", xb.ArgumentTypeError, "run"),
    ("jit with cache_size=0", "f = lambda x: x + 1", "r = xb.jit(f, cache_size=0)", xb.ArgumentValueError, "run",
     "f(xb.ones(2, backend=B)).tolist() == [2.0, 2.0]"),
    ("jit of a non-function", "", "r = xb.jit(3)", xb.ArgumentTypeError, "run"),
    ("portable of a non-function", "", "r = xb.portable(3)", xb.ArgumentTypeError, "run"),
    ("a namespace for an unbound device", "from xbackend._namespace import namespace_for; dev = xb.device('cpu')",
     "r = namespace_for(dev)", xb.ArgumentValueError, "run"),
    ("Array() called directly", "", "r = xb.Array([1.0])", xb.ArgumentTypeError, "run"),
    ("prefetch depth 0", "batches = [np.ones(2)]; depth = 0",
     "r = list(xb.prefetch(batches, backend=B, depth=depth))", xb.ArgumentValueError, "rerun"),
    ("a dtype kind with a typo", "info = xb.__array_namespace_info__()", "r = info.dtypes(kind='real floats')",
     xb.ArgumentValueError, "prose"),
]

#: scenarios that apply to some backends only (the others refuse earlier, with their own fix)
ONLY_ON = {
    "grad of an integer Array": ("numpy", "torch", "cupy"),  # Dask and array-api-strict have no gradients
    "has_aux=True without a pair": ("numpy", "torch", "cupy"),
    "argnums past the arguments": ("numpy", "torch", "cupy"),
    "x.grad = a list": ("torch",),  # only torch Arrays accumulate .grad
    "backward(gradient=a list)": ("torch",),
}


@pytest.mark.parametrize("name, setup, stmt, cls, use, check", [s if len(s) == 6 else (*s, None) for s in SCENARIOS],
                         ids=[s[0] for s in SCENARIOS])  # fmt: skip
def test_printed_fixes_run(xb_target, name, setup, stmt, cls, use, check):
    if xb_target.device != "cpu":
        pytest.skip("CPU targets: the scenarios create on the CPU")
    if xb_target.backend not in ONLY_ON.get(name, (xb_target.backend,)):
        pytest.skip(f"{name}: not a situation of {xb_target.backend} Arrays")
    other = "torch" if xb_target.backend != "torch" else "numpy"
    if "OTHER" in setup and not xb.backends()[other].usable:
        pytest.skip("needs a second backend")
    ns = {"xb": xb, "np": np, "B": xb_target.backend, "OTHER": other}
    exec(setup, ns)  # noqa: S102
    with pytest.raises(cls) as info:
        exec(stmt, ns)  # noqa: S102
    msg = str(info.value)
    assert "Fix:" in msg, msg
    if use == "prose":
        return
    _run_fix(msg, ns)
    if use == "rerun":
        exec(stmt, ns)  # noqa: S102 - the original call succeeds after the fix
    if check:
        assert eval(check, ns), check  # noqa: S307 - and gives the right answer


def test_fix_extraction():
    assert _fix_code("x. Fix: cast first, e.g. x = x.astype(xb.int16)") == "x = x.astype(xb.int16)"
    assert _fix_code("x. Fix: use xb.any(x) or xb.all(x), e.g. bool(xb.any(x))") == "bool(xb.any(x))"
    assert _fix_code("x. Fix: e.g. xb.clip(x.astype(xb.int16), 300, None) (or cast)") == \
        "xb.clip(x.astype(xb.int16), 300, None)"  # fmt: skip
