"""Outcome parity by generation (issue 19): every public function and operator, arguments of every kind,
the same outcome on every CPU target (value, dtype and shape, or exception class and message).

The machinery is in ``tests/_parity.py``, the argument roles in ``tests/parity_specs.py``. The default
(``ci``/``dev``) profiles run a bounded number of examples per function, derandomised; the long run is
``HYPOTHESIS_PROFILE=explore python -m pytest tests/test_parity.py`` (docs/testing.md), whose finds become
explicit examples in ``tests/test_parity_cases.py``.
"""

from __future__ import annotations

import operator

import pytest
from hypothesis import given, settings, strategies as st

import parity_specs as S
from _parity import CPU_TARGETS, check_call

pytestmark = pytest.mark.skipif(len({t.backend for t in CPU_TARGETS}) < 2, reason="needs two CPU targets")

FUNCTIONS = S.public_functions()
# Each function and operator draws half of the profile's examples (20 under "ci": ~240 functions x 4 targets,
# about half a minute on two workers); HYPOTHESIS_PROFILE=explore draws 500 each, with fresh random seeds.
EXAMPLES = settings(max_examples=max(4, settings.default.max_examples // 2))
COMPARED = sorted(n for n in FUNCTIONS if n.rpartition(".")[2] not in S.NOT_COMPARED)


@pytest.mark.parametrize("name", COMPARED)
def test_function_outcomes_agree(name):
    fn = FUNCTIONS[name]
    values = name.rpartition(".")[2] not in S.SHAPES_AND_DTYPES_ONLY

    @EXAMPLES
    @given(S.calls(name, fn))
    def check(call):
        args, kwargs = call
        check_call(name, fn, args, kwargs, values=values)

    check()


BINARY_OPERATORS = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv, "//": operator.floordiv,
    "%": operator.mod, "**": operator.pow, "&": operator.and_, "|": operator.or_, "^": operator.xor,
    "<<": operator.lshift, ">>": operator.rshift, "@": operator.matmul, "<": operator.lt, "<=": operator.le,
    ">": operator.gt, ">=": operator.ge, "==": operator.eq, "!=": operator.ne,
}  # fmt: skip
INPLACE = {"+=": operator.iadd, "-=": operator.isub, "*=": operator.imul, "/=": operator.itruediv,
           "//=": operator.ifloordiv, "%=": operator.imod, "**=": operator.ipow, "&=": operator.iand,
           "|=": operator.ior, "^=": operator.ixor, "<<=": operator.ilshift, ">>=": operator.irshift}  # fmt: skip
UNARY = {"-x": operator.neg, "+x": operator.pos, "abs(x)": operator.abs, "~x": operator.invert}


@pytest.mark.parametrize("op", list(BINARY_OPERATORS))
def test_binary_operator_outcomes_agree(op):
    fn = BINARY_OPERATORS[op]

    @EXAMPLES
    @given(S.arrays(native_ok=False), st.data())
    def check(x, data):
        y = data.draw(S.operand(x))
        check_call(f"x {op} y", fn, (x, y), {})
        if not isinstance(y, S.ArraySpec):  # the reflected operator: y op x with y not an Array
            check_call(f"y {op} x", lambda a, b: fn(b, a), (x, y), {})

    check()


@pytest.mark.parametrize("op", list(INPLACE))
def test_inplace_operator_outcomes_agree(op):
    fn = INPLACE[op]

    def apply(x, y):
        x2 = fn(x, y)
        return x2, x  # the result and x itself after the write

    @EXAMPLES
    @given(S.arrays(native_ok=False), st.data())
    def check(x, data):
        check_call(f"x {op} y", apply, (x, data.draw(S.operand(x))), {})

    check()


@pytest.mark.parametrize("op", list(UNARY))
def test_unary_operator_outcomes_agree(op):
    @EXAMPLES
    @given(S.arrays(native_ok=False))
    def check(x):
        check_call(op, UNARY[op], (x,), {})

    check()
