"""The outcome-parity generator on CuPy on NumPy (tests/fakecupy.py): CupyBackend's own code, with CuPy's observed
kernel behaviour, against NumPy on the CPU (issue 28: most of what broke on the GPU broke in code CI never ran).

Few examples per function (CuPy on NumPy adds one NumPy-speed target to each call; ``EXAMPLES`` below), every public
function and operator, and every listed case of tests/test_parity_cases.py. A disagreement here is a CuPy fix that is
missing or wrong (or a quirk tests/fakecupy.py models wrongly: its docstrings cite where each comes from).
"""

from __future__ import annotations

from hypothesis import settings

from fakecupy import TARGET
from parity_on_target import suite_on

# 3 examples per function and operator under the "ci" profile (about 300 x 3 calls on two targets: ~15 s of CPU)
EXAMPLES = settings(max_examples=max(3, settings.default.max_examples // 12))

(test_function_outcomes_agree_on_cupy_on_numpy, test_operator_outcomes_agree_on_cupy_on_numpy,
 test_listed_case_is_the_same_on_cupy_on_numpy) = suite_on([TARGET], EXAMPLES)  # fmt: skip
