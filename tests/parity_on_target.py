"""The parity generator's three tests on one extra target (CuPy on NumPy, Cubed): every public function, every
operator and every listed case of tests/test_parity_cases.py, against NumPy on the CPU, with few examples.

``tests/test_parity_<target>.py`` calls :func:`suite_on` and binds the three functions it returns to test names.
"""

from __future__ import annotations

from typing import Any, Callable

import pytest
from hypothesis import given, strategies as st

import parity_specs as S
from _parity import check_call
from test_parity import BINARY_OPERATORS, COMPARED, FUNCTIONS, INPLACE, UNARY
from test_parity_cases import CASES

__all__ = ["suite_on"]


def suite_on(targets: list[Any], examples: Any, check: Callable[..., None] = check_call,
             left_out: frozenset[str] = frozenset()) -> tuple[Callable[..., None], ...]:  # fmt: skip
    """(function test, operator test, listed-case test) on ``targets``; ``examples`` is the hypothesis settings,
    ``check`` runs one call (``check_call`` or a wrapper of it), ``left_out`` names functions the target refuses."""

    @pytest.mark.parametrize("name", [n for n in COMPARED if n.rpartition(".")[2] not in left_out])
    def function_outcomes_agree(name):
        fn = FUNCTIONS[name]
        values = name.rpartition(".")[2] not in S.SHAPES_AND_DTYPES_ONLY

        @examples
        @given(S.calls(name, fn))
        def one(call):
            args, kwargs = call
            check(name, fn, args, kwargs, values=values, targets=targets)

        one()

    @pytest.mark.parametrize("op", [*BINARY_OPERATORS, *INPLACE, *UNARY])
    def operator_outcomes_agree(op):
        if op in UNARY:
            fn = UNARY[op]

            @examples
            @given(S.arrays(native_ok=False))
            def one_unary(x):
                check(op, fn, (x,), {}, targets=targets)

            one_unary()
            return
        inplace = op in INPLACE
        raw = INPLACE[op] if inplace else BINARY_OPERATORS[op]
        fn = (lambda x, y: (raw(x, y), x)) if inplace else raw  # in place: the result and x itself after the write

        @examples
        @given(S.arrays(native_ok=False), st.data())
        def one(x, data):
            y = data.draw(S.operand(x))
            check(f"x {op} y", fn, (x, y), {}, targets=targets)
            if not inplace and not isinstance(y, S.ArraySpec):
                check(f"y {op} x", lambda a, b: raw(b, a), (x, y), {}, targets=targets)

        one()

    @pytest.mark.parametrize("case, fn, args, kwargs, expected", CASES, ids=[c[0] for c in CASES])
    def listed_case_is_the_same(case, fn, args, kwargs, expected):
        check(case, fn, args, kwargs, targets=targets)

    return function_outcomes_agree, operator_outcomes_agree, listed_case_is_the_same
