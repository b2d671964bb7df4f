"""The outcome-parity generator on Cubed: every public function and operator, and every listed case of
tests/test_parity_cases.py, on the ``cubed-cpu`` target against NumPy on the CPU (tests/parity_on_target.py; Cubed's
target is opt-in for the other suites, so this module is what CI runs of it).

Few examples per function (each Cubed call plans and stores its result; ``EXAMPLES`` below). Cubed's declared
refusals (``capabilities()["refusals"]``: shapes that depend on values) are errors where NumPy returns values, so the
functions that always refuse are left out (:data:`REFUSED`) and a call refused for its key is not a disagreement.
"""

from __future__ import annotations

import pytest
from hypothesis import settings

from _parity import check_call
from parity_on_target import suite_on
from xbackend.testing import Target

pytest.importorskip("cubed")

# 2 examples per function and operator under the "ci" profile (about 300 x 2 calls on two targets)
EXAMPLES = settings(max_examples=max(2, settings.default.max_examples // 20), deadline=None)
#: functions whose result's shape depends on the values: refused on Cubed (tests/test_cubed.py checks the refusal)
REFUSED = frozenset({"nonzero", "unique_all", "unique_counts", "unique_inverse", "unique_values"})


def _check(name, fn, args, kwargs, **kw):
    """check_call, where Cubed's typed refusal of a key (a boolean mask, a negative step next to an index Array) is
    not a disagreement."""
    try:
        check_call(name, fn, args, kwargs, **kw)
    except AssertionError as exc:
        if "depends on the values" not in str(exc) and "next to an index Array" not in str(exc):
            raise


(test_function_outcomes_agree_on_cubed, test_operator_outcomes_agree_on_cubed,
 test_listed_case_is_the_same_on_cubed) = suite_on([Target("cubed", "cpu")], EXAMPLES, _check, REFUSED)  # fmt: skip
