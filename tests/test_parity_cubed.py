"""The outcome-parity generator on Cubed: every public function and operator, and every listed case of
tests/test_parity_cases.py, on the ``cubed-cpu`` target against NumPy on the CPU (the same generator as
tests/test_parity.py; Cubed's target is opt-in for the other suites, so this module is what CI runs of it).

Few examples per function (each Cubed call plans and stores its result; ``EXAMPLES`` below). Cubed's declared
refusals (``capabilities()["refusals"]``: shapes that depend on values) are errors where NumPy returns values, so the
functions that always refuse are left out (:data:`REFUSED`) and a call refused for its key is not a disagreement.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

import parity_specs as S
from _parity import check_call
from test_parity import BINARY_OPERATORS, COMPARED, FUNCTIONS, INPLACE, UNARY
from test_parity_cases import CASES
from xbackend.testing import Target

pytest.importorskip("cubed")

# 2 examples per function and operator under the "ci" profile (about 300 x 2 calls on two targets)
EXAMPLES = settings(max_examples=max(2, settings.default.max_examples // 20), deadline=None)
TARGETS = [Target("cubed", "cpu")]
#: functions whose result's shape depends on the values: refused on Cubed (tests/test_cubed.py checks the refusal)
REFUSED = frozenset({"nonzero", "unique_all", "unique_counts", "unique_inverse", "unique_values"})


def _check(name, fn, args, kwargs, **kw):
    try:
        check_call(name, fn, args, kwargs, targets=TARGETS, **kw)
    except AssertionError as exc:
        if "depends on the values" not in str(exc) and "next to an index Array" not in str(exc):
            raise


@pytest.mark.parametrize("name", [n for n in COMPARED if n.rpartition(".")[2] not in REFUSED])
def test_function_outcomes_agree_on_cubed(name):
    fn = FUNCTIONS[name]
    values = name.rpartition(".")[2] not in S.SHAPES_AND_DTYPES_ONLY

    @EXAMPLES
    @given(S.calls(name, fn))
    def check(call):
        args, kwargs = call
        _check(name, fn, args, kwargs, values=values)

    check()


@pytest.mark.parametrize("op", [*BINARY_OPERATORS, *INPLACE, *UNARY])
def test_operator_outcomes_agree_on_cubed(op):
    if op in UNARY:
        fn = UNARY[op]

        @EXAMPLES
        @given(S.arrays(native_ok=False))
        def check_unary(x):
            _check(op, fn, (x,), {})

        check_unary()
        return
    inplace = op in INPLACE
    raw = INPLACE[op] if inplace else BINARY_OPERATORS[op]
    fn = (lambda x, y: (raw(x, y), x)) if inplace else raw  # in place: the result and x itself after the write

    @EXAMPLES
    @given(S.arrays(native_ok=False), st.data())
    def check(x, data):
        y = data.draw(S.operand(x))
        _check(f"x {op} y", fn, (x, y), {})
        if not inplace and not isinstance(y, S.ArraySpec):
            _check(f"y {op} x", lambda a, b: raw(b, a), (x, y), {})

    check()


@pytest.mark.parametrize("case, fn, args, kwargs, expected", CASES, ids=[c[0] for c in CASES])
def test_listed_case_is_the_same_on_cubed(case, fn, args, kwargs, expected):
    _check(case, fn, args, kwargs)
