"""The outcome-parity generator on CuPy on NumPy (tests/fakecupy.py): CupyBackend's own code, with CuPy's observed
kernel behaviour, against NumPy on the CPU (issue 28: most of what broke on the GPU broke in code CI never ran).

Few examples per function (CuPy on NumPy adds one NumPy-speed target to each call; ``EXAMPLES`` below), every public
function and operator, and every listed case of tests/test_parity_cases.py. A disagreement here is a CuPy fix that is
missing or wrong (or a quirk tests/fakecupy.py models wrongly: its docstrings cite where each comes from).
"""

from __future__ import annotations

import operator

import pytest
from hypothesis import given, settings

import parity_specs as S
from _parity import check_call
from fakecupy import TARGET
from test_parity import BINARY_OPERATORS, COMPARED, FUNCTIONS, INPLACE, UNARY
from test_parity_cases import CASES

# 3 examples per function and operator under the "ci" profile (about 300 x 3 calls on two targets: ~15 s of CPU)
EXAMPLES = settings(max_examples=max(3, settings.default.max_examples // 12))
TARGETS = [TARGET]


@pytest.mark.parametrize("name", COMPARED)
def test_function_outcomes_agree_on_cupy_on_numpy(name):
    fn = FUNCTIONS[name]
    values = name.rpartition(".")[2] not in S.SHAPES_AND_DTYPES_ONLY

    @EXAMPLES
    @given(S.calls(name, fn))
    def check(call):
        args, kwargs = call
        check_call(name, fn, args, kwargs, values=values, targets=TARGETS)

    check()


@pytest.mark.parametrize("op", [*BINARY_OPERATORS, *INPLACE, *UNARY])
def test_operator_outcomes_agree_on_cupy_on_numpy(op):
    from hypothesis import strategies as st

    if op in UNARY:
        fn = UNARY[op]

        @EXAMPLES
        @given(S.arrays(native_ok=False))
        def check_unary(x):
            check_call(op, fn, (x,), {}, targets=TARGETS)

        check_unary()
        return
    inplace = op in INPLACE
    raw = INPLACE[op] if inplace else BINARY_OPERATORS[op]
    fn = (lambda x, y: (raw(x, y), x)) if inplace else raw  # in place: the result and x itself after the write

    @EXAMPLES
    @given(S.arrays(native_ok=False), st.data())
    def check(x, data):
        y = data.draw(S.operand(x))
        check_call(f"x {op} y", fn, (x, y), {}, targets=TARGETS)
        if not inplace and not isinstance(y, S.ArraySpec):
            check_call(f"y {op} x", lambda a, b: raw(b, a), (x, y), {}, targets=TARGETS)

    check()


@pytest.mark.parametrize("case, fn, args, kwargs, expected", CASES, ids=[c[0] for c in CASES])
def test_listed_case_is_the_same_on_cupy_on_numpy(case, fn, args, kwargs, expected):
    check_call(case, fn, args, kwargs, targets=TARGETS)


assert operator  # (the operator tables come from tests/test_parity.py)
