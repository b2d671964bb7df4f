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
]


@pytest.mark.parametrize("name, setup, stmt, cls, use, check", [s if len(s) == 6 else (*s, None) for s in SCENARIOS],
                         ids=[s[0] for s in SCENARIOS])  # fmt: skip
def test_printed_fixes_run(xb_target, name, setup, stmt, cls, use, check):
    if xb_target.device != "cpu":
        pytest.skip("CPU targets: the scenarios create on the CPU")
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
